#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/tools/test_ipu_trace_record.sh NAME BINDIR
#
# `ipu-trace record` against a fake tracefs (IPU_TRACEFS=DIR, its testing
# hook): plain files for the knobs, instances made by mkdir as tracefs
# makes them (fake_tracefs_instances.c, preloaded: mkdir under instances/
# fills the directory with a new instance's files, rmdir removes them),
# and a CMD that plays the kernel (it appends lines in the real `trace`
# format to its recorder's instance) and a session (it writes the file
# IPU_TRACE names, its %p the pid). Checked: the instance's knobs as CMD
# sees them (clock mono, events on, tracing on, a bigger buffer), the
# global knobs never touched, the instance gone after (also after a
# SIGINT, and a dead recorder's at the next start; a live one's kept),
# the spans paired and on the session's clock, a hostile task name
# escaped, a malformed line counted, every process's session merged, a
# signal during the merge cleaning up, CMD's exit status passed through,
# and the refusals (no tracefs, no events/ipu, an unknown -e event) with
# exit status 2. Python's json parses the output.
#
#   NAME    the phase: counts go to $BUILD/results/NAME
#   BINDIR  a build directory holding tools/ipu-trace
#
# Environment: BUILD (default build), IPU_RUN_WRAPPER (a command prefix,
# e.g. valgrind), IPU_VERBOSE=1 (print the whole log).
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tool_test_start test_ipu_trace_record.log ipu-trace "$@"
unset IPU_TRACE
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# The files of a new instance, and the shim that makes mkdir create them.
mkdir -p "$T/instance/events/ipu"
: >"$T/instance/trace"
echo "[local] global counter uptime perf mono mono_raw boot" >"$T/instance/trace_clock"
echo 1 >"$T/instance/tracing_on"
echo 1408 >"$T/instance/buffer_size_kb"
echo 0 >"$T/instance/events/ipu/enable"
for e in ipu_bo_create ipu_bo_destroy ipu_xfer_submit ipu_xfer_start \
	ipu_xfer_complete ipu_launch_submit ipu_launch_start \
	ipu_launch_complete ipu_launch_fail ipu_reset; do
	mkdir -p "$T/instance/events/ipu/$e"
	echo 0 >"$T/instance/events/ipu/$e/enable"
done
if ! ${CC:-cc} -shared -fPIC -o "$T/shim.so" "$(dirname "$0")/fake_tracefs_instances.c" -ldl >"$T/out" 2>&1; then
	fail fake_tracefs_instances "the shim does not build"
	finish
fi
export FAKE_TRACEFS_INSTANCE=$T/instance LD_PRELOAD=$T/shim.so
# ASan wants to come first; the shim only wraps mkdir and rmdir.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

# A fake tracefs at $1: knobs as a system might have them.
fake_tracefs() {
	local d=$1 e
	rm -rf "$d/instances"
	mkdir -p "$d/events/ipu" "$d/instances"
	: >"$d/trace"
	echo "[local] global counter uptime perf mono mono_raw boot" >"$d/trace_clock"
	echo 1 >"$d/tracing_on"
	echo 1408 >"$d/buffer_size_kb"
	echo 0 >"$d/events/ipu/enable"
	for e in ipu_bo_create ipu_bo_destroy ipu_xfer_submit ipu_xfer_start \
		ipu_xfer_complete ipu_launch_submit ipu_launch_start \
		ipu_launch_complete ipu_launch_fail ipu_reset; do
		mkdir -p "$d/events/ipu/$e"
		echo 0 >"$d/events/ipu/$e/enable"
	done
	echo 1 >"$d/events/ipu/ipu_reset/enable"	# someone's: stays on
}

# The knobs of the fake at $1, one line.
knobs() {
	local d=$1
	echo "clock=$(cat "$d/trace_clock") on=$(cat "$d/tracing_on")" \
		"kb=$(cat "$d/buffer_size_kb") xs=$(cat "$d/events/ipu/ipu_xfer_start/enable")" \
		"reset=$(cat "$d/events/ipu/ipu_reset/enable")"
}
AS_FOUND="clock=[local] global counter uptime perf mono mono_raw boot on=1 kb=1408 xs=0 reset=1"

