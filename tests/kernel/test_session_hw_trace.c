// SPDX-License-Identifier: GPL-2.0
/*
 * test_session_hw_trace.c - libsession's tests/unit/test_session_trace.c
 * on ipu.ko ("ipu_hw", ipu-simd as the firmware) instead of the model: the
 * op spans inside each launch come from the profile buffers ipu-simd
 * writes (IPU_LAUNCH_PROFILE); see ksession.h.
 */
#include "ksession.h"
#include "unit/test_session_trace.c"
