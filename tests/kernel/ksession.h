/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksession.h - run one of libsession's host test files
 * (tests/unit/test_session_*.c) on ipu.ko instead of the model.
 *
 * A guest test is two lines, this header and the unit test file:
 *
 *	#include "ksession.h"
 *	#include "unit/test_session_run.c"
 *
 * The files that test the model itself or device selection
 * (test_session_attach.c, test_session_create.c) stay on the host.
 *
 * Nothing in the unit file changes: this header includes its helpers first
 * (session_helpers.h has an include guard, so the file's own #include is
 * then a no-op) and redirects four of their names:
 *  - sh_session() and sh_session_in(): sessions on "ipu_hw" rather than
 *    "ipu_model";
 *  - sh_group_setup: small model IPUs as before (some tests compare with
 *    the model), but the machine's devices left visible;
 *  - cmocka_run_group_tests(): the tests, on KSH_DEVICES
 *    simulated IPUs all served by ipu-simd (see ksh_devices_up()), picked
 *    as a user would: IPU_HW_PLATFORM=sim (libipu lists only those, so
 *    "ipu_hw" is them); exit 77 without /dev/ipu0 or ipu-simd.
 *
 * The PCI variant of a file (ktest.h's KT_ON_PCI, e.g.
 * test_pci_session_hw_run.c) runs the same tests on the PCIe IPUs alone,
 * as a user would pick them: IPU_HW_PLATFORM=pci (libipu lists only
 * those, so "ipu_hw" is them); their launches run on the device's command
 * queue. Nothing is unbound or added. A program that needs more IPUs than
 * the guest has PCI ones skips its test, saying libsession's reason.
 */
#ifndef IPU_TESTS_KSESSION_H
#define IPU_TESTS_KSESSION_H

#include "ksimd.h"

#define SH_DEVICE "ipu_hw" /* sh_session_in() */
#include "unit/session_helpers.h"

/*
 * The unit tests' programs have up to KSH_DEVICES replicas; the guest
 * starts with two IPUs. For the run, small ones are added (KSH_ADD_MB
 * each) and ipu-simd serves them all; afterwards they go again and the
 * guest's own ipu-simd comes back.
 */
#define KSH_DEVICES	16
#define KSH_ADD_MB	"4"

static uint64_t ksh_added;

/*
 * PCIe IPUs (ipu-emu's, in the guests) run launches on their command
 * queue, but the files' programs take up to KSH_DEVICES linked IPUs and
 * the guests have two PCI ones, linked to each other only: a session on
 * "ipu_hw" that mixed both kinds could not run its replicas. For the run
 * of the file, libipu lists only the simulated IPUs (IPU_HW_PLATFORM=sim,
 * README.md); the PCI ones stay bound, unused. (The PCI variants run
 * the files on the PCI IPUs alone.)
 */
static inline uint64_t ksh_sim_present(void)
{
	uint64_t set = kt_present(), sim = 0;
	char path[64], platform[16];
	unsigned int n;

	for (n = 0; n < 64; n++) {
		snprintf(path, sizeof(path), KT_SYSFS_CLASS "/ipu%u/platform", n);
		if ((set & (1ull << n)) &&
		    !kt_read_file(path, platform, sizeof(platform)) &&
		    !strcmp(platform, "sim"))
			sim |= 1ull << n;
	}
	return sim;
}

static inline unsigned int ksh_count(uint64_t set)
{
	return (unsigned int)__builtin_popcountll(set);
}

static inline void ksh_devices_up(void)
{
	static const char *const all[] = { NULL }; /* every simulated IPU */
	uint64_t before;
	unsigned int n;
	char what[32];
	off_t from;

	while (ksh_count(ksh_sim_present()) < KSH_DEVICES) {
		before = kt_present();
		if (kt_write_file(KT_SIM_CTL "/new_device", KSH_ADD_MB))
			break;
		ksh_added |= kt_present() & ~before;
	}
	ks_simd_kill(SIGTERM);
	from = ks_log_size();
	ks_simd_start(all);
	for (n = 0; n < 64; n++) {
		if (!(ksh_sim_present() & (1ull << n)))
			continue;
		snprintf(what, sizeof(what), "ipu%u: serving", n);
		if (!ks_log_wait(from, what))
			fail_msg("ipu-simd does not serve ipu%u", n);
	}
}

