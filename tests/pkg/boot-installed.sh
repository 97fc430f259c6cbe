# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tests/pkg/boot-installed.sh: boot a QEMU guest from the system the
# packages were installed into (sourced by tests/pkg/test_debs.sh, inside
# its private mount namespace, after its checks of the installed packages
# and before the purge).
#
# boot_installed ROOT KVER: ROOT is the installed Debian system (the
# overlay), KVER its kernel, the one DKMS built ipu.ko for. Counts one test
# per check of the guest (ok/bad/skip of tests/pkg/lib.sh).
#
# The guest is kernel-check's machine (scripts/lib/emu-rig.sh: q35, the two
# PCIe IPUs of ipu-emu through vfio-user), booting ROOT's own
# /boot/vmlinuz-KVER with an initramfs of busybox and the 9p modules only
# (tests/pkg/guest-init-installed); its root is ROOT itself, shared
# read-only by QEMU's 9p (-virtfs), so what runs is what the packages
# installed: DKMS's ipu.ko loaded by udev and modprobe, ipu-firmware's image,
# the udev rule applied by ROOT's systemd-udevd, ipu-simd as its unit says,
# the tools from PATH (tests/pkg/guest-installed.sh lists the checks).
# Before the boot, in ROOT: the demo is compiled from the tree's example
# sources with pkg-config alone, and two users are made, alice in group
# ipu and bob not (boot_installed_users, before test_debs's first file
# list, so the purge's comparison is unchanged by them).
#
# Why pkg-check and not kernel-check: the installed system exists only
# here, in test_debs.sh's overlay; kernel-check boots the build tree.
#
# Environment: IPU_PKG_BOOT=0 skips the boot; IPU_QEMU_TIMEOUT bounds the
# guest (default 600 s: a hang guard, not timing).

# The guest's checks, by the start of their names: each must report once
# (a guest that dies early fails the ones it did not reach).
BOOT_CHECKS=(
	"systemd-udevd of the installed system runs"
	"udev loaded ipu.ko for the PCI IPUs' modalias"
	"modprobe ipu"
	"ipu.ko is DKMS's"
	"PCIe IPUs booted ipu-firmware's image"
	"the only firmware image is ipu-firmware's"
	"udev made every node root:ipu 0660"
	"udev knows /dev/ipu0"
	"ipu-simd started as"
	"alice is in group ipu, bob is not"
	"alice (group ipu) trains the demo on ipu_hw"
	"the model gives the same weights checksum"
	"alice runs ipu-run on ipu_hw"
	"bob (not in group ipu) is refused"
	"bob's demo on ipu_hw is refused"
	"ipu-simd stops on SIGTERM"
	"modprobe -r ipu"
)
# Kernel log lines that fail the boot (scripts/kernel-check's list).
BOOT_DMESG_BAD='WARNING:|BUG:|Oops|general protection fault|Call Trace|possible circular locking|lockdep|UBSAN|KASAN|Kernel panic|blocked for more than'

# boot_installed_users ROOT: alice and bob, no home, no group of their own.
boot_installed_users() {
	local u
	for u in alice bob; do
		chroot "$1" useradd --no-create-home --no-user-group --shell /bin/sh "$u" || return 1
	done
}

