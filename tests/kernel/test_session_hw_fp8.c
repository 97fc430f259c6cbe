// SPDX-License-Identifier: GPL-2.0
/*
 * test_session_hw_fp8.c - libsession's tests/unit/test_session_fp8.c on
 * ipu.ko ("ipu_hw", ipu-simd as the firmware) instead of the model; see
 * ksession.h.
 */
#include "ksession.h"
#include "unit/test_session_fp8.c"
