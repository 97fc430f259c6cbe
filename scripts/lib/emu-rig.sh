# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/lib/emu-rig.sh: the machine scripts/kernel-check boots every guest
# on, and the IPU device model attached to it (sourced, not run).
#
# The machine: q35 (PCI Express), its RAM a memfd shared with other
# processes (-object memory-backend-memfd,share=on), so that the device
# model, a separate process, can read and write guest memory for DMA, and
# two pcie-root-ports, each with one IPU behind it: -device vfio-user-pci,
# QEMU's vfio-user client, connected to one UNIX socket of ipu-emu
# (build/firmware/ipu-emu, one process serving both IPUs; the first with
# MSI-X, the second with MSI, RIG_MSI_IPUS). Only
# trixie-backports' QEMU (scripts/qemu-bpo) has vfio-user-pci; Debian 12's
# 7.2 does not.
#
# Per boot: rig_emu_start starts ipu-emu and waits for its "ipu-emu: ready"
# line (read from its stdout: an event, never a sleep), the guest boots,
# rig_emu_stop sends SIGTERM and checks that it exited 0, removed its
# sockets, and logged no error. The guest learns how many IPUs it has from
# IPU_EMU_IPUS on its kernel command line (which the kernel hands to init,
# and so to the tests, as environment): tests/kernel/test_emu_pci.c fails
# when fewer are there, and skips, saying why, when there are none.
#
# The root ports' slots use native PCIe hot-plug (the guest's pciehp),
# and the guest may unplug and plug back the rig's MSI IPUs through QEMU's
# monitor: scripts/lib/hotplug-relay, started and stopped with ipu-emu,
# holds the monitor and a virtio serial port of the guest
# (ipu-rig.hotplug, tests/kernel/khotplug.h) and passes on device_del and
# device_add of those IPUs only (RIG_HOTPLUG_IPUS). Its log is
# build/kernel-logs/ipu-emu-<kernel>-hotplug.log.
#
# Without trixie-backports' QEMU (IPU_NO_TRIXIE=1) or without ipu-emu in the
# build, the guests boot on the same q35 machine with no IPU attached, and
# RIG_NO_EMU says why (kernel-check counts the model as skipped).

RIG_IPUS=2
# The IPUs (by index) that present MSI instead of MSI-X (ipu-emu --msi,
# docs/hardware.md section 6): the second, so that every test that uses
# both IPUs, and the test_pci_* tests that pick IPU 1, cover the driver's
# one-vector path (x86 guests without interrupt remapping get one MSI
# message). The guest learns it from IPU_EMU_MSI on its command line.
RIG_MSI_IPUS=1
# The IPUs the guest may unplug (QMP device_del) and plug back: the MSI
# ones. trixie-backports' QEMU 11.1 aborts when it finalizes an unplugged
# vfio-user-pci device with MSI-X (hw/vfio-user/pci.c's finalize deletes
# the PBA's subregion from a BAR region QOM already emptied:
# "memory_region_del_subregion: Assertion `subregion->container == mr'
# failed"), taking the guest with it; with MSI there is no PBA.
RIG_HOTPLUG_IPUS=$RIG_MSI_IPUS
# 1: the machine has a virtual IOMMU between its PCI devices and memory
# (QEMU's intel-iommu, rig_qemu_args), which the guest must turn on
# (intel_iommu=on; scripts/lib/kernels.sh's KERNEL-iommu boot). QEMU's
# vfio-user client then sends ipu-emu the guest's IOMMU mappings: a
# DMA_MAP per page at its I/O virtual address when the guest maps it, a
# DMA_UNMAP when the guest invalidates it (caching-mode=on makes the guest
# invalidate on map too, so that QEMU sees both).
RIG_IOMMU=0
# ipu-emu's posted window (--posted-window-us, docs/hardware.md 2.1) when
# not the model's default (200 us): "rand:N" draws each write's window in
# [0, N] us (scripts/lib/kernels.sh's KERNEL-iommu boot).
RIG_POSTED=
# 1: guest RAM is a plain file (memory-backend-file, in RIG_SOCKDIR), not a
# sealed memfd: ipu-emu cannot map it and reaches it with DMA_READ and
# DMA_WRITE messages in the specification's layout (--remote-dma), which
# the rig's QEMU (trixie-backports' 11.1) speaks: with --remote-dma=qemu
# it refuses every DMA_WRITE with E2BIG (scripts/lib/kernels.sh's
# KERNEL-filemem boot).
RIG_FILEMEM=0
# Bounds on waiting for ipu-emu's events, so a broken model cannot hang the
# check: its ready line, and its exit after SIGTERM.
RIG_EMU_READY_S=60
RIG_EMU_STOP_S=30
# The relay's bound on QEMU's answers and events (its --wait): a hang
# guard, past which the guest's request gets an error; pciehp's unplug
# alone takes its attention button's 5 s.
RIG_RELAY_WAIT_S=150
# The relay of this boot (rig_emu_start): its pid, empty when none runs.
RIG_RELAY_PID=

