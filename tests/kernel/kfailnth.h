/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfailnth.h - the kernel's fail-nth fault injection for the guest's tests
 * (Documentation/fault-injection): /proc/self/task/<tid>/fail-nth makes
 * the n-th allocation of the calling thread fail. Shared by test_enomem.c
 * (each UAPI operation) and test_pci_probe_enomem.c (a probe). Only the
 * debug kernel of the matrix has it; nth_open() says whether this one
 * does. The allocation failures' reports (warn_alloc) are expected
 * between kmsg("IPU-FAULT-INJECTION begin") and "... end" only
 * (scripts/kernel-check).
 */
#ifndef IPU_TESTS_KFAILNTH_H
#define IPU_TESTS_KFAILNTH_H

#include <sys/syscall.h>

#include "ktest.h"

/* This thread's fail-nth file, once nth_open() found it. */
static int nth_fd = -1;

/* Open this thread's fail-nth (once); false when the kernel has none. */
static inline bool nth_open(void)
{
	char path[64];

	if (nth_fd < 0) {
		snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
			 (long)syscall(SYS_gettid));
		nth_fd = open(path, O_RDWR | O_CLOEXEC);
	}
	return nth_fd >= 0;
}

/* Arm: the @n-th allocation of this thread from now on fails. */
static inline void nth_arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	assert_int_equal(pwrite(nth_fd, buf, (size_t)len, 0), len);
}

/* Disarm; true if the armed failure happened (the count reached 0). */
static inline bool nth_disarm(void)
{
	char buf[16] = { 0 };
	ssize_t k = pread(nth_fd, buf, sizeof(buf) - 1, 0);
	bool fired;

	fired = k > 0 && strtoul(buf, NULL, 10) == 0;
	assert_int_equal(pwrite(nth_fd, "0", 1, 0), 1);
	return fired;
}

/* @msg into the kernel log (the fault injection's marks). */
static inline void kmsg(const char *msg)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, msg, strlen(msg)) < 0)
			print_message("write /dev/kmsg: %s\n", strerror(errno));
		close(fd);
	}
}

#endif /* IPU_TESTS_KFAILNTH_H */