# The kernel's lines: ids 1 (a transfer), 1 (a launch), a failed launch on
# ipu1, a task named with a quote, a backslash, a control character and a
# fake header, and one line that is not an event.
{
	echo "# tracer: nop"
	echo "#"
	echo "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION"
	echo "         ipu-run-4242    [001] .....   100.000100: ipu_bo_create: ipu0 handle=1 size=4096 dev_addr=0x100000"
	echo "         ipu-run-4242    [001] .....   100.000200: ipu_xfer_submit: ipu0 client=7 handle=1 bytes=64 dir=to_device path=ioctl result=0"
	echo "         ipu-run-4242    [001] .....   100.000250: ipu_xfer_start: ipu0 client=7 handle=1 bytes=64 dir=to_device path=ioctl result=0"
	echo "         ipu-run-4242    [001] .....   100.000400: ipu_xfer_complete: ipu0 client=7 handle=1 bytes=64 dir=to_device path=ioctl result=0"
	echo "         ipu-run-4242    [000] d..1.   100.000500: ipu_launch_submit: ipu0 client=7 id=1 exe=2 arena=3 replica=0/1 instances=1 status=0"
	echo "     kworker/0:1-17      [000] .....   100.000600: ipu_launch_start: ipu0 client=7 id=1 exe=2 arena=3 replica=0/1 instances=1 status=0"
	echo "          <idle>-0       [000] d.h1.   100.000900: ipu_launch_complete: ipu0 client=7 id=1 exe=2 arena=3 replica=0/1 instances=1 status=0"
	printf ' q"\\\x01 9.5: ipu_x:-9999 [000] .....   100.001000: ipu_xfer_submit: ipu0 client=8 handle=2 bytes=8 dir=from_device path=io_uring result=0\n'
	echo "this line is not an event"
	echo "         ipu-run-4242    [001] .....   100.001100: ipu_launch_submit: ipu1 client=7 id=2 exe=2 arena=3 replica=0/1 instances=1 status=0"
	echo "         ipu-run-4242    [001] .....   100.001200: ipu_launch_fail: ipu1 client=7 id=2 exe=2 arena=3 replica=0/1 instances=1 status=-110"
} >"$T/lines"

# A session's timeline: one run from 100 s to 100.002 s (in microseconds).
cat >"$T/session.json" <<'EOF'
{"traceEvents":[
{"ph":"M","pid":1,"tid":1,"name":"process_name","args":{"name":"host"}},
{"ph":"X","cat":"host","name":"run","pid":1,"tid":1,"ts":100000000.000,"dur":2000.000}
],"otherData":{"program":"fake"}}
EOF

# CMD: writes what it sees of its recorder's instance's knobs (its parent
# is the recorder) to $T/during and of the global ones to $T/global,
# plays the kernel and the session; with HOLD=1 it waits (60 s at most)
# for a SIGINT.
cat >"$T/cmd.sh" <<'EOF'
#!/usr/bin/env bash
g=$IPU_TRACEFS
d=$g/instances/ipu-trace-$PPID
echo "clock=$(cat "$d/trace_clock") on=$(cat "$d/tracing_on") kb=$(cat "$d/buffer_size_kb") xs=$(cat "$d/events/ipu/ipu_xfer_start/enable") reset=$(cat "$d/events/ipu/ipu_reset/enable")" >"$TDIR/during"
echo "clock=$(cat "$g/trace_clock") on=$(cat "$g/tracing_on") kb=$(cat "$g/buffer_size_kb") xs=$(cat "$g/events/ipu/ipu_xfer_start/enable") reset=$(cat "$g/events/ipu/ipu_reset/enable")" >"$TDIR/global"
cat "$TDIR/lines" >>"$d/trace"
cp "$TDIR/session.json" "${IPU_TRACE//%p/$$}"
if [ "${HOLD:-0}" = 1 ]; then
	trap 'echo INT >"$TDIR/got"; exit 130' INT
	echo $$ >"$TDIR/holding"
	for _ in $(seq 1200); do sleep 0.05; done
	exit 0
fi
exit "${CODE:-0}"
EOF
chmod +x "$T/cmd.sh"
export TDIR=$T

