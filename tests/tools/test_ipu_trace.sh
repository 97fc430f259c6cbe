#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/tools/test_ipu_trace.sh NAME BINDIR
#
# End-to-end tests of the session timeline and ipu-trace: ipu-run --trace
# records a run of make_example_exe's program on the model (Python's json
# parses it: every launch and transfer there), ipu-trace summarises it and
# draws it (Python's XML parser reads the SVG); then malformed traces and
# bad arguments, each refused with a clear message (never a signal or a
# sanitizer report), and a trace file that is a symbolic link, refused with
# its target untouched.
#
#   NAME    the phase: counts go to $BUILD/results/NAME
#   BINDIR  a build directory holding tools/ipu-trace, tools/ipu-run and
#           examples/make_example_exe (plain or sanitized builds)
#
# Environment: BUILD (default build), IPU_RUN_WRAPPER (a command prefix for
# both tools, e.g. valgrind), IPU_VERBOSE=1 (print the whole log).
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tool_test_start test_ipu_trace.log ipu-trace "$@"
IPU_RUN=$BIN/tools/ipu-run
MAKE_EXE=$BIN/examples/make_example_exe
unset IPU_TRACE IPU_DEVICE
export IPU_MODEL_DEVICES=4

numpy_python
if [ -z "$PY" ]; then
	echo "no python3 with numpy: run scripts/install-deps" >"$T/out"
	fail setup "numpy is missing"
	finish
fi

# ipu_run TEST ARGS...: ipu-run under the wrapper must succeed.
ipu_run() {
	local t=$1
	shift
	"${WRAP[@]}" "$IPU_RUN" "$@" >"$T/out" 2>&1
	st=$?
	if [ "$st" -ne 0 ] || broken; then
		fail "$t" "ipu-run: exit status $st"
		return 1
	fi
	pass "$t"
}

# --- a recorded run -----------------------------------------------------------

"$MAKE_EXE" --steps 3 --replicas 2 --weights "$T/ex" "$T/ex.ipux" >"$T/out" 2>&1 ||
	fail setup "make_example_exe"
"$PY" -c "import numpy as np; np.save('$T/x.npy', np.ones((3, 2, 4, 3), np.float32))"

if ipu_run record_with_ipu_run -i "x=$T/x.npy" -o "y=$T/y.npy" --runs 2 \
	--device ipu_model --trace "$T/t.json" -q "$T/ex.ipux"; then
	if "$PY" - "$T/t.json" >"$T/out" 2>&1 <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
x = [e for e in ev if e.get("ph") == "X"]
def n(cat, name=None):
    return sum(1 for e in x if e.get("cat") == cat and name in (None, e["name"]))
# 2 runs x 2 replicas; 3 slots of x in and of y out per replica and run.
assert n("launch") == 4, n("launch")
assert n("h2d", "x") == 12, n("h2d", "x")
assert n("d2h", "y") == 12, n("d2h", "y")
# x: float32 (4, 3) per slot.
assert all(e["args"]["bytes"] == 48 for e in x if e["name"] == "x")
assert any(e.get("ph") == "C" and e["name"] == "device memory" for e in ev)
names = {e["args"].get("name") for e in ev if e.get("ph") == "M"}
assert {"host", "replica 0", "replica 1"} <= names, names
PY
	then pass record_has_every_launch_and_transfer
	else fail record_has_every_launch_and_transfer "the trace lacks events"
	fi
fi

expect_exit summary 0 "time per phase" summary "$T/t.json"
for want in "h2d x" "d2h y" "launch" "device busy and idle" "replica 1" "slowest launches"; do
	if grep -qF -- "$want" "$T/out"; then
		pass "summary_says_${want// /_}"
	else
		fail "summary_says_${want// /_}" "no '$want'"
	fi
done

# expect_quiet TEST ARGS...: ipu-trace succeeds and says nothing.
expect_quiet() {
	local t=$1
	shift
	run "$@"
	if [ "$st" -ne 0 ] || broken || [ -s "$T/out" ]; then
		fail "$t" "exit status $st, or output"
	else
		pass "$t"
	fi
}

expect_quiet svg svg "$T/t.json" -o "$T/t.svg"
if "$PY" -c "
import sys, xml.dom.minidom as m
d = m.parse('$T/t.svg')
r = d.getElementsByTagName('rect')
sys.exit(0 if len(r) > 40 else 'only %d rects' % len(r))" >"$T/out" 2>&1; then
	pass svg_is_a_picture_of_the_spans
else
	fail svg_is_a_picture_of_the_spans "not SVG, or too few spans drawn"
