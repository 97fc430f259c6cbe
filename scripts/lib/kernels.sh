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

# IPU_KERNEL_EXTRA: the boots scripts/kernel-check runs after the matrix
# (scripts/kernel-soak does not: the fuzzer's IPUs are the simulated ones),
# each a kernel of the matrix with a variant, KERNEL-VARIANT, which changes
# the rig or the guest's command line and runs only the tests that the
# change is about (kernel_variant below; IPU_KTEST still overrides them).
# A boot of the whole suite would cost what a kernel of the matrix does;
# each of these costs a minute or two:
#   6.12-8ipus    8 PCIe IPUs instead of scripts/lib/emu-rig.sh's RIG_IPUS
#                 (all linked: one ipu-emu process), for the tests whose
#                 programs take more PCI IPUs than the rig's and skip with
#                 fewer (IPU_KERNEL_WIDE_TESTS)
#   6.12-swiotlb  swiotlb=force: every streaming DMA mapping bounces through
#                 the software IO TLB, so a transfer whose data the CPU and
#                 the device do not hand over with the right dma_sync_*, or
#                 that was mapped in the wrong direction, sees stale bytes
#                 (IPU_KERNEL_DMA_TESTS)
#   6.12-iommu    a virtual IOMMU (QEMU's intel-iommu, with interrupt
#                 remapping and caching mode) in strict mode: the device
#                 reaches guest memory only at the I/O virtual addresses
#                 the driver mapped, and nothing from the moment
#                 dma_unmap_*() returns (IPU_KERNEL_DMA_TESTS); ipu-emu
#                 draws each posted write's window in [0, 500] us
#                 (--posted-window-us rand:500), so that the stops the
#                 driver waits for end at random points
#   6.12-filemem  guest RAM a plain file (memory-backend-file), which
#                 ipu-emu does not map: every access of the device to
#                 guest memory (descriptors, data, status, writeback) is a
#                 DMA_READ or DMA_WRITE message to QEMU, in the
#                 specification's layout, which the rig's QEMU 11.1 speaks
#                 (ipu-emu --remote-dma); a few tests of transfers and
#                 launches and the demo (IPU_KERNEL_FILEMEM_TESTS), as each
#                 access is a round trip (about 80 s in all)
IPU_KERNEL_EXTRA="6.12-8ipus 6.12-swiotlb 6.12-iommu 6.12-filemem"
# The wide boot's tests: splits across instances of 4 and 8 replicas, 1x4
# to 4x1 and 1x8 to 8x1, the groupings of 8 replicas, and test_emu_pci,
# which checks that all N came up (not the demo: its 2 replicas take 2 of
# the N, as on the matrix's boots).
IPU_KERNEL_WIDE_TESTS="test_emu_pci test_pci_session_hw_*"
# The DMA boots' tests: what moves data to and from a PCI IPU (the
# test_pci_* variants of the suite, the demo on the PCI IPUs,
# test_pci_demo_hw, removals and resets with DMA mapped), and
# test_emu_pci; not the slow ones that add no mapping the others do not
# make: the UAPI fuzzer, the leak and launch-limit counts, libsession's
# random programs and its splits across instances (test_pci_session_hw_run
# and test_pci_gather run launches and gathers here), nor the timeline's
# (test_pci_session_hw_trace, 36 s: its transfers are test_pci_session_hw_run's;
# test_pci_launch_profile writes the profiles through the mappings). "!"
# excludes (tests/kernel/guest-init's ipu.test).
IPU_KERNEL_DMA_TESTS="test_emu_pci test_pci_* !test_pci_fuzz !test_pci_leaks !test_pci_launch_limits !test_pci_session_hw_random !test_pci_session_hw_split !test_pci_session_hw_trace"

