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

# IPU_KERNEL_WIDE: one more boot of a kernel of the matrix, named
# KERNEL-Nipus, on a rig of N PCIe IPUs instead of scripts/lib/emu-rig.sh's
# RIG_IPUS (all linked: one ipu-emu process), running only
# IPU_KERNEL_WIDE_TESTS: the tests whose programs take more PCI IPUs than
# the rig's and skip with fewer (splits across instances of 4 and 8
# replicas, 1x4 to 4x1 and 1x8 to 8x1; the groupings of 8 replicas), and
# test_emu_pci, which checks that all N came up (not the demo: its 2
# replicas take 2 of the N, as on the matrix's boots). About a minute: a boot
# of the whole suite on 8 IPUs would cost what a kernel of the matrix
# does. scripts/kernel-check boots it after the matrix (scripts/kernel-soak
# does not: the fuzzer's IPUs are the simulated ones); any KERNEL-Nipus
# (N from 2 to 8) may be given in IPU_KERNELS.
IPU_KERNEL_WIDE="6.12-8ipus"
IPU_KERNEL_WIDE_TESTS="test_emu_pci test_pci_session_hw_*"