fi
expect_exit svg_to_stdout 0 "<svg" svg "$T/t.json" -o -

if command -v rsvg-convert >/dev/null; then
	expect_quiet png svg "$T/t.json" -o "$T/t.png"
	if head -c 8 "$T/t.png" | grep -q PNG; then pass png_is_png; else fail png_is_png "no PNG"; fi
else
	"${WRAP[@]}" env PATH=/nonexistent "$TOOL" svg "$T/t.json" -o "$T/t.png" >"$T/out" 2>&1
	st=$?
	if [ "$st" -eq 1 ] && ! broken && grep -qF "PNG needs rsvg-convert" "$T/out" &&
		[ ! -e "$T/t.png" ]; then
		pass png_without_rsvg_convert
	else
		fail png_without_rsvg_convert "exit status $st"
	fi
fi

# --- malformed traces: a clear error, exit status 1 ---------------------------

printf '{"traceEvents":[{"ph":"X","ts":1,' >"$T/cut.json"
expect_exit truncated 1 "cut.json: not JSON at byte" summary "$T/cut.json"
: >"$T/empty.json"
expect_exit empty 1 "empty.json: not JSON at byte 0" summary "$T/empty.json"
printf '{"a": 1}' >"$T/other.json"
expect_exit not_a_trace 1 'no "traceEvents" array' summary "$T/other.json"
printf '{"traceEvents":[{"ph":"X","ts":"soon","dur":1,"pid":1}]}' >"$T/ts.json"
expect_exit ts_not_a_number 1 'event 0: "ts" is missing or not a number' summary "$T/ts.json"
printf '{"traceEvents":[{"ph":"X","ts":1,"dur":-5,"pid":1}]}' >"$T/dur.json"
expect_exit negative_dur 1 'event 0: "dur" is missing, not a number or negative' svg "$T/dur.json" -o "$T/x.svg"
printf '[{"ph":"X","ts":1,"dur":2,"pid":1},7]' >"$T/seven.json"
expect_exit event_not_an_object 1 "event 1: not an object" summary "$T/seven.json"
printf '{"traceEvents":[]} x' >"$T/tail.json"
expect_exit data_after_the_value 1 "tail.json: not JSON at byte 19" summary "$T/tail.json"
printf '[{"ph":"X","ts":1e300,"dur":2,"pid":1}]' >"$T/huge.json"
expect_exit ts_out_of_range 1 '"ts" is missing or not a number' summary "$T/huge.json"
expect_exit missing_file 1 "nothing.json: No such file or directory" summary "$T/nothing.json"
expect_exit directory 1 "not a regular file" summary "$T"
# Spans whose durations, each allowed, add up past 2^63 ns and whose byte
# counts add up past 2^64: the summary's totals must not overflow (UBSan
# in the ASan run reports a signed one), and say a huge time.
python3 -c '
import json
ev = [{"ph": "X", "cat": "h2d", "name": "x", "ts": 0, "dur": 9.9e14,
       "pid": 1, "tid": 1, "args": {"bytes": 2 ** 63}} for _ in range(20)]
print(json.dumps({"traceEvents": ev}))' >"$T/sum.json"
expect_exit sums_past_int64 0 "time per phase" summary "$T/sum.json"
# A bare array of events is the format too, and an empty trace is a trace.
printf '[]' >"$T/bare.json"
expect_exit empty_trace 0 "0 spans on 0 tracks" summary "$T/bare.json"

# --- usage --------------------------------------------------------------------

expect_exit no_arguments 2 "usage:"
expect_exit unknown_command 2 "unknown command 'draw'" draw "$T/t.json"
expect_exit svg_without_output 2 "svg needs -o" svg "$T/t.json"
expect_exit summary_with_output 2 "no -o" summary "$T/t.json" -o "$T/x"
expect_exit help 0 "usage:" --help

# --- the trace file: never through a symbolic link ----------------------------

echo "keep me" >"$T/victim"
ln -s "$T/victim" "$T/link.json"
"${WRAP[@]}" "$IPU_RUN" -i "x=$T/x.npy" --device ipu_model --trace "$T/link.json" -q \
	"$T/ex.ipux" >"$T/out" 2>&1
st=$?
if [ "$st" -eq 1 ] && ! broken && grep -qF "trace file '$T/link.json'" "$T/out" &&
	[ "$(cat "$T/victim")" = "keep me" ]; then
	pass trace_through_a_symlink_refused
else
	fail trace_through_a_symlink_refused "exit status $st, or the target changed"
fi

finish