# --- a recording ---------------------------------------------------------------

fake_tracefs "$T/fs"
IPU_TRACEFS=$T/fs run record -o "$T/rec.json" -- "$T/cmd.sh"
if [ "$st" -eq 0 ] && ! broken; then
	pass record_runs
else
	fail record_runs "exit status $st"
fi
if [ "$(cat "$T/during" 2>/dev/null)" = "clock=mono on=1 kb=8192 xs=1 reset=1" ]; then
	pass knobs_set_while_cmd_runs
else
	echo "during: $(cat "$T/during" 2>/dev/null)" >"$T/out"
	fail knobs_set_while_cmd_runs "not mono/on/8192/enabled"
fi
if [ "$(cat "$T/global" 2>/dev/null)" = "$AS_FOUND" ]; then
	pass global_knobs_untouched_while_cmd_runs
else
	echo "global: $(cat "$T/global" 2>/dev/null)" >"$T/out"
	fail global_knobs_untouched_while_cmd_runs "changed"
fi
if [ -z "$(ls -A "$T/fs/instances")" ]; then
	pass instance_removed
else
	ls "$T/fs/instances" >"$T/out"
	fail instance_removed "left behind"
fi
if [ "$(knobs "$T/fs")" = "$AS_FOUND" ]; then
	pass knobs_restored
else
	echo "after: $(knobs "$T/fs")" >"$T/out"
	fail knobs_restored "not as found"
fi
if grep -qF "1 malformed line skipped" "$T/out"; then
	pass malformed_line_counted
else
	fail malformed_line_counted "no '1 malformed line skipped'"
fi
if "$PY" - "$T/rec.json" >"$T/out" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
od = t["otherData"]
assert od["malformed_lines"] == 1, od
assert od["kernel_events"] == 10, od
assert od["sessions"] == [{"program": "fake"}], od
k = [e for e in ev if e.get("pid") == 1000000 and e["ph"] in "Xi"]
spans = [e for e in k if e["ph"] == "X"]
names = sorted(e["name"] for e in spans)
assert names == ["launch", "launch (failed)", "xfer to_device"], names
run = [e for e in ev if e.get("name") == "run"][0]
for s in spans:
    # On the session's clock: inside its run.
    assert run["ts"] <= s["ts"] and s["ts"] + s["dur"] <= run["ts"] + run["dur"], s
x = [s for s in spans if s["name"] == "xfer to_device"][0]
assert abs(x["ts"] - 100000250) < 1e-6 and abs(x["dur"] - 150) < 1e-6, x
assert x["args"]["bytes"] == 64 and x["args"]["path"] == "ioctl", x
assert abs(x["args"]["queued_us"] - 50) < 1e-6, x
l = [s for s in spans if s["name"] == "launch"][0]
assert abs(l["ts"] - 100000600) < 1e-6 and abs(l["dur"] - 300) < 1e-6, l
assert l["args"]["task"] == "<idle>" and l["args"]["replica"] == "0/1", l
f = [s for s in spans if s["name"] == "launch (failed)"][0]
assert f["args"]["status"] == -110 and f["args"]["device"] == "ipu1", f
assert f["tid"] != l["tid"], "a track per device"
h = [e for e in k if e["ph"] == "i" and e["name"] == "ipu_xfer_submit"]
assert len(h) == 1 and h[0]["args"]["task"] == 'q"\\\x01 9.5: ipu_x:', h
assert h[0]["args"]["pid"] == 9999 and h[0]["args"]["unpaired"], h
threads = {e["args"]["name"] for e in ev if e["ph"] == "M" and e.get("pid") == 1000000
           and e["name"] == "thread_name"}
assert {"ipu0 transfers", "ipu0 launches", "ipu0 events", "ipu1 launches"} <= threads, threads
PY
then
	pass spans_paired_on_the_session_clock
else
	fail spans_paired_on_the_session_clock "the merged file is not as expected"
fi
run summary "$T/rec.json"
if [ "$st" -eq 0 ] && ! broken && grep -qF "run" "$T/out"; then
	pass summary_reads_the_merged_file
else
	fail summary_reads_the_merged_file "exit status $st"
fi

