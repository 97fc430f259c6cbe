// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * cancel.c - ipu_session_cancel(): a flag that the waits of a call look at
 * (batch.c between its slices of waiting, attach.c between its tries).
 *
 * It is only a flag because a signal handler must be able to set it: no
 * lock, no allocation, nothing but a lock-free atomic store, which
 * async-signal-safety allows. The waits cannot be woken from here (the
 * model's reapers sleep on a condition variable, the kernel's in
 * io_uring_enter(), neither of which a signal handler may touch), so they
 * wait in slices short enough for Ctrl-C to feel immediate.
 */
#include "session_internal.h"

_Static_assert(__atomic_always_lock_free(sizeof(int), 0),
	       "ipu_session_cancel() needs a lock-free int to be async-signal-safe");

void ipu_session_cancel(struct ipu_session *s)
{
	if (s)
		__atomic_store_n(&s->cancel, 1, __ATOMIC_SEQ_CST);
}

bool ipu_session_cancel_clear(struct ipu_session *s)
{
	return s && __atomic_exchange_n(&s->cancel, 0, __ATOMIC_SEQ_CST);
}

bool ipu_sess_take_cancel(struct ipu_session *s)
{
	return ipu_session_cancel_clear(s);
}
