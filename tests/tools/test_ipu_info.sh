#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/tools/test_ipu_info.sh NAME BINDIR
#
# End-to-end tests of the ipu-info binary on the host: its options and
# usage errors, its output over a fake tree (--root: a simulated IPU, a
# PCI IPU with a degraded link and an unbound function), --model, -d,
# --watch piped, and its JSON parsed by Python's json module and checked
# against docs/ipu-info.md's schema (every documented member present).
# The gathering itself is unit-tested in tests/unit/test_ipu_info.c; this
# proves the program around it. Each run must end with the expected status,
# never by a signal or a sanitizer or valgrind report.
#
#   NAME    the phase: counts go to $BUILD/results/NAME ("passed failed
#           skipped"), the log to $BUILD/test-logs/NAME/test_ipu_info.log
#   BINDIR  a build directory holding tools/ipu-info
#
# Environment: BUILD (default build), IPU_RUN_WRAPPER (a command prefix,
# e.g. valgrind), IPU_VERBOSE=1 (print the whole log).
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tool_test_start test_ipu_info.log ipu-info "$@"
INFO=$TOOL

# Debian's python3; another one earlier in PATH would do as well for json.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3


# json TEST PYTHON ARGS...: ipu-info ARGS (stdout only) parses as JSON and
# PYTHON (with the document as d) exits 0.
json() {
	local t=$1 code=$2
	shift 2
	"${WRAP[@]}" "$INFO" "$@" >"$T/json" 2>"$T/out"
	st=$?
	if broken || [ "$st" -ne 0 ]; then
		fail "$t" "exit status $st"
		return
	fi
	if "$PY" - "$T/json" >>"$T/out" 2>&1 <<PYEOF; then
import json, sys
d = json.load(open(sys.argv[1]))
$code
PYEOF
		pass "$t"
	else
		cat "$T/json" >>"$T/out"
		fail "$t" "JSON check failed"
	fi
}

