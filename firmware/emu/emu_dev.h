/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * emu_dev.h - the PCIe IPU device model, as its transport sees it.
 *
 * ipu-emu is two halves that meet here:
 *  - the device (emu_dev_*.c): config space, BAR0 registers, BAR2 device
 *    memory, the DMA queues, the command queue, firmware boot, reset,
 *    telemetry and fault injection, exactly as docs/hardware.md specifies;
 *  - the transport (vfio_user*.c): a vfio-user server that carries a QEMU
 *    guest's config-space and BAR0 accesses to the device, hands the
 *    device the guest's DMA mappings and the MSI-X (or MSI) eventfds, and maps BAR2
 *    into the guest directly.
 * Neither half knows how the other works; a unit test can drive a device
 * without a socket, and a transport test can serve a test double.
 *
 * Threads: the transport calls every emu_dev_* function from one thread per
 * device (its message loop). The device may call the host ops from any of
 * its own threads (DMA queues, command queue), concurrently; the transport
 * makes them thread-safe. Every function returns 0 or a negative errno.
 */
#ifndef IPU_EMU_DEV_H
#define IPU_EMU_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipu/hw.h"	/* IPU_STOP_TIMEOUT_MS */

struct emu_dev;

/* Size of PCI Express configuration space (standard + extended). */
#define EMU_CFG_SIZE		4096u
/* BARs of a PCI function. */
#define EMU_NUM_BARS		6u

/**
 * struct emu_host_ops - what the device asks of its transport.
 * @dma_read: copy @len bytes at bus address @addr of the host (the guest's
 *	RAM, through the DMA mappings the host granted) into @dst. Returns
 *	-EFAULT when any byte lies outside every mapping (an IOMMU fault on
 *	real hardware) and copies nothing then.
 * @dma_write: the same, from @src to the host. Both may take their time
 *	(a client that answers DMA_READ/DMA_WRITE messages): the device
 *	never calls them holding its lock.
 * @irq: raise MSI-X vector (or MSI message) @vector. Returns -ENOENT when the host has not
 *	given that vector an eventfd (the interrupt is lost, as a masked
 *	vector with no pending bit handling would be). Called with the
 *	device's lock held: it must not block.
 * @ctx: passed back to every op.
 */
struct emu_host_ops {
	int (*dma_read)(void *ctx, uint64_t addr, void *dst, size_t len);
	int (*dma_write)(void *ctx, uint64_t addr, const void *src, size_t len);
	int (*irq)(void *ctx, unsigned int vector);
	void *ctx;
};

/**
 * struct emu_dev_opts - one device's construction parameters.
 * @index: the device's index within its process (replica groups span the
 *	devices one process serves, as IPU-Links would).
 * @mem_size: bytes of device memory (BAR2); a power of two, as BARs are.
 * @serial: Device Serial Number (the DSN extended capability).
 * @faults: fault-injection spec given on the command line, or NULL
 *	(syntax in emu_dev_fault()).
 * @msi: present an MSI capability instead of MSI-X (docs/hardware.md
 *	sections 1.2 and 6).
 * @lenient: EMU_LENIENT_* bits: strict behaviours turned off (0: all on).
 * @posted_window_us: register writes are posted (ipu-emu
 *	--posted-window-us): a queue or gather ring disable, a soft reset and
 *	a firmware boot finish this long after the write returned, and
 *	descriptors already fetched may complete meanwhile. 0 (as a
 *	zero-initialised struct has it): the effect is complete when
 *	emu_dev_bar_write() returns (spec v1).
 * @posted_window_rand: each write's window is drawn uniformly from
 *	[0, @posted_window_us] instead.
 */
struct emu_dev_opts {
	unsigned int index;
	uint64_t mem_size;
	uint64_t serial;
	const char *faults;
	bool msi;
	unsigned int lenient;
	uint32_t posted_window_us;
	bool posted_window_rand;
};

/*
 * Strict behaviours `ipu-emu --lenient NAME[,NAME...]` turns off, to find
 * which one a failure needs (the names: emu_lenient_parse()).
 * EMU_LENIENT_BME ("bme"): v1's bus mastering. BME gates only the data
 * of DMA descriptors (E_NO_MASTER); descriptor fetches, status words,
 * writebacks, the gather ring and interrupt messages ignore it, and an
 * FLR writes E_RESET into the status words in flight.
 */
#define EMU_LENIENT_BME		(1u << 0)

/**
 * emu_lenient_parse() - the bits of a comma-separated list of names
 * ("bme") into *@mask. -EINVAL on an unknown or empty name, *@mask
 * unchanged then.
 */
int emu_lenient_parse(const char *names, unsigned int *mask);

/*
 * The largest posted window, and the window ipu-emu uses without the
 * option (strict: silicon never completes a stop before the write). The
 * largest is half of IPU_STOP_TIMEOUT_MS: the spec promises a stop within
 * that bound, measured by the host from its write, and a model whose
 * window were the whole bound would, with its own work and the host's
 * scheduling on top, finish late and be taken for hung (late_completion
 * uses the whole window).
 */
#define EMU_POSTED_WINDOW_MAX_US	(IPU_STOP_TIMEOUT_MS * 1000u / 2)
#define EMU_POSTED_WINDOW_DEFAULT_US	200u

/**
 * emu_dev_posted_window_parse() - "N" or "rand:N", N in
 * 0..EMU_POSTED_WINDOW_MAX_US, into @o's posted_window_us and
 * posted_window_rand. -EINVAL (and @o unchanged) on anything else.
 */
int emu_dev_posted_window_parse(const char *s, struct emu_dev_opts *o);