# rig_init SCRIPTS BUILD CACHE: choose the QEMU and whether IPUs attach.
# Sets RIG_QEMU (the command), RIG_QEMU_VERSION, RIG_EMU (ipu-emu's path,
# empty when none attaches) and RIG_NO_EMU (why not, or empty).
rig_init() {
	local scripts=$1 build=$2 cache=$3
	RIG_EMU=
	RIG_NO_EMU=
	if [ -e "$cache/trixie-bpo-qemu.complete" ]; then
		RIG_QEMU=$scripts/qemu-bpo
		RIG_QEMU_VERSION="trixie-backports $(cat "$cache/trixie-bpo-qemu.complete")"
	else
		RIG_QEMU=qemu-system-x86_64
		RIG_QEMU_VERSION="host $(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || echo unknown)"
		RIG_NO_EMU="no trixie-backports QEMU with vfio-user-pci (scripts/install-deps; IPU_NO_TRIXIE=1 skips it)"
		return 0
	fi
	if [ -x "$build/firmware/ipu-emu" ]; then
		RIG_EMU=$build/firmware/ipu-emu
	else
		RIG_NO_EMU="no $build/firmware/ipu-emu in this build"
	fi
}

# rig_qemu_args MEM_MB: fill the array RIG_ARGS with the machine's QEMU
# options (rig_emu_start first, when IPUs attach: their sockets).
rig_qemu_args() {
	local mem=$1 i machine=q35,memory-backend=mem
	# Interrupt remapping (intremap=on) needs the IOAPIC in QEMU's
	# userspace, kernel-irqchip=split, and before the PCI devices whose
	# address space it is (each vfio-user-pci asks for it as it is
	# created), the IOMMU.
	[ "$RIG_IOMMU" = 0 ] || machine+=,kernel-irqchip=split
	local backend="memory-backend-memfd,id=mem,size=${mem}M,share=on"
	# share=on: QEMU hands the client's DMA_MAP the file's descriptor,
	# which ipu-emu refuses to map (not a memfd sealed against shrinking).
	[ "$RIG_FILEMEM" = 0 ] || [ -z "${RIG_SOCKDIR:-}" ] ||
		backend="memory-backend-file,id=mem,size=${mem}M,share=on,mem-path=$RIG_SOCKDIR/guest-ram"
	RIG_ARGS=(
		-object "$backend"
		-machine "$machine"
		# Native PCIe hot-plug of the root ports' slots (the guest's
		# pciehp, built into every kernel of the matrix), not q35's
		# default ACPI hot-plug (acpiphp), which the debug kernel lacks:
		# the same unplug on every kernel.
		-global ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off
	)
	[ "$RIG_IOMMU" = 0 ] || RIG_ARGS+=(-device "intel-iommu,intremap=on,caching-mode=on")
	for ((i = 0; i < RIG_IPUS; i++)); do
		RIG_ARGS+=(-device "pcie-root-port,id=rp$i,bus=pcie.0,chassis=$((i + 1))")
		[ -z "$RIG_EMU" ] && continue
		RIG_ARGS+=(-device "$(rig_ipu_json "$i")")
	done
	[ -n "$RIG_EMU" ] || return 0
	# The model's control socket (fault injection, docs/hardware.md
	# section 11) reaches the guest as a virtio serial port named
	# ipu-emu.control (tests/kernel/kemu.h): QEMU connects to it as a
	# client, and the guest's lines are the control socket's commands.
	RIG_ARGS+=(
		-device virtio-serial-pci,id=vser,bus=pcie.0
		-chardev "socket,id=emuctl,path=$RIG_SOCKDIR/control.sock"
		-device virtserialport,bus=vser.0,chardev=emuctl,name=ipu-emu.control
	)
	[ -n "$RIG_RELAY_PID" ] || return 0
	# The guest's hot-plug requests: QEMU's monitor (QMP) and a second
	# port, both connected to the relay, which passes on device_del and
	# device_add of RIG_HOTPLUG_IPUS only.
	RIG_ARGS+=(
		-chardev "socket,id=qmp,path=$RIG_SOCKDIR/qmp.sock"
		-mon "chardev=qmp,mode=control"
		-chardev "socket,id=hotplug,path=$RIG_SOCKDIR/hotplug.sock"
		-device virtserialport,bus=vser.0,chardev=hotplug,name=ipu-rig.hotplug
	)
}