# --- a fake machine: ipu0 simulated, ipu1 PCI (degraded: 8 GT/s x4 of
# Gen4 x16), an unbound function with the spec's IDs; as a normal user
# sees it (config space: 64 bytes, so the link is from sysfs).
R=$T/root
sim() {
	local d=$R/sys/class/ipu/ipu$1
	mkdir -p "$d" "$R/dev"
	echo "$2" >"$d/platform"
	echo 67108864 >"$d/memory_total"
	echo 8192 >"$d/memory_used"
	echo 0 >"$d/owner_pid"
	echo 1.0.0 >"$d/firmware_version"
	printf '%016x\n' $((0x4950 + $1)) >"$d/serial"
	echo 3 >"$d/reset_count"
	: >"$R/dev/ipu$1"
}
pcifn() {
	local d=$R/sys/bus/pci/devices/$1
	mkdir -p "$d"
	# The spec's header (64 bytes): IDs, status with a capabilities list,
	# revision 1, class 0x120000, subsystem, capabilities at 0x40.
	printf '\xfe\x1f\x00\x01\x00\x00\x10\x00\x01\x00\x00\x12\x00\x00\x00\x00' >"$d/config"
	head -c 28 /dev/zero >>"$d/config"
	printf '\xfe\x1f\x00\x01\x00\x00\x00\x00\x40\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' >>"$d/config"
	echo 0x1ffe >"$d/vendor"
	echo 0x0100 >"$d/device"
	echo 0x120000 >"$d/class"
	echo 0 >"$d/irq"
	echo 0 >"$d/numa_node"
	for _ in 1 2 3 4 5 6 7; do
		echo "0x0000000000000000 0x0000000000000000 0x0000000000000000"
	done >"$d/resource"
	echo "$2 GT/s PCIe" >"$d/current_link_speed"
	echo "$3" >"$d/current_link_width"
	echo "16.0 GT/s PCIe" >"$d/max_link_speed"
	echo 16 >"$d/max_link_width"
}
sim 0 sim
sim 1 pci
pcifn 0000:01:00.0 8.0 4
pcifn 0000:02:00.0 16.0 16
ln -s ../../../bus/pci/devices/0000:01:00.0 "$R/sys/class/ipu/ipu1/device"
mkdir -p "$R/proc/42/fd" "$R/proc/42/fdinfo"
echo trainer >"$R/proc/42/comm"
ln -s /dev/ipu0 "$R/proc/42/fd/3"
# ipu.ko's fdinfo (driver/ipu_fdinfo.c): the DRM keys, tab-separated.
printf 'pos:\t0\nflags:\t02\nmnt_id:\t20\ndrm-driver:\tipu\ndrm-client-id:\t7\ndrm-total-memory:\t8 KiB\ndrm-resident-memory:\t8 KiB\ndrm-engine-launch:\t1500000 ns\ndrm-engine-xfer:\t250 ns\nipu-buffers:\t2\nipu-role:\tnone\n' >"$R/proc/42/fdinfo/3"
# The simulated firmware's daemon has ipu0 open too (ipu-role: firmware):
# it runs the IPU, it does not hold it against a reset.
mkdir -p "$R/proc/44/fd" "$R/proc/44/fdinfo"
echo ipu-simd >"$R/proc/44/comm"
ln -s /dev/ipu0 "$R/proc/44/fd/7"
printf 'drm-driver:\tipu\ndrm-client-id:\t1\ndrm-total-memory:\t0 KiB\ndrm-engine-launch:\t0 ns\ndrm-engine-xfer:\t0 ns\nipu-buffers:\t0\nipu-role:\tfirmware\n' >"$R/proc/44/fdinfo/7"
# Process 43 attached ipu1 (PCI) and has it open twice: the two files'
# use is summed; an fd of another driver is not counted.
mkdir -p "$R/proc/43/fd" "$R/proc/43/fdinfo"
echo server >"$R/proc/43/comm"
echo 43 >"$R/sys/class/ipu/ipu1/owner_pid"
for fd in 4 5; do
	ln -s /dev/ipu1 "$R/proc/43/fd/$fd"
	printf 'drm-driver:\tipu\ndrm-client-id:\t%d\ndrm-pdev:\t0000:01:00.0\ndrm-total-memory:\t1 MiB\ndrm-resident-memory:\t1 MiB\ndrm-engine-launch:\t%d ns\ndrm-engine-xfer:\t1000 ns\nipu-buffers:\t3\nipu-role:\t%s\n' "$fd" "$((fd * 1000))" "$([ "$fd" = 4 ] && echo owner || echo none)" >"$R/proc/43/fdinfo/$fd"
done
ln -s /dev/null "$R/proc/43/fd/6"
printf 'drm-driver:\tother\ndrm-total-memory:\t99 KiB\n' >"$R/proc/43/fdinfo/6"
# The function's memory error counters (driver/ipu_pci_sysfs.c) and the
# PCI core's reset attribute (a plain file here: what is written shows).
echo 5 >"$R/sys/bus/pci/devices/0000:01:00.0/mem_errors_corrected"
echo 1 >"$R/sys/bus/pci/devices/0000:01:00.0/mem_errors_uncorrected"
: >"$R/sys/bus/pci/devices/0000:01:00.0/reset"

# --- options
expect_exit help 0 "--json" --help
# The program's name, not the path it was run by.
if grep -q '^usage: ipu-info ' "$T/out"; then
	pass help_program_name
else
	fail help_program_name "the usage line does not start with \"usage: ipu-info \""
fi
expect_exit version 0 "JSON schema version 1" --version
expect_exit unknown_option 2 "unknown option '--bogus'" --bogus
expect_exit missing_value 2 "option '-d' needs a value" -d
expect_exit stray_argument 2 "unexpected argument 'extra'" extra
expect_exit bad_interval 2 "--interval '0': not a number of seconds" --watch -n 0
expect_exit count_needs_watch 2 "--count needs --watch" --count 2
expect_exit bad_count 2 "--count 'x': not a positive number" --watch --count x
expect_exit missing_device 1 "no IPU '7' among the 3 listed" --root "$R" -d 7
mkdir "$T/empty"
expect_exit missing_device_no_driver 1 "no IPU '0': none listed (no $T/empty/sys/class/ipu: ipu.ko is not loaded)" --root "$T/empty" -d 0
expect_exit bad_root 2 "--root '$T/nothing': No such file or directory" --root "$T/nothing"
expect_exit missing_model_device 1 "no IPU 'model:99' among the 19 listed" --root "$R" -d model:99

