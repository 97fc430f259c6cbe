/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * ipu-run-signals.h - Ctrl-C in ipu-run: SIGINT (and SIGTERM) cancel the
 * session's call in progress (ipu_session_cancel()), so that the run
 * stops within a fraction of a second; ipu-run then prints what it did
 * and exits 128 + the signal's number (130 for SIGINT). A signal that
 * comes once every run has completed stops nothing: the outputs are
 * written and ipu-run exits 0, saying the signal came late.
 */
#ifndef IPU_RUN_SIGNALS_H
#define IPU_RUN_SIGNALS_H

#include <stdbool.h>

struct ipu_session;

/**
 * signals_install() - block SIGINT and SIGTERM in this thread, and so in
 * every thread made after it, and take them in a thread of their own.
 * Call it before any session exists. A second signal ends the process as
 * usual (for a device that does not let go).
 *
 * Return: 0, or -1 after a message naming @prog.
 */
int signals_install(const char *prog);

/**
 * signals_session() - the session a signal cancels, NULL for none. Once a
 * signal came, the armed session's calls are cancelled until it is
 * disarmed; once signals_session(NULL) returns, no cancel of the session
 * is in flight (it may be destroyed).
 */
void signals_session(struct ipu_session *s);

/** signals_caught() - the signal caught, 0 for none. */
int signals_caught(void);

/** signals_name() - "SIGINT" or "SIGTERM" for signals_caught(). */
const char *signals_name(void);

#endif /* IPU_RUN_SIGNALS_H */