boot_installed() {
	local root=$1 kver=$2 t=$1/tmp/pkg-test log=$W/boot-installed.log ipus=0 emu_up=0 st
	local c line seen name
	if [ "${IPU_PKG_BOOT:-1}" = 0 ]; then
		skip "boot from the installed system" "IPU_PKG_BOOT=0"
		return 0
	fi
	# shellcheck source=../../scripts/lib/emu-rig.sh
	. scripts/lib/emu-rig.sh
	rig_init "$PWD/scripts" "$BUILD" "$CACHE"

	# The demo, built in the installed system from the example's sources
	# against the installed headers and libraries.
	mkdir -p "$t/demo"
	cp userspace/examples/mlp*.c userspace/examples/mlp.h "$t/demo/"
	rm -f "$t/demo/make_example_exe.c"
	cp tests/pkg/guest-installed.sh "$t/"
	if in_root sh -c 'cd /tmp/pkg-test/demo && cc -std=gnu11 -O2 -Wall -Wextra -Werror *.c \
		-o ../mlp_train $(pkg-config --cflags --libs libsession libipu) -lopenblas -lm' \
		>"$W/demo-cc.log" 2>&1; then
		ok "the demo builds in the installed system with pkg-config"
	else
		cat "$W/demo-cc.log"
		bad "the demo builds in the installed system with pkg-config"
	fi
	if in_root usermod --append --groups ipu alice; then
		ok "usermod -aG ipu alice"
	else
		bad "usermod -aG ipu alice"
	fi

	if ! scripts/mkinitramfs --init tests/pkg/guest-init-installed \
		--moddir "$root/lib/modules/$kver" --module virtio_pci --module 9pnet_virtio \
		--module 9p "$W/initrd.cpio.gz" - >/dev/null; then
		bad "initramfs of the installed system's guest"
		return 0
	fi
	if [ -n "$RIG_EMU" ]; then
		if rig_emu_start "$W/ipu-emu.log"; then
			emu_up=1 ipus=$RIG_IPUS
		else
			bad "ipu-emu" "$RIG_WHY"
		fi
	fi
	local saved=$RIG_EMU
	[ $emu_up = 1 ] || RIG_EMU=
	rig_qemu_args 1024
	RIG_EMU=$saved
	local start
	start=$(date +%s)
	IPU_QEMU=$RIG_QEMU IPU_QEMU_PREFIX="[installed] " IPU_QEMU_TIMEOUT=${IPU_QEMU_TIMEOUT:-600} \
		IPU_CMDLINE="ipu.sim_devices=2 ipu.sim_mem_mb=16 IPU_EMU_IPUS=$ipus watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=300" \
		scripts/qemu-boot "$root/boot/vmlinuz-$kver" "$W/initrd.cpio.gz" "$log" -- \
		"${RIG_ARGS[@]}" \
		-virtfs "local,path=$root,mount_tag=installed,security_model=passthrough,readonly=on" \
		>"$W/boot-console.log" 2>&1
	st=$?
	echo "  $NAME: the installed system's guest ran $(($(date +%s) - start)) s (QEMU $RIG_QEMU_VERSION, exit status $st)"
	if [ $emu_up = 1 ]; then
		if rig_emu_stop "$W/ipu-emu.log"; then
			ok "ipu-emu served the installed system's guest"
		else
			bad "ipu-emu served the installed system's guest" "$RIG_WHY"
		fi
	fi

	local clean=$W/boot-installed.txt
	tr -d '\r' <"$log" >"$clean"
	if grep -q '^IPU-PKG-BOOT fail' "$clean"; then
		bad "the guest entered the installed system" "$(grep '^IPU-PKG-BOOT fail' "$clean")"
	fi
	local lines=()
	mapfile -t lines < <(grep -E '^IPU-PKG (ok|fail|skip) ' "$clean")
	for c in "${BOOT_CHECKS[@]}"; do
		seen=0
		for line in "${lines[@]}"; do
			name="boot: ${line#IPU-PKG * }"
			case $line in
			"IPU-PKG ok $c"*) ok "$name" ;;
			"IPU-PKG skip $c"*) skip "$name" ;;
			"IPU-PKG fail $c"*) bad "$name" ;;
			*) continue ;;
			esac
			seen=1
		done
		[ $seen = 1 ] || bad "boot: $c" "never reported; console: $W/boot-console.log"
	done
	if grep -q '^IPU-PKG-DONE' "$clean"; then
		ok "boot: the installed system's guest got to the end"
	else
		tail -n 40 "$clean"
		bad "boot: the installed system's guest got to the end" "log $log"
	fi
	# The dump must hold the module's own lines: an empty one proves nothing.
	local dmesg
	dmesg=$(sed -n '/^IPU-PKG-DMESG-BEGIN/,/^IPU-PKG-DMESG-END/p' "$clean")
	if grep -q '\] ipu' <<<"$dmesg" && ! grep -E -q "$BOOT_DMESG_BAD" <<<"$dmesg"; then
		ok "boot: the kernel log is clean"
	else
		grep -E -n -A 12 "$BOOT_DMESG_BAD" <<<"$dmesg" | head -n 40
		bad "boot: the kernel log is clean" "log $log"
	fi
	cp "$log" "$BUILD/pkg-boot-installed.log" 2>/dev/null || true
}