# --- the fake machine
expect_exit table_sim_row 0 "/dev/ipu0" --root "$R"
expect_exit table_degraded 0 "8GT/s x4 of 16GT/s x16 DEGRADED" --root "$R"
expect_exit table_spec_name 0 "(spec)" --root "$R"
expect_exit table_holder 0 "open: 42 trainer" --root "$R"
expect_exit table_unbound 0 "0000:02:00.0" --root "$R"
expect_exit table_mem_errors 0 "5 / 1" --root "$R"
expect_exit table_processes 0 "/dev/ipu1  43   server    2      6        2.0 MiB  9.0 us  2.0 us  owner" --root "$R"
expect_exit details_mem_errors 0 "memory errors          5 corrected, 1 uncorrected" --root "$R" -d 1
expect_exit details_process 0 "42 trainer: 1 file, 2 buffers, 8.0 KiB, launch 1.5 ms, xfer 250 ns" --root "$R" -d 0

# --- --reset: by node or PCI address, refused while held unless --force.
expect_exit reset_held_open 4 "ipu0 is in use: open by 42 (trainer); stop it or add --force" --root "$R" --reset ipu0
expect_exit reset_held_attached 4 "ipu1 is in use: attached by 43 (server)" --root "$R" --reset 0000:01:00.0
expect_exit reset_unknown 1 "--reset 'ipu7': no such IPU" --root "$R" --reset ipu7
expect_exit reset_model 1 "--reset 'model:0': the software model has nothing to reset" --root "$R" --reset model:0
expect_exit reset_with_json 2 "--reset takes no other option but --force and --root" --root "$R" --reset ipu0 --json
expect_exit force_needs_reset 2 "--force needs --reset" --force
# Forced on an attached PCI IPU: the PCI core's function reset (sysfs).
expect_exit reset_forced_pci 0 "ipu1 (0000:01:00.0): reset through the PCI core (sysfs reset)" --root "$R" --reset 01:00.0 --force
if [ "$(cat "$R/sys/bus/pci/devices/0000:01:00.0/reset")" = 1 ]; then
	pass reset_forced_pci_wrote
else
	fail reset_forced_pci_wrote "sysfs reset holds '$(cat "$R/sys/bus/pci/devices/0000:01:00.0/reset")', not 1"
fi
# Forced on a simulated IPU someone has open: RESET through the node, which
# here is a plain file: the ioctl's failure is named.
expect_exit reset_forced_sim_ioctl 1 "ipu0: ATTACH on $R/dev/ipu0" --root "$R" --reset ipu0 --force
# Held by the firmware's daemon alone: not refused (RESET through the node).
cp -a "$R" "$T/root2"
rm -r "$T/root2/proc/42"
expect_exit reset_firmware_daemon_not_held 1 "ipu0: ATTACH on $T/root2/dev/ipu0" --root "$T/root2" --reset ipu0
expect_exit table_needs_root_note 0 "needs root" --root "$R"
expect_exit details_link 0 "8GT/s x4 of 16GT/s x16 DEGRADED (from sysfs)" --root "$R" -d 1
expect_exit details_by_node 0 "/dev/ipu0" --root "$R" -d /dev/ipu0
expect_exit details_unbound 0 "PCI function 0000:02:00.0 (IPU IDs, no /dev/ipuN)" --root "$R" -d 0000:02:00.0
expect_exit details_unbound_short 0 "link                   16GT/s x16 (from sysfs)" --root "$R" -d 02:00.0
expect_exit no_pci 0 "/dev/ipu1" --root "$R" --no-pci
# None found is not a success (3), in the table and in the JSON; a
# function the driver did not take is one found.
expect_exit empty_root 3 "no IPU found" --root "$T/empty"
expect_exit empty_root_json 3 '"ipus": [' --root "$T/empty" --json

