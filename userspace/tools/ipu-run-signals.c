// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ipu-run-signals.c - SIGINT and SIGTERM in ipu-run (ipu-run-signals.h).
 *
 * One place handles them: a thread of ours. The handler only records the
 * signal and wakes that thread (a byte down a pipe; both async-signal-
 * safe), and touches no session. Our other threads block the signals: the
 * main thread blocks them before it makes any session, so every thread
 * made afterwards, by ipu-run or by the libraries, inherits the block
 * (libsession blocks them in its own threads as well); only the signal
 * thread takes them, or a thread a library made before main() (OpenBLAS's
 * pool), where the handler is as harmless. A handler calling
 * ipu_session_cancel() could otherwise run in a library's service thread
 * while the main thread destroys that session. The thread makes the cancel
 * under a lock that signals_session(NULL) takes too: once that returns, no
 * cancel of the session is in flight, and it may be destroyed.
 *
 * A cancel ends only the call in progress (docs/session.md S27), and a
 * signal may come just before a call begins: so, once a signal came, the
 * thread cancels the armed session's call every CANCEL_MS until ipu-run
 * disarms it (interrupted, ipu-run makes no call it wants to finish). The
 * handler resets itself (SA_RESETHAND): a second signal ends the process
 * as usual, for a device that does not let go.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ipu/session.h"
#include "ipu-run-signals.h"

/* How often a signal's cancel is made again while a session is armed. */
#define CANCEL_MS 50

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static struct ipu_session *armed;	/* under @lock */
static int caught;			/* atomic: the signal, 0 for none */
static int wake[2] = { -1, -1 };	/* the handler -> the thread */
static sigset_t sigs;

static void on_signal(int sig)
{
	int saved = errno;
	char b = 1;

	__atomic_store_n(&caught, sig, __ATOMIC_SEQ_CST);
	if (write(wake[1], &b, 1) < 0) {
		/* Full, or gone: the thread has been woken already. */
	}
	errno = saved;
}

static void *take_signals(void *arg)
{
	struct timespec t;
	char b;

	(void)arg;
	pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);
	/*
	 * The thread lives as long as the process: it is the one thread that
	 * does not block the signals, so once the handler has reset itself a
	 * second signal must still find it to end the process (were it gone,
	 * the signal would stay pending for good in a process whose every
	 * thread blocks it).
	 */
	for (;;) {
		while (read(wake[0], &b, 1) != 1 || !signals_caught())
			;
		pthread_mutex_lock(&lock);
		while (armed) {
			ipu_session_cancel(armed);
			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_nsec += CANCEL_MS * 1000000l;
			t.tv_sec += t.tv_nsec / 1000000000l;
			t.tv_nsec %= 1000000000l;
			pthread_cond_timedwait(&changed, &lock, &t);
		}
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int signals_install(const char *prog)
{
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_RESETHAND | SA_RESTART };
	const char *what = "a pipe";
	pthread_t t;
	int err = 0;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigemptyset(&sa.sa_mask);
	if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) ||
	    fcntl(wake[0], F_SETFL, 0))
		err = errno;
	if (!err) {
		what = "blocking";
		err = pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	}
	if (!err) {
		what = "a thread";
		err = pthread_create(&t, NULL, take_signals, NULL);
	}
	if (!err) {
		pthread_setname_np(t, "ipu-run-signal");
		err = pthread_detach(t);
	}
	if (!err) {
		what = "a handler";
		if (sigaction(SIGINT, &sa, NULL) ||
		    sigaction(SIGTERM, &sa, NULL))
			err = errno;
	}
	if (err) {
		fprintf(stderr, "%s: catching SIGINT and SIGTERM: %s: %s\n",
			prog, what, strerror(err));
		return -1;
	}
	return 0;
}

void signals_session(struct ipu_session *s)
{
	pthread_mutex_lock(&lock);
	armed = s;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

int signals_caught(void)
{
	return __atomic_load_n(&caught, __ATOMIC_SEQ_CST);
}

const char *signals_name(void)
{
	return signals_caught() == SIGTERM ? "SIGTERM" : "SIGINT";
}