# rig_ipu_json I: the -device options of the I-th IPU, which are also the
# relay's device_add arguments for it. vfio-user-pci's socket is a QAPI
# SocketAddress, which only the JSON form of -device can give
# (hw/vfio-user/pci.c). rombar=0: the model has no option ROM for SeaBIOS
# to run.
rig_ipu_json() {
	local i=$1
	echo "{\"driver\":\"vfio-user-pci\",\"id\":\"ipu$i\",\"bus\":\"rp$i\",\"rombar\":0,\"socket\":{\"type\":\"unix\",\"path\":\"$RIG_SOCKDIR/ipu$i.sock\"}}"
}

# rig_emu_start LOG: start ipu-emu serving RIG_IPUS sockets in a new
# directory of /tmp (a UNIX socket path is at most 107 bytes: the build
# directory may be deeper), logging to LOG, and wait for its ready line.
# Sets RIG_SOCKDIR, RIG_EMU_PID and RIG_EMU_FD (its stdout). Returns 1,
# with the reason in RIG_WHY, when it did not get ready. (Not to be run in
# a subshell, $(...): the model must stay this shell's child.)
rig_emu_start() {
	local log=$1 args=() i line
	RIG_SOCKDIR=$(mktemp -d /tmp/ipu-emu.XXXXXX)
	for ((i = 0; i < RIG_IPUS; i++)); do
		[[ " $RIG_MSI_IPUS " == *" $i "* ]] && args+=(--msi)
		args+=(--socket "$RIG_SOCKDIR/ipu$i.sock")
	done
	args+=(--control "$RIG_SOCKDIR/control.sock" --log "$log")
	# Register writes are posted, as on silicon: the model's default
	# window, or RIG_POSTED's.
	[ -z "$RIG_POSTED" ] || args+=(--posted-window-us "$RIG_POSTED")
	[ "$RIG_FILEMEM" = 0 ] || [ -z "${RIG_SOCKDIR:-}" ] || args+=(--remote-dma)
	: >"$log"
	# Its stdout is a pipe this shell reads: the ready line, then EOF
	# when it exits. stderr goes to the log too (a crash before --log
	# takes effect, a sanitizer report).
	# The device's executor computes with OpenBLAS as the guest's programs
	# do (tests/kernel/guest-init): the same core, so a launch on a PCI
	# IPU gives the model backend's bits (the demo's weights checksum).
	exec {RIG_EMU_FD}< <(OPENBLAS_CORETYPE=Prescott exec "$RIG_EMU" "${args[@]}" 2>>"$log" </dev/null)
	RIG_EMU_PID=$!
	RIG_RELAY_PID=
	if ! IFS= read -r -t "$RIG_EMU_READY_S" -u "$RIG_EMU_FD" line ||
		[ "$line" != "ipu-emu: ready" ]; then
		RIG_WHY="ipu-emu did not print 'ipu-emu: ready' within ${RIG_EMU_READY_S} s (it printed '${line:-}'); log $log"
		rig_emu_kill
		return 1
	fi
	rig_relay_start "${log%.log}-hotplug.log"
}

