// SPDX-License-Identifier: GPL-2.0
/*
 * The one place the trace events of ipu_trace.h are defined: every other
 * file includes the header for the trace_ipu_*() calls only.
 */
#define CREATE_TRACE_POINTS
#include "ipu_trace.h"
