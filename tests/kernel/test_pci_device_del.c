// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_device_del.c - QEMU's own hot-unplug of a PCIe IPU in use:
 * device_del through the monitor (the rig's hot-plug relay, krelay.h)
 * presses the slot's attention button, the guest's pciehp removes the
 * function after its 5 s and powers the slot off, and QEMU deletes the
 * device; device_add plugs it back and pciehp probes it. On the rig's MSI
 * function (the only kind the rig's QEMU can unplug: it aborts when it
 * finalizes an unplugged vfio-user-pci device with MSI-X, see
 * scripts/lib/emu-rig.sh):
 *  - with the function in use (kinuse.h: files open, a mapping being
 *    written, a transfer stalled, a launch held), device_del: the same
 *    as the PCI core's removal of test_pci_hotplug (-ENODEV, SIGBUS,
 *    nothing pinned, the function gone); device_add: probed again at the
 *    same address, the DMA API as before, a transfer and a launch work;
 *  - the relay passes on nothing else: another device, another command,
 *    a device_add of a device plugged, an overlong line are refused with
 *    an error, and the function is still there.
 * One unplug per boot: pciehp's attention button costs 5 s each.
 * Skipped without PCI IPUs, an MSI one, ipu-emu's control port or the
 * relay's port; the unplug also on a kernel with lockdep (below).
 */
#include "kinuse.h"
#include "krelay.h"

/* The unplugged function's rig index, to plug back after a failed test. */
static int unplugged = -1;

/*
 * Skip on a kernel with lockdep (the debug kernel, 6.1): its pciehp trips
 * lockdep on every unplug of a bound function, whoever the driver is.
 * pciehp_unconfigure_device() takes pci_rescan_remove_lock under the
 * slot's reset_lock, then drops and takes reset_lock again for each
 * function under pci_rescan_remove_lock: "possible circular locking
 * dependency", a false positive (one pciehp_ist() per slot; Lukas Wunner,
 * LKML 2023-10-15, "Re: pciehp lockdep possible circular locking
 * dependency"). Lockdep then turns itself off for the rest of the boot,
 * blinding it for every later test, and fails kernel-check's dmesg check.
 * IPU_DEVICE_DEL_ON_LOCKDEP=1 (the guest's command line) runs it anyway,
 * to see that KASAN and kmemleak find nothing there.
 */
#define skip_on_lockdep()                                                 \
	do {                                                              \
		if (!access("/proc/lockdep", F_OK) &&                     \
		    !getenv("IPU_DEVICE_DEL_ON_LOCKDEP")) {               \
			print_message("a kernel with lockdep: its pciehp's unplug trips a lockdep false positive that turns lockdep off for the rest of the suite: skipped\n"); \
			kt_skip();                                        \
		}                                                         \
	} while (0)

static void test_device_del_with_files_open_and_mappings_live(void **state)
{
	struct ku_in_use u;
	unsigned int fn, n;

	(void)state;
	fn = kp_msi_fn();
	ke_require();
	kr_require();
	skip_on_lockdep();
	ku_in_use(&u, fn);

	unplugged = (int)fn;
	kr_del(fn);
	ku_assert_gone(&u, "after device_del");

	/* Plugged back: the model's next client, at the same address. */
	ke_fault(fn, "clear");
	n = kr_add(fn, u.bdf);
	unplugged = -1;
	ku_assert_back(&u, n, "after device_add");
}

/* Ask the relay @line; it must answer an error, and QEMU keep @fn. */
static void refused(const char *line, unsigned int fn)
{
	char ans[512];
	int err = kr_ask(line, ans, sizeof(ans));

	if (err != -EINVAL)
		fail_msg("hotplug-relay: \"%.*s\": %s \"%s\"", (int)strcspn(line, "\n"),
			 line, err ? strerror(-err) : "answered", err ? "" : ans);
	assert_true(!strncmp(ans, "error: ", 7));
	assert_true(ipu_of(ipus[fn]) >= 0);
}

static void test_relay_refuses_what_the_rig_did_not_name(void **state)
{
	char line[1024], want[64];
	unsigned int fn, i;

	(void)state;
	fn = kp_msi_fn();
	kr_require();
	/* The rig's other functions (MSI-X: QEMU would abort), others' ids. */
	for (i = 0; i < nr_ipus; i++) {
		if (kp_is_msi(i))
			continue;
		snprintf(line, sizeof(line), "device_del ipu%u\n", i);
		refused(line, fn);
	}
	refused("device_del vser\n", fn);
	refused("device_del rp1\n", fn);
	/* Any other command, or arguments the rig did not give. */
	refused("quit\n", fn);
	refused("{\"execute\":\"quit\"}\n", fn);
	snprintf(line, sizeof(line), "device_del ipu%u now\n", fn);
	refused(line, fn);
	snprintf(line, sizeof(line), "device_add ipu%u,bus=pcie.0\n", fn);
	refused(line, fn);
	/* Plugged already. */
	snprintf(line, sizeof(line), "device_add ipu%u\n", fn);
	refused(line, fn);
	/* A line longer than a request: one error, and the next line is heard. */
	memset(line, 'x', sizeof(line) - 2);
	line[sizeof(line) - 2] = '\n';
	line[sizeof(line) - 1] = '\0';
	refused(line, fn);
	snprintf(want, sizeof(want), "device_add ipu%u\n", fn);
	refused(want, fn);
}

/* A test that failed after device_del still leaves the function plugged. */
static int plug_back_teardown(void **state)
{
	char ans[512];

	kt_cleanup();
	if (unplugged >= 0) {
		if (ke_fd >= 0)
			ke_send("fault", (unsigned int)unplugged, "clear", ans, sizeof(ans));
		if (kr_fd >= 0)
			kr_request("device_add", (unsigned int)unplugged, ans, sizeof(ans));
		unplugged = -1;
	}
	return kt_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_relay_refuses_what_the_rig_did_not_name),
		cmocka_unit_test_teardown(test_device_del_with_files_open_and_mappings_live,
					  plug_back_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