# rig_relay_start LOG: start the guest's hot-plug relay
# (scripts/lib/hotplug-relay) for RIG_HOTPLUG_IPUS, its sockets beside
# ipu-emu's, and wait for its ready line. Sets RIG_RELAY_PID, RIG_RELAY_FD
# and RIG_RELAY_LOG. Without python3 no relay runs (the guest's hot-plug
# tests skip, saying so); a relay that does not get ready ends the model
# too and returns 1, the reason in RIG_WHY.
rig_relay_start() {
	local line i args=()
	RIG_RELAY_LOG=$1
	command -v python3 >/dev/null || return 0
	for i in $RIG_HOTPLUG_IPUS; do
		args+=(--device "$(rig_ipu_json "$i")")
	done
	[ ${#args[@]} -gt 0 ] || return 0
	: >"$RIG_RELAY_LOG"
	exec {RIG_RELAY_FD}< <(exec python3 "$(dirname "${BASH_SOURCE[0]}")/hotplug-relay" \
		--qmp "$RIG_SOCKDIR/qmp.sock" --guest "$RIG_SOCKDIR/hotplug.sock" \
		--wait "$RIG_RELAY_WAIT_S" --log "$RIG_RELAY_LOG" "${args[@]}" \
		2>>"$RIG_RELAY_LOG" </dev/null)
	RIG_RELAY_PID=$!
	if IFS= read -r -t "$RIG_EMU_READY_S" -u "$RIG_RELAY_FD" line &&
		[ "$line" = "hotplug-relay: ready" ]; then
		return 0
	fi
	RIG_WHY="hotplug-relay did not print 'hotplug-relay: ready' within ${RIG_EMU_READY_S} s (it printed '${line:-}'); log $RIG_RELAY_LOG"
	rig_emu_kill
	return 1
}

# rig_emu_kill: end a model (and its relay) that misbehaved, and forget
# them.
rig_emu_kill() {
	local pid
	for pid in "$RIG_EMU_PID" $RIG_RELAY_PID; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	exec {RIG_EMU_FD}<&-
	[ -z "$RIG_RELAY_PID" ] || exec {RIG_RELAY_FD}<&-
	RIG_RELAY_PID=
	rm -rf "$RIG_SOCKDIR"
}

# rig_emu_stop LOG: SIGTERM to ipu-emu, then check what its contract
# promises: exit status 0, its socket files removed, nothing on stdout
# after the ready line, no error in LOG. Returns 1 with the reasons in
# RIG_WHY otherwise.
rig_emu_stop() {
	local log=$1 rest st why=()
	kill -TERM "$RIG_EMU_PID" 2>/dev/null || why+=("it had exited before SIGTERM")
	# EOF on its stdout is its exit (the pipe's only writer is gone).
	if ! rest=$(timeout "$RIG_EMU_STOP_S" cat <&"$RIG_EMU_FD"); then
		why+=("still running ${RIG_EMU_STOP_S} s after SIGTERM: killed")
		kill -KILL "$RIG_EMU_PID" 2>/dev/null || true
	fi
	st=0
	wait "$RIG_EMU_PID" || st=$?
	exec {RIG_EMU_FD}<&-
	[ "$st" -eq 0 ] || why+=("exit status $st")
	[ -z "$rest" ] || why+=("printed after ready: $(head -c 200 <<<"$rest")")
	[ -z "$RIG_RELAY_PID" ] || rig_relay_stop
	if compgen -G "$RIG_SOCKDIR/*.sock" >/dev/null; then
		why+=("left its sockets: $(cd "$RIG_SOCKDIR" && echo *.sock)")
	fi
	rm -rf "$RIG_SOCKDIR"
	if rig_emu_log_errors "$log" | grep -E -i -q '(^|[^a-z_])(error|fatal|abort|sanitizer|assert)'; then
		why+=("its log reports an error: $(rig_emu_log_errors "$log" | grep -E -i -m 1 '(^|[^a-z_])(error|fatal|abort|sanitizer|assert)')")
	fi
	[ ${#why[@]} -eq 0 ] && return 0
	RIG_WHY=$(printf '%s; ' "${why[@]}")"log $log"
	return 1
}

# rig_emu_log_errors LOG: LOG as rig_emu_stop judges it. With a virtual
# IOMMU (RIG_IOMMU=1) QEMU 11.1 sends DMA_UNMAPs that match no mapping:
# when the guest invalidates a device's whole context (it detaches the
# device from its domain: removal, unbind of the last user, shutdown),
# QEMU's intel-iommu unmaps the whole I/O virtual address space in
# power-of-two ranges, where the vfio-user protocol says an unmap matches
# one mapping exactly, and ipu-emu refuses each (ENOENT), which is right,
# until it stops logging the client's protocol errors ("more protocol
# errors from this client not logged"). That line is dropped for a client
# whose only refusals were such unmaps; any other refusal keeps it.
rig_emu_log_errors() {
	awk -v iommu="$RIG_IOMMU" '
		iommu != 0 && / refused: / &&
			!/: DMA_UNMAP \(.*\) refused: No such file or directory$/ { other[$2] = 1 }
		{ line[NR] = $0 }
		END {
			for (i = 1; i <= NR; i++) {
				if (iommu != 0 && line[i] ~ /: more protocol errors from this client not logged$/) {
					split(line[i], f, " ")
					if (!(f[2] in other))
						continue
				}
				print line[i]
			}
		}' "$1"
}

# rig_relay_stop: the relay's part of rig_emu_stop (QEMU has exited),
# whose why it adds to. The relay exits by itself when QEMU closes the
# monitor; SIGTERM ends one that QEMU never connected to. It must exit 0
# and log no error of its own (a monitor that broke the protocol, an
# answer that never came); its answers to the guest may be errors.
rig_relay_stop() {
	local st=0
	kill -TERM "$RIG_RELAY_PID" 2>/dev/null || true
	if ! timeout "$RIG_EMU_STOP_S" cat <&"$RIG_RELAY_FD" >/dev/null; then
		kill -KILL "$RIG_RELAY_PID" 2>/dev/null || true
		why+=("hotplug-relay still running ${RIG_EMU_STOP_S} s after QEMU: killed")
	fi
	wait "$RIG_RELAY_PID" || st=$?
	exec {RIG_RELAY_FD}<&-
	RIG_RELAY_PID=
	[ "$st" -eq 0 ] || why+=("hotplug-relay: exit status $st, log $RIG_RELAY_LOG")
	if grep -E -q '^([0-9:]+ )?error: ' "$RIG_RELAY_LOG"; then
		why+=("hotplug-relay: $(grep -E -m 1 '^([0-9:]+ )?error: ' "$RIG_RELAY_LOG")")
	fi
}
