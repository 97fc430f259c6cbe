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
# Each launch holds its ops (the model profiles them).
assert n("op") >= 4 and n("op") % 4 == 0, n("op")
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
for want in "h2d x" "d2h y" "launch" "device busy and idle" "replica 1" "slowest ops"; do
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

# The converter's files lie in a directory of ours alone (mode 0700, not
# the output's shared one), so that nobody swaps them between our write
# and its read or its write and our rename; the PNG gets a new file's
# mode. A fake rsvg-convert says where it was given them.
mkdir -p "$T/fakebin" "$T/shared"
chmod 0777 "$T/shared"
cat >"$T/fakebin/rsvg-convert" <<'EOF'
#!/bin/sh
# rsvg-convert -o OUT IN
[ "$1" = -o ] || exit 2
echo "out_dir=$(dirname "$2") out_mode=$(stat -c %a "$(dirname "$2")") in_dir=$(dirname "$3") in_mode=$(stat -c %a "$(dirname "$3")")" >"$TDIR/conv"
printf '\211PNG\r\n\032\n' >"$2"
EOF
chmod +x "$T/fakebin/rsvg-convert"
rm -f "$T/conv"
( umask 022; TDIR=$T PATH=$T/fakebin:$PATH "${WRAP[@]}" "$TOOL" svg "$T/t.json" -o "$T/shared/p.png" ) >"$T/out" 2>&1
st=$?
conv=$(cat "$T/conv" 2>/dev/null)
echo "$conv" >>"$T/out"
if [ "$st" -eq 0 ] && ! broken && [ -n "$conv" ] &&
	case $conv in *"out_dir=$T/shared "*|*"in_dir=/tmp "*) false ;; *) true ;; esac &&
	echo "$conv" | grep -q "out_mode=700 .*in_mode=700" &&
	[ "$(stat -c %a "$T/shared/p.png")" = 644 ] && [ "$(ls -A "$T/shared")" = p.png ]; then
	pass png_converter_works_in_a_private_directory
else
	fail png_converter_works_in_a_private_directory "exit status $st, or the converter's files in a shared directory"
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

# --- rough edges: size, hostile names, the output file ------------------------

# 200,000 spans, each on its own track with its own name and a named
# process: lookups by name or track that are linear each (quadratic in
# all) take minutes here; the summary must take seconds. Plain builds
# only: a wrapper (valgrind) is slow for a file this size either way.
if [ ${#WRAP[@]} -eq 0 ]; then
	python3 -c '
import json
n = 200000
ev = [{"ph": "X", "cat": "op", "name": "op%d" % i, "ts": i, "dur": 1,
       "pid": i, "tid": 1} for i in range(n)]
ev += [{"ph": "M", "name": "process_name", "pid": i,
        "args": {"name": "p%d" % i}} for i in range(n)]
print(json.dumps({"traceEvents": ev}))' >"$T/big.json"
	timeout 60 "$TOOL" summary "$T/big.json" >"$T/out" 2>&1
	st=$?
	if [ "$st" -eq 0 ] && grep -qF "200000 spans on 200000 tracks" "$T/out"; then
		pass big_trace_in_linear_time
	else
		fail big_trace_in_linear_time "exit status $st (124: over 60 s)"
	fi
	rm -f "$T/big.json"
fi

# The slowest ops, by name: count, total, mean.
python3 -c '
import json
ev = [{"ph": "X", "cat": "op", "name": "matmul", "ts": 10 * i, "dur": 5,
       "pid": 2, "tid": 1} for i in range(3)]
ev += [{"ph": "X", "cat": "op", "name": "add", "ts": 100, "dur": 1,
        "pid": 2, "tid": 1}]
print(json.dumps({"traceEvents": ev}))' >"$T/ops.json"
run summary "$T/ops.json"
if [ "$st" -eq 0 ] && ! broken &&
	grep -Eq '^ +1\. matmul +3 +0\.015 +5\.000' "$T/out" &&
	grep -Eq '^ +2\. add +1 +0\.001 +1\.000' "$T/out"; then
	pass slowest_ops_by_name
else
	fail slowest_ops_by_name "exit status $st, or no 'matmul 3 0.015 5.000'"
fi

# Names with control characters and escape sequences reach the terminal
# escaped: ESC, BEL, the C1 CSI (U+009B) and a byte that is not UTF-8.
printf '{"traceEvents":[{"ph":"X","cat":"op","name":"a\\u001b[2Jb\\u0007\\u009bc","ts":1,"dur":2,"pid":1,"tid":1},{"ph":"M","name":"process_name","pid":1,"args":{"name":"p\\u001b]0;x\\u0007"}}]}' >"$T/esc.json"
run summary "$T/esc.json"
if [ "$st" -eq 0 ] && ! broken && ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$T/out" &&
	! LC_ALL=C grep -q $'\xc2\x9b' "$T/out" &&
	grep -qF 'a\x1b[2Jb\x07\xc2\x9bc' "$T/out" && grep -qF 'p\x1b]0;x\x07' "$T/out"; then
	pass control_characters_escaped
else
	fail control_characters_escaped "exit status $st, or a control character printed raw"
fi

# The picture is written beside its name and renamed over it: a symbolic
# link there is replaced, its target untouched.
echo "keep me too" >"$T/victim2"
ln -s "$T/victim2" "$T/pic.svg"
expect_quiet svg_over_a_symlink svg "$T/t.json" -o "$T/pic.svg"
if [ ! -L "$T/pic.svg" ] && grep -qF "<svg" "$T/pic.svg" &&
	[ "$(cat "$T/victim2")" = "keep me too" ] &&
	[ -z "$(find "$T" -maxdepth 1 -name '.pic.svg.*')" ]; then
	pass svg_never_follows_a_symlink
else
	fail svg_never_follows_a_symlink "the link was followed, or a temporary left"
fi
mkdir "$T/dir.svg"
expect_exit svg_onto_a_directory 1 "dir.svg" svg "$T/t.json" -o "$T/dir.svg"
if [ -z "$(find "$T" -maxdepth 1 -name '.dir.svg.*')" ]; then
	pass svg_failure_leaves_no_temporary
else
	fail svg_failure_leaves_no_temporary "a temporary was left"
fi

# The size cap: 1 GiB, said with the size.
truncate -s 1073741825 "$T/huge_file.json"
expect_exit over_the_cap 1 "1073741825 bytes: larger than the 1 GiB (1073741824 bytes)" summary "$T/huge_file.json"
rm -f "$T/huge_file.json"

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
