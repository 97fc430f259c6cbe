// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ipu-run-signals.c - SIGINT and SIGTERM in ipu-run (ipu-run-signals.h).
 *
 * The handler only records the signal and calls ipu_session_cancel(),
 * which is async-signal-safe; everything else (the summary, the exit
 * status) happens in ipu-run's own flow once the session call returns
 * -ECANCELED. The handlers reset themselves (SA_RESETHAND): a second
 * Ctrl-C is not swallowed if the first cannot stop the device.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "ipu/session.h"
#include "ipu-run-signals.h"

/*
 * Both lock-free atomics, stored before the other is loaded (here and in
 * signals_session()): whichever of the handler and the arming comes
 * second sees the other's store, so a signal is never lost between them.
 */
static int caught;
static struct ipu_session *armed;

static void on_signal(int sig)
{
	__atomic_store_n(&caught, sig, __ATOMIC_SEQ_CST);
	ipu_session_cancel(__atomic_load_n(&armed, __ATOMIC_SEQ_CST));
}

int signals_install(const char *prog)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_RESETHAND | SA_RESTART };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (sigaction(sigs[i], &sa, NULL)) {
			fprintf(stderr, "%s: catching signal %d: %s\n", prog,
				sigs[i], strerror(errno));
			return -1;
		}
	}
	return 0;
}

void signals_session(struct ipu_session *s)
{
	__atomic_store_n(&armed, s, __ATOMIC_SEQ_CST);
	/* A signal that came before the session existed cancels its next
	 * call; one that comes from here on finds it armed. */
	if (s && signals_caught())
		ipu_session_cancel(s);
}

int signals_caught(void)
{
	return __atomic_load_n(&caught, __ATOMIC_SEQ_CST);
}

const char *signals_name(void)
{
	return signals_caught() == SIGTERM ? "SIGTERM" : "SIGINT";
}
