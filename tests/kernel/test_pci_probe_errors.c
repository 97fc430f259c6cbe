// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_probe_errors.c - each step of a PCIe IPU's probe, failed in
 * turn, leaves none of the function's rings enabled, and the function
 * binds again afterwards: devres frees the rings' memory once a probe has
 * failed, which the device must no longer reach (docs/hardware.md 2.1).
 *
 * The kernel's fail_function (Documentation/fault-injection) makes a
 * function marked ALLOW_ERROR_INJECTION() return an error instead of
 * running. ipu.ko marks its probe's steps (the function's enable, the
 * vectors, the firmware's region, read and boot, each queue's vector and
 * enable, the rings' memory, hwmon, the registration); each is failed at
 * its 1st, 2nd, ... call of a bind, until a bind no longer makes that
 * call. Unlike test_pci_probe_enomem's fail-nth, whose allocation failures
 * reach the kernel's own MSI-X setup (where 6.1 crashes on an error path
 * of its own), the failures stay in ipu.ko's code. Every marked function
 * must be reached by a bind: one the compiler inlined, or no probe calls,
 * would test nothing.
 *
 * Skipped without PCI IPUs, ipu-emu's control port or fail_function (the
 * matrix's debug kernel has it; Debian's kernels do not).
 */
#include "kemu.h"

#define FF "/sys/kernel/debug/fail_function"
/* More calls of one function than a probe makes: a loop here is stuck. */
#define MAX_CALLS 64
#define MAX_FNS 64

struct injectable {
	char name[64];
	bool null;	/* returns a pointer: fails with NULL, else -ENOMEM */
};

static bool armed;

/* Write @val to fail_function's file @name; 0 or -errno. */
static int ff_write(const char *name, const char *val)
{
	char path[160];

	snprintf(path, sizeof(path), FF "/%s", name);
	return kt_write_file(path, val);
}

static void ff_set(const char *name, const char *val)
{
	int err = ff_write(name, val);

	if (err)
		fail_msg(FF "/%s <- \"%s\": %s", name, val, strerror(-err));
}

/* ipu.ko's functions fail_function may fail, into @fns; how many. */
static size_t injectables(struct injectable *fns, size_t max)
{
	char line[256];
	size_t n = 0;
	FILE *f = fopen(FF "/injectable", "re");

	assert_non_null(f);
	while (n < max && fgets(line, sizeof(line), f)) {
		/* "name [module]\tTYPE" */
		size_t len = strcspn(line, " \t");

		if (!strstr(line, "[ipu]") || !len || len >= sizeof(fns[n].name))
			continue;
		memcpy(fns[n].name, line, len);
		fns[n].name[len] = '\0';
		fns[n].null = strstr(line, "\tNULL") != NULL;
		n++;
	}
	fclose(f);
	return n;
}

/* The @nth call of @fn from now on fails, once. */
static void arm(const struct injectable *fn, unsigned int nth)
{
	char path[160], val[32];

	ff_set("inject", fn->name);
	armed = true;
	if (!fn->null) {
		snprintf(path, sizeof(path), "%.63s/retval", fn->name);
		snprintf(val, sizeof(val), "%#llx",
			 (unsigned long long)(long long)-ENOMEM);
		ff_set(path, val);
	}
	ff_set("probability", "100");
	ff_set("interval", "1");
	/* Calls pass while space > 1, one less each: the nth fails. */
	snprintf(val, sizeof(val), "%u", nth);
	ff_set("space", val);
	ff_set("verbose", "1");
	ff_set("times", "1");
}

/* Disarm; true if the armed failure happened. */
static bool disarm(const struct injectable *fn)
{
	char times[16] = "", name[72];
	bool fired;

	assert_int_equal(kt_read_file(FF "/times", times, sizeof(times)), 0);
	fired = strtol(times, NULL, 10) == 0;
	snprintf(name, sizeof(name), "!%.63s", fn->name);
	ff_set("inject", name);
	armed = false;
	return fired;
}

static void test_each_failed_probe_step_leaves_no_ring_enabled(void **state)
{
	struct injectable fns[MAX_FNS];
	unsigned int nth, failed = 0, fellback = 0;
	size_t n, i;
	bool fired;
	int rings;

	(void)state;
	require_ipus();
	ke_require();
	if (access(FF "/inject", W_OK)) {
		print_message("no fail_function in this kernel: skipped\n");
		kt_skip();
	}
	n = injectables(fns, MAX_FNS);
	if (!n)
		fail_msg("ipu.ko marks no function ALLOW_ERROR_INJECTION()");
	kp_unbind(ipus[0]);
	assert_int_equal(ke_rings(0), 0);
	for (i = 0; i < n; i++) {
		for (nth = 1, fired = true; fired; nth++) {
			if (nth > MAX_CALLS)
				fail_msg("%s: a bind calls it more than %u times",
					 fns[i].name, MAX_CALLS);
			arm(&fns[i], nth);
			(void)kt_write_file(KT_PCI_DRIVER "/bind", ipus[0]);
			fired = disarm(&fns[i]);
			if (!fired) {
				/* No nth call: the bind went through. */
				if (nth == 1)
					fail_msg("%s: no bind calls it (inlined, or not a step of the probe?)",
						 fns[i].name);
				if (ipu_of(ipus[0]) < 0)
					fail_msg("%s: the bind after its failures does not probe",
						 fns[i].name);
				kp_unbind(ipus[0]);
				break;
			}
			if (ipu_of(ipus[0]) >= 0) {
				/* The failure had a fallback. */
				fellback++;
				kp_unbind(ipus[0]);
				continue;
			}
			failed++;
			rings = ke_rings(0);
			if (rings)
				fail_msg("the probe that failed at call %u of %s left rings %#x enabled",
					 nth, fns[i].name, rings);
		}
	}
	print_message("%zu functions, %u probes failed, %u went on without the failed call\n",
		      n, failed, fellback);
	kp_bind(ipus[0]);
}

/* Injection off, the function bound again. */
static int probe_teardown(void **state)
{
	if (armed) {
		/* Spaces alone clear every injection point. */
		if (ff_write("inject", " "))
			print_message("cannot clear " FF "/inject\n");
		armed = false;
	}
	if (nr_ipus && ipu_of(ipus[0]) < 0)
		(void)kt_write_file(KT_PCI_DRIVER "/bind", ipus[0]);
	return kt_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_each_failed_probe_step_leaves_no_ring_enabled,
					  probe_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
