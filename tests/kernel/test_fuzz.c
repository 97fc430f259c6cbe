// SPDX-License-Identifier: GPL-2.0
/*
 * test_fuzz.c - the UAPI fuzzer of ipu.ko: random sequences of every ioctl,
 * io_uring command and mmap() of include/uapi/linux/ipu.h with hostile
 * arguments, on a simulated IPU of its own, for a bounded time.
 *
 * Seeded: the seed is printed first ("fuzz: seed ..."); IPU_FUZZ_SEED=<seed>
 * replays the same choices (threads and processes race, so a replay makes
 * the same calls, not necessarily with the same outcome). Each sequence has
 * a seed of its own, printed with every violation: passing that one starts
 * the replay at that sequence. IPU_FUZZ_SKIP=<class>,... leaves classes of
 * operations out (enum fz_class), to find the one a failure needs.
 * IPU_FUZZ_SECONDS (default 20, on PCI 10) bounds how long it runs; it is
 * not a timing assertion (make kernel-soak runs it for minutes).
 *
 * The fuzzer aims writes only at memory it keeps for that purpose: its
 * host buffer (guarded above), read-only and PROT_NONE pages, kernel and
 * non-user addresses, and BO mappings that stay reserved while a command
 * may still use them (fz_release): never at its own live memory.
 *
 * A sequence opens files on the fuzz device (read-write and read-only), a
 * ring (SQE128 or not, with or without registered buffers), then makes a few
 * hundred calls: every ioctl with the struct v1-sized, smaller, larger with
 * a zero or non-zero tail, the wrong direction or number, in a read-only,
 * unmapped, NULL, kernel (0xffff888000000000) or straddling argument;
 * handles live, destroyed, of another file or made up; transfers from and to
 * unmapped, read-only, kernel, wrapping and device-memory (mmap()ed BO)
 * pointers with overflowing offsets and lengths; io_uring XFER and LAUNCH
 * with IOSQE_ASYNC, IOSQE_IO_LINK chains, registered buffers and bad
 * buf_index, malformed cmd_ops and payload tails; mmap() at any offset and
 * length, partial munmap() and mremap(); files and rings closed with
 * commands in flight. In some sequences a second thread RESETs, reads
 * sysfs, injects DMA and reset faults and deletes the device (del_device)
 * under the calls; in others a forked child drives the device and is
 * killed (SIGKILL) after a random number of its calls. The device's
 * firmware is a child process too (FW_ATTACH, FW_NEXT, FW_DONE with good
 * and kernel-internal statuses, writes into the arenas it runs, launches
 * left to time out), killed now and then.
 *
 * Invariants, checked after each sequence (and each call):
 *  - every errno is one the UAPI header documents for that call (the
 *    table fz_docs below, taken from include/uapi/linux/ipu.h; mmap() also
 *    gets mm's own EINVAL/ENOMEM/EOVERFLOW), and every call on a file of a
 *    removed device is -ENODEV;
 *  - launch results (WAIT's status, the CQE) are ones the header lists;
 *  - memory_used (sysfs) returns to its start once the sequence's files,
 *    mappings and rings are gone;
 *  - a fresh buffer object reads as zeros (right after BO_CREATE, and the
 *    whole device memory as one BO at the end of each sequence);
 *  - a firmware whose attachment was revoked cannot write device memory
 *    through its old mapping;
 *  - no new kernel log line with WARNING, BUG, a Call Trace, lockdep,
 *    KASAN, ... (read from /dev/kmsg; scripts/kernel-check scans the whole
 *    log as well).
 *
 * On PCI IPUs (test_pci_fuzz.c, KT_ON_PCI) the fuzz device is the first
 * PCI IPU (its 256 MiB of device memory and its command queue): the
 * removal is the unbind of its function from ipu.ko (bound again for the
 * next sequence), the chaos thread's faults are ipu-emu's (fail_dma=K,
 * ignore_reset=K: the driver falls back to FLR, and hold_launches on and
 * off) through its control port (kemu.h), and the firmware child's part
 * is the device's: launches run on its command queue, held for a while
 * through hold_launches where the child would stop answering (the
 * watchdog then resets the device). The fuzzer's own FW_* calls meet a
 * device without the firmware role (-EOPNOTSUPP, -ENOLINK).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>

#include "kuring.h"
#include "ksimd.h"

/*
 * The PCI variant's sequences are fewer a second (its zero check reads
 * 256 MiB of device memory over DMA): half the time, for make check's sake.
 */
#ifdef KT_ON_PCI
#define FZ_DEFAULT_SECONDS 10
#else
#define FZ_DEFAULT_SECONDS 20
#endif
#define FZ_MEM_MB	8		/* the fuzz device's memory */
#define FZ_TIMEOUT_MS	250		/* launch_timeout_ms while fuzzing */
#define FZ_NFD		4		/* files per sequence; the last read-only */
#define FZ_NBO		48		/* handles remembered per sequence */
#define FZ_NMAP		24		/* mappings held at once */
#define FZ_NFENCE	64		/* fences remembered */
#define FZ_HOST		(1u << 20)	/* host buffer of transfers */
/*
 * PROT_NONE above the host buffer, more than any BO: a transfer longer
 * than the buffer must fault there, never run on into other memory of
 * this process (libraries' data lie above it in the mmap area).
 */
#define FZ_GUARD	((uint64_t)2 * FZ_MEM_MB << 20)
#define FZ_MAX_REPORTS	30		/* violations printed in full */
#define FZ_KPTR		0xffff888000000000ull	/* the direct map */
/* Bounds of the waits at a sequence's end: a bug, not a slow guest. */
#define FZ_SETTLE_POLLS	6000		/* of 10 ms: 60 s */
#define FZ_RING_ENTRIES	32
/*
 * Address ranges of released mappings stay reserved (PROT_NONE) this long
 * while an io_uring command may still aim at them (fz_release), and at
 * most this many at once.
 */
#define FZ_QUARANTINE_NS (10ll * 1000000000ll)
#define FZ_NRETIRED	16384

/* ------------------------------------------------------------------------ */
/* Random numbers: splitmix64, one state per thread or process              */
/* ------------------------------------------------------------------------ */

static uint64_t fz_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t fz_below(uint64_t *s, uint64_t n)
{
	return n ? fz_next(s) % n : 0;
}

static bool fz_pct(uint64_t *s, unsigned int pct)
{
	return fz_below(s, 100) < pct;
}

/* ------------------------------------------------------------------------ */
/* What the UAPI header documents                                           */
/* ------------------------------------------------------------------------ */

enum fz_op {
	OP_GET_INFO,
	OP_ATTACH,
	OP_DETACH,
	OP_BO_CREATE,
	OP_BO_DESTROY,
	OP_BO_INFO,
	OP_XFER,
	OP_RESET,
	OP_LAUNCH,
	OP_WAIT,
	OP_FW_ATTACH,
	OP_FW_NEXT,
	OP_FW_DONE,
	OP_GATHER_NEXT,
	OP_GATHER_ANSWER,
	OP_MMAP,
	OP_URING_XFER,
	OP_URING_LAUNCH,
	OP_LAUNCH_RESULT,
	OP_SIM_CTL,
	OP_COUNT
};

/*
 * Errors every ioctl shares (the header's preamble): -ENOTTY, -EINVAL,
 * -E2BIG, -EFAULT, -ENOMEM, -ENODEV. io_uring commands: the same, as CQEs.
 */
static const int fz_common[] = { ENOTTY, EINVAL, E2BIG, EFAULT, ENOMEM, ENODEV };

/*
 * What a launch can end with (WAIT's status, a launch CQE): the header's
 * list, and what our firmware reports (fz_fw_status): ENOEXEC, EINVAL,
 * ERANGE, ENOMEM and EHWPOISON, the largest userspace errno.
 */
#define FZ_LAUNCH_RESULTS ETIMEDOUT, EIO, ECANCELED, ENODEV, ENOEXEC, EINVAL, \
	ERANGE, ENOMEM, EHWPOISON

static const struct fz_doc {
	const char *name;
	bool common;
	int errs[16];
} fz_docs[OP_COUNT] = {
	[OP_GET_INFO] = { "GET_INFO", true, { 0 } },
	[OP_ATTACH] = { "ATTACH", true, { EBUSY, EALREADY } },
	[OP_DETACH] = { "DETACH", true, { EACCES } },
	[OP_BO_CREATE] = { "BO_CREATE", true, { EACCES, ENOSPC } },
	[OP_BO_DESTROY] = { "BO_DESTROY", true, { ENOENT } },
	[OP_BO_INFO] = { "BO_INFO", true, { ENOENT } },
	[OP_XFER] = { "XFER", true, { EACCES, ENOENT, EIO, EINTR } },
	[OP_RESET] = { "RESET", true, { EACCES, EIO } },
	[OP_LAUNCH] = { "LAUNCH", true,
			{ EACCES, ENOENT, EUNATCH, EAGAIN, EOPNOTSUPP } },
	[OP_WAIT] = { "WAIT", true, { ENOENT, ETIME, EINTR } },
	[OP_FW_ATTACH] = { "FW_ATTACH", true,
			   { EPERM, EOPNOTSUPP, EBUSY, EALREADY } },
	[OP_FW_NEXT] = { "FW_NEXT", true, { ENOLINK, ETIME, EINTR } },
	[OP_FW_DONE] = { "FW_DONE", true, { ENOLINK, ENOENT } },
	[OP_GATHER_NEXT] = { "GATHER_NEXT", true, { EAGAIN } },
	[OP_GATHER_ANSWER] = { "GATHER_ANSWER", true, { ENOENT } },
	/* The header's, and mm's own for impossible ranges and offsets. */
	[OP_MMAP] = { "mmap", false,
		      { EACCES, EINVAL, ENODEV, ENOMEM, EOVERFLOW } },
	/* IOSQE_IO_LINK: a command after a failed one is -ECANCELED. */
	[OP_URING_XFER] = { "URING_XFER", true,
			    { EACCES, ENOENT, EIO, EINTR, ECANCELED } },
	[OP_URING_LAUNCH] = { "URING_LAUNCH", true,
			      { EACCES, ENOENT, EUNATCH, EAGAIN, EOPNOTSUPP,
				FZ_LAUNCH_RESULTS } },
	[OP_LAUNCH_RESULT] = { "launch result", false, { FZ_LAUNCH_RESULTS } },
	/* docs/sim-control.md */
	[OP_SIM_CTL] = { "new_device/del_device", false,
			 { EINVAL, ENODEV, ENOMEM } },
};

static bool fz_documented(enum fz_op op, int err)
{
	const struct fz_doc *d = &fz_docs[op];
	size_t i;

	if (d->common)
		for (i = 0; i < KT_ARRAY_SIZE(fz_common); i++)
			if (fz_common[i] == err)
				return true;
	for (i = 0; i < KT_ARRAY_SIZE(d->errs) && d->errs[i]; i++)
		if (d->errs[i] == err)
			return true;
	return false;
}

static const char *fz_errname(int ret)
{
	const char *n = ret < 0 ? strerrorname_np(-ret) : NULL;

	return n ? n : "?";
}

/*
 * Statuses our firmware reports: good ones, and ones FW_DONE must refuse
 * (positive: -EINVAL) or turn into -EIO (not a userspace errno).
 */
static const int fz_fw_status[] = {
	0, 0, 0, 0, -ENOEXEC, -EINVAL, -ERANGE, -ENOMEM, -EHWPOISON,
	5, -134, -512 /* ERESTARTSYS */, -529 /* EIOCBQUEUED */, -4095,
	INT32_MIN,
};

/*
 * The classes of operations a sequence draws from, with their share of the
 * draws (out of FZ_CLASS_DRAWS), and the two actors besides: the chaos
 * thread and the firmware child. IPU_FUZZ_SKIP=name,name... leaves classes
 * out, to find which one a failure needs (replay its seed with each class
 * left out in turn). A skipped class still takes its draw, so that the
 * others see the same choices as far as can be.
 */
enum fz_class {
	FC_INFO, FC_ATTACH, FC_DETACH, FC_BO_CREATE, FC_BO_DESTROY, FC_BO_INFO,
	FC_XFER, FC_RESET, FC_LAUNCH, FC_WAIT, FC_FW, FC_GATHER, FC_MMAP, FC_MAPS,
	FC_URING, FC_RING_CYCLE, FC_REOPEN, FC_FORK, FC_REAP,
	FC_CHAOS, FC_FIRMWARE, FC_COUNT
};

static const struct fz_class_def {
	const char *name;
	unsigned int draws;
} fz_classes[FC_COUNT] = {
	[FC_INFO] = { "info", 4 },		[FC_ATTACH] = { "attach", 4 },
	[FC_DETACH] = { "detach", 2 },		[FC_BO_CREATE] = { "bo_create", 14 },
	[FC_BO_DESTROY] = { "bo_destroy", 7 },	[FC_BO_INFO] = { "bo_info", 3 },
	[FC_XFER] = { "xfer", 16 },		[FC_RESET] = { "reset", 2 },
	[FC_LAUNCH] = { "launch", 8 },		[FC_WAIT] = { "wait", 7 },
	[FC_FW] = { "fw", 2 },			[FC_MMAP] = { "mmap", 10 },
	[FC_GATHER] = { "gather", 2 },
	[FC_MAPS] = { "maps", 5 },		[FC_URING] = { "uring", 22 },
	[FC_RING_CYCLE] = { "ring_cycle", 2 },	[FC_REOPEN] = { "reopen", 3 },
	[FC_FORK] = { "fork", 3 },		[FC_REAP] = { "reap", 6 },
	[FC_CHAOS] = { "chaos", 0 },		[FC_FIRMWARE] = { "firmware", 0 },
};
#define FZ_CLASS_DRAWS 120

/* ------------------------------------------------------------------------ */
/* State                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * A released mapping's range, kept reserved and inaccessible until no
 * command can aim at it any more (fz_release).
 */
struct fz_retired {
	uint8_t *addr;
	size_t len;
	int64_t at;		/* when it was released (CLOCK_MONOTONIC ns) */
};

struct fz_bo {
	int slot;		/* file it was created in */
	uint32_t handle;
	uint64_t size;
	uint64_t mmap_offset;
	bool live;
};

struct fz_map {
	uint8_t *addr;
	size_t len;
	int prot;
	bool fw;		/* the firmware's mapping, revocable */
};

struct fz_fence {
	int slot;
	uint64_t fence;
};

/* Kinds of io_uring commands in flight, in the top of user_data. */
enum { UD_XFER_TO = 1, UD_XFER_FROM, UD_LAUNCH };
#define UD_GONE (1ull << 48)	/* submitted on a removed device, well formed */
/*
 * Submitted on a file closed right after: io_uring resolves the fd of a
 * command it issues later (IOSQE_ASYNC, a link) then, and gets -EBADF.
 */
