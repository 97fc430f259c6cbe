/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * info.h - what ipu-info knows about the IPUs of a machine, how it
 * gathers it and how it prints it.
 *
 * info_collect() fills a struct info_report from a root directory (sysfs
 * below ROOT/sys, processes below ROOT/proc, device nodes below ROOT/dev;
 * "/" on a real machine, a fake tree in the unit tests), libpci (pointed at
 * ROOT/sys/bus/pci) and, with --model, libipu's software model. Every
 * value carries whether it was read: an attribute that is missing,
 * unreadable or malformed is left unknown and printed as "-", and the
 * reason goes into the report's notes, so a normal user gets every field
 * they can read and is told which ones need root.
 */
#ifndef IPU_TOOLS_INFO_H
#define IPU_TOOLS_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../ipu/attr.h"

/* Version of the JSON document (docs/ipu-info.md); bump on any change
 * that an existing reader could misread (a removed or retyped member). */
#define INFO_JSON_VERSION 1

#define INFO_MAX_HOLDERS 8
#define INFO_MAX_NOTES 32
#define INFO_NOTE_LEN 160
#define INFO_NAME_LEN 128

/* The spec's placeholder IDs (docs/hardware.md section 1). */
#define INFO_PCI_VENDOR 0x1ffe
#define INFO_PCI_DEVICE 0x0100

/* A PCIe link: speed in GT/s * 10 (25 = 2.5 GT/s), width in lanes. */
struct info_link {
	bool known;
	unsigned int speed;
	unsigned int width;
};

struct info_bar {
	uint64_t base;
	uint64_t size;
	bool mem;		/* memory (else I/O) space */
	bool is64;
	bool prefetch;
};

/* One PCI function as libpci (and the PCI core's sysfs) shows it. */
struct info_pci {
	char addr[16];		/* "0000:01:00.0" */
	uint16_t vendor, device;
	uint16_t subvendor, subdevice;
	bool have_subsys;
	uint8_t revision;
	uint32_t class_code;	/* base << 16 | sub << 8 | prog-if */
	char vendor_name[INFO_NAME_LEN];
	char device_name[INFO_NAME_LEN];
	/* The names are not libpci's (pci.ids lacks them) but the spec's. */
	bool names_from_spec;
	char driver[64];	/* "" when no driver is bound */
	bool have_numa;
	int numa_node;
	struct info_link link_cur, link_max;
	/* Where the link came from: "config" (the PCIe capability) or
	 * "sysfs" (current_link_speed and friends: config space past 64
	 * bytes is root's). */
	const char *link_source;
	bool degraded;
	struct info_bar bars[6];
	bool have_msix;
	unsigned int msix_vectors;
	bool have_dsn;
	uint64_t dsn;
	/* Capability names in list order, "PM MSI-X PCIe DSN". */
	char caps[256];
	/* Config space could be read past the first 64 bytes (root). */
	bool config_full;
};

/* What ipu.ko's /proc/PID/fdinfo/FD says of one process's open files of
 * an IPU (DRM key convention: driver/ipu_fdinfo.c), summed over them. */
struct info_usage {
	unsigned int files;	/* fds of the IPU with readable fdinfo */
	uint64_t buffers;	/* ipu-buffers */
	uint64_t bytes;		/* drm-total-memory */
	uint64_t launch_ns;	/* drm-engine-launch */
	uint64_t xfer_ns;	/* drm-engine-xfer */
	unsigned int owner_files;	/* ipu-role: owner (attached) */
	unsigned int fw_files;	/* ipu-role: firmware (ipu-simd) */
	unsigned int roles;	/* files whose fdinfo had ipu-role */
};

struct info_holder {
	int pid;
	char comm[32];
	/* The fdinfo of at least one of its fds had ipu.ko's keys. */
	bool have_usage;
	struct info_usage usage;
};

/* One IPU: /dev/ipuN of ipu.ko, or IPU N of the software model. */
struct info_ipu {
	unsigned int index;
	char node[64];		/* "/dev/ipu0"; "model:3" for the model */
	char platform[16];	/* "sim", "pci", "model" or what sysfs says */
	bool model;

	bool have_pci;
	struct info_pci pci;

	bool have_fw;
	char firmware[32];	/* "1.2.3" */
	bool have_serial;
	uint64_t serial;
	bool have_mem_total, have_mem_used;
	uint64_t mem_total, mem_used;
	bool have_resets;
	uint64_t resets;
	/* Device-memory errors (the PCI function's sysfs mem_errors_*). */
	bool have_mem_errors;
	uint64_t mem_ce, mem_ue;
	/* Busy share of the launch engine between two --watch samples, of
	 * the holders whose fdinfo was readable (info_usage_rates()). */
	bool have_util;
	double util_pct;
	bool have_owner;
	int owner_pid;		/* 0: not attached */
	char owner_comm[32];
	bool have_temp, have_power;
	long long temp_mc;	/* millidegrees Celsius (hwmon temp1_input) */
	long long power_uw;	/* microwatts (hwmon power1_input) */

	/* Processes with the node open (/proc/PID/fd); complete only as
	 * root: another user's fds are not readable. */
	bool have_holders;
	size_t nholders;	/* may exceed INFO_MAX_HOLDERS */
	struct info_holder holders[INFO_MAX_HOLDERS];