# --- a real session: ipu-run on the model, its IPU_TRACE file merged, its ---
# --- runs on CLOCK_MONOTONIC, the clock of the kernel's lines ------------------

if [ -x "$BIN/tools/ipu-run" ] && [ -x "$BIN/examples/make_example_exe" ] &&
	"$PY" -c 'import numpy' 2>/dev/null; then
	"$BIN/examples/make_example_exe" --steps 2 --replicas 2 --weights "$T/ex" "$T/ex.ipux" >/dev/null 2>&1
	"$PY" -c "import numpy as np; np.save('$T/x.npy', np.ones((2, 2, 4, 3), np.float32))"
	fake_tracefs "$T/fs"
	# CLOCK_MONOTONIC (Python's monotonic clock on Linux) around the
	# recording: the session's runs lie between, on the kernel's "mono".
	t0=$("$PY" -c 'import time; print(time.monotonic())')
	IPU_MODEL_DEVICES=4 IPU_TRACEFS=$T/fs run record -o "$T/real.json" -- \
		"$BIN/tools/ipu-run" -i "x=$T/x.npy" --runs 2 --device ipu_model -q "$T/ex.ipux"
	t1=$("$PY" -c 'import time; print(time.monotonic())')
	if [ "$st" -eq 0 ] && ! broken && "$PY" - "$T/real.json" "$t0" "$t1" >>"$T/out" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t0, t1 = float(sys.argv[2]) * 1e6, float(sys.argv[3]) * 1e6
s = t["otherData"]["sessions"]
assert len(s) == 1 and s[0]["device"] == "ipu_model", s
runs = [e for e in t["traceEvents"] if e.get("name") == "run" and e["ph"] == "X"]
assert len(runs) >= 1
for r in runs:
    assert t0 <= r["ts"] and r["ts"] + r["dur"] <= t1, ("not on CLOCK_MONOTONIC", t0, r, t1)
PY
	then
		pass real_session_merged
	else
		fail real_session_merged "exit status $st, or the session's timeline is not in the file"
	fi
	# Two processes under one recording: each its own file (%p), both merged.
	fake_tracefs "$T/fs"
	IPU_MODEL_DEVICES=4 IPU_TRACEFS=$T/fs run record -o "$T/two.json" -- sh -c \
		'"$0" -i "x=$1" --runs 1 --device ipu_model -q "$2" && "$0" -i "x=$1" --runs 2 --device ipu_model -q "$2"' \
		"$BIN/tools/ipu-run" "$T/x.npy" "$T/ex.ipux"
	if [ "$st" -eq 0 ] && ! broken && "$PY" - "$T/two.json" >>"$T/out" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
s = t["otherData"]["sessions"]
assert len(s) == 2, s
runs = [e for e in t["traceEvents"] if e.get("name") == "run" and e.get("cat") == "host"]
assert len(runs) == 3, runs
PY
	then
		pass every_process_session_merged
	else
		fail every_process_session_merged "exit status $st, or a process's timeline is missing"
	fi
else
	skip real_session_merged "no ipu-run, make_example_exe or numpy in $BIN"
fi

# --- bounds: more in flight than held, a timestamp past int64's nanoseconds ---

for i in $(seq 5000); do
	echo "  a-1 [000] ..... 1.$(printf %06d "$i"): ipu_xfer_submit: ipu0 client=1 handle=$i bytes=4 dir=to_device path=ioctl result=0"
done >"$T/many"
echo "  a-1 [000] ..... 12345678901.5: ipu_reset: ipu0 cause=ioctl result=0" >>"$T/many"
fake_tracefs "$T/fs"
IPU_TRACEFS=$T/fs run record -o "$T/many.json" -- sh -c 'cat "$0" >>"$IPU_TRACEFS/instances/ipu-trace-$PPID/trace"' "$T/many"
if [ "$st" -eq 0 ] && ! broken && grep -qF "5000 without their other end" "$T/out" &&
	"$PY" -c "import json, sys; o = json.load(open(sys.argv[1]))['otherData']; assert o['malformed_lines'] == 1 and o['unpaired_events'] == 5000, o" "$T/many.json" >>"$T/out" 2>&1; then
	pass many_in_flight_bounded
