// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection: BAR0 reads all ones while a reset of the function is
 * under way, as on silicon (docs/hardware.md 9.2), so that the readers
 * the driver does not serialise with resets (hwmon, mem_errors_*, a
 * stalled transfer's liveness read) can be tested for what they make of
 * it. QEMU answers reads of a function whose memory decoding the PCI core
 * turned off with 0, so without this no guest ever sees the window.
 *
 * /sys/kernel/debug/ipu/ipuN/flr_reads_all_ones (root only): 0, the
 * default, is off; N > 0 makes every register read through
 * ipu_pci_readl() answer all ones from the end of reset_prepare to the
 * start of reset_done (the PCI core's FLR and the driver's own; AER's slot
 * and bus resets call neither, so they are not covered), and holds the
 * function there for at least N ms (at most IPU_PCI_FLR_DARK_MAX_MS), as
 * a function that takes long to come back from its FLR
 * (retrying config requests) would: long enough for the liveness read
 * of a stalled transfer (every second) to fall inside. flr_dark_reads
 * counts the reads answered so, for a test to know its readers met the
 * window.
 *
 * A plain debugfs knob, not the kernel's fault-injection framework:
 * Debian's 6.1, 6.12 and 7.3 kernels, which the driver is tested on,
 * build without CONFIG_FAULT_INJECTION. Off, it costs every read one
 * READ_ONCE() of a flag in the structure the read already uses.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/ktime.h>

#include "ipu_pci.h"

/*
 * The longest window: reset_done sleeps it out holding the device lock,
 * so a mistyped knob must not hold that for days.
 */
#define IPU_PCI_FLR_DARK_MAX_MS 10000

/**
 * ipu_pci_flr_dark_debugfs - the device's debugfs flr_reads_all_ones
 * @ipu: the device, registered (its debugfs directory exists)
 */
void ipu_pci_flr_dark_debugfs(struct ipu_pci *ipu)
{
	debugfs_create_u32("flr_reads_all_ones", 0600, ipu->idev.debugfs,
			   &ipu->flr_dark_ms);
	debugfs_create_atomic_t("flr_dark_reads", 0400, ipu->idev.debugfs,
				&ipu->flr_dark_reads);
}

/**
 * ipu_pci_flr_dark_begin - the reset starts: BAR0 goes dark if asked
 * @ipu: the device, at the end of reset_prepare (its own accesses done)
 */
void ipu_pci_flr_dark_begin(struct ipu_pci *ipu)
{
	if (!READ_ONCE(ipu->flr_dark_ms))
		return;
	ipu->flr_dark_since = ktime_get();
	/*
	 * ipu_pci_reset_begin()'s barrier came before: a reader that reads
	 * all ones here finds the reset counted.
	 */
	WRITE_ONCE(ipu->flr_dark, true);
}

/**
 * ipu_pci_flr_dark_end - the reset is over: BAR0 answers again
 * @ipu: the device, at the start of reset_done (before its accesses)
 *
 * Waits until the window has lasted the knob's milliseconds.
 */
void ipu_pci_flr_dark_end(struct ipu_pci *ipu)
{
	s64 left;

	if (!READ_ONCE(ipu->flr_dark))
		return;
	left = min_t(u32, READ_ONCE(ipu->flr_dark_ms), IPU_PCI_FLR_DARK_MAX_MS) -
	       ktime_ms_delta(ktime_get(), ipu->flr_dark_since);
	if (left > 0)
		msleep(left);
	/* Seen before the reset's end: ipu_pci_reset_end()'s barrier. */
	WRITE_ONCE(ipu->flr_dark, false);
}

/* A read inside the window: counted, and all ones as silicon answers. */
u32 ipu_pci_flr_dark_read(struct ipu_pci *ipu)
{
	atomic_inc(&ipu->flr_dark_reads);
	return ~0u;
}