static inline void ksh_devices_down(void)
{
	char val[16];
	unsigned int n;

	ks_simd_kill(SIGTERM);
	for (n = 0; n < 64; n++) {
		if (ksh_added & (1ull << n)) {
			snprintf(val, sizeof(val), "%u", n);
			kt_write_file(KT_SIM_CTL "/del_device", val);
		}
	}
	ksh_added = 0;
	ks_simd_start(NULL);
}

static inline int ksh_group_setup(void **state)
{
	(void)state;
	setenv("IPU_MODEL_DEVICES", "4", 1);
	setenv("IPU_MODEL_MEM_MB", "16", 1);
	unsetenv("IPU_DEVICE");
	unsetenv("IPU_OFFLINE_DEVICE");
	return __ipu_model_reinit();
}

#ifdef KT_ON_PCI
/*
 * The test skipped when a session_create() failed with -ENODEV: the PCIe
 * IPUs are too few for its program (libsession's message says how many
 * it needs). Tests that create sessions of their own call it
 * (sh_too_few(), session_helpers.h).
 */
static inline void ksh_too_few(int err)
{
	if (err == -ENODEV) {
		print_message("skipped on PCI IPUs: %s\n",
			      ipu_session_errmsg(NULL));
		kt_skip();
	}
}

#undef sh_too_few
#define sh_too_few(err) ksh_too_few(err)

/*
 * A session on the PCIe IPUs for @ir, or the test skipped when they are
 * too few for its program (ksh_too_few()); any other failure fails the
 * test.
 */
static inline struct ipu_session *ksh_pci_session(struct ipu_ir *ir,
						  const char *data_dir)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_hw",
		 .attach_timeout_ms = 1, .data_dir = data_dir);
	struct ipu_session *s = NULL;
	int err = ipu_session_create(ir, &opts, &s);

	ksh_too_few(err);
	if (err)
		fail_msg("ipu_session_create: %s", ipu_session_errmsg(NULL));
	return s;
}

/*
 * The PCI run: only the PCIe IPUs listed, and ipu-simd away meanwhile
 * (ks_simd_away(): a session that took a simulated IPU fails); exit 77
 * without a PCI IPU.
 */
static inline int ksh_run(const char *group, const struct CMUnitTest *tests,
			  size_t n, CMFixtureFunction setup,
			  CMFixtureFunction teardown)
{
	bool simd;
	int ret;

	if (!kt_have_dev(0)) {
		printf("no PCI IPU bound to ipu.ko: skipped\n");
		return 77;
	}
	simd = ks_simd_away();
	setenv("IPU_HW_PLATFORM", "pci", 1);
	ret = _cmocka_run_group_tests(group, tests, n, setup, teardown);
	unsetenv("IPU_HW_PLATFORM");
	if (simd)
		ks_simd_start(NULL);
	return kt_exit_code(ret, n);
}

#define sh_session(ir) ksh_pci_session((ir), NULL)
#define sh_session_in(ir, dir) ksh_pci_session((ir), (dir))
#else
/* The run of the file's tests. */
static inline int ksh_run(const char *group, const struct CMUnitTest *tests,
			  size_t n, CMFixtureFunction setup,
			  CMFixtureFunction teardown)
{
	int ret;

	if (!kt_have_dev(0) || !ks_have_simd()) {
		printf("no /dev/ipu0 or no " KS_SIMD ": skipped\n");
		return 77;
	}
	if (!ks_alive(ks_simd_pid()))
		ks_simd_start(NULL);
	ks_wait_served();
	ksh_devices_up();
	setenv("IPU_HW_PLATFORM", "sim", 1);
	ret = _cmocka_run_group_tests(group, tests, n, setup, teardown);
	unsetenv("IPU_HW_PLATFORM");
	ksh_devices_down();
	return ret;
}

#define sh_session(ir) sh_session_on((ir), "ipu_hw")
#endif
#define sh_group_setup ksh_group_setup
#undef cmocka_run_group_tests
#define cmocka_run_group_tests(t, s, td) \
	ksh_run(#t, (t), sizeof(t) / sizeof((t)[0]), (s), (td))

#endif /* IPU_TESTS_KSESSION_H */
