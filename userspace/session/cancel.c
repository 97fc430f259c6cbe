// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * cancel.c - ipu_session_cancel(): a flag that the waits of a call look at
 * (batch.c between its slices of waiting, attach.c between its tries).
 *
 * It is only a flag because a signal handler must be able to set it: no
 * lock, no allocation, nothing but lock-free atomic loads and stores,
 * which async-signal-safety allows. The waits cannot be woken from here
 * (the model's reapers sleep on a condition variable, the kernel's in
 * io_uring_enter(), neither of which a signal handler may touch), so they
 * wait in slices short enough for Ctrl-C to feel immediate.
 *
 * A cancel is for the call in progress, never a later one: a cancel kept
 * for the next call would fail a run, or a detach's fetch of the weights,
 * that the user started after the Ctrl-C meant for something already
 * over (docs/session.md, S27). So every call that may wait numbers itself
 * as it begins, the cancel records the number of the latest call, and a
 * wait takes only a cancel that carries its own call's number. A call
 * that has ended keeps its number until the next begins: a cancel made
 * then is for it, and the next call drops it. The number is all a signal
 * handler needs: it can tell neither whether a call is still inside nor
 * when one ends, and needs neither.
 *
 * Signals reach the process's threads only: libsession's service threads
 * block them all (ipu_sess_thread_create()), so a handler never runs in a
 * thread that a session's destroy is about to end.
 */
#include <signal.h>

#include "session_internal.h"

_Static_assert(__atomic_always_lock_free(sizeof(unsigned int), 0),
	       "ipu_session_cancel() needs a lock-free int to be async-signal-safe");

void ipu_sess_call_begin(struct ipu_session *s)
{
	unsigned int n;

	if (s->in_call)
		return;
	/* Only the thread inside calls begins them: no race on the add.
	 * 0 means "no call" to a cancel: skipped when the count wraps. */
	n = __atomic_load_n(&s->call, __ATOMIC_SEQ_CST) + 1;
	__atomic_store_n(&s->call, n ? n : 1, __ATOMIC_SEQ_CST);
}

void ipu_sess_call_hold(struct ipu_session *s, bool on)
{
	if (on)
		ipu_sess_call_begin(s);
	s->in_call = on;
}

void ipu_session_cancel(struct ipu_session *s)
{
	/* Before any call: nothing to cancel, and 0 stores "none". */
	if (s)
		__atomic_store_n(&s->cancel,
				 __atomic_load_n(&s->call, __ATOMIC_SEQ_CST),
				 __ATOMIC_SEQ_CST);
}

bool ipu_session_cancel_clear(struct ipu_session *s)
{
	unsigned int c;

	if (!s)
		return false;
	c = __atomic_exchange_n(&s->cancel, 0, __ATOMIC_SEQ_CST);
	return c && c == __atomic_load_n(&s->call, __ATOMIC_SEQ_CST);
}

bool ipu_sess_take_cancel(struct ipu_session *s)
{
	unsigned int call = __atomic_load_n(&s->call, __ATOMIC_SEQ_CST);
	unsigned int c = __atomic_load_n(&s->cancel, __ATOMIC_SEQ_CST);

	if (!c)
		return false;
	/* An earlier call's cancel: drop it, unless a new one came. */
	if (c != call) {
		__atomic_compare_exchange_n(&s->cancel, &c, 0, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		return false;
	}
	return __atomic_compare_exchange_n(&s->cancel, &c, 0, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

int ipu_sess_thread_create(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	/* The new thread inherits the mask: block everything for it, then
	 * give the caller its own mask back. */
	sigfillset(&all);
	err = pthread_sigmask(SIG_SETMASK, &all, &old);
	if (err)
		return -err;
	err = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -err;
}
