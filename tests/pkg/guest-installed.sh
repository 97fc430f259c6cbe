#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tests/pkg/guest-installed.sh: the checks of a guest booted from the
# packages' installed system (tests/pkg/boot-installed.sh), run by its own
# /bin/sh as PID 1 after tests/pkg/guest-init-installed chrooted into it.
# Everything here is what the packages installed or Debian's: ipu.ko as
# DKMS built it, loaded by modprobe (by udev, for the PCI IPUs' modalias),
# the ipu-firmware package's image, the udev rule applied by the installed
# system's systemd-udevd, ipu-simd started as its systemd unit says, the
# tools from PATH. The demo (mlp_train) was compiled in that system from
# the tree's example sources with pkg-config alone (boot-installed.sh).
#
# Users (made by boot-installed.sh): alice is in group ipu, bob is not.
#
# One marker line per check for the host: "IPU-PKG ok NAME" or
# "IPU-PKG fail NAME: WHY" (the host fails a run that lacks one it
# expects), then the kernel log between IPU-PKG-DMESG-BEGIN and -END, and
# IPU-PKG-DONE. Waits are for events, bounded only against a hang.
#
# Environment from the kernel command line: IPU_EMU_IPUS, how many PCIe
# IPUs of ipu-emu the guest has (0: none, their checks are skipped).

export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/run LC_ALL=C.UTF-8
# QEMU's TCG CPU misleads OpenBLAS's CPU detection (tests/kernel/guest-init).
export OPENBLAS_CORETYPE=Prescott
T=/tmp/pkg-test
EMU_IPUS=${IPU_EMU_IPUS:-0}
EPOCHS=4

ok() { echo "IPU-PKG ok $*"; }
bad() { echo "IPU-PKG fail $*"; }
skip() { echo "IPU-PKG skip $*"; }
# as USER CMD...: CMD as USER with USER's groups, as a login would give them.
as() {
	u=$1
	shift
	setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups -- "$@"
}
# wait_for CMD...: until CMD succeeds (at most 60 s: a hang guard).
wait_for() {
	i=0
	while ! "$@"; do
		i=$((i + 1))
		[ $i -lt 600 ] || return 1
		sleep 0.1
	done
}
finish() {
	echo "IPU-PKG-DMESG-BEGIN"
	dmesg --color=never
	echo "IPU-PKG-DMESG-END"
	echo "IPU-PKG-DONE"
	echo o >/proc/sysrq-trigger
	sleep 60
	exit 1
}

echo "IPU-PKG-BOOT installed $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME")"

# --- udev, and the module it loads -------------------------------------------
mkdir -p /run/udev
if /usr/lib/systemd/systemd-udevd --daemon; then
	ok "systemd-udevd of the installed system runs"
else
	bad "systemd-udevd of the installed system runs"
	finish
fi
# Coldplug of the PCI bus only (the IPUs' functions; what else needs a
# driver there follows): a whole-system coldplug loads every platform
# driver QEMU's machine matches, tens of seconds under TCG for nothing here.
udevadm trigger --type=devices --action=add --subsystem-match=pci
udevadm settle --timeout=120
if [ "$EMU_IPUS" -gt 0 ]; then
	# The PCI functions' modalias (ipu.ko's MODULE_DEVICE_TABLE) made udev
	# run modprobe, which read ipu.sim_devices=... from the command line.
	if [ -d /sys/module/ipu ]; then
		ok "udev loaded ipu.ko for the PCI IPUs' modalias"
	else
		bad "udev loaded ipu.ko for the PCI IPUs' modalias: /sys/module/ipu absent"
	fi
else
	skip "udev loaded ipu.ko for the PCI IPUs' modalias: no ipu-emu attached"
fi
if modprobe ipu; then
	ok "modprobe ipu"
else
	bad "modprobe ipu"
	finish
fi
udevadm settle --timeout=120
ko=$(modinfo -n ipu)
case $ko in
/lib/modules/$(uname -r)/updates/dkms/ipu.ko*) ok "ipu.ko is DKMS's: $ko" ;;
*) bad "ipu.ko is DKMS's: modinfo -n ipu says '$ko'" ;;
esac

# --- the PCIe IPUs: the ipu-firmware package's image --------------------------
if [ "$EMU_IPUS" -gt 0 ]; then
	n=0
	for d in /sys/class/ipu/ipu*; do
		[ "$(cat "$d/platform" 2>/dev/null)" = pci ] || continue
		n=$((n + 1))
		fw=$(cat "$d/firmware_version")
	done
	if [ $n -eq "$EMU_IPUS" ]; then
		ok "PCIe IPUs booted ipu-firmware's image: $n, firmware $fw"
	else
		bad "PCIe IPUs booted ipu-firmware's image: $n of $EMU_IPUS; $(dmesg --color=never | grep -i 'firmware' | tail -n 3)"
	fi
	if dpkg -S /usr/lib/firmware/ipu/ipu-fw.bin | grep -q '^ipu-firmware:'; then
		ok "the only firmware image is ipu-firmware's ($(readlink -f /lib/firmware/ipu/ipu-fw.bin))"
	else
		bad "the firmware image belongs to ipu-firmware"
	fi
