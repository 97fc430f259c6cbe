/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the compile probes (see scripts/build-module): the header that
 * declares the uring_cmd API on this kernel, so that each probe tests its
 * one API and not where it is declared (<linux/io_uring/cmd.h> since 6.6,
 * <linux/io_uring.h> before). __has_include() is the compiler's own test
 * (quoted: it searches the include path all the same, after this
 * directory, and checkpatch reads <a/b.h> there as comparisons).
 */
#ifndef IPU_CONFTEST_H
#define IPU_CONFTEST_H

#if __has_include("linux/io_uring/cmd.h")
#include <linux/io_uring/cmd.h>
#else
#include <linux/io_uring.h>
#endif

#endif /* IPU_CONFTEST_H */