# Every documented member, in every object (docs/ipu-info.md).
SCHEMA_IPU='index node platform model firmware_version serial memory_total memory_used reset_count mem_errors_corrected mem_errors_uncorrected dma_errors owner owner_known holders holders_total holders_complete utilization_pct temperature_mc power_uw api_version features feature_names mem_page_size pci'
SCHEMA_HOLDER='pid comm fdinfo files buffers memory_bytes engine_launch_ns engine_xfer_ns role'
SCHEMA_PCI='address vendor_id device_id subsystem_vendor_id subsystem_id revision class vendor_name device_name names_from driver numa_node link_current link_max link_degraded link_source config_space_full capabilities msix_vectors dsn bars'
json json_schema "
assert d['schema'] == 'ipu-info' and d['version'] == 1, d
assert set(d) == {'schema', 'version', 'ipus', 'unbound_pci', 'pci_scanned', 'notes'}, set(d)
for i in d['ipus']:
    assert set(i) == set('$SCHEMA_IPU'.split()), set(i) ^ set('$SCHEMA_IPU'.split())
    for h in i['holders']:
        assert set(h) == set('$SCHEMA_HOLDER'.split()), set(h)
    if i['pci'] is not None:
        assert set(i['pci']) == set('$SCHEMA_PCI'.split()), set(i['pci'])
for p in d['unbound_pci']:
    assert set(p) == set('$SCHEMA_PCI'.split()), set(p)
" --root "$R" --json
json json_values "
a, b = d['ipus']
assert a['node'] == '/dev/ipu0' and a['platform'] == 'sim' and a['pci'] is None
assert a['memory_total'] == 67108864 and a['memory_used'] == 8192 and a['reset_count'] == 3
assert sorted(a['holders'], key=lambda h: h['pid']) == [{'pid': 42, 'comm': 'trainer', 'fdinfo': True, 'files': 1, 'buffers': 2, 'memory_bytes': 8192, 'engine_launch_ns': 1500000, 'engine_xfer_ns': 250, 'role': 'none'}, {'pid': 44, 'comm': 'ipu-simd', 'fdinfo': True, 'files': 1, 'buffers': 0, 'memory_bytes': 0, 'engine_launch_ns': 0, 'engine_xfer_ns': 0, 'role': 'firmware'}], a['holders']
assert a['owner'] is None and a['utilization_pct'] is None
assert a['mem_errors_corrected'] is None and a['dma_errors'] is None
assert b['holders'] == [{'pid': 43, 'comm': 'server', 'fdinfo': True, 'files': 2, 'buffers': 6, 'memory_bytes': 2 << 20, 'engine_launch_ns': 9000, 'engine_xfer_ns': 2000, 'role': 'owner'}], b['holders']
assert b['owner'] == {'pid': 43, 'comm': 'server'}
assert b['mem_errors_corrected'] == 5 and b['mem_errors_uncorrected'] == 1
assert b['pci']['address'] == '0000:01:00.0' and b['pci']['link_degraded'] is True
assert b['pci']['link_current'] == {'speed_gts': 8, 'width': 4}, b['pci']['link_current']
assert b['pci']['link_max'] == {'speed_gts': 16, 'width': 16}
assert b['pci']['names_from'] == 'spec' and b['pci']['vendor_id'] == 0x1ffe
assert [p['address'] for p in d['unbound_pci']] == ['0000:02:00.0']
assert d['unbound_pci'][0]['driver'] is None and not d['unbound_pci'][0]['link_degraded']
assert d['pci_scanned'] is True and any('needs root' in n for n in d['notes'])
" --root "$R" --json
json json_one_device "
assert [i['node'] for i in d['ipus']] == ['/dev/ipu1'] and d['unbound_pci'] == []
" --root "$R" --json -d ipu1
export IPU_MODEL_DEVICES=2 IPU_MODEL_MEM_MB=64
json json_one_unbound "
assert d['ipus'] == [] and [p['address'] for p in d['unbound_pci']] == ['0000:02:00.0']
" --root "$R" --json -d 0000:02:00.0
json json_model "
m = [i for i in d['ipus'] if i['model']]
assert len(m) == 2 and m[1]['node'] == 'model:1' and m[1]['platform'] == 'model'
assert m[0]['memory_total'] == 64 << 20 and 'launch' in m[0]['feature_names']
" --root "$R" --json --model
unset IPU_MODEL_DEVICES IPU_MODEL_MEM_MB
expect_exit details_model 0 "model:0 (software model)" -d model:0

