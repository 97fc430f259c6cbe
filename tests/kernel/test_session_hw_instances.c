// SPDX-License-Identifier: GPL-2.0
/*
 * test_session_hw_instances.c - libsession's tests/unit/
 * test_session_instances.c on ipu.ko ("ipu_hw", ipu-simd as the firmware):
 * a split program's replicas run in ipu-simd, which learns the instance
 * from the process (fw_gather.h); see ksession.h.
 */
#include "ksession.h"
#include "unit/test_session_instances.c"
