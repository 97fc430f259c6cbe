/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kreset.h - what the tests of resets the driver does not start share: a
 * Function Level Reset of a function through its sysfs `reset` (the PCI
 * core's pci_reset_function(), as an operator, a hypervisor or DPC would
 * reset it), a launch of the MLP on a file already attached, and a
 * buffer mapped and filled through the mapping.
 */
#ifndef IPU_TESTS_KRESET_H
#define IPU_TESTS_KRESET_H

#include "kpci.h"
#include "kemu.h"
#include "kprog.h"

#include <time.h>

/* A launch's bound only: a KASAN guest on TCG is slow. */
#define KR_WAIT_NS (60LL * 1000 * 1000 * 1000)

/* Reset @bdf through the PCI core (sysfs `reset`); returns once it is done. */
static inline void kr_flr(const char *bdf)
{
	char path[PATH_MAX];
	int err;

	fn_path(path, sizeof(path), bdf, "reset");
	err = kt_write_file(path, "1");
	if (err)
		fail_msg("write %s: %s", path, strerror(-err));
}

/*
 * @bdf's reset methods (its sysfs `reset_method`): "\n" leaves the PCI
 * core no way to reset the function (an FLR the driver asks for fails;
 * the newline because sysfs calls no store for a write of no bytes),
 * "default" restores them.
 */
static inline void kr_reset_methods(const char *bdf, const char *methods)
{
	char path[PATH_MAX];
	int err;

	fn_path(path, sizeof(path), bdf, "reset_method");
	err = kt_write_file(path, methods);
	if (err)
		fail_msg("write '%s' to %s: %s", methods, path, strerror(-err));
}

/*
 * RESET on @fd, attached to the first function, with its soft reset
 * ignored and no FLR possible: a reset of the driver's that fails.
 * Returns RESET's result; the reset methods stay refused.
 */
static inline int kr_failed_reset(int fd)
{
	struct ipu_reset r = { 0 };
	char methods[64];

	ke_fault(0, "ignore_reset=1");
	kr_reset_methods(ipus[0], "\n");
	/* None left, or the test would prove nothing. */
	fn_text(ipus[0], "reset_method", methods, sizeof(methods));
	assert_string_equal(methods, "");
	return kt_ioctl(fd, IPU_IOCTL_RESET, &r);
}

/* Teardown of a test that set faults on the first function. */
static inline int kr_clear_teardown(void **state)
{
	ke_fault(0, "clear");
	return kt_teardown(state);
}

/* Push the MLP's launch on attached @fd: its fence. */
static inline uint64_t kr_launch(int fd)
{
	struct kp_prog *p = kp_mlp(1);
	struct kp_raw x = { .fd = fd };

	kp_launch_bufs(fd, p->image, p->len, p->exe->arena_size, &x.l);
	kp_weights(p, 0, kp_raw_put_arena, &x);
	kp_free(p);
	x.l.fence = 0;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_LAUNCH, &x.l), 0);
	assert_true(x.l.fence != 0);
	return x.l.fence;
}

/* The status of the launch of @fence (WAIT itself must work). */
static inline int kr_wait(int fd, uint64_t fence)
{
	struct timespec now;
	int status;

	/* WAIT's timeout is an absolute CLOCK_MONOTONIC time. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	assert_int_equal(kt_wait_fence(fd, fence,
				       now.tv_sec * 1000000000LL + now.tv_nsec +
				       KR_WAIT_NS, &status), 0);
	return status;
}

/* The MLP launched on attached @fd and waited for: its status. */
static inline int kr_run(int fd)
{
	return kr_wait(fd, kr_launch(fd));
}

/* A buffer of @len bytes on @fd, mapped, filled with pattern @seed. */
static inline uint8_t *kr_mapped_bo(int fd, size_t len, uint32_t seed,
				    struct ipu_bo_create *bo)
{
	uint8_t *map;

	kt_bo(fd, len, bo);
	map = kt_mmap(len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      (off_t)bo->mmap_offset);
	assert_true(map != MAP_FAILED);
	kt_fill(map, len, seed);
	return map;
}

#endif /* IPU_TESTS_KRESET_H */