# The debug kernel's tests (KASAN, lockdep, kmemleak: each test runs 4-8x
# slower there): every test but libsession's longer semantics suites on the
# simulated IPU, which make no call into ipu.ko that test_session_hw_run,
# _errors and the uAPI suites do not make (groupings, random programs,
# weights, mmap, splits, instances and FP8 differ above the driver; about
# 130 s there). Their test_pci_session_hw_* twins run (they take the PCI
# DMA and gather paths, in seconds), and all run on every other kernel.
# Nor the timeline's (test_session_hw_trace: 849 s there, 33 s on 6.12;
# its PCI twin likewise), whose calls into ipu.ko, profiled launches,
# test_launch_profile and test_pci_launch_profile make.
# Nor test_pci_probe_enomem, the only one that fails the kernel's own
# allocations outside ipu.ko's calls into it: fail-nth on a bind reaches
# the MSI-X setup of pci_alloc_irq_vectors(), and there 6.1's irq domain
# code, after a failed kobject_add() of an irq, once took a general
# protection fault in irq_domain_alloc_irqs_locked() (then a use-after-free
# of the killed task's mutex): a bug of that kernel's, not ours, that
# fails the boot now and then (it passed in one boot, crashed the next).
# Run it by hand (IPU_KERNELS=debug IPU_KTEST=test_pci_probe_enomem). The
# probe's error paths are make check's through test_pci_probe_errors, which
# fails ipu.ko's own steps (fail_function), never the kernel's.
IPU_KERNEL_DEBUG_TESTS="test_* !test_session_hw_groupings !test_session_hw_random !test_session_hw_weights !test_session_hw_mmap !test_session_hw_split !test_session_hw_instances !test_session_hw_fp8 !test_session_hw_trace !test_pci_session_hw_trace !test_pci_probe_enomem"

# ktest_wants NAME GLOBS: does the guest run test binary NAME for GLOBS
# (space-separated; empty: every test)? The rule of tests/kernel/guest-init's
# ipu.test: one glob matches, and no "!" glob does.
ktest_wants() {
	local name=$1 glob want=1 globs
	[ -n "$2" ] || return 0
	read -r -a globs <<<"$2"	# split, never expanded against files
	for glob in "${globs[@]}"; do
		# shellcheck disable=SC2053 # $glob is a glob on purpose
		case $glob in
		!*) [[ $name == ${glob#!} ]] && return 1 ;;
		*) [[ $name == $glob ]] && want=0 ;;
		esac
	done
	return $want
}

# The file-backed boot's tests: transfers through libipu and io_uring, and
# the demo's launches, on the PCI IPUs.
IPU_KERNEL_FILEMEM_TESTS="test_emu_pci test_pci_libipu test_pci_demo_hw"

# kernel_variant K: split a name of IPU_KERNELS into the kernel and its
# variant. Sets KV_KERNEL (6.12 of 6.12-iommu), KV_VARIANT (empty for a
# kernel of the matrix), KV_IPUS (the number of PCIe IPUs, empty: the
# rig's), KV_TESTS (the tests' globs, empty: all; the debug kernel's
# IPU_KERNEL_DEBUG_TESTS), KV_CMDLINE (added to the
# guest's kernel command line), KV_IOMMU (1: the machine has a virtual
# IOMMU, scripts/lib/emu-rig.sh's RIG_IOMMU) and KV_POSTED (ipu-emu's
# --posted-window-us, empty: the model's default; RIG_POSTED) and
# KV_FILEMEM (1: guest RAM a plain file, RIG_FILEMEM). Returns 1 for a
# variant it does not know. Variants: Nipus (N from 2 to 8), swiotlb,
# iommu, filemem.
kernel_variant() {
	KV_KERNEL=$1 KV_VARIANT='' KV_IPUS='' KV_TESTS='' KV_CMDLINE='' KV_IOMMU=0
	KV_POSTED='' KV_FILEMEM=0
	if [ "$1" = debug ]; then
		KV_TESTS=$IPU_KERNEL_DEBUG_TESTS
		return 0
	fi
	[[ $1 =~ ^([^-]+)-(.+)$ ]] || return 0
	KV_KERNEL=${BASH_REMATCH[1]} KV_VARIANT=${BASH_REMATCH[2]}
	case $KV_VARIANT in
	[2-8]ipus)
		KV_IPUS=${KV_VARIANT%ipus}
		KV_TESTS=$IPU_KERNEL_WIDE_TESTS
		;;
	swiotlb)
		KV_CMDLINE="swiotlb=force"
		KV_TESTS=$IPU_KERNEL_DMA_TESTS
		;;
	iommu)
		# strict: each unmap invalidates the IOTLB before it
		# returns (the default, lazy, frees IOVAs in batches).
		KV_CMDLINE="intel_iommu=on iommu.strict=1"
		KV_IOMMU=1
		KV_POSTED=rand:500
		KV_TESTS=$IPU_KERNEL_DMA_TESTS
		;;
	filemem)
		KV_FILEMEM=1
		KV_TESTS=$IPU_KERNEL_FILEMEM_TESTS
		;;
	*) return 1 ;;
	esac
}