#define UD_CLOSING (1ull << 49)
/*
 * The file slot of a command and its close generation: io_uring looks the
 * fd up when it issues the command, so a command whose fd was closed (and
 * maybe reused by a pipe) meanwhile gets io_uring's -EBADF or
 * -EOPNOTSUPP, not the driver's errno.
 */
#define UD_SLOT_SHIFT 50
#define UD_GEN_SHIFT 52

struct fz {
	/* The device. */
	unsigned int dev;
	bool have_dev;
	uint64_t mem;
	atomic_bool deleting;	/* del_device was written (or is being) */
	atomic_bool gone;	/* del_device returned: the device is gone */
	char fn[32];		/* PCI: the device's function */
	unsigned int emu;	/* PCI: its ipuN at ipu-emu */
	pthread_mutex_t emu_lock;	/* PCI: one command at a time on the port */

	/* Per sequence. */
	uint64_t rng;
	uint64_t seq_seed;
	unsigned int seq;
	unsigned int opno;
	int fd[FZ_NFD];
	int owner;		/* slot that attached last, or -1 */
	uint8_t slot_gen[FZ_NFD];	/* bumped when the slot's file is closed */
	struct fz_bo bo[FZ_NBO];
	unsigned int nbo;
	struct fz_map map[FZ_NMAP];
	struct fz_fence fence[FZ_NFENCE];
	unsigned int nfence;
	uint64_t fw_id;		/* last FW_NEXT id of our own files */
	uint64_t gather_token;	/* last GATHER_NEXT token of our files */

	struct io_uring ring;
	bool ring_up;
	bool ring_sqe128;
	bool ring_regbufs;
	unsigned int inflight;
	unsigned int inflight_unsafe;	/* XFER to device, LAUNCH */
	bool ring_abandoned;	/* a ring closed with commands in flight */
	bool ring_used;		/* this sequence had a ring (fz_release) */
	uint64_t ud;
	int uring_fd;		/* >= 0: the file of the next commands */
	bool uring_closing;	/* ... which is about to be closed */
	int uring_slot;		/* the slot of uring_fd */

	unsigned int skip;	/* bit per enum fz_class: left out */
	struct fz_retired *retired;	/* FZ_NRETIRED, oldest first */
	unsigned int nretired;
	bool chaos;		/* the second thread runs */
	bool forks;		/* this sequence forks children to kill */
	atomic_bool stop;
	pthread_t chaos_thread;
	uint64_t chaos_seed;

	/* Buffers. */
	uint8_t *host;		/* FZ_HOST bytes, read-write */
	uint8_t *chk;		/* FZ_HOST bytes, the zero checks' own */
	/*
	 * A read-only page, and a writable view of the same page (a memfd
	 * mapped twice): arguments are put in through the alias, so the page
	 * never turns writable (an mprotect() dance would let an io_uring
	 * XFER aimed at "read-only" pin it and write it meanwhile, and an
	 * mprotect() that failed left a memcpy() faulting unguarded).
	 */
	uint8_t *ro;
	uint8_t *ro_alias;
	uint8_t *none;		/* a PROT_NONE page */
	uint8_t *argp;		/* two read-write pages then a PROT_NONE one */
	size_t page;

	/* The firmware child and the report pipe of children. */
	pid_t fw_pid;
	int report[2];
	int kmsg;

	/* Counts. */
	pthread_mutex_t lock;	/* violations, counts from two threads */
	unsigned long violations;
	unsigned long ops;
	unsigned long count[OP_COUNT];
	unsigned long errs[OP_COUNT];
	unsigned long hist[OP_COUNT][EHWPOISON + 2];	/* by errno; last: other */
	unsigned long sequences;
	unsigned long kills;
	unsigned long removals;
	unsigned long stuck_removals;
};

static struct fz fz;

static void fz_bad(struct fz *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fz_bad(struct fz *f, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&f->lock);
	if (++f->violations <= FZ_MAX_REPORTS) {
		char msg[512];

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		print_message("fuzz: VIOLATION in sequence %u (IPU_FUZZ_SEED=%#llx"
			      ") op %u: %s\n", f->seq, (unsigned long long)f->seq_seed, f->opno, msg);
	}
	pthread_mutex_unlock(&f->lock);
}

/*
 * Account for one result of @op. @wellformed: the call was valid in its
 * form (its command, size and direction), so that on a removed device
 * (@gone when it started) it must be -ENODEV.
 */
static void fz_check(struct fz *f, enum fz_op op, int ret, bool wellformed,
		     bool gone, const char *what)
{
	pthread_mutex_lock(&f->lock);
	f->ops++;
	f->count[op]++;
	if (ret < 0)
		f->errs[op]++;
	f->hist[op][ret <= 0 && ret >= -EHWPOISON ? -ret : EHWPOISON + 1]++;
	pthread_mutex_unlock(&f->lock);
	if (ret > 0 || (ret < 0 && !fz_documented(op, -ret)))
		fz_bad(f, "%s (%s) returned %d (%s): not in the header's list",
		       fz_docs[op].name, what, ret, fz_errname(ret));
	else if (gone && wellformed && ret != -ENODEV)
		fz_bad(f, "%s (%s) on a removed device returned %d (%s), not -ENODEV",
		       fz_docs[op].name, what, ret, fz_errname(ret));
}

static bool fz_is_gone(struct fz *f)
{
	return atomic_load(&f->gone);
}

