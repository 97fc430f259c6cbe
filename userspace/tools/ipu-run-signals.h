/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * ipu-run-signals.h - Ctrl-C in ipu-run: SIGINT (and SIGTERM) cancel the
 * session's call in progress (ipu_session_cancel()), so that the run
 * stops within a fraction of a second; ipu-run then prints what it did
 * and exits 128 + the signal's number (130 for SIGINT).
 */
#ifndef IPU_RUN_SIGNALS_H
#define IPU_RUN_SIGNALS_H

#include <stdbool.h>

struct ipu_session;

/**
 * signals_install() - catch SIGINT and SIGTERM, once each: a second one
 * ends the process as usual (for a device that does not let go).
 *
 * Return: 0, or -1 after a message naming @prog.
 */
int signals_install(const char *prog);

/**
 * signals_session() - the session a signal cancels, NULL for none. A
 * signal caught before is passed on to it at once: its next call fails
 * with -ECANCELED before it gives the device anything.
 */
void signals_session(struct ipu_session *s);

/** signals_caught() - the signal caught, 0 for none. */
int signals_caught(void);

/** signals_name() - "SIGINT" or "SIGTERM" for signals_caught(). */
const char *signals_name(void);

#endif /* IPU_RUN_SIGNALS_H */