	/* GET_INFO on the node (or ipu_device_query() for the model). */
	bool have_ioctl;
	uint32_t api_version;
	uint64_t features;	/* IPU_FEATURE_* (the model: IPU_DEVICE_CAP_*) */
	uint32_t mem_page_size;
};

struct info_report {
	char root[256];
	size_t nipus;
	struct info_ipu *ipus;
	/* Functions with an IPU's IDs that no ipu.ko device stands for. */
	size_t nunbound;
	struct info_pci *unbound;
	bool pci_scanned;	/* libpci could scan the bus */
	size_t nnotes;
	char notes[INFO_MAX_NOTES][INFO_NOTE_LEN];
};

/* Flags of info_collect(). */
#define INFO_MODEL	(1u << 0) /* also the software model's IPUs */
#define INFO_NO_PCI	(1u << 1) /* leave libpci out */

/*
 * info_collect() - gather everything readable below @root ("/" for this
 * machine). Fills @rep (which the caller frees with info_report_free()).
 * Return 0, or -ENOMEM; unreadable things are notes, not errors.
 */
int info_collect(const char *root, unsigned int flags,
		 struct info_report *rep);
void info_report_free(struct info_report *rep);

/* A note for the report's readers (printf-style); extra ones are dropped. */
void info_note(struct info_report *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Pieces of info_collect(), each in its own file. */
int info_pci_collect(struct info_report *rep, const char *root);
void info_proc_holders(struct info_report *rep, const char *root);
/* Parse one fdinfo text into @u (adding to it); false when it is not
 * ipu.ko's (no "drm-driver: ipu"). */
bool info_fdinfo_parse(const char *text, struct info_usage *u);
/* "owner", "firmware" or "none": the role of @u's files, the owner's
 * first; NULL when the fdinfo had no ipu-role (an older ipu.ko). */
const char *info_usage_role(const struct info_usage *u);
/* The launch engine time of @ipu's holders, in ns (for utilisation). */
uint64_t info_launch_ns(const struct info_ipu *ipu);
void info_hwmon_read(struct info_report *rep, struct info_ipu *ipu,
		     const char *devdir);
int info_model_collect(struct info_report *rep);

/* Reading sysfs-like files: libipu's readers (../ipu/attr.h). */
/* snprintf() of a path: 0, or -ENAMETOOLONG with @buf "" (opens nothing). */
int info_path(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The spec's name of a vendor or device ID of ours, or NULL. */
const char *info_spec_vendor(uint16_t vendor);
const char *info_spec_device(uint16_t vendor, uint16_t device);

/* ipu-info --reset (info_reset.c): reset the IPU @name names (as
 * info_find(), or its PCI address) unless it is held and !@force; a
 * message on stderr says what happened. Return 0, 1 (no such IPU, the
 * reset failed), or INFO_RESET_HELD. */
#define INFO_RESET_HELD 4
int info_reset(const char *root, const char *name, bool force);

/* Output. @width: the terminal's columns (0: unlimited). */
void info_print_table(FILE *f, const struct info_report *rep,
		      unsigned int width);
/* Every detail of @ipu, one "key: value" line each. */
void info_print_details(FILE *f, const struct info_report *rep,
			const struct info_ipu *ipu);
/* ... of @p, a function with IPU IDs and no /dev/ipuN. */
void info_print_pci_details(FILE *f, const struct info_report *rep,
			    const struct info_pci *p);
/* The JSON document (docs/ipu-info.md): of everything, or with @ipu (or
 * @pci, an unbound function) of that alone. */
void info_print_json(FILE *f, const struct info_report *rep,
		     const struct info_ipu *ipu, const struct info_pci *pci);
/* @s as a JSON string, quoted, through the tools' escaper (json_str.h):
 * UTF-8 kept, controls escaped, bytes that are not UTF-8 U+FFFD, so the
 * output is valid JSON whatever a file held. */
void info_json_str(FILE *f, const char *s);
/* The IPU @name names: "N", "ipuN", "/dev/ipuN" or "model:N"; NULL if
 * the report has none such. */
const struct info_ipu *info_find(const struct info_report *rep,
				 const char *name);
/* The unbound function at @addr ("0000:01:00.0", or "01:00.0" in domain
 * 0), or NULL. */
const struct info_pci *info_find_unbound(const struct info_report *rep,
					 const char *addr);

/* "2.5", "16" for a speed in GT/s * 10. */
const char *info_speed_str(unsigned int speed, char *buf, size_t len);
/* "4.0 GiB" for bytes. */
const char *info_bytes_str(uint64_t bytes, char *buf, size_t len);
/* "250 ns", "1.5 ms", "2.0 s" for nanoseconds. */
const char *info_ns_str(uint64_t ns, char *buf, size_t len);
/* "16GT/s x16"; "2.5GT/s x1 of 16GT/s x16 DEGRADED"; "-". */
const char *info_link_str(const struct info_pci *p, char *buf, size_t len);
/* The owner (or first holder): "1234 mlp_train +1"; "-". */
const char *info_holder_str(const struct info_ipu *ipu, char *buf,
			    size_t len);
/* The name of feature bit @bit ("mmap"), NULL for a bit without one. */
const char *info_feature_name(const struct info_ipu *ipu, unsigned int bit);
/* The set feature bits as names, space-separated ("bit12" unnamed). */
const char *info_features_str(const struct info_ipu *ipu, char *buf,
			      size_t len);

#endif /* IPU_TOOLS_INFO_H */
