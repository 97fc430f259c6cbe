# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/lib/kernels.sh: the kernel matrix, sourced by scripts/kernel-check
# and scripts/kernel-soak (not run), so that a soak covers what a check does
# and a kernel added to the matrix is added to both.
#
# IPU_KERNEL_MATRIX: the kernels a run boots when IPU_KERNELS is unset:
# Debian's 6.1, bookworm-backports' 6.12, trixie-backports' 7.3 and the
# debug kernel (scripts/install-deps provides each).
# shellcheck disable=SC2034 # used by the scripts that source this file
IPU_KERNEL_MATRIX="6.1 6.12 7.3 debug"
