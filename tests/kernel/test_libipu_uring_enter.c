// SPDX-License-Identifier: GPL-2.0
/*
 * test_libipu_uring_enter.c - libipu's kernel queue when io_uring_enter()
 * fails at submission (issue 9.2): the batch fails as a whole (no
 * "success" with its commands left in the SQ ring for a later
 * io_uring_enter() to submit behind the caller's back), nothing of it
 * runs, and the queue works again once the ring can be entered.
 *
 * The failure is real: for the length of one ipu_queue_submit(), the
 * ring's file descriptor number is made to refer to /dev/null (dup2), so
 * that io_uring_enter() on it fails with EOPNOTSUPP; then the ring's file
 * is put back under the same number.
 */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "../../userspace/ipu/internal.h"
#include "kprog.h"
#include "ksimd.h"

#define LEN 4096

/* The io_uring fds of the process into @fds (at most @max); how many. */
static int uring_fds(int *fds, int max)
{
	char path[300], link[64];
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	ssize_t len;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) && n < max) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (!strcmp(link, "anon_inode:[io_uring]"))
			fds[n++] = atoi(e->d_name);
	}
	closedir(d);
	return n;
}

/* The ring fd of a queue made now on @dev (one not there before). */
static struct ipu_queue *queue_and_ring(struct ipu_device *dev, int *ringfd)
{
	int before[64], after[64], nb, na, i, j;
	struct ipu_queue *q;

	nb = uring_fds(before, 64);
	q = kt_queue(dev, 8);
	na = uring_fds(after, 64);
	*ringfd = -1;
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && before[j] != after[i]; j++)
			;
		if (j == nb)
			*ringfd = after[i];
	}
	if (*ringfd < 0)
		fail_msg("the queue has no io_uring ring (%d before, %d after)",
			 nb, na);
	return q;
}

static void xfer_cmd(struct ipu_cmd *cmd, struct ipu_bo *bo, void *host,
		     uint32_t dir, uint64_t tag)
{
	struct ipu_xfer_desc x = { .bo = bo, .bo_offset = 0, .host = host,
				   .length = LEN, .dir = dir };

	ipu_cmd_prep_xfer(cmd, &x, tag);
}

static void test_a_failed_io_uring_enter_fails_the_batch(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo = kp_bo(dev, LEN);
	uint8_t *a = kt_alloc(LEN), *b = kt_alloc(LEN);
	struct ipu_completion c[2];
	struct ipu_cmd cmds[2];
	int ringfd, saved, nul, err;
	struct ipu_queue *q;
	char msg[256];

	(void)state;
	q = queue_and_ring(dev, &ringfd);
	/* The BO holds pattern 1. */
	kt_fill(a, LEN, 1);
	xfer_cmd(&cmds[0], bo, a, IPU_XFER_DIR_TO_DEVICE, 1);
	assert_int_equal(ipu_queue_submit(q, cmds, 1), 0);
	assert_int_equal(kp_reap(q, 1, msg, sizeof(msg)), 0);

	/* A batch writing pattern 2, submitted while the ring is away. */
	kt_fill(a, LEN, 2);
	xfer_cmd(&cmds[0], bo, a, IPU_XFER_DIR_TO_DEVICE, 2);
	cmds[0].flags = IPU_CMD_F_LINK;
	xfer_cmd(&cmds[1], bo, b, IPU_XFER_DIR_FROM_DEVICE, 3);
	saved = dup(ringfd);
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	assert_true(saved >= 0 && nul >= 0);
	assert_int_equal(dup2(nul, ringfd), ringfd);
	err = ipu_queue_submit(q, cmds, 2);
	assert_int_equal(dup2(saved, ringfd), ringfd);
	close(saved);
	close(nul);
	if (err != -EOPNOTSUPP)
		fail_msg("submitting while io_uring_enter() fails: %d (%s), want -EOPNOTSUPP",
			 err, err ? ipu_errmsg() : "reported success");
	if (!strstr(ipu_errmsg(), "io_uring_enter() failed"))
		fail_msg("message: %s", ipu_errmsg());
	/* Nothing of it is in flight: no completion will ever come. */
	assert_int_equal(ipu_queue_reap(q, c, 2, 0, 0), 0);
	assert_int_equal(ipu_queue_reap(q, c, 2, 1, 0), -EINVAL);

	/* The queue works again, and the failed batch never ran: the
	 * next io_uring_enter() did not submit it behind our back. */
	memset(b, 0, LEN);
	xfer_cmd(&cmds[0], bo, b, IPU_XFER_DIR_FROM_DEVICE, 4);
	assert_int_equal(ipu_queue_submit(q, cmds, 1), 0);
	assert_int_equal(kp_reap(q, 1, msg, sizeof(msg)), 0);
	assert_pattern(b, LEN, 1);
	kt_fill(a, LEN, 3);
	xfer_cmd(&cmds[0], bo, a, IPU_XFER_DIR_TO_DEVICE, 5);
	cmds[0].flags = IPU_CMD_F_LINK;
	xfer_cmd(&cmds[1], bo, b, IPU_XFER_DIR_FROM_DEVICE, 6);
	assert_int_equal(ipu_queue_submit(q, cmds, 2), 0);
	assert_int_equal(kp_reap(q, 2, msg, sizeof(msg)), 0);
	assert_pattern(b, LEN, 3);
	kt_queue_destroy(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_a_failed_io_uring_enter_fails_the_batch),
	};

	return KT_RUN(tests);
}