/**
 * struct emu_region - one BAR as the transport exports it.
 * @size: bytes; 0 for an unimplemented BAR.
 * @mmap_fd: a file descriptor the transport may hand to the client so it
 *	maps the region directly (BAR2: a memfd), or -1 when every access
 *	must trap into emu_dev_bar_read()/emu_dev_bar_write() (BAR0). Owned
 *	by the device; the transport dups it if it needs it longer.
 * @mmap_offset: offset of the region in @mmap_fd.
 * @prefetchable: the BAR is marked prefetchable.
 * @is_64bit: the BAR is a 64-bit memory BAR (it uses the next BAR slot).
 */
struct emu_region {
	uint64_t size;
	int mmap_fd;
	uint64_t mmap_offset;
	bool prefetchable;
	bool is_64bit;
};

/** emu_dev_create() - make a device in its power-on reset state. */
int emu_dev_create(const struct emu_dev_opts *opts,
		   const struct emu_host_ops *host, struct emu_dev **out);
/** emu_dev_destroy() - stop every queue (in-flight work is dropped) and free. */
void emu_dev_destroy(struct emu_dev *dev);

/**
 * emu_dev_cfg_read() / emu_dev_cfg_write() - config space access.
 * @off + @len must lie within EMU_CFG_SIZE (-EINVAL otherwise); writes
 * honour each register's writable bits (read-only bits keep their value).
 */
int emu_dev_cfg_read(struct emu_dev *dev, uint32_t off, void *buf, uint32_t len);
int emu_dev_cfg_write(struct emu_dev *dev, uint32_t off, const void *buf,
		      uint32_t len);

/** emu_dev_region() - describe BAR @bar (0..EMU_NUM_BARS-1). */
int emu_dev_region(struct emu_dev *dev, unsigned int bar, struct emu_region *out);

/**
 * emu_dev_bar_read() / emu_dev_bar_write() - a trapped BAR access.
 * BAR0 registers take aligned 4- and 8-byte accesses; anything else is
 * -EINVAL (the transport reports it to the client as an error).
 * A write is posted: it is received in order (a later read sees it) and
 * returns without waiting for the work it starts or stops (@posted_window_us
 * of struct emu_dev_opts); a read is non-posted and synchronous.
 */
int emu_dev_bar_read(struct emu_dev *dev, unsigned int bar, uint64_t off,
		     void *buf, uint32_t len);
int emu_dev_bar_write(struct emu_dev *dev, unsigned int bar, uint64_t off,
		      const void *buf, uint32_t len);

/**
 * emu_dev_irq_vectors() - MSI-X vectors the device implements, or MSI
 * messages it is capable of (emu_dev_has_msi()).
 */
unsigned int emu_dev_irq_vectors(const struct emu_dev *dev);

/** emu_dev_has_msi() - the device presents MSI instead of MSI-X. */
bool emu_dev_has_msi(const struct emu_dev *dev);

/**
 * emu_dev_flr() - Function Level Reset (the client's DEVICE_RESET): the
 * Command register clears first, so every queue stops with its in-flight
 * work abandoned and nothing written to host memory (EMU_LENIENT_BME: the
 * spec's reset error in their status words, as v1), and the registers
 * return to their reset values; device memory is kept unless the spec
 * says otherwise.
 */
int emu_dev_flr(struct emu_dev *dev);

/**
 * emu_dev_client_lost() - the transport lost its client (the connection
 * closed, broke or timed out, or the transport dropped it) and has
 * dropped its DMA mappings and interrupts: stop every queue and the
 * gather ring, abandon the work in flight, unload the firmware, return
 * every register to its power-on value and give it new device memory
 * (zeros, in a memfd the last client never had: it may keep its mapping
 * of the old one), so that the next client finds the device as at
 * power-on and nothing of the last one runs on or is shared with it.
 * Injected faults stay (they are the operator's). Returns when the
 * device has stopped: 0, or -errno when no new memory could be made (the
 * old is zeroed then, but the last client may still map it: serve no
 * other client).
 */
int emu_dev_client_lost(struct emu_dev *dev);

/**
 * emu_dev_fault() - inject faults, from the command line or the control
 * socket. @spec is a comma-separated list of "name[=value]"; the names
 * and their meaning are in docs/hardware.md (Fault injection). Returns
 * -EINVAL on an unknown name or a bad value, changing nothing.
 */
int emu_dev_fault(struct emu_dev *dev, const char *spec);

/**
 * emu_dev_off_bus() - true once the device has "fallen off the bus" (a
 * fault): every read returns all ones and the transport closes the
 * client's socket.
 */
bool emu_dev_off_bus(const struct emu_dev *dev);

/**
 * emu_dev_stalled() - how many DMA descriptors the hang_dma fault holds
 * now: a test that stalls a transfer on purpose waits for this to be
 * non-zero (the device took the fault) before it removes the device, or
 * an armed fault the device never reached would stall a later transfer.
 */
unsigned int emu_dev_stalled(const struct emu_dev *dev);

/**
 * emu_dev_rings_enabled() - which rings STATUS says are enabled now: bit
 * q for queue q (IPU_QUEUE_*), bit IPU_NUM_QUEUES for the gather ring. A
 * test reads it after the driver let go of the device (unbind, removal):
 * a ring still enabled then may write memory the host has freed.
 */
unsigned int emu_dev_rings_enabled(struct emu_dev *dev);

/**
 * emu_dev_drops_client() - true once the transport must close the
 * client's socket: off the bus by the off_bus fault, not by link_down
 * (which keeps the socket and answers every access as a dead link would:
 * QEMU 11.1's vfio-user client aborts when its server closes the socket
 * under a running guest).
 */
bool emu_dev_drops_client(const struct emu_dev *dev);

#endif /* IPU_EMU_DEV_H */