else
	skip "PCIe IPUs booted ipu-firmware's image: no ipu-emu attached"
	skip "the only firmware image is ipu-firmware's: no ipu-emu attached"
fi

# --- the nodes: udev applied 70-ipu.rules -------------------------------------
nodes=$(ls /dev/ipu[0-9]* 2>/dev/null | tr "\n" " ")
wrong=
for n in $nodes; do
	m=$(stat -c '%U:%G %a' "$n")
	[ "$m" = "root:ipu 660" ] || wrong="$wrong $n=$m"
done
if [ -n "$nodes" ] && [ -z "$wrong" ]; then
	ok "udev made every node root:ipu 0660: $nodes"
else
	bad "udev made every node root:ipu 0660:${wrong:- no /dev/ipuN}"
fi
if udevadm info --query=property --name=/dev/ipu0 2>/dev/null | grep -q '^SUBSYSTEM=ipu$'; then
	ok "udev knows /dev/ipu0 (subsystem ipu)"
else
	bad "udev knows /dev/ipu0 (subsystem ipu)"
fi

# --- ipu-simd, as its unit starts it ------------------------------------------
unit=/usr/lib/systemd/system/ipu-simd.service
simd=$(sed -n 's/^ExecStart=//p' "$unit")
$simd >/run/ipu-simd.log 2>&1 </dev/null &
simd_pid=$!
if wait_for grep -q 'ipu1: serving' /run/ipu-simd.log &&
	grep -q 'ipu0: serving' /run/ipu-simd.log; then
	ok "ipu-simd started as $unit says ($simd)"
else
	bad "ipu-simd started as $unit says ($simd): $(tail -n 5 /run/ipu-simd.log)"
fi

# --- a user of group ipu trains the demo on ipu_hw; the model agrees ----------
mkdir -m 1777 /run/u
if id -nG alice | grep -q -w ipu && ! id -nG bob | grep -q -w ipu; then
	ok "alice is in group ipu, bob is not"
else
	bad "alice is in group ipu, bob is not: alice $(id -nG alice), bob $(id -nG bob)"
fi
hw=$(cd /run/u && as alice "$T/mlp_train" --device ipu_hw --epochs $EPOCHS 2>&1)
st=$?
hw_sum=$(echo "$hw" | grep 'weights checksum')
if [ $st -eq 0 ] && [ -n "$hw_sum" ]; then
	ok "alice (group ipu) trains the demo on ipu_hw: $hw_sum"
else
	bad "alice (group ipu) trains the demo on ipu_hw: exit status $st: $(echo "$hw" | tail -n 5)"
fi
model_sum=$(cd /run/u && as alice "$T/mlp_train" --device ipu_model --epochs $EPOCHS 2>&1 |
	grep 'weights checksum')
if [ -n "$hw_sum" ] && [ "$hw_sum" = "$model_sum" ]; then
	ok "the model gives the same weights checksum"
else
	bad "the model gives the same weights checksum: ipu_hw '$hw_sum', ipu_model '$model_sum'"
fi
if out=$(cd /run/u && as alice ipu-run "$T/hello.ipux" --input x="$T/x.npy" \
	--output y=/run/u/y-alice.npy --device ipu_hw 2>&1); then
	ok "alice runs ipu-run on ipu_hw"
else
	bad "alice runs ipu-run on ipu_hw: $out"
fi

# --- a user outside the group is refused, and told why ------------------------
out=$(cd /run/u && as bob ipu-run "$T/hello.ipux" --input x="$T/x.npy" \
	--output y=/run/u/y-bob.npy --device ipu_hw 2>&1)
st=$?
msg=$(echo "$out" | grep -m 1 'Permission denied')
if [ $st -ne 0 ] && [ -n "$msg" ] && [ ! -e /run/u/y-bob.npy ]; then
	ok "bob (not in group ipu) is refused: $msg"
else
	bad "bob (not in group ipu) is refused with EACCES's message: exit status $st: $out"
fi
out=$(cd /run/u && as bob "$T/mlp_train" --device ipu_hw --epochs 1 2>&1)
st=$?
msg=$(echo "$out" | grep -m 1 'Permission denied')
if [ $st -ne 0 ] && [ -n "$msg" ]; then
	ok "bob's demo on ipu_hw is refused: $msg"
else
	bad "bob's demo on ipu_hw is refused with EACCES's message: exit status $st: $out"
fi

# --- stop, unload ------------------------------------------------------------
kill -TERM $simd_pid
if wait $simd_pid; then
	ok "ipu-simd stops on SIGTERM"
else
	bad "ipu-simd stops on SIGTERM: $(tail -n 5 /run/ipu-simd.log)"
fi
if modprobe -r ipu; then
	ok "modprobe -r ipu"
else
	bad "modprobe -r ipu: $(lsmod | grep ipu)"
fi
finish