static int64_t fz_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void fz_pause(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------------ */
/* Guarded memory access: SIGBUS / SIGSEGV become a return value            */
/* ------------------------------------------------------------------------ */

/*
 * Per thread: a fault is delivered to the thread that made it, and only
 * that thread's fz_touch() may jump back. Shared, a fault of the chaos
 * thread while the main thread was inside fz_touch() would have jumped
 * into the main thread's frame on the chaos thread's behalf: two threads
 * on one stack, and a crash far from its cause instead of fz_sig()'s
 * report of it. initial-exec: no allocation on access, async-signal-safe.
 */
#define FZ_TLS __thread __attribute__((tls_model("initial-exec")))
static FZ_TLS sigjmp_buf fz_jmp;
static FZ_TLS volatile sig_atomic_t fz_guarded;

/* The main program's first byte (the linker's symbol): fault pcs as offsets. */
extern char __executable_start[];

/* Append @v in hex to @p: async-signal-safe, unlike snprintf(). */
static char *fz_hex(char *p, uintptr_t v)
{
	char d[2 * sizeof(v)];
	int n = 0;

	do {
		d[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*p++ = '0';
	*p++ = 'x';
	while (n)
		*p++ = d[--n];
	return p;
}

static char *fz_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

/*
 * A fault outside fz_touch() is the fuzzer's own bug (or memory a command
 * wrote into behind its back): say where before dying of it, since the
 * guest has no debugger and no core dumps. The pc is printed as an offset
 * into the executable too, for addr2line -e build/tests/kernel/test_fuzz.
 */
static void fz_sig(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uintptr_t pc = 0;
	char msg[384], *p = msg;

	if (fz_guarded) {
		fz_guarded = 0;
		siglongjmp(fz_jmp, sig);
	}
#if defined(__x86_64__)
	pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	pc = (uintptr_t)uc->uc_mcontext.pc;
#else
	(void)uc;
#endif
	p = fz_str(p, sig == SIGBUS ? "fuzz: SIGBUS" : "fuzz: SIGSEGV");
	p = fz_str(p, " outside a guarded access: address ");
	p = fz_hex(p, (uintptr_t)si->si_addr);
	p = fz_str(p, ", pc ");
	p = fz_hex(p, pc);
	p = fz_str(p, " (executable offset ");
	p = fz_hex(p, pc - (uintptr_t)__executable_start);
	p = fz_str(p, "), tid ");
	p = fz_hex(p, (uintptr_t)syscall(SYS_gettid));
	/*
	 * si_code tells a fault (SEGV_MAPERR 1, SEGV_ACCERR 2, ...) from a
	 * SIGSEGV the kernel forced (SI_KERNEL 0x80: a signal frame or rseq
	 * area it could not write) or one sent (SI_USER 0); the sequence's
	 * seed and op number replay the way to it.
	 */
	p = fz_str(p, ", si_code ");
	p = fz_hex(p, (uintptr_t)(unsigned int)si->si_code);
	p = fz_str(p, ", in op ");
	p = fz_hex(p, fz.opno);
	p = fz_str(p, " of sequence ");
	p = fz_hex(p, fz.seq);
	p = fz_str(p, " (IPU_FUZZ_SEED=");
	p = fz_hex(p, (uintptr_t)fz.seq_seed);
	p = fz_str(p, ")\n");
	if (write(STDERR_FILENO, msg, (size_t)(p - msg)) < 0)
		msg[0] = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Route SIGBUS and SIGSEGV to fz_sig; the old actions to @old_* if given. */
static void fz_catch_signals(struct sigaction *old_bus, struct sigaction *old_segv)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fz_sig;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, old_bus);
	sigaction(SIGSEGV, &sa, old_segv);
}

/*
 * Touch @len bytes at @p a page at a time (read, or write @val): 0, or the
 * signal that stopped it. Any thread may call it; a fault of another
 * thread meanwhile is that thread's own (fz_sig()).
 */
static int fz_touch(uint8_t *p, size_t len, size_t page, bool write, uint8_t val)
{
	volatile uint8_t *v = p;
	size_t off;
	int sig;

	sig = sigsetjmp(fz_jmp, 1);
	if (sig)
		return sig;
	fz_guarded = 1;
	for (off = 0; off < len; off += page) {
		if (write)
			v[off] = val;
		else
			(void)v[off];
	}
	fz_guarded = 0;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Device, sysfs, kmsg                                                      */
/* ------------------------------------------------------------------------ */

static int fz_sysfs_u64(unsigned int idx, const char *attr, uint64_t *v)
{
	char path[128], buf[64], *end;
	int err;

	snprintf(path, sizeof(path), KT_SYSFS_CLASS "/ipu%u/%s", idx, attr);
	err = kt_read_file(path, buf, sizeof(buf));
	if (err)
		return err;
	*v = strtoull(buf, &end, 10);
	return end == buf ? -EINVAL : 0;
}

static int fz_open(struct fz *f, int flags)
{
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/dev/ipu%u", f->dev);
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

#ifdef KT_ON_PCI
/*
 * @spec into the device at ipu-emu, from either thread: the control port
 * is one byte stream, a command and its answer must not interleave.
 */
static void fz_emu(struct fz *f, const char *spec)
{
	pthread_mutex_lock(&f->emu_lock);
	ke_fault(f->emu, spec);
	pthread_mutex_unlock(&f->emu_lock);
}

/*
 * Hold (@on) the device's launches or let them run: the PCI twin of the
 * firmware child stopped, dead or back (ks_held: teardown lifts it).
 */
static void fz_hold(struct fz *f, bool on)
{
	pthread_mutex_lock(&f->emu_lock);
	ke_fault(f->emu, on ? "hold_launches=1" : "hold_launches=0");
	ks_held = on;
	pthread_mutex_unlock(&f->emu_lock);
}

/*
 * The first PCI IPU, its function bound to ipu.ko again if the last
 * sequence unbound it (kt_own_dev() at the test's start binds it again at
 * teardown), its faults cleared: a device as fresh as new_device's.
 */
static bool fz_dev_add(struct fz *f)
{
	struct ipu_info info;
	int n, fd, err;

	n = ipu_of(f->fn);
	if (n < 0) {
		err = kt_write_file(KT_PCI_DRIVER "/bind", f->fn);
		n = ipu_of(f->fn);
		if (err || n < 0) {
			fz_bad(f, "bind %s: %d (%s)", f->fn, err, fz_errname(err));
			return false;
		}
	}
	f->dev = (unsigned int)n;
	fz_emu(f, "clear");
	fd = fz_open(f, O_RDONLY);
	err = fd < 0 ? fd : kt_get_info(fd, &info);
	if (fd >= 0)
		close(fd);
	if (err) {
		fz_bad(f, "GET_INFO of ipu%u: %d (%s)", f->dev, err, fz_errname(err));
		return false;
	}
	f->mem = info.memory_total;
	f->have_dev = true;
	atomic_store(&f->deleting, false);
	atomic_store(&f->gone, false);
	return true;
}

/* The device was removed: forget it (the next sequence binds it again). */
static void fz_dev_forget(struct fz *f)
{
	f->have_dev = false;
}

/* Remove the device as PCI removes it: unbind. 0 or -errno. */
static int fz_dev_remove(struct fz *f)
{
	return kt_write_file(KT_PCI_DRIVER "/unbind", f->fn);
}

/*
 * Fault @k (0: none) of kind @dma: the @k-th DMA descriptor fails. Else
 * the reset's kind, where @k picks: 1, the next soft reset does nothing
 * (the driver falls back to FLR); 2 and 3, the launches held or let go
 * (the device's twin of the sim's firmware child stopping and going on).
 */
static void fz_dev_fault(struct fz *f, bool dma, unsigned int k)
{
	char spec[32];

	if (!k)
		return;
	if (dma || k == 1) {
		snprintf(spec, sizeof(spec), "%s=%u",
			 dma ? "fail_dma" : "ignore_reset", k);
		fz_emu(f, spec);
	} else {
		fz_hold(f, k == 2);
	}
}

/* No fault left pending, no launch held. */
static void fz_dev_faults_clear(struct fz *f)
{
	pthread_mutex_lock(&f->emu_lock);
	ke_fault(f->emu, "clear");
	ks_held = false;
	pthread_mutex_unlock(&f->emu_lock);
}
#else
/* Add the fuzz device (tracked: teardown deletes it). */
static bool fz_dev_add(struct fz *f)
{
	uint64_t before = kt_present(), added;
	char val[16];
	int err;

	snprintf(val, sizeof(val), "%u", FZ_MEM_MB);
	err = kt_write_file(KT_SIM_CTL "/new_device", val);
	added = kt_present() & ~before;
	if (err || !added || (added & (added - 1))) {
		fz_bad(f, "new_device %s: %d (%s), devices %#llx" " -> %#llx",
		       val, err, fz_errname(err), (unsigned long long)before,
		       (unsigned long long)(before | added));
		return false;
	}
	f->dev = (unsigned int)__builtin_ctzll(added);
	f->have_dev = true;
	f->mem = (uint64_t)FZ_MEM_MB << 20;
	atomic_store(&f->deleting, false);
	atomic_store(&f->gone, false);
	kt_track(KT_SIMDEV)->idx = f->dev;
	return true;
}

/* The device was deleted (by the chaos thread): forget it. */
static void fz_dev_forget(struct fz *f)
{
	kt_untrack(kt_find(KT_SIMDEV, 0, NULL, NULL, 0, f->dev));
	f->have_dev = false;
}

/* Delete the device (del_device). 0 or -errno. */
static int fz_dev_remove(struct fz *f)
{
	char val[16];

	snprintf(val, sizeof(val), "%u", f->dev);
	return kt_write_file(KT_SIM_CTL "/del_device", val);
}

/* Fault switch fail_dma (@dma) or fail_reset set to @k (0: off). */
static void fz_dev_fault(struct fz *f, bool dma, unsigned int k)
{
	char path[128], val[16];

	snprintf(path, sizeof(path), KT_DEBUGFS "/ipu%u/%s", f->dev,
		 dma ? "fail_dma" : "fail_reset");
	snprintf(val, sizeof(val), "%u", k);
	kt_write_file(path, val);
}

static void fz_dev_faults_clear(struct fz *f)
{
	fz_dev_fault(f, true, 0);
	fz_dev_fault(f, false, 0);
}
#endif

/* The kernel log lines since the last call that the rig calls bad. */
static const char *const fz_kmsg_bad[] = {
	"WARNING:", "BUG:", "Oops", "general protection fault", "Call Trace",
	"possible circular locking", "lockdep", "UBSAN", "KASAN", "kmemleak",
	"Kernel panic", "blocked for more than",
};

static void fz_kmsg_check(struct fz *f)
{
	char rec[2048];
	ssize_t n;
	size_t i;

	if (f->kmsg < 0)
		return;
	for (;;) {
		n = read(f->kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue; /* overwritten records: go on with the next */
		if (n <= 0)
			break;
		rec[n] = '\0';
		for (i = 0; i < KT_ARRAY_SIZE(fz_kmsg_bad); i++) {
			if (strstr(rec, fz_kmsg_bad[i])) {
				rec[strcspn(rec, "\n")] = '\0';
				fz_bad(f, "kernel log: %s", rec);
				break;
			}
		}
	}
}

/* Children report violations as lines on a pipe. */
static void fz_report(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fz_report(int fd, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(msg) - 2)
		n = sizeof(msg) - 2;
	msg[n++] = '\n';
	if (write(fd, msg, (size_t)n) < 0) {
		/* a full pipe: the parent will have seen enough */
	}
}

static void fz_drain_reports(struct fz *f)
{
	char buf[4096], *line, *save = NULL;
	ssize_t n;

	while ((n = read(f->report[0], buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			fz_bad(f, "child: %s", line);
	}
}

/* ------------------------------------------------------------------------ */
/* The firmware: a child process                                            */
/* ------------------------------------------------------------------------ */

/*
 * In a child just forked: die with the fuzzer. A fuzzer that crashed would
 * otherwise leave its firmware child serving (attaching) the device, and
 * every later test that wants it would fail instead of this one alone.
 */
static void fz_child_dies_with(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(0);
}

static void fz_fw_check(int rep, enum fz_op op, int ret)
{
	if (ret > 0 || (ret < 0 && !fz_documented(op, -ret)))
		fz_report(rep, "firmware: %s returned %d (%s): not in the header's list",
			  fz_docs[op].name, ret, fz_errname(ret));
}

#ifndef KT_ON_PCI
/*
 * Serve the device as its firmware until it is removed: take launches,
 * write into their arenas, report random statuses or none (the launch
 * then times out, and the device is reset and the firmware revoked).
 * After a revoke, its old mapping must fault on a write.
 */
static void __attribute__((noreturn))
fz_fw_main(struct fz *f, uint64_t seed)
{
	int rep = f->report[1];
	uint8_t *map = MAP_FAILED;
	int fd = -1, ret;

	fz_catch_signals(NULL, NULL);
	for (;;) {
		struct ipu_fw_attach a;

		if (fd < 0 || fz_pct(&seed, 30)) {
			if (fd >= 0)
				close(fd);
			fd = fz_open(f, O_RDWR);
			if (fd < 0)
				_exit(0);
		}
		memset(&a, 0, sizeof(a));
		ret = kt_ioctl(fd, IPU_IOCTL_FW_ATTACH, &a);
		fz_fw_check(rep, OP_FW_ATTACH, ret);
		if (ret == -ENODEV)
			_exit(0);
		if (ret && ret != -EALREADY) {
			/* Another file is the firmware (the fuzzer's own). */
			fz_pause(2000000);
			continue;
		}
		map = mmap(NULL, f->mem, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			   IPU_FW_MMAP_OFFSET);
		for (;;) {
			struct ipu_fw_work w;
			struct ipu_fw_done d;
			uint64_t len;

			memset(&w, 0, sizeof(w));
			w.timeout_ns = fz_now_ns() + 20000000;
			ret = kt_ioctl(fd, IPU_IOCTL_FW_NEXT, &w);
			fz_fw_check(rep, OP_FW_NEXT, ret);
			if (ret == -ETIME || ret == -EINTR)
				continue;
			if (ret == -ENODEV)
				_exit(0);
			if (ret)
				break; /* revoked (-ENOLINK) */
			if (fz_pct(&seed, 10))
				continue; /* never answer: the launch times out */
			/* Run it: write into the arena (maybe revoked meanwhile). */
			len = w.arena_size < 65536 ? w.arena_size : 65536;
			if (map != MAP_FAILED && w.arena_offset < f->mem &&
			    len <= f->mem - w.arena_offset)
				fz_touch(map + w.arena_offset, len, 64, true,
					 (uint8_t)(1 + fz_below(&seed, 255)));
			memset(&d, 0, sizeof(d));
			d.id = fz_pct(&seed, 95) ? w.id : fz_next(&seed);
			d.status = fz_fw_status[fz_below(&seed, KT_ARRAY_SIZE(fz_fw_status))];
			d.pad = fz_pct(&seed, 3);
			ret = kt_ioctl(fd, IPU_IOCTL_FW_DONE, &d);
			fz_fw_check(rep, OP_FW_DONE, ret);
			if (!ret && (d.status > 0 || d.pad))
				fz_report(rep, "firmware: FW_DONE with status %d pad %u succeeded",
					  d.status, d.pad);
			if (ret == -ENODEV)
				_exit(0);
		}
		/* Revoked: the old mapping must not write device memory any more. */
		if (ret == -ENOLINK && map != MAP_FAILED) {
			uint64_t off = fz_below(&seed, f->mem / f->page) * f->page;

			if (!fz_touch(map + off, 1, f->page, true, 0xee)) {
				struct ipu_fw_work w2;

				/* Still revoked? (Tells a kernel bug from ours.) */
				memset(&w2, 0, sizeof(w2));
				ret = kt_ioctl(fd, IPU_IOCTL_FW_NEXT, &w2);
				fz_report(rep, "firmware: wrote device memory at %#llx through the mapping of a revoked attachment (FW_NEXT now: %d)",
					  (unsigned long long)off, ret);
			}
		}
		if (map != MAP_FAILED)
			munmap(map, f->mem);
		map = MAP_FAILED;
	}
}
#endif

#ifdef KT_ON_PCI
/*
 * The device runs the launches itself; what the firmware child's absence
 * or death is on a simulated IPU is a hold of the launches here
 * (fz_hold()) until a later one lifts it; the watchdog resets the device
 * under launches held too long.
 */
static bool fz_fw_up(const struct fz *f)
{
	(void)f;
	return !ks_held;
}

static void fz_fw_start(struct fz *f)
{
	fz_hold(f, false);
}

static void fz_fw_reap(struct fz *f, bool kill_it)
{
	if (kill_it && !ks_held)
		fz_hold(f, true);
}
#else
static bool fz_fw_up(const struct fz *f)
{
	return f->fw_pid != 0;
}

static void fz_fw_start(struct fz *f)
{
	uint64_t seed = fz_next(&f->rng);
	pid_t pid, parent = getpid();

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fz_child_dies_with(parent);
		memset(kt_res, 0, sizeof(kt_res));
		fz_fw_main(f, seed);
	}
	f->fw_pid = pid;
	kt_track(KT_CHILD)->pid = pid;
}

/* Reap the firmware child if it died (device removed, or killed). */
static void fz_fw_reap(struct fz *f, bool kill_it)
{
	int st;

	if (!f->fw_pid)
		return;
	if (kill_it)
		kill(f->fw_pid, SIGKILL);
	if (waitpid(f->fw_pid, &st, kill_it ? 0 : WNOHANG) == f->fw_pid) {
		kt_untrack(kt_find(KT_CHILD, 0, NULL, NULL, f->fw_pid, 0));
		f->fw_pid = 0;
	}
}

#endif

/* ------------------------------------------------------------------------ */
/* Choosing arguments                                                       */
/* ------------------------------------------------------------------------ */

/* A file: most often the one that attached (the calls it may make). */
static int fz_slot(struct fz *f)
{
	if (f->owner >= 0 && fz_pct(&f->rng, 70))
		return f->owner;
	return (int)fz_below(&f->rng, FZ_NFD);
}

static struct fz_bo *fz_pick_bo(struct fz *f)
{
	unsigned int i, start;

	if (!f->nbo)
		return NULL;
	start = (unsigned int)fz_below(&f->rng, f->nbo);
	for (i = 0; i < f->nbo; i++) {
		struct fz_bo *b = &f->bo[(start + i) % f->nbo];

		if (b->live)
			return b;
	}
	return &f->bo[start]; /* all stale */
}

/* A handle: live, destroyed, of another file, or made up. */
static uint32_t fz_handle(struct fz *f, int *slot)
{
	struct fz_bo *b = fz_pick_bo(f);
	unsigned int r = (unsigned int)fz_below(&f->rng, 100), i;

	/* Most often a live handle of the file the call goes to. */
	for (i = 0; slot && b && b->slot != *slot && i < 4; i++)
		b = fz_pick_bo(f);

	if (b && r < 80) {
		if (slot && fz_pct(&f->rng, 85))
			*slot = b->slot;
		return b->handle;
	}
	if (r < 90)
		return (uint32_t)fz_below(&f->rng, 64);
	if (r < 95)
		return 0;
	return (uint32_t)fz_next(&f->rng);
}

/* A size or offset near the interesting edges of @size. */
static uint64_t fz_size_near(struct fz *f, uint64_t size)
{
	switch (fz_below(&f->rng, 12)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return size;
	case 3:
		return size + 1;
	case 4:
		return size ? size - 1 : 0;
	case 5:
		return UINT64_MAX - fz_below(&f->rng, 4096);
	case 6:
		return 1ull << (30 + fz_below(&f->rng, 34));
	case 7:
		return f->page * (1 + fz_below(&f->rng, 4));
	default:
		return fz_below(&f->rng, size + 1);
	}
}

/*
 * A host pointer for @len bytes: the host buffer (most often), or
 * read-only, inaccessible, NULL, kernel, top of the address space,
 * non-canonical, or device memory (a BO mapping).
 */
static uint64_t fz_host_ptr(struct fz *f, uint64_t len, const char **kind)
{
	unsigned int r = (unsigned int)fz_below(&f->rng, 100);
	unsigned int i;

	if (r < 70 || len > FZ_HOST) {
		*kind = "host";
		if (len >= FZ_HOST)
			return (uintptr_t)f->host;
		return (uintptr_t)f->host + fz_below(&f->rng, FZ_HOST - len + 1);
	}
	switch (r % 8) {
	case 0:
		*kind = "read-only";
		return (uintptr_t)f->ro + fz_below(&f->rng, 64);
	case 1:
		*kind = "PROT_NONE";
		return (uintptr_t)f->none;
	case 2:
		*kind = "NULL";
		return 0;
	case 3:
		*kind = "kernel";
		return FZ_KPTR + fz_below(&f->rng, 1 << 20);
	case 4:
		/* Inside the last page, not wrapping: only its page does. */
		*kind = "last page";
		if (len < f->page)
			return UINT64_MAX - (f->page - 1) +
			       fz_below(&f->rng, f->page - len);
		return UINT64_MAX - (f->page - 1) + fz_below(&f->rng, f->page);
	case 5:
		/*
		 * The range ends past the last user address, so no byte of
		 * it is taken: the page below may be the stack (without
		 * address space randomization).
		 */
		*kind = "end of user space";
		return 0x7ffffffff000ull - (len > 8 ? fz_below(&f->rng, 2) * 8 : 0);
	case 6:
		*kind = "non-canonical";
		return 0x0000800000000000ull + f->page * fz_below(&f->rng, 16);
	default:
		/* All of the range inside one mapping (see fz_release). */
		for (i = 0; i < FZ_NMAP; i++) {
			if (f->map[i].addr && f->map[i].len >= len) {
				*kind = "device memory";
				return (uintptr_t)f->map[i].addr;
			}
		}
		*kind = "host (unaligned)";
		return (uintptr_t)f->host + 1;
	}
}

/*
 * Issue ioctl @cmd with @arg (its v1 struct) on @fd, in a random form:
 * mostly as is; else a smaller, larger (zero or non-zero tail) size, the
 * wrong direction, number or type; the argument in writable memory
 * (ending at an inaccessible page), read-only, straddling into an
 * inaccessible page, NULL, kernel or inaccessible. When the call had the
 * argument in writable memory, @arg gets what the kernel wrote back and
 * *@out_ok is true. *@wellformed: the command itself was valid.
 */
static int fz_ioctl(struct fz *f, int fd, unsigned long cmd, void *arg,
		    bool *wellformed, bool *out_ok, char *what, size_t wlen)
{
	size_t v1 = _IOC_SIZE(cmd), size = v1, i;
	unsigned int r = (unsigned int)fz_below(&f->rng, 100);
	unsigned long c = cmd;
	const char *form = "", *where = "";
	uint8_t *buf = f->argp + 2 * f->page;
	uint8_t *p;
	bool wf = true, ok = true;
	int ret;

	if (r < 4) {
		size = fz_below(&f->rng, v1);
		c = kt_resize(cmd, size);
		form = " smaller";
		wf = false;
	} else if (r < 9) {
		size = v1 + 8 * (1 + fz_below(&f->rng, 8));
		c = kt_resize(cmd, size);
		form = " larger, zero tail";
	} else if (r < 13) {
		size = v1 + 8 * (1 + fz_below(&f->rng, 8));
		c = kt_resize(cmd, size);
		form = " larger, non-zero tail";
	} else if (r < 15) {
		c = kt_redir(cmd, (_IOC_DIR(cmd) + 1 + fz_below(&f->rng, 3)) & 3);
		form = " wrong direction";
		wf = false;
	} else if (r < 17) {
		/* Numbers no ioctl has: 0x0c-0x0f reserved, 0x13-0x1f free,
		 * 0x20-0x3f io_uring's only.
		 */
		static const unsigned int nrs[] = { 0x0c, 0x0f, 0x13, 0x1f,
						    0x20, 0x21, 0x3f };

		c = _IOC(_IOC_DIR(cmd), IPU_IOCTL_TYPE,
			 nrs[fz_below(&f->rng, KT_ARRAY_SIZE(nrs))], v1);
		form = " unknown number";
		wf = false;
	} else if (r < 18) {
		c = _IOC(_IOC_DIR(cmd), 'T', _IOC_NR(cmd), v1);
		form = " other type";
		wf = false;
	}
	/* The struct ends exactly where the inaccessible page begins. */
	p = buf - size;
	memset(p, 0, size);
	memcpy(p, arg, size < v1 ? size : v1);
	if (size > v1 && r >= 9 && r < 13)
		p[v1 + fz_below(&f->rng, size - v1)] = (uint8_t)(1 + fz_below(&f->rng, 255));

	r = (unsigned int)fz_below(&f->rng, 100);
	if (r < 88) {
		where = "";
	} else if (r < 91) {
		memcpy(f->ro_alias, p, size);
		p = f->ro;
		ok = false;
		where = " in a read-only page";
	} else if (r < 94 && size > 1) {
		/* Its last i bytes in the inaccessible page. */
		i = 1 + fz_below(&f->rng, size - 1);
		p += i;
		ok = false;
		where = " straddling an inaccessible page";
	} else if (r < 96) {
		p = NULL;
		ok = false;
		where = " at NULL";
	} else if (r < 98) {
		p = (uint8_t *)(uintptr_t)(FZ_KPTR + fz_below(&f->rng, 4096));
		ok = false;
		where = " at a kernel address";
	} else {
		p = f->none;
		ok = false;
		where = " in a PROT_NONE page";
	}

	ret = kt_ioctl(fd, c, p);
	if (ok && size >= v1 && wf)
		memcpy(arg, p, v1);
	*wellformed = wf;
	*out_ok = ok && size >= v1 && wf;
	snprintf(what, wlen, "size %zu%s%s", size, form, where);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Operations                                                               */
/* ------------------------------------------------------------------------ */

static void fz_remember_bo(struct fz *f, int slot, const struct ipu_bo_create *c)
{
	struct fz_bo *b;
	unsigned int i;

	if (f->nbo < FZ_NBO) {
		b = &f->bo[f->nbo++];
	} else {
		/* Replace a stale one, else any. */
		b = &f->bo[fz_below(&f->rng, FZ_NBO)];
		for (i = 0; i < FZ_NBO; i++)
			if (!f->bo[i].live)
				b = &f->bo[i];
	}
	b->slot = slot;
	b->handle = c->handle;
	b->size = c->size;
	b->mmap_offset = c->mmap_offset;
	b->live = true;
}

static uint64_t fz_mem_used(struct fz *f);

/* Whether nothing but this thread can write into a new BO now. */
static bool fz_zero_check_safe(struct fz *f)
{
	return !f->inflight_unsafe && !f->ring_abandoned;
}

/* A fresh BO reads as zeros (through XFER, or a mapping of it). */
static void fz_check_fresh(struct fz *f, int fd, const struct ipu_bo_create *c)
{
	uint64_t len = c->size < FZ_HOST ? c->size : FZ_HOST;
	bool gone = fz_is_gone(f);
	ssize_t nz;
	int ret;

	memset(f->chk, 0xa5, len);
	ret = kt_xfer(fd, c->handle, c->size - len, f->chk, len,
		      IPU_XFER_FROM_DEVICE);
	if (ret == -ENODEV || ret == -EIO || (gone && ret))
		return; /* removed, or a DMA fault injected */
	if (ret && ret != -EACCES) {
		fz_bad(f, "reading a fresh BO of %llu" " bytes: %d (%s)",
		       c->size, ret, fz_errname(ret));
		return;
	}
	if (ret)
		return; /* another thread reset the owner meanwhile */
	nz = kt_nonzero(f->chk, len);
	if (nz >= 0)
		fz_bad(f, "a fresh BO of %llu" " bytes has byte %#x at %llu",
		       c->size, f->chk[nz], c->size - len + (uint64_t)nz);
}

static void op_get_info(struct fz *f)
{
	struct ipu_info info;
	bool gone = fz_is_gone(f), wf, ok;
	char what[128];
	int ret;

	memset(&info, 0, sizeof(info));
	ret = fz_ioctl(f, f->fd[fz_slot(f)], IPU_IOCTL_GET_INFO, &info, &wf, &ok,
		       what, sizeof(what));
	fz_check(f, OP_GET_INFO, ret, wf, gone, what);
	if (!ret && ok && (info.memory_used > info.memory_total || info.pad))
		fz_bad(f, "GET_INFO: memory_used %llu" " of %llu" ", pad %u",
		       info.memory_used, info.memory_total, info.pad);
}

static void op_attach(struct fz *f, bool attach)
{
	struct ipu_attach a;
	bool gone = fz_is_gone(f), wf, ok;
	char what[128];
	int ret, slot;

	memset(&a, 0, sizeof(a));
	if (fz_pct(&f->rng, 5))
		a.flags = 1u << fz_below(&f->rng, 32);
	if (fz_pct(&f->rng, 5))
		a.pad = (uint32_t)fz_next(&f->rng);
	/* struct ipu_detach has the same layout. */
	slot = (int)fz_below(&f->rng, FZ_NFD);
	ret = fz_ioctl(f, f->fd[slot],
		       attach ? IPU_IOCTL_ATTACH : IPU_IOCTL_DETACH, &a, &wf, &ok,
		       what, sizeof(what));
	fz_check(f, attach ? OP_ATTACH : OP_DETACH, ret, wf, gone, what);
	if (!ret && attach)
		f->owner = slot;
	else if (!ret && slot == f->owner)
		f->owner = -1;
}

static void op_bo_create(struct fz *f)
{
	struct ipu_bo_create c;
	int slot = fz_slot(f);
	bool gone = fz_is_gone(f), wf, ok, safe, measure;
	uint64_t before = 0, after;
	char what[160];
	int ret;

	memset(&c, 0, sizeof(c));
	c.size = fz_pct(&f->rng, 80) ? 1 + fz_below(&f->rng, 256 << 10) :
				      fz_size_near(f, f->mem);
	if (fz_pct(&f->rng, 3))
		c.flags = 1u << fz_below(&f->rng, 32);
	if (fz_pct(&f->rng, 3))
		c.handle = (uint32_t)fz_next(&f->rng);
	if (fz_pct(&f->rng, 3))
		c.device_addr = fz_next(&f->rng);
	if (fz_pct(&f->rng, 3))
		c.mmap_offset = fz_next(&f->rng);
	safe = fz_zero_check_safe(f);
	/*
	 * Only this thread allocates device memory now (a child's BOs come
	 * and go inside op_fork_kill()): a failed BO_CREATE, e.g. one whose
	 * result cannot be written back, must leave memory_used no higher.
	 */
	measure = !gone && fz_pct(&f->rng, 30);
	if (measure)
		before = fz_mem_used(f);
	ret = fz_ioctl(f, f->fd[slot], IPU_IOCTL_BO_CREATE, &c, &wf, &ok, what,
		       sizeof(what));
	fz_check(f, OP_BO_CREATE, ret, wf, gone, what);
	if (ret && measure && !fz_is_gone(f) && (after = fz_mem_used(f)) > before &&
	    after != UINT64_MAX)
		fz_bad(f, "BO_CREATE (%s) failed with %d (%s) and memory_used went from %llu to %llu",
		       what, ret, fz_errname(ret), (unsigned long long)before,
		       (unsigned long long)after);
	if (ret || !ok)
		return;
	if (!c.handle || c.size % f->page || c.size < 1 || !c.mmap_offset ||
	    !c.device_addr)
		fz_bad(f, "BO_CREATE returned handle %u size %llu"
		       " device_addr %#llx" " mmap_offset %#llx",
		       c.handle, c.size, c.device_addr, c.mmap_offset);
	fz_remember_bo(f, slot, &c);
	if (safe && fz_pct(&f->rng, 40))
		fz_check_fresh(f, f->fd[slot], &c);
}

static void op_bo_destroy_or_info(struct fz *f, bool destroy)
{
	int slot = fz_slot(f);
	uint32_t h = fz_handle(f, &slot);
	bool gone = fz_is_gone(f), wf, ok;
	char what[128];
	unsigned int i;
	int ret;

	if (destroy) {
		struct ipu_bo_destroy d;

		memset(&d, 0, sizeof(d));
		d.handle = h;
		d.pad = fz_pct(&f->rng, 4) ? 1 : 0;
		ret = fz_ioctl(f, f->fd[slot], IPU_IOCTL_BO_DESTROY, &d, &wf,
			       &ok, what, sizeof(what));
		fz_check(f, OP_BO_DESTROY, ret, wf, gone, what);
		if (!ret)
			for (i = 0; i < f->nbo; i++)
				if (f->bo[i].slot == slot && f->bo[i].handle == h)
					f->bo[i].live = false;
	} else {
		struct ipu_bo_info bi;

		memset(&bi, 0, sizeof(bi));
		bi.handle = h;
		if (fz_pct(&f->rng, 4))
			bi.size = 1;
		if (fz_pct(&f->rng, 4))
			bi.pad = 1;
		ret = fz_ioctl(f, f->fd[slot], IPU_IOCTL_BO_INFO, &bi, &wf, &ok,
			       what, sizeof(what));
		fz_check(f, OP_BO_INFO, ret, wf, gone, what);
	}
}

/* Fill an XFER with hostile-but-mostly-plausible fields. */
static void fz_fill_xfer(struct fz *f, struct ipu_xfer *x, int *slot,
			 char *what, size_t wlen)
{
	struct fz_bo *b;
	const char *kind = "host";
	uint64_t size;

	memset(x, 0, sizeof(*x));
	x->handle = fz_handle(f, slot);
	b = fz_pick_bo(f);
	size = b ? b->size : f->page;
	if (fz_pct(&f->rng, 75)) {
		x->length = 1 + fz_below(&f->rng, size < FZ_HOST ? size : FZ_HOST);
		if (fz_pct(&f->rng, 30))
			x->length = 1 + fz_below(&f->rng, f->page);
		x->bo_offset = fz_below(&f->rng, size - x->length + 1);
	} else {
		x->length = fz_size_near(f, size);
		x->bo_offset = fz_size_near(f, size);
	}
	x->user_ptr = fz_host_ptr(f, x->length, &kind);
	x->flags = fz_pct(&f->rng, 50) ? IPU_XFER_TO_DEVICE : IPU_XFER_FROM_DEVICE;
	if (fz_pct(&f->rng, 4))
		x->flags = (uint32_t)fz_below(&f->rng, 16);
	if (fz_pct(&f->rng, 3))
		x->reserved = fz_next(&f->rng);
	snprintf(what, wlen, "handle %u off %#llx" " len %#llx"
		 " ptr %#llx" " (%s) flags %#x", x->handle, x->bo_offset,
		 x->length, x->user_ptr, kind, x->flags);
}

static void op_xfer(struct fz *f)
{
	struct ipu_xfer x;
	int slot = fz_slot(f);
	bool gone = fz_is_gone(f), wf, ok;
	char what[256], form[96];
	int ret;

	fz_fill_xfer(f, &x, &slot, what, sizeof(what));
	ret = fz_ioctl(f, f->fd[slot], IPU_IOCTL_XFER, &x, &wf, &ok, form,
		       sizeof(form));
	strncat(what, ", ", sizeof(what) - strlen(what) - 1);
	strncat(what, form, sizeof(what) - strlen(what) - 1);
	fz_check(f, OP_XFER, ret, wf, gone, what);
}

static void op_reset(struct fz *f)
{
	struct ipu_reset r;
	bool gone = fz_is_gone(f), wf, ok;
	char what[128];
	int ret;

	memset(&r, 0, sizeof(r));
	if (fz_pct(&f->rng, 5))
		r.flags = 1;
	ret = fz_ioctl(f, f->fd[fz_slot(f)], IPU_IOCTL_RESET, &r, &wf, &ok, what,
		       sizeof(what));
	fz_check(f, OP_RESET, ret, wf, gone, what);
}

static void fz_fill_launch(struct fz *f, struct ipu_launch *l, int *slot,
			   char *what, size_t wlen)
{
	struct fz_bo *b;
	uint64_t size;

	memset(l, 0, sizeof(*l));
	l->exe_handle = fz_handle(f, slot);
	l->arena_handle = fz_pct(&f->rng, 80) ? fz_handle(f, NULL) : l->exe_handle;
	b = fz_pick_bo(f);
	size = b ? b->size : f->page;
	if (fz_pct(&f->rng, 75)) {
		l->exe_size = 1 + fz_below(&f->rng, size);
		l->arena_offset = 64 * fz_below(&f->rng, size / 64);
		l->arena_size = 1 + fz_below(&f->rng, size - l->arena_offset);
	} else {
		l->exe_size = fz_size_near(f, size);
		l->arena_offset = fz_size_near(f, size);
		l->arena_size = fz_size_near(f, size);
	}
	l->num_replicas = 1;
	if (fz_pct(&f->rng, 10)) {
		l->num_replicas = (uint32_t)fz_below(&f->rng, 4);
		l->replica = (uint32_t)fz_below(&f->rng, 4);
		l->group = fz_below(&f->rng, 3);
	}
	if (fz_pct(&f->rng, 8)) {
		/* A split launch (PCIe IPUs only; -EOPNOTSUPP elsewhere). */
		l->instance_count = (uint16_t)fz_below(&f->rng, 4);
		l->instance_index = (uint16_t)fz_below(&f->rng, 4);
		l->staging_handle = fz_handle(f, NULL);
		l->staging_offset = (uint32_t)(fz_pct(&f->rng, 80) ?
			64 * fz_below(&f->rng, size / 64) : fz_size_near(f, size));
		l->staging_size = (uint32_t)fz_size_near(f, size);
	}
	if (fz_pct(&f->rng, 3))
		l->flags = fz_pct(&f->rng, 50) ? IPU_LAUNCH_PROFILE : 2;
	/* A profile buffer: any handle, mostly with the flag. */
	if (fz_pct(&f->rng, 5)) {
		l->flags |= fz_pct(&f->rng, 80) ? IPU_LAUNCH_PROFILE : 0;
		l->profile_handle = fz_handle(f, NULL);
	}
	if (fz_pct(&f->rng, 3))
		l->fence = 1 + fz_below(&f->rng, 256);
	snprintf(what, wlen, "exe %u/%#llx" " arena %u @%#llx" "+%#llx"
		 " rep %u/%u group %llu inst %u/%u staging %u @%#x+%#x",
		 l->exe_handle, l->exe_size, l->arena_handle, l->arena_offset,
		 l->arena_size, l->replica, l->num_replicas, l->group,
		 l->instance_index, l->instance_count, l->staging_handle,
		 l->staging_offset, l->staging_size);
}

static void op_launch(struct fz *f)
{
	struct ipu_launch l;
	int slot = fz_slot(f);
	bool gone = fz_is_gone(f), wf, ok;
	char what[256], form[96];
	int ret;

	fz_fill_launch(f, &l, &slot, what, sizeof(what));
	ret = fz_ioctl(f, f->fd[slot], IPU_IOCTL_LAUNCH, &l, &wf, &ok, form,
		       sizeof(form));
	strncat(what, ", ", sizeof(what) - strlen(what) - 1);
	strncat(what, form, sizeof(what) - strlen(what) - 1);
	fz_check(f, OP_LAUNCH, ret, wf, gone, what);
	if (ret || !ok)
		return;
	if (l.fence < 1 || l.fence > 256)
		fz_bad(f, "LAUNCH returned fence %llu", l.fence);
	if (f->nfence < FZ_NFENCE) {
		f->fence[f->nfence].slot = slot;
		f->fence[f->nfence++].fence = l.fence;
	}
}

static void op_wait(struct fz *f)
{
	struct ipu_wait w;
	int slot = fz_slot(f);
	unsigned int i = 0;
	bool gone = fz_is_gone(f), wf, ok, known = false;
	char what[160], form[96];
	int ret;

	memset(&w, 0, sizeof(w));
	if (f->nfence && fz_pct(&f->rng, 80)) {
		i = (unsigned int)fz_below(&f->rng, f->nfence);
		w.fence = f->fence[i].fence;
		slot = fz_pct(&f->rng, 90) ? f->fence[i].slot : slot;
		known = true;
	} else {
		w.fence = fz_size_near(f, 257);
	}
	if (fz_pct(&f->rng, 30))
		w.timeout_ns = fz_now_ns() + (int64_t)fz_below(&f->rng, 50000000);
	else if (fz_pct(&f->rng, 10))
		w.timeout_ns = -(int64_t)fz_below(&f->rng, 1000);
	if (fz_pct(&f->rng, 3))
		w.flags = 1;
	if (fz_pct(&f->rng, 3))
		w.status = -1;
	ret = fz_ioctl(f, f->fd[slot], IPU_IOCTL_WAIT, &w, &wf, &ok, form,
		       sizeof(form));
	snprintf(what, sizeof(what), "fence %llu" ", %s", w.fence, form);
	fz_check(f, OP_WAIT, ret, wf, gone, what);
	if (ret || !ok)
		return;
	fz_check(f, OP_LAUNCH_RESULT, w.status, false, false, "WAIT's status");
	if (known) {
		f->fence[i] = f->fence[--f->nfence];
	}
}

static void op_fw(struct fz *f)
{
	int slot = fz_slot(f);
	bool gone = fz_is_gone(f), wf, ok;
	char what[128];
	int ret;

#ifdef KT_ON_PCI
	/* The device's firmware stops or goes on (no role to call). */
	if (fz_pct(&f->rng, 25)) {
		fz_hold(f, fz_pct(&f->rng, 50));
		return;
	}
#endif
	switch (fz_below(&f->rng, 3)) {
	case 0: {
		struct ipu_fw_attach a;

		memset(&a, 0, sizeof(a));
		a.pad = fz_pct(&f->rng, 5);
		ret = fz_ioctl(f, f->fd[slot], IPU_IOCTL_FW_ATTACH, &a, &wf, &ok,
			       what, sizeof(what));
		fz_check(f, OP_FW_ATTACH, ret, wf, gone, what);
		break;
	}
	case 1: {
		struct ipu_fw_work w;

		memset(&w, 0, sizeof(w));
		if (fz_pct(&f->rng, 30))
			w.timeout_ns = fz_now_ns() + 1000000;
		if (fz_pct(&f->rng, 5))
			w.id = 1;
		ret = fz_ioctl(f, f->fd[slot], IPU_IOCTL_FW_NEXT, &w, &wf, &ok,
			       what, sizeof(what));
		fz_check(f, OP_FW_NEXT, ret, wf, gone, what);
		if (!ret && ok)
			f->fw_id = w.id;
		break;
	}
	default: {
		struct ipu_fw_done d;

		memset(&d, 0, sizeof(d));
		d.id = fz_pct(&f->rng, 70) ? f->fw_id : fz_next(&f->rng);
		d.status = fz_fw_status[fz_below(&f->rng, KT_ARRAY_SIZE(fz_fw_status))];
		ret = fz_ioctl(f, f->fd[slot], IPU_IOCTL_FW_DONE, &d, &wf, &ok,
			       what, sizeof(what));
		fz_check(f, OP_FW_DONE, ret, wf, gone, what);
		break;
	}
	}
}

/*
 * The gather ioctls of split launches (GATHER_NEXT, GATHER_ANSWER) with
 * tokens they gave, stale or made up, statuses in and out of range, and
 * flags: with no split launch in flight, every token is unknown.
 */
static void op_gather(struct fz *f)
{
	int slot = fz_slot(f);
	bool gone = fz_is_gone(f), wf, ok;
	char what[128];
	int ret;

	if (fz_pct(&f->rng, 50)) {
		struct ipu_gather_next n;

		memset(&n, 0, sizeof(n));
		if (fz_pct(&f->rng, 5))
			n.token = fz_next(&f->rng);
		if (fz_pct(&f->rng, 5))
			n.flags = 1;
		ret = fz_ioctl(f, f->fd[slot], IPU_IOCTL_GATHER_NEXT, &n, &wf,
			       &ok, what, sizeof(what));
		fz_check(f, OP_GATHER_NEXT, ret, wf, gone, what);
		if (!ret && ok)
			f->gather_token = n.token;
	} else {
		static const int32_t st[] = { 0, -EIO, -ETIMEDOUT, 1, -4096,
					      -IPU_GATHER_MAX_ERRNO, INT32_MIN };
		struct ipu_gather_answer a;

		memset(&a, 0, sizeof(a));
		a.token = fz_pct(&f->rng, 50) ? f->gather_token :
			  fz_below(&f->rng, 4) ? fz_below(&f->rng, 300) :
			  fz_next(&f->rng);
		a.status = st[fz_below(&f->rng, KT_ARRAY_SIZE(st))];
		if (fz_pct(&f->rng, 5))
			a.flags = 1u << fz_below(&f->rng, 32);
		ret = fz_ioctl(f, f->fd[slot], IPU_IOCTL_GATHER_ANSWER, &a, &wf,
			       &ok, what, sizeof(what));
		fz_check(f, OP_GATHER_ANSWER, ret, wf, gone, what);
	}
}

/* Unmap the quarantined ranges released before @before. */
static void fz_unretire(struct fz *f, int64_t before)
{
	unsigned int i, n = 0;

	for (i = 0; i < f->nretired; i++) {
		if (f->retired[i].at < before)
			munmap(f->retired[i].addr, f->retired[i].len);
		else
			f->retired[n++] = f->retired[i];
	}
	f->nretired = n;
}

/*
 * The reservation of a released range failed: keep the range taken
 * anyway, never munmap() it (that frees what the quarantine is for). What
 * is still mapped stays (a BO or firmware mapping: GUP cannot pin it, and
 * memory_used then shows the violation too); each page the failed mmap()
 * left free is reserved where it lies. fz_unretire() unmaps it all later.
 */
static void fz_hold_range(struct fz *f, uint8_t *addr, size_t len)
{
	size_t off;
	void *p;

	for (off = 0; off < len; off += f->page) {
		p = mmap(addr + off, f->page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED_NOREPLACE | MAP_NORESERVE, -1, 0);
		if (p != MAP_FAILED && p != addr + off)
			munmap(p, f->page); /* a kernel without NOREPLACE */
	}
}

/*
 * Unmap @len bytes at @addr, part or all of a BO or firmware mapping.
 *
 * Why not always munmap(): an io_uring XFER may carry such a mapping as its
 * host buffer (fz_host_ptr's "device memory"), and io_uring pins that
 * buffer when it issues the command, which may be long after the submit
 * (IOSQE_ASYNC, behind a linked LAUNCH that waits for its timeout, on a
 * ring closed with it in flight). Unmapped meanwhile, the range may hold
 * this process's own memory by then (a thread's stack, a ring, malloc's),
 * and a FROM_DEVICE transfer would write device bytes into it: the fuzzer
 * corrupting itself (seen once in a 6.1 soak: ld.so's assertion, exit
 * 127). So once the sequence has had a ring (f->inflight is a lower bound
 * only: SQEs io_uring left in the queue go with the next submit), the
 * range is replaced by a PROT_NONE reservation (a transfer into it fails
 * with -EFAULT, as into any inaccessible page), unmapped only after
 * FZ_QUARANTINE_NS: every command completes well within that (a launch by
 * its FZ_TIMEOUT_MS, a chain has at most 4 commands, a closed ring's exit
 * waits for them).
 */
static void fz_release(struct fz *f, uint8_t *addr, size_t len)
{
	int64_t now;

	if (!f->ring_used) {
		munmap(addr, len);
		return;
	}
	now = fz_now_ns();
	if (f->nretired == FZ_NRETIRED)
		fz_unretire(f, now - FZ_QUARANTINE_NS);
	while (f->nretired == FZ_NRETIRED) {
		/* Full of young ones: wait until the oldest is old enough. */
		fz_pause(100000000);
		now = fz_now_ns();
		fz_unretire(f, now - FZ_QUARANTINE_NS);
	}
	/* MAP_FIXED replaces the mapping at once: the range is never free. */
	if (mmap(addr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
		 MAP_NORESERVE, -1, 0) == MAP_FAILED) {
		int err = -errno;

		fz_bad(f, "reserving a released mapping's range: %d (%s)", err,
		       fz_errname(err));
		fz_hold_range(f, addr, len);
	}
	f->retired[f->nretired].addr = addr;
	f->retired[f->nretired].len = len;
	f->retired[f->nretired++].at = now;
}

static struct fz_map *fz_map_slot(struct fz *f)
{
	unsigned int i = (unsigned int)fz_below(&f->rng, FZ_NMAP);

	if (f->map[i].addr) {
		fz_release(f, f->map[i].addr, f->map[i].len);
		f->map[i].addr = NULL;
	}
	return &f->map[i];
}

static void op_mmap(struct fz *f)
{
	int slot = fz_slot(f), prot, flags, sig;
	struct fz_bo *b = fz_pick_bo(f);
	uint64_t off, len;
	bool gone = fz_is_gone(f), fw = false, wf = true;
	struct fz_map *m;
	char what[160];
	uint8_t *p;

	switch (fz_below(&f->rng, 10)) {
	case 0:
		off = IPU_FW_MMAP_OFFSET;
		len = f->page * (1 + fz_below(&f->rng, f->mem / f->page + 1));
		fw = true;
		break;
	case 1:
		off = fz_next(&f->rng) & ~(uint64_t)(f->page - 1);
		len = f->page;
		wf = false; /* mm refuses offsets past ULONG_MAX - len first */
		break;
	case 2:
		off = b ? b->mmap_offset + 1 + fz_below(&f->rng, f->page - 1) : 1;
		len = f->page;
		wf = false; /* mm refuses an unaligned offset first */
		break;
	case 3:
		off = b ? b->mmap_offset : 0;
		len = fz_pct(&f->rng, 50) ? 0 : 1ull << (40 + fz_below(&f->rng, 8));
		wf = false;
		break;
	default:
		off = b ? b->mmap_offset : (uint64_t)(1 + fz_below(&f->rng, 8)) << 40;
		len = f->page * (1 + fz_below(&f->rng, b ? b->size / f->page + 1 : 4));
		if (b && fz_pct(&f->rng, 50)) {
			off += f->page * fz_below(&f->rng, b->size / f->page + 1);
			len = f->page * (1 + fz_below(&f->rng, 2));
		}
		if (b && fz_pct(&f->rng, 40))
			slot = b->slot;
		break;
	}
	prot = fz_pct(&f->rng, 70) ? PROT_READ | PROT_WRITE : PROT_READ;
	flags = fz_pct(&f->rng, 90) ? MAP_SHARED : MAP_PRIVATE;
	snprintf(what, sizeof(what), "offset %#llx" " length %#llx"
		 " prot %d %s, fd %s", (unsigned long long)off,
		 (unsigned long long)len, prot,
		 flags == MAP_SHARED ? "shared" : "private",
		 slot == FZ_NFD - 1 ? "read-only" : "read-write");
	/* mm's own checks come first on a removed device. */
	if (!len || flags != MAP_SHARED || (slot == FZ_NFD - 1 && prot & PROT_WRITE))
		wf = false;
	p = mmap(NULL, len, prot, flags, f->fd[slot], (off_t)off);
	fz_check(f, OP_MMAP, p == MAP_FAILED ? -errno : 0, wf, gone, what);
	if (p == MAP_FAILED)
		return;
	m = fz_map_slot(f);
	m->addr = p;
	m->len = len;
	m->prot = prot;
	m->fw = fw;
	if (fz_pct(&f->rng, 60)) {
		bool write = prot & PROT_WRITE && fz_pct(&f->rng, 50);

		sig = fz_touch(p, len < 16 * f->page ? len : 16 * f->page, f->page,
			       write, 0);
		/* A BO mapping of a present device never faults. */
		if (sig && !fw && !atomic_load(&f->deleting))
			fz_bad(f, "%s a new BO mapping (%s): signal %d",
			       write ? "writing" : "reading", what, sig);
	}
}

/* munmap (whole or a middle page), mremap, or touch a mapping. */
static void op_maps(struct fz *f)
{
	struct fz_map *m = &f->map[fz_below(&f->rng, FZ_NMAP)];
	size_t pages, len;
	void *q;
	int sig;

	if (!m->addr)
		return;
	pages = m->len / f->page;
	switch (fz_below(&f->rng, 4)) {
	case 0:
		fz_release(f, m->addr, m->len);
		m->addr = NULL;
		break;
	case 1:
		if (pages >= 3) {
			/* Split: the VMA's open() runs for the new half. */
			fz_release(f, m->addr + f->page, f->page);
			fz_release(f, m->addr + 2 * f->page, m->len - 2 * f->page);
			m->len = f->page;
		}
		break;
	case 2:
		/*
		 * In place only: a move (MREMAP_MAYMOVE) would free the old
		 * range at once, under commands that may aim at it (see
		 * fz_release). Growing a PFN mapping is refused anyway.
		 */
		len = fz_pct(&f->rng, 50) ? m->len : m->len + f->page;
		q = mremap(m->addr, m->len, len, 0);
		if (q != MAP_FAILED)
			m->len = len;
		break;
	default:
		sig = fz_touch(m->addr, m->len < 16 * f->page ? m->len : 16 * f->page,
			       f->page, false, 0);
		if (sig && !m->fw && !atomic_load(&f->deleting) && sig != SIGBUS)
			fz_bad(f, "reading a BO mapping: signal %d", sig);
		break;
	}
	f->ops++;
}

/* ------------------------------------------------------------------------ */
/* io_uring                                                                 */
/* ------------------------------------------------------------------------ */

static void fz_ring_up(struct fz *f)
{
	struct io_uring_params p;
	struct iovec iov[2];

	memset(&p, 0, sizeof(p));
	f->ring_sqe128 = fz_pct(&f->rng, 92);
	p.flags = f->ring_sqe128 ? IORING_SETUP_SQE128 : 0;
	if (io_uring_queue_init_params(FZ_RING_ENTRIES, &f->ring, &p))
		return;
	f->ring_up = true;
	f->ring_used = true;
	f->inflight = 0;
	f->inflight_unsafe = 0;
	f->ring_regbufs = false;
	if (fz_pct(&f->rng, 80)) {
		iov[0].iov_base = f->host;
		iov[0].iov_len = FZ_HOST / 2;
		iov[1].iov_base = f->host + FZ_HOST / 2;
		iov[1].iov_len = FZ_HOST / 2;
		f->ring_regbufs = !io_uring_register_buffers(&f->ring, iov, 2);
	}
}

static void fz_cqe(struct fz *f, struct io_uring_cqe *cqe)
{
	unsigned int kind = (unsigned int)((cqe->user_data >> 32) & 0xff);
	unsigned int slot = (unsigned int)(cqe->user_data >> UD_SLOT_SHIFT) & 3;
	uint8_t gen = (uint8_t)(cqe->user_data >> UD_GEN_SHIFT);
	bool gone = cqe->user_data & UD_GONE;
	bool closed = cqe->user_data & UD_CLOSING || f->slot_gen[slot] != gen;
	char what[64];

	snprintf(what, sizeof(what), "CQE of command %u",
		 (unsigned int)cqe->user_data);
	if ((cqe->res == -EBADF || cqe->res == -EOPNOTSUPP) && closed) {
		f->ops++; /* io_uring's own, for a closed (or reused) fd */
	} else {
		fz_check(f, kind == UD_LAUNCH ? OP_URING_LAUNCH : OP_URING_XFER,
			 cqe->res, false, false, what);
		/* A command after a failed one of its chain is -ECANCELED. */
		if (gone && cqe->res != -ENODEV && cqe->res != -ECANCELED)
			fz_bad(f, "%s on a removed device: %d (%s), not -ENODEV",
			       what, cqe->res, fz_errname(cqe->res));
	}
	if (f->inflight)
		f->inflight--;
	if (kind != UD_XFER_FROM && f->inflight_unsafe)
		f->inflight_unsafe--;
}

/* Reap completions: what is there, or (@wait) all, within a bound. */
static void fz_reap(struct fz *f, bool wait)
{
	struct io_uring_cqe *cqe;
	unsigned int polls = 0;
	int ret;

	while (f->ring_up && f->inflight) {
		if (wait) {
			struct __kernel_timespec ts = { 0, 10000000 };

			ret = io_uring_wait_cqe_timeout(&f->ring, &cqe, &ts);
			if (ret == -ETIME || ret == -EINTR) {
				if (++polls < FZ_SETTLE_POLLS)
					continue;
				fz_bad(f, "%u io_uring commands did not complete",
				       f->inflight);
				return;
			}
		} else {
			ret = io_uring_peek_cqe(&f->ring, &cqe);
		}
		if (ret)
			return;
		fz_cqe(f, cqe);
		io_uring_cqe_seen(&f->ring, cqe);
	}
}

/*
 * The size an io_uring command's cmd_op claims for its payload of v1 size
 * @v1 in @payload (KU_CMD_BYTES, the SQE128 command area), by draw @r
 * (< 13): smaller; larger with a zero or non-zero tail (written into
 * @payload); past the command area. *@wf becomes false for a form the
 * driver must refuse whatever the device's state.
 *
 * A struct that fills the area (LAUNCH's) has no larger form inside it:
 * it gets the form past the area instead, never a tail byte past
 * @payload's end.
 */
_Static_assert(sizeof(struct ipu_xfer) <= KU_CMD_BYTES &&
	       sizeof(struct ipu_launch) <= KU_CMD_BYTES,
	       "io_uring payloads fit the SQE128 command area");

static size_t fz_cmd_size(struct fz *f, unsigned int r, size_t v1,
			  uint8_t *payload, bool *wf)
{
	size_t room = (KU_CMD_BYTES - v1) / 8;	/* larger sizes that fit */
	size_t size;

	if (r < 4) {
		size = fz_below(&f->rng, v1);
		*wf = false;
	} else if (r < 8 && room) {
		size = v1 + 8 * (1 + fz_below(&f->rng, room));
	} else if (r < 11 && room) {
		size = v1 + 8 * (1 + fz_below(&f->rng, room));
		payload[v1 + fz_below(&f->rng, size - v1)] = 0x5a;
	} else {
		size = KU_CMD_BYTES + 8 * (1 + fz_below(&f->rng, 16));
		*wf = false;
	}
	return size;
}

/* An io_uring command, possibly malformed: fills @sqe's command area. */
static bool fz_uring_prep(struct fz *f, struct io_uring_sqe *sqe, bool launch,
			  bool gone)
{
	unsigned long op = launch ? IPU_URING_CMD_LAUNCH : IPU_URING_CMD_XFER;
	size_t v1 = _IOC_SIZE(op), size = v1;
	uint8_t payload[KU_CMD_BYTES];
	unsigned int r = (unsigned int)fz_below(&f->rng, 100), kind;
	int slot = fz_slot(f);
	bool wf = f->ring_sqe128;
	char what[256];

	memset(payload, 0, sizeof(payload));
	if (launch) {
		fz_fill_launch(f, (struct ipu_launch *)payload, &slot, what,
			       sizeof(what));
		kind = UD_LAUNCH;
	} else {
		fz_fill_xfer(f, (struct ipu_xfer *)payload, &slot, what,
			     sizeof(what));
		kind = ((struct ipu_xfer *)payload)->flags == IPU_XFER_FROM_DEVICE ?
		       UD_XFER_FROM : UD_XFER_TO;
	}
	if (r < 13) {
		size = fz_cmd_size(f, r, v1, payload, &wf);
	} else if (r < 15) {
		op = _IOC(_IOC_DIR(op), IPU_IOCTL_TYPE,
			  fz_pct(&f->rng, 50) ? 0x22 + fz_below(&f->rng, 8) :
						_IOC_NR(IPU_IOCTL_XFER), v1);
		wf = false;
	}
	if (size != v1)
		op = kt_resize(op, size);

	io_uring_prep_rw(IORING_OP_URING_CMD, sqe,
			 f->uring_fd >= 0 ? f->uring_fd : f->fd[slot], NULL, 0, 0);
	sqe->cmd_op = (uint32_t)op;
	if (f->ring_sqe128)
		memcpy(sqe->cmd, payload, KU_CMD_BYTES);
	if (!launch && f->ring_regbufs && fz_pct(&f->rng, 25)) {
		struct ipu_xfer *x = (struct ipu_xfer *)sqe->cmd;

		sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
		sqe->buf_index = fz_pct(&f->rng, 85) ? (uint16_t)fz_below(&f->rng, 2) :
			(uint16_t)fz_next(&f->rng);
		if (f->ring_sqe128 && fz_pct(&f->rng, 80) && x->length <= FZ_HOST / 2)
			x->user_ptr = (uintptr_t)f->host + sqe->buf_index % 2 * (FZ_HOST / 2) +
				      fz_below(&f->rng, FZ_HOST / 2 - x->length + 1);
		wf = false; /* io_uring checks buf_index before the driver */
	} else if (launch && fz_pct(&f->rng, 3)) {
		sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
		wf = false;
	}
	if (fz_pct(&f->rng, 20))
		sqe->flags |= IOSQE_ASYNC;
	sqe->user_data = ((uint64_t)kind << 32) | (++f->ud & 0xffffffffu);
	if (gone && wf)
		sqe->user_data |= UD_GONE;
	if (f->uring_closing)
		sqe->user_data |= UD_CLOSING;
	if (f->uring_fd >= 0)
		slot = f->uring_slot;
	sqe->user_data |= (uint64_t)slot << UD_SLOT_SHIFT |
			  (uint64_t)f->slot_gen[slot] << UD_GEN_SHIFT;
	f->inflight++;
	if (kind != UD_XFER_FROM)
		f->inflight_unsafe++;
	return true;
}

/* Submit one command, or a linked chain of up to four. */
static void op_uring(struct fz *f)
{
	unsigned int n = fz_pct(&f->rng, 20) ? 2 + (unsigned int)fz_below(&f->rng, 3) : 1;
	bool gone = fz_is_gone(f);
	struct io_uring_sqe *sqe = NULL;
	unsigned int i, prepped = 0;
	int ret;

	if (!f->ring_up)
		return;
	if (f->inflight + n > FZ_RING_ENTRIES)
		fz_reap(f, true);
	for (i = 0; i < n; i++) {
		sqe = io_uring_get_sqe(&f->ring);
		if (!sqe)
			break;
		fz_uring_prep(f, sqe, fz_pct(&f->rng, 35), gone);
		prepped++;
		if (i + 1 < n)
			sqe->flags |= IOSQE_IO_LINK;
	}
	if (sqe && prepped < n)
		sqe->flags &= (uint8_t)~IOSQE_IO_LINK;
	ret = io_uring_submit(&f->ring);
	if (ret < 0 || (unsigned int)ret != prepped) {
		/* io_uring refused the SQEs themselves: no CQEs for those. */
		unsigned int lost = prepped - (ret < 0 ? 0 : (unsigned int)ret);

		f->inflight -= lost;
		f->inflight_unsafe = f->inflight_unsafe < lost ? 0 :
				     f->inflight_unsafe - lost;
	}
	f->ops += prepped;
	fz_reap(f, false);
}

/* Close the ring with whatever is in flight, and open another. */
static void op_ring_cycle(struct fz *f)
{
	if (f->ring_up) {
		if (f->inflight)
			f->ring_abandoned = true;
		io_uring_queue_exit(&f->ring);
		f->ring_up = false;
	}
	fz_ring_up(f);
	f->ops++;
}

/* ------------------------------------------------------------------------ */
/* Files closed with commands in flight                                     */
/* ------------------------------------------------------------------------ */

static void fz_forget_slot(struct fz *f, int slot)
{
	unsigned int i;

	for (i = 0; i < f->nbo; i++)
		if (f->bo[i].slot == slot)
			f->bo[i].live = false;
	for (i = 0; i < f->nfence;)
		if (f->fence[i].slot == slot)
			f->fence[i] = f->fence[--f->nfence];
		else
			i++;
}

/*
 * Close a file (not while the chaos thread may use its number), possibly
 * with io_uring commands in flight on it, and open another in its slot.
 */
static void op_reopen(struct fz *f)
{
	int slot = (int)fz_below(&f->rng, FZ_NFD - 1), fd;

	if (f->chaos)
		return;
	fd = fz_open(f, O_RDWR);
	if (fd < 0)
		return; /* the device is gone: keep the file we have */
	if (f->ring_up && fz_pct(&f->rng, 60)) {
		/* Commands in flight on that file while it closes. */
		f->uring_fd = f->fd[slot];
		f->uring_slot = slot;
		f->uring_closing = true;
		op_uring(f);
		op_uring(f);
		f->uring_fd = -1;
		f->uring_closing = false;
	}
	close(f->fd[slot]);
	f->slot_gen[slot]++;
	fz_forget_slot(f, slot);
	if (f->owner == slot)
		f->owner = -1;
	f->fd[slot] = fd;
	if (fz_pct(&f->rng, 60) && !kt_attach(fd))
		f->owner = slot;
	f->ops++;
}

/* ------------------------------------------------------------------------ */
/* A child that drives the device and is killed                            */
/* ------------------------------------------------------------------------ */

/*
 * A transfer whose host page faults into a userfaultfd nobody serves: it
 * sleeps in pinning until the process is killed. Tells the parent ('u')
 * first; returns only if userfaultfd is not available.
 */
static void fz_kid_stuck_xfer(struct fz *f, int fd, uint32_t h, int tick)
{
	struct uffdio_register reg;
	struct uffdio_api api;
	uint8_t *region;
	long uffd;

	region = mmap(NULL, 2 * f->page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (region == MAP_FAILED || uffd < 0)
		return;
	memset(&api, 0, sizeof(api));
	api.api = UFFD_API;
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)region;
	reg.range.len = 2 * f->page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl((int)uffd, UFFDIO_API, &api) ||
	    ioctl((int)uffd, UFFDIO_REGISTER, &reg))
		return;
	if (write(tick, "u", 1) != 1)
		_exit(0);
	kt_xfer(fd, h, 0, region, f->page, IPU_XFER_TO_DEVICE);
	_exit(0); /* not reached: nobody serves the fault */
}

static void __attribute__((noreturn)) fz_kid_main(struct fz *f, int tick)
{
	int fd = fz_open(f, O_RDWR), i, ret;
	struct ipu_bo_create c;
	uint32_t h = 0;
	uint64_t size = 0;

	fz_catch_signals(NULL, NULL);
	if (fd < 0)
		_exit(0);
	f->rng ^= (uint64_t)getpid() << 32;
	/* The parent's ring is not ours to use: a ring of our own. */
	f->ring_up = false;
	f->uring_fd = fd;
	if (fd >= 0 && kt_attach(fd) == 0 &&
	    kt_bo_create(fd, f->page * (1 + fz_below(&f->rng, 512)), &c) == 0) {
		h = c.handle;
		size = c.size;
	}
	fz_ring_up(f);
	for (i = 0; i < 100000; i++) {
		if (h && fz_pct(&f->rng, 2))
			fz_kid_stuck_xfer(f, fd, h, tick);
		switch (fz_below(&f->rng, 6)) {
		case 0:
		case 1:
			/* A long transfer, to be killed in the middle. */
			ret = kt_xfer(fd, h, 0, f->host,
				      size < FZ_HOST ? size : FZ_HOST,
				      fz_pct(&f->rng, 50) ? IPU_XFER_TO_DEVICE :
							   IPU_XFER_FROM_DEVICE);
			fz_fw_check(f->report[1], OP_XFER, ret);
			break;
		case 2: {
			struct ipu_launch l;

			memset(&l, 0, sizeof(l));
			l.exe_handle = h;
			l.arena_handle = h;
			l.exe_size = size ? size : 1;
			l.arena_size = size ? size : 1;
			l.num_replicas = 1;
			ret = kt_ioctl(fd, IPU_IOCTL_LAUNCH, &l);
			fz_fw_check(f->report[1], OP_LAUNCH, ret);
			break;
		}
		case 3:
			if (f->ring_up) {
				struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);

				if (sqe) {
					fz_uring_prep(f, sqe, fz_pct(&f->rng, 50),
						      false);
					io_uring_submit(&f->ring);
				}
			}
			break;
		case 4: {
			void *p = mmap(NULL, f->page, PROT_READ | PROT_WRITE,
				       MAP_SHARED, fd, (off_t)((uint64_t)h << 40));

			if (p != MAP_FAILED)
				fz_touch(p, f->page, f->page, true, 0);
			break;
		}
		default: {
			struct ipu_info info;

			/* The parent's files, inherited. */
			ret = kt_get_info(f->fd[fz_slot(f)], &info);
			fz_fw_check(f->report[1], OP_GET_INFO, ret);
			break;
		}
		}
		if (write(tick, "t", 1) != 1)
			_exit(0);
	}
	_exit(0);
}

/* Whether @pid sleeps (its state in /proc/PID/stat is S or D). */
static bool fz_sleeping(pid_t pid)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (kt_read_file(path, buf, sizeof(buf)))
		return false;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'S' || p[2] == 'D');
}

/*
 * The child sleeps in a transfer stuck on userfaultfd: remove the device
 * under it (sometimes). del_device must return; if removal waited for the
 * transfer, this would hang and the guest's time limit would fail the test.
 */
static void fz_stuck_removal(struct fz *f, pid_t pid)
{
	int i, ret;

	if (!fz_pct(&f->rng, 50))
		return;
	for (i = 0; i < 200 && !fz_sleeping(pid); i++)
		fz_pause(5000000);
	atomic_store(&f->deleting, true);
	ret = fz_dev_remove(f);
	fz_check(f, OP_SIM_CTL, ret, false, false, "del_device under a stuck transfer");
	if (!ret)
		atomic_store(&f->gone, true);
	f->stuck_removals++;
}

static void op_fork_kill(struct fz *f)
{
	uint64_t ticks = 1 + fz_below(&f->rng, 40), got = 0;
	pid_t pid, parent = getpid();
	int p[2], st;
	char c;

	if (!f->forks || pipe2(p, O_CLOEXEC))
		return;
	/* Sometimes leave the device free for the child to attach. */
	if (fz_pct(&f->rng, 60)) {
		int i;

		for (i = 0; i < FZ_NFD; i++)
			kt_detach(f->fd[i]);
		f->owner = -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		fz_child_dies_with(parent);
		close(p[0]);
		memset(kt_res, 0, sizeof(kt_res));
		fz_kid_main(f, p[1]);
	}
	close(p[1]);
	/* Kill it after a number of its calls: an event, not a time. */
	while (got < ticks && read(p[0], &c, 1) == 1) {
		got++;
		if (c == 'u') {
			fz_stuck_removal(f, pid);
			break;
		}
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	close(p[0]);
	f->kills++;
	f->ops++;
}

/* ------------------------------------------------------------------------ */
/* The second thread: RESET, sysfs, fault injection, del_device             */
/* ------------------------------------------------------------------------ */

static void *fz_chaos_main(void *arg)
{
	struct fz *f = arg;
	uint64_t s = f->chaos_seed;
	unsigned int n = 1 + (unsigned int)fz_below(&s, 60), i;
	char path[128];
	uint64_t v;
	int ret;

	for (i = 0; i < n && !atomic_load(&f->stop) && !fz_is_gone(f); i++) {
		unsigned int r = (unsigned int)fz_below(&s, 100);
		int fd = f->fd[fz_below(&s, FZ_NFD)];
		bool gone = fz_is_gone(f);

		if (r < 30) {
			struct ipu_reset rs;

			memset(&rs, 0, sizeof(rs));
			ret = kt_ioctl(fd, IPU_IOCTL_RESET, &rs);
			fz_check(f, OP_RESET, ret, true, gone, "from another thread");
		} else if (r < 45) {
			struct ipu_info info;

			ret = kt_get_info(fd, &info);
			fz_check(f, OP_GET_INFO, ret, true, gone, "from another thread");
		} else if (r < 60) {
			char buf[32];

			fz_sysfs_u64(f->dev, fz_pct(&s, 50) ? "memory_used" : "reset_count", &v);
			snprintf(path, sizeof(path), KT_SYSFS_CLASS "/ipu%u/owner_pid", f->dev);
			kt_read_file(path, buf, sizeof(buf));
		} else if (r < 66) {
			fz_dev_fault(f, fz_pct(&s, 70), (unsigned int)fz_below(&s, 4));
		} else if (r < 70 && fz_pct(&s, 50)) {
			atomic_store(&f->deleting, true);
			ret = fz_dev_remove(f);
			if (ret)
				fz_bad(f, "removing ipu%u: %d (%s)", f->dev, ret,
				       fz_errname(ret));
			else
				atomic_store(&f->gone, true);
		} else {
			sched_yield();
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* One sequence                                                             */
/* ------------------------------------------------------------------------ */

static uint64_t fz_mem_used(struct fz *f)
{
	uint64_t v = UINT64_MAX;

	fz_sysfs_u64(f->dev, "memory_used", &v);
	return v;
}

/* Wait (bounded) until memory_used is @want. */
static bool fz_settle(struct fz *f, uint64_t want, uint64_t *got)
{
	unsigned int i;

	for (i = 0; i < FZ_SETTLE_POLLS; i++) {
		*got = fz_mem_used(f);
		if (*got == want)
			return true;
		fz_pause(10000000);
	}
	return false;
}

/* The whole device memory as one fresh BO: all zero. */
static void fz_check_all_zero(struct fz *f)
{
	struct ipu_bo_create c;
	unsigned int i;
	uint64_t off;
	ssize_t nz;
	int fd, ret;

	fd = fz_open(f, O_RDWR);
	if (fd < 0)
		return;
	/* A killed child's file may close a little later (its ring). */
	for (i = 0; (ret = kt_attach(fd)) == -EBUSY && i < FZ_SETTLE_POLLS; i++)
		fz_pause(10000000);
	if (!ret)
		ret = kt_bo_create(fd, f->mem, &c);
	if (ret) {
		fz_bad(f, "the whole device memory as one BO: %d (%s)", ret,
		       fz_errname(ret));
		close(fd);
		return;
	}
	for (off = 0; off < c.size; off += FZ_HOST) {
		memset(f->chk, 0xa5, FZ_HOST);
		ret = kt_xfer(fd, c.handle, off, f->chk, FZ_HOST,
			      IPU_XFER_FROM_DEVICE);
		if (ret == -EIO)
			ret = kt_xfer(fd, c.handle, off, f->chk, FZ_HOST,
				      IPU_XFER_FROM_DEVICE);
		if (ret) {
			fz_bad(f, "reading the whole device memory: %d (%s)", ret,
			       fz_errname(ret));
			break;
		}
		nz = kt_nonzero(f->chk, FZ_HOST);
		if (nz >= 0) {
			fz_bad(f, "a fresh BO over the whole device memory has byte %#x at %#llx",
			       f->chk[nz], (unsigned long long)off + (unsigned long long)nz);
			break;
		}
	}
	close(fd);
}

static void fz_sequence(struct fz *f, uint64_t seed, int64_t end_ns)
{
	unsigned int nops, i;
	uint64_t base, used;
	int ret;

	f->seq++;
	f->seq_seed = seed;
	f->rng = seed;
	f->opno = 0;
	fz_unretire(f, fz_now_ns() - FZ_QUARANTINE_NS);
	if (!f->have_dev && !fz_dev_add(f))
		return;

	/* The firmware: sometimes killed, sometimes absent for a while. */
	fz_fw_reap(f, fz_pct(&f->rng, 8));
	if (!fz_fw_up(f) && fz_pct(&f->rng, 90) && !(f->skip & (1u << FC_FIRMWARE)))
		fz_fw_start(f);

	base = fz_mem_used(f);
	if (base != 0)
		fz_bad(f, "memory_used is %llu" " at the start of a sequence",
		       (unsigned long long)base);

	for (i = 0; i < FZ_NFD; i++) {
		ret = fz_open(f, i == FZ_NFD - 1 ? O_RDONLY : O_RDWR);
		if (ret < 0)
			fz_bad(f, "open /dev/ipu%u: %d (%s)", f->dev, ret, fz_errname(ret));
		f->fd[i] = ret < 0 ? open("/dev/null", O_RDWR | O_CLOEXEC) : ret;
	}
	f->owner = -1;
	if (fz_pct(&f->rng, 85)) {
		i = (unsigned int)fz_below(&f->rng, FZ_NFD);
		if (!kt_attach(f->fd[i]))
			f->owner = (int)i;
	}
	memset(f->bo, 0, sizeof(f->bo));
	memset(f->map, 0, sizeof(f->map));
	f->nbo = 0;
	f->nfence = 0;
	f->ring_abandoned = false;
	f->ring_up = false;
	f->ring_used = false;
	if (fz_pct(&f->rng, 85))
		fz_ring_up(f);

	f->chaos = fz_pct(&f->rng, 30) && !(f->skip & (1u << FC_CHAOS));
	f->forks = !f->chaos && fz_pct(&f->rng, 35);
	atomic_store(&f->stop, false);
	if (f->chaos) {
		f->chaos_seed = fz_next(&f->rng);
		if (pthread_create(&f->chaos_thread, NULL, fz_chaos_main, f))
			f->chaos = false;
	}

	nops = 50 + (unsigned int)fz_below(&f->rng, 350);
	for (f->opno = 0; f->opno < nops && fz_now_ns() < end_ns; f->opno++) {
		unsigned int r = (unsigned int)fz_below(&f->rng, FZ_CLASS_DRAWS);
		enum fz_class c = 0;

		while (r >= fz_classes[c].draws)
			r -= fz_classes[c++].draws;
		if (f->skip & (1u << c))
			continue;
		switch (c) {
		case FC_INFO:
			op_get_info(f);
			break;
		case FC_ATTACH:
			op_attach(f, true);
			break;
		case FC_DETACH:
			op_attach(f, false);
			break;
		case FC_BO_CREATE:
			op_bo_create(f);
			break;
		case FC_BO_DESTROY:
			op_bo_destroy_or_info(f, true);
			break;
		case FC_BO_INFO:
			op_bo_destroy_or_info(f, false);
			break;
		case FC_XFER:
			op_xfer(f);
			break;
		case FC_RESET:
			op_reset(f);
			break;
		case FC_LAUNCH:
			op_launch(f);
			break;
		case FC_WAIT:
			op_wait(f);
			break;
		case FC_FW:
			op_fw(f);
			break;
		case FC_GATHER:
			op_gather(f);
			break;
		case FC_MMAP:
			op_mmap(f);
			break;
		case FC_MAPS:
			op_maps(f);
			break;
		case FC_URING:
			op_uring(f);
			break;
		case FC_RING_CYCLE:
			op_ring_cycle(f);
			break;
		case FC_REOPEN:
			op_reopen(f);
			break;
		case FC_FORK:
			op_fork_kill(f);
			break;
		default:
			fz_reap(f, false);
			break;
		}
	}

	if (f->chaos) {
		atomic_store(&f->stop, true);
		pthread_join(f->chaos_thread, NULL);
	}
	f->opno = nops;

	/* Leave with commands in flight, or wait for them. */
	if (f->ring_up) {
		if (fz_pct(&f->rng, 50))
			fz_reap(f, true);
		io_uring_queue_exit(&f->ring);
		f->ring_up = false;
	}
	for (i = 0; i < FZ_NMAP; i++)
		if (f->map[i].addr)
			fz_release(f, f->map[i].addr, f->map[i].len);
	memset(f->map, 0, sizeof(f->map));
	for (i = 0; i < FZ_NFD; i++)
		close(f->fd[i]);

	if (fz_is_gone(f)) {
		f->removals++;
		fz_dev_forget(f);
		fz_fw_reap(f, true);
	} else {
		/* No leftover fault injection spoils the checks. */
		fz_dev_faults_clear(f);
		if (!fz_settle(f, base, &used))
			fz_bad(f, "memory_used is %llu" ", not %llu"
			       ", with every file, mapping and ring closed",
			       (unsigned long long)used, (unsigned long long)base);
		else if (fz_pct(&f->rng, 50))
			fz_check_all_zero(f);
	}
	fz_drain_reports(f);
	fz_kmsg_check(f);
	f->sequences++;
}

/* ------------------------------------------------------------------------ */
/* The test                                                                 */
/* ------------------------------------------------------------------------ */

static uint64_t fz_env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	char *end;
	uint64_t x;

	if (!v || !*v)
		return dflt;
	errno = 0;
	x = strtoull(v, &end, 0);
	return errno || *end ? dflt : x;
}

/*
 * IPU_FUZZ_SKIP: names of enum fz_class, separated by commas, to leave out;
 * an unknown name fails the test (a typo must not look like a replay).
 */
static unsigned int fz_env_skip(void)
{
	const char *v = getenv("IPU_FUZZ_SKIP");
	unsigned int mask = 0, c;
	char buf[256], *tok, *save;

	if (!v || !*v)
		return 0;
	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (c = 0; c < FC_COUNT; c++)
			if (!strcmp(tok, fz_classes[c].name))
				break;
		if (c == FC_COUNT)
			fail_msg("IPU_FUZZ_SKIP: no class '%s'", tok);
		mask |= 1u << c;
	}
	return mask;
}

static void *fz_map_or_fail(size_t len, int prot)
{
	void *p = kt_mmap(len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

/* f->ro and its writable alias f->ro_alias: one memfd page, mapped twice. */
static void fz_map_ro(struct fz *f)
{
	int fd = memfd_create("fuzz-ro", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)f->page), 0);
	f->ro = kt_mmap(f->page, PROT_READ, MAP_SHARED, fd, 0);
	f->ro_alias = kt_mmap(f->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	assert_true(f->ro != MAP_FAILED && f->ro_alias != MAP_FAILED);
}

static void test_random_sequences_keep_the_invariants(void **state)
{
	struct fz *f = &fz;
	struct sigaction old_bus, old_segv;
	uint64_t seconds, seed, s;
	int64_t start, end, next_report;
	unsigned long i;

	(void)state;
#ifdef KT_ON_PCI
	kt_own_dev(0);
	ke_require();
	memset(f, 0, sizeof(*f));
	if (kt_pci_fn_of(kt_dev(0), f->fn, sizeof(f->fn)))
		fail_msg("ipu%u has no PCI function", kt_dev(0));
	f->emu = ke_index_of(0);
#else
	kt_require_sim_ctl();
	memset(f, 0, sizeof(*f));
#endif
	pthread_mutex_init(&f->lock, NULL);
	pthread_mutex_init(&f->emu_lock, NULL);
	f->uring_fd = -1;
	f->page = kt_page_size();
	seconds = fz_env_u64("IPU_FUZZ_SECONDS", FZ_DEFAULT_SECONDS);
	seed = fz_env_u64("IPU_FUZZ_SEED", (uint64_t)time(NULL) * 1000003u ^
				   (uint64_t)getpid());
	f->skip = fz_env_skip();
	print_message("fuzz: seed %#llx" " (replay: IPU_FUZZ_SEED=%#llx"
		      "), %llu" " s%s%s\n", (unsigned long long)seed,
		      (unsigned long long)seed, (unsigned long long)seconds,
		      f->skip ? ", IPU_FUZZ_SKIP=" : "",
		      f->skip ? getenv("IPU_FUZZ_SKIP") : "");
	f->retired = calloc(FZ_NRETIRED, sizeof(*f->retired));
	assert_non_null(f->retired);

	f->host = fz_map_or_fail(FZ_HOST + FZ_GUARD, PROT_NONE);
	assert_int_equal(mprotect(f->host, FZ_HOST, PROT_READ | PROT_WRITE), 0);
	f->chk = fz_map_or_fail(FZ_HOST, PROT_READ | PROT_WRITE);
	fz_map_ro(f);
	f->none = kt_no_access(f->page);
	f->argp = fz_map_or_fail(3 * f->page, PROT_READ | PROT_WRITE);
	assert_int_equal(mprotect(f->argp + 2 * f->page, f->page, PROT_NONE), 0);
	kt_fill(f->host, FZ_HOST, 7);
	kt_pipe(f->report);
	assert_int_equal(fcntl(f->report[0], F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(fcntl(f->report[1], F_SETFL, O_NONBLOCK), 0);
	f->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (f->kmsg >= 0) {
		lseek(f->kmsg, 0, SEEK_END);
		kt_track(KT_PIPE)->fd = f->kmsg;
	}
	/* Launches the firmware ignores end soon, and reset the device. */
	ks_timeout_set(FZ_TIMEOUT_MS);
	fz_catch_signals(&old_bus, &old_segv);
	/* A killed child's pipe, a closed ring: no SIGPIPE for us. */
	signal(SIGPIPE, SIG_IGN);

	start = fz_now_ns();
	end = start + (int64_t)seconds * 1000000000ll;
	next_report = start + 60ll * 1000000000ll;
	s = seed;
	while (fz_now_ns() < end) {
		fz_sequence(f, s, end);
		s = fz_next(&s);
		if (fz_now_ns() >= next_report) {
			print_message("fuzz: %lld" " s, %lu sequences, %lu ops, %lu violations\n",
				      (fz_now_ns() - start) / 1000000000ll,
				      f->sequences, f->ops, f->violations);
			next_report += 60ll * 1000000000ll;
		}
	}

	fz_fw_reap(f, true);
#ifdef KT_ON_PCI
	/* The device stays (teardown binds it again if it was removed). */
	if (f->have_dev)
		fz_dev_faults_clear(f);
#else
	if (f->have_dev && !fz_dev_remove(f))
		fz_dev_forget(f);
#endif
	fz_drain_reports(f);
	fz_kmsg_check(f);
	/*
	 * The quarantined ranges stay reserved (PROT_NONE, no memory behind
	 * them) until the process exits, not unmapped here: the last
	 * sequence's ring was closed with commands in flight moments ago,
	 * and one issued after this returns would pin whatever the process
	 * mapped there next (seen in a 6.12 run: ld.so's assertion at exit,
	 * status 127, after every test had passed). Only the exit ends
	 * those commands for sure; the table alone goes.
	 */
	free(f->retired);
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	signal(SIGPIPE, SIG_DFL);

	{
		double secs = (double)(fz_now_ns() - start) / 1e9;

		print_message("fuzz: seed %#llx" ": %lu sequences, %lu ops in %.1f s"
			      " (%.0f ops/s), %lu children killed, %lu devices removed"
			      " (%lu under a stuck transfer), %lu violations\n",
			      (unsigned long long)seed, f->sequences, f->ops, secs,
			      secs > 0 ? (double)f->ops / secs : 0.0, f->kills,
			      f->removals, f->stuck_removals, f->violations);
	}
	for (i = 0; i < OP_COUNT; i++) {
		char line[1024];
		size_t n = 0;
		int e;

		if (!f->count[i])
			continue;
		for (e = 0; e <= EHWPOISON + 1 && n < sizeof(line) - 40; e++)
			if (f->hist[i][e])
				n += (size_t)snprintf(line + n, sizeof(line) - n, " %s %lu",
					      e == 0 ? "ok" : e > EHWPOISON ? "other" :
					      strerrorname_np(e) ? strerrorname_np(e) : "?",
					      f->hist[i][e]);
		print_message("fuzz:   %-14s %7lu:%s\n", fz_docs[i].name,
			      f->count[i], line);
	}
	if (f->violations)
		fail_msg("%lu violations (seed %#llx" ")", f->violations,
			 (unsigned long long)seed);
}

/* ------------------------------------------------------------------------ */
/* What the fuzzer found, each as a deterministic test                      */
/* ------------------------------------------------------------------------ */

/*
 * A host range inside the last page of the address space: user_ptr +
 * length does not wrap (not -EINVAL), but the range is not user memory:
 * -EFAULT, as the header says. 6.12's pin_user_pages_fast() returns
 * -EOVERFLOW for it (the page-rounded end wraps), which the driver passed
 * on (found by the fuzzer on 6.12).
 */
static void test_found_xfer_inside_the_last_page_is_efault(void **state)
{
	uint64_t page = kt_page_size();
	uint64_t ptrs[] = { UINT64_MAX - page + 1, UINT64_MAX - page + 17,
			    UINT64_MAX - 15 };
	uint32_t dirs[] = { IPU_XFER_TO_DEVICE, IPU_XFER_FROM_DEVICE };
	size_t i, d;
	uint32_t h;
	int fd;

	(void)state;
	fd = kt_open_attached(0);
	h = kt_bo(fd, page, NULL);
	for (i = 0; i < KT_ARRAY_SIZE(ptrs); i++) {
		for (d = 0; d < KT_ARRAY_SIZE(dirs); d++) {
			struct ipu_xfer x;
			int ret;

			memset(&x, 0, sizeof(x));
			x.user_ptr = ptrs[i];
			x.length = UINT64_MAX - ptrs[i]; /* up to the last byte */
			x.handle = h;
			x.flags = dirs[d];
			ret = kt_ioctl(fd, IPU_IOCTL_XFER, &x);
			if (ret != -EFAULT)
				fail_msg("XFER of %#llx bytes at %#llx, flags %#x: %d (%s), not -EFAULT",
					 (unsigned long long)x.length,
					 (unsigned long long)x.user_ptr, x.flags,
					 ret, fz_errname(ret));
		}
	}
}

/* The same through io_uring (the range is pinned at submission). */
static void test_found_uring_xfer_inside_the_last_page_is_efault(void **state)
{
	uint64_t page = kt_page_size();
	uint32_t h;
	int fd, res;

	(void)state;
	fd = kt_open_attached(0);
	h = kt_bo(fd, page, NULL);
	ku_xfer(&ku_r, fd, h, 0, (const void *)(uintptr_t)(UINT64_MAX - page + 17),
		page - 17, IPU_XFER_FROM_DEVICE, 0);
	res = ku_one(&ku_r);
	if (res != -EFAULT)
		fail_msg("io_uring XFER inside the last page: %d (%s), not -EFAULT",
			 res, fz_errname(res));
}

/*
 * Every form of an io_uring command's payload stays inside the SQE128
 * command area, whatever the payload struct: LAUNCH's fills the area (80
 * bytes), and its "larger, non-zero tail" form wrote its tail byte past
 * the end of fz_uring_prep()'s payload array, into that function's stack
 * frame (found by review; the fuzzer's own bug, no device needed).
 */
static void test_uring_payload_forms_stay_in_the_command_area(void **state)
{
	static const size_t v1s[] = { sizeof(struct ipu_xfer),
				      sizeof(struct ipu_launch) };
	static struct fz t;
	uint8_t buf[KU_CMD_BYTES + 16];
	unsigned int n;
	size_t i, j;

	(void)state;
	t.rng = 1;
	for (i = 0; i < KT_ARRAY_SIZE(v1s); i++) {
		for (n = 0; n < 13000; n++) {
			unsigned int r = n % 13;
			bool wf = true;
			size_t size;

			memset(buf, 0, KU_CMD_BYTES);
			memset(buf + KU_CMD_BYTES, 0xcc, sizeof(buf) - KU_CMD_BYTES);
			size = fz_cmd_size(&t, r, v1s[i], buf, &wf);
			for (j = KU_CMD_BYTES; j < sizeof(buf); j++)
				if (buf[j] != 0xcc)
					fail_msg("payload of %zu bytes, form %u: byte %zu written, past the %d-byte command area",
						 v1s[i], r, j, KU_CMD_BYTES);
			if (wf && size > KU_CMD_BYTES)
				fail_msg("payload of %zu bytes, form %u: a well-formed size %zu, past the %d-byte command area",
					 v1s[i], r, size, KU_CMD_BYTES);
		}
	}
}

/* The other thread of the test below: faults unguarded once A is inside. */
struct fz_tls_probe {
	int uffd;
	uint8_t *none;
};

static void *fz_tls_probe_fault(void *arg)
{
	struct fz_tls_probe *p = arg;
	struct uffd_msg msg;

	/* A's fault arrives: A sleeps inside fz_touch(), guarded. */
	if (read(p->uffd, &msg, sizeof(msg)) != sizeof(msg))
		_exit(4);
	(void)*(volatile uint8_t *)p->none;
	_exit(5); /* not reached: the access faults */
}

/*
 * In a child: thread A sleeps inside fz_touch() (on a page of a
 * userfaultfd nobody serves) while thread B faults outside any guarded
 * access. B must die of it (the process, by SIGSEGV); with one jump
 * buffer for all threads, B jumped into A's fz_touch() and returned from
 * it on A's stack (exit 3). 77: no userfaultfd here.
 */
static void __attribute__((noreturn)) fz_tls_probe_main(void)
{
	size_t page = kt_page_size();
	struct uffdio_register reg;
	struct uffdio_api api;
	struct fz_tls_probe p;
	pid_t a = (pid_t)syscall(SYS_gettid);
	uint8_t *region;
	pthread_t b;

	fz_catch_signals(NULL, NULL);
	region = mmap(NULL, page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p.none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p.uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (region == MAP_FAILED || p.none == MAP_FAILED || p.uffd < 0)
		_exit(77);
	memset(&api, 0, sizeof(api));
	api.api = UFFD_API;
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)region;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(p.uffd, UFFDIO_API, &api) || ioctl(p.uffd, UFFDIO_REGISTER, &reg))
		_exit(77);
	if (pthread_create(&b, NULL, fz_tls_probe_fault, &p))
		_exit(6);
	fz_touch(region, 1, page, false, 0);
	_exit((pid_t)syscall(SYS_gettid) == a ? 7 : 3);
}

/*
 * Run @probe in a child with its output @quiet (STDOUT_FILENO or
 * STDERR_FILENO) sent to /dev/null: the report it provokes on purpose is
 * no news. Returns its wait status; a probe that exits 77 cannot run
 * here, and the test skips.
 */
static int fz_probe(void (*probe)(void), int quiet)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null < 0 || dup2(null, quiet) < 0)
			_exit(8);
		probe();
		_exit(9);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		skip();
	return st;
}

static void test_a_fault_of_another_thread_is_its_own(void **state)
{
	int st;

	(void)state;
	/* fz_sig()'s report of the expected fault goes to stderr. */
	st = fz_probe(fz_tls_probe_main, STDERR_FILENO);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV)
		fail_msg("the faulting thread did not die of its fault: %s %d (3: it jumped into the other thread's fz_touch())",
			 WIFSIGNALED(st) ? "signal" : "exit status",
			 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

/*
 * In a child: mmap() with MAP_FIXED fails (-ENOMEM, by a seccomp filter)
 * when fz_release() reserves a released mapping's range. The range must
 * stay taken (the old mapping, or a reservation), never free: a command
 * still aiming at it would write into whatever the process mapped there
 * next. Exit 0; 3: the range was free; 77: no seccomp filters here.
 */
static void __attribute__((noreturn)) fz_release_probe_main(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 0, 3),
		/* The flags' low word (little-endian). */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[3])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MAP_FIXED, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOMEM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { KT_ARRAY_SIZE(insns), insns };
	static struct fz t;
	size_t len;
	uint8_t *a;

	t.page = kt_page_size();
	len = 4 * t.page;
	t.ring_used = true;
	t.retired = calloc(FZ_NRETIRED, sizeof(*t.retired));
	a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (!t.retired || a == MAP_FAILED)
		_exit(6);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		_exit(77);
	fz_release(&t, a, len);
	/* Free, the range would take a mapping that must not replace. */
	_exit(mmap(a, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		   MAP_FIXED_NOREPLACE, -1, 0) == MAP_FAILED ? 0 : 3);
}

static void test_a_range_fz_release_cannot_reserve_stays_taken(void **state)
{
	int st;

	(void)state;
	/* The violation fz_release() reports goes to stdout. */
	st = fz_probe(fz_release_probe_main, STDOUT_FILENO);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("fz_release() with MAP_FIXED failing: %s %d (3: it left the range free)",
			 WIFSIGNALED(st) ? "signal" : "exit status",
			 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uring_payload_forms_stay_in_the_command_area),
		cmocka_unit_test(test_a_fault_of_another_thread_is_its_own),
		cmocka_unit_test(test_a_range_fz_release_cannot_reserve_stays_taken),
		KT_TEST(test_found_xfer_inside_the_last_page_is_efault),
		KU_TEST(test_found_uring_xfer_inside_the_last_page_is_efault),
		KS_TEST(test_random_sequences_keep_the_invariants),
	};

	return KT_RUN(tests);
}
