#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/tools/test_ipu_run_signals.sh NAME BINDIR
#
# Ctrl-C in ipu-run (issue 27.6): a run that would never end (the model's
# fault "hang": its launch never completes) gets SIGINT, or SIGTERM; ipu-run
# must stop it at once, print a summary line, write no outputs and exit 130
# (143), not be killed by the signal (which could print nothing).
#
#   NAME, BINDIR, IPU_RUN_WRAPPER: as tests/tools/test_ipu_run.sh. Under
#   valgrind the test is skipped: valgrind catches every signal itself, so
#   /proc cannot tell when ipu-run has its handler.
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tool_test_start test_ipu_run_signals.log ipu-run "$@"
MAKE_EXE=$BIN/examples/make_example_exe
SAFETY_S=60 # only so that a broken ipu-run cannot hang the test

numpy_python
if [ -z "$PY" ]; then
	echo "no python3 with numpy: run scripts/install-deps" >"$T/out"
	fail setup "numpy is missing"
	finish
fi
if [ "${#WRAP[@]}" -gt 0 ]; then
	skip signals "under ${WRAP[0]}, which catches signals itself"
	finish
fi

# catches PID SIG: whether process PID has a handler for signal SIG (its
# bit in /proc/PID/status's SigCgt).
catches() {
	local mask
	mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
	[ -n "$mask" ] && (( (16#$mask >> ($2 - 1)) & 1 ))
}

# interrupt TEST SIG SIGNUM: a hung run, SIG once ipu-run catches it;
# exit status 128 + SIGNUM, the summary, no output file.
interrupt() {
	local t=$1 sig=$2 num=$3 pid dog
	rm -f "$T/y.npy"
	IPU_MODEL_FAULTS=hang:1 "$TOOL" -i "x=$T/x.npy" -o "y=$T/y.npy" \
		--runs 3 "$T/ex.ipux" >"$T/out" 2>&1 &
	pid=$!
	(sleep "$SAFETY_S" && kill -KILL "$pid") 2>/dev/null &
	dog=$!
	# The event: ipu-run has installed its handler.
	while kill -0 "$pid" 2>/dev/null && ! catches "$pid" "$num"; do
		sleep 0.01
	done
	kill "-$sig" "$pid"
	wait "$pid"
	st=$?
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	if grep -qE 'ERROR: [A-Za-z]*Sanitizer|runtime error:' "$T/out"; then
		fail "$t" "reported by a checker"
	elif [ "$st" -ne $((128 + num)) ]; then
		fail "$t" "exit status $st, expected $((128 + num))"
	elif ! grep -q "^interrupted by $sig after 0 of 3 runs (total [0-9.]* ms); no outputs written$" "$T/out"; then
		fail "$t" "no summary line (killed by the signal?)"
	elif [ -e "$T/y.npy" ]; then
		fail "$t" "wrote an output"
	else
		pass "$t"
	fi
}

if ! "$MAKE_EXE" --weights "$T/ex" "$T/ex.ipux" >"$T/out" 2>&1 ||
	! "$PY" -c "import numpy as np; np.save('$T/x.npy', np.ones((4, 3), '<f4'))" >"$T/out" 2>&1; then
	fail setup "could not write the program or its input"
	finish
fi

interrupt sigint_stops_a_hung_run SIGINT 2
interrupt sigterm_stops_a_hung_run SIGTERM 15

finish