else
	fail many_in_flight_bounded "exit status $st, or not counted"
fi

# --- sessions merged in the order libsession numbered them -----------------
# (NAME.json, NAME-2.json, ... NAME-10.json: by number, not by name)

for n in 1 2 10; do
	sed "s/\"fake\"/\"s$n\"/" "$T/session.json" >"$T/sess$n.json"
done
cat >"$T/three.sh" <<EOF
#!/bin/bash
t=\${IPU_TRACE//%p/\$\$}
cp "$T/sess1.json" "\$t"
cp "$T/sess2.json" "\${t%.json}-2.json"
cp "$T/sess10.json" "\${t%.json}-10.json"
EOF
chmod +x "$T/three.sh"
fake_tracefs "$T/fs3"
IPU_TRACEFS=$T/fs3 run record -o "$T/three.json" -- "$T/three.sh"
if [ "$st" -eq 0 ] && ! broken && "$PY" -c "
import json, sys
o = json.load(open(sys.argv[1]))['otherData']['sessions']
assert [s['program'] for s in o] == ['s1', 's2', 's10'], o" "$T/three.json" >>"$T/out" 2>&1; then
	pass sessions_in_their_order
else
	fail sessions_in_their_order "exit status $st, or the sessions out of order"
fi

# --- -e: only those ------------------------------------------------------------

fake_tracefs "$T/fs2"
IPU_TRACEFS=$T/fs2 run record -e ipu_launch_start,ipu_bo_create -o "$T/e.json" -- "$T/cmd.sh"
if [ "$st" -eq 0 ] && ! broken && [ "$(cat "$T/fs2/events/ipu/ipu_launch_start/enable")" = 0 ] &&
	grep -qF "xs=0" "$T/during" && [ "$(knobs "$T/fs2")" = "$AS_FOUND" ]; then
	pass events_option
else
	fail events_option "exit status $st, or other events enabled"
fi
IPU_TRACEFS=$T/fs2 expect_exit unknown_event 2 "no event 'ipu_nosuch'" \
	record -e ipu_nosuch -- "$T/cmd.sh"

# --- CMD's exit status ----------------------------------------------------------

# A fake's trace_clock holds what was written last (a real one lists every
# clock): a fresh fake before each recording.

fake_tracefs "$T/fs"
CODE=3 IPU_TRACEFS=$T/fs run record -o "$T/c.json" -- "$T/cmd.sh"
if [ "$st" -eq 3 ] && [ -s "$T/c.json" ]; then
	pass exit_status_passed_through
else
	fail exit_status_passed_through "exit status $st, expected 3"
fi
fake_tracefs "$T/fs"
IPU_TRACEFS=$T/fs run record -o "$T/c.json" -- sh -c 'kill -TERM $$'
if [ "$st" -eq 143 ] && [ "$(knobs "$T/fs")" = "$AS_FOUND" ]; then
	pass killed_cmd_is_128_plus_signal
else
	fail killed_cmd_is_128_plus_signal "exit status $st, expected 143"
fi
fake_tracefs "$T/fs"
IPU_TRACEFS=$T/fs expect_exit command_not_found 127 "no-such-command" \
	record -o "$T/c.json" -- no-such-command-xyz

# --- SIGINT: forwarded, restored, written ---------------------------------------

fake_tracefs "$T/fs3"
rm -f "$T/holding" "$T/got"
HOLD=1 IPU_TRACEFS=$T/fs3 "${WRAP[@]}" "$TOOL" record -o "$T/int.json" -- "$T/cmd.sh" >"$T/out" 2>&1 &
rec=$!
for _ in $(seq 1200); do [ -e "$T/holding" ] && break; sleep 0.05; done
kill -INT "$rec"
wait "$rec"
st=$?
if [ "$st" -eq 130 ] && [ -e "$T/got" ] && [ "$(knobs "$T/fs3")" = "$AS_FOUND" ] &&
	grep -qF "its tracefs instance removed" "$T/out" && grep -qF '"kernel_spans":3' "$T/int.json"; then
	pass sigint_forwarded_restored_written
else
	fail sigint_forwarded_restored_written "exit status $st, or the instance not removed or the file not written"
fi
if [ -z "$(ls -A "$T/fs3/instances")" ]; then
	pass sigint_instance_removed
else
	fail sigint_instance_removed "left behind: $(ls "$T/fs3/instances")"
fi

# --- kill -9: nothing global changed; its instance removed at the next start, ---
# --- a live recorder's left alone -----------------------------------------------

fake_tracefs "$T/fs4"
rm -f "$T/holding"
HOLD=1 IPU_TRACEFS=$T/fs4 "${WRAP[@]}" "$TOOL" record -o "$T/k.json" -- "$T/cmd.sh" >"$T/out" 2>&1 &
rec=$!
for _ in $(seq 1200); do [ -s "$T/holding" ] && break; sleep 0.05; done
kill -KILL "$rec"
wait "$rec" 2>/dev/null
kill -KILL "$(cat "$T/holding")" 2>/dev/null
if [ "$(knobs "$T/fs4")" = "$AS_FOUND" ] && [ -d "$T/fs4/instances/ipu-trace-$rec" ]; then
	pass kill9_leaves_global_knobs
else
	fail kill9_leaves_global_knobs "global knobs changed, or no instance of $rec: $(ls "$T/fs4/instances")"
fi
mkdir "$T/fs4/instances/ipu-trace-$$" "$T/fs4/instances/other"
IPU_TRACEFS=$T/fs4 run record -o "$T/k.json" -- "$T/cmd.sh"
if [ "$st" -eq 0 ] && ! broken && [ ! -e "$T/fs4/instances/ipu-trace-$rec" ] &&
	[ -f "$T/fs4/instances/ipu-trace-$$/trace" ] && [ -d "$T/fs4/instances/other" ] &&
	grep -qF "ipu-trace-$rec" "$T/out"; then
	pass stale_instance_removed_live_kept
else
	ls "$T/fs4/instances" >>"$T/out"
	fail stale_instance_removed_live_kept "exit status $st, or the wrong instances removed"
fi

# --- a signal during the merge: the private directory removed, no output -----

cat >"$T/fifo.sh" <<'EOF'
#!/bin/bash
f=${IPU_TRACE//%p/$$}
mkfifo "$f"
echo "$f" >"$TDIR/fifo"
EOF
chmod +x "$T/fifo.sh"
fake_tracefs "$T/fs5"
rm -f "$T/fifo" "$T/m.json"
IPU_TRACEFS=$T/fs5 "${WRAP[@]}" "$TOOL" record -o "$T/m.json" -- "$T/fifo.sh" >"$T/out" 2>&1 &
rec=$!
for _ in $(seq 1200); do [ -s "$T/fifo" ] && break; sleep 0.05; done
fifo=$(cat "$T/fifo")
# Opening the FIFO to write waits for the merge to open it to read.
timeout 60 bash -c 'exec 3>"$0" && kill -TERM "$1"' "$fifo" "$rec"
wait "$rec"
st=$?
if [ "$st" -eq 143 ] && [ -n "$fifo" ] && [ ! -e "$(dirname "$fifo")" ] && [ ! -e "$T/m.json" ] &&
	[ -z "$(ls -A "$T/fs5/instances")" ]; then
	pass signal_during_merge_cleans_up
else
	fail signal_during_merge_cleans_up "exit status $st, or $(dirname "$fifo") or $T/m.json left"
fi

# --- refusals -------------------------------------------------------------------

IPU_TRACEFS=$T/none expect_exit no_tracefs 2 "no tracefs at $T/none" record -- true
mkdir -p "$T/noev"
fake_tracefs "$T/noev"
rm -rf "$T/noev/events/ipu"
IPU_TRACEFS=$T/noev expect_exit no_ipu_events 2 "ipu.ko is not loaded" record -- true
if [ "$(cat "$T/noev/trace_clock")" = "[local] global counter uptime perf mono mono_raw boot" ]; then
	pass refusal_touches_nothing
else
	fail refusal_touches_nothing "trace_clock was changed"
fi
IPU_TRACEFS=$T/fs expect_exit no_command 2 "no command" record -o "$T/x.json"
expect_exit record_help 0 "usage: ipu-trace record" record --help

finish