# --watch into a pipe: one whole report per refresh, no escape sequences.
run --root "$R" --watch -n 0.1 --count 3
if broken || [ "$st" -ne 0 ]; then
	fail watch_piped "exit status $st"
elif [ "$(grep -c '^DEVICE' "$T/out")" -ne 3 ]; then
	fail watch_piped "expected 3 reports"
elif grep -q $'\033' "$T/out"; then
	fail watch_piped "escape sequences in a pipe"
else
	pass watch_piped
fi
# --watch --json: JSON Lines, one report per line, each with its time.
"${WRAP[@]}" "$INFO" --root "$R" --watch --json -n 0.1 --count 2 >"$T/json" 2>"$T/out"
st=$?
if [ "$st" -eq 0 ] && ! broken && "$PY" -c "
import datetime, json, sys
lines = open(sys.argv[1]).read().split('\n')
assert lines[-1] == '' and len(lines) == 3, lines
t = []
for l in lines[:-1]:
    d = json.loads(l)
    assert d['schema'] == 'ipu-info' and len(d['ipus']) == 2, d
    t.append(datetime.datetime.strptime(d['timestamp'], '%Y-%m-%dT%H:%M:%S.%fZ'))
assert t[0] < t[1], t
" "$T/json" >>"$T/out" 2>&1; then
	pass watch_json_lines
else
	fail watch_json_lines "exit status $st, or not 2 JSON Lines with a timestamp each"
fi

# The utilisation: none at the first sample, then the growth of the
# holders' drm-engine-launch over the time between (none here: 0).
"${WRAP[@]}" "$INFO" --root "$R" --watch --json -n 0.1 --count 2 >"$T/json" 2>"$T/out"
st=$?
if [ "$st" -eq 0 ] && ! broken && "$PY" -c "
import json, sys
a, b = [json.loads(l) for l in open(sys.argv[1])]
assert [i['utilization_pct'] for i in a['ipus']] == [None, None], a
assert [i['utilization_pct'] for i in b['ipus']] == [0, 0], b
" "$T/json" >>"$T/out" 2>&1; then
	pass watch_utilization
else
	fail watch_utilization "exit status $st, or not null then 0"
fi
run --root "$R" --watch -n 0.1 --count 2
if [ "$st" -eq 0 ] && ! broken && [ "$(grep -c 'UTIL$' "$T/out")" -eq 1 ] &&
   grep -q 'open: 42 trainer +1  0%$' "$T/out"; then
	pass watch_utilization_column
else
	fail watch_utilization_column "exit status $st, or no UTIL column in the second report only"
fi

# --watch on a terminal (a pty from script(1), 60 x 8): the alternate
# screen, every frame drawn from the top with each line clearing its rest
# (no clear-screen between frames: no flicker), cut to 60 columns, and a
# last line saying what did not fit below.
if command -v script >/dev/null; then
	script -qec "stty cols 60 rows 8; ${WRAP[*]} $INFO --root $R --model --watch -n 0.1 --count 2" /dev/null >"$T/tty" 2>&1
	st=$?
	tr -d '\r' <"$T/tty" >"$T/out"
	if broken || [ "$st" -ne 0 ]; then
		fail watch_tty "exit status $st"
	elif ! grep -q $'^\033\\[?1049h' "$T/out" || ! grep -q $'\033\\[?1049l$' "$T/out"; then
		fail watch_tty "no alternate screen"
	elif [ "$(grep -o $'\033\\[H' "$T/out" | wc -l)" -ne 2 ] || [ "$(grep -o $'\033\\[2J' "$T/out" | wc -l)" -ne 1 ]; then
		fail watch_tty "expected 2 frames from the top and one clear"
	elif ! grep -q 'more lines: a taller terminal shows them' "$T/out"; then
		fail watch_tty "no line for what did not fit"
	elif sed $'s/\033\\[[0-9;?]*[A-Za-z]//g' "$T/out" | awk 'length($0) > 60 { bad = 1 } END { exit !bad }'; then
		fail watch_tty "a line wider than the terminal"
	else
		pass watch_tty
	fi
else
	skip watch_tty "no script(1)"
fi

finish
