# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tests/tools/lib.sh: what the end-to-end tests of the tools
# (tests/tools/test_*.sh) share; sourced, not run.
#
# tool_test_init NAME LOGFILE sets up a phase: counts go to
# $BUILD/results/NAME ("passed failed skipped"), the log to
# $BUILD/test-logs/NAME/LOGFILE; $T is a scratch directory removed on
# exit; WRAP is IPU_RUN_WRAPPER as an array (a command prefix such as
# valgrind). tool_test_start does that for a script's usual arguments and
# names its tool; run ARGS... runs the tool under "${WRAP[@]}" (output in
# $T/out, status in $st); then expect_exit checks a run, pass and fail
# count, and finish writes the counts and exits.

# shellcheck source=../../scripts/lib/results.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/results.sh"

tool_test_init() {
	NAME=$1
	BUILD=${BUILD:-build}
	RESULTS=$BUILD/results
	LOGDIR=$BUILD/test-logs/$NAME
	LOG=$LOGDIR/$2
	# shellcheck disable=SC2034 # the sourcing script's run uses it
	read -ra WRAP <<<"${IPU_RUN_WRAPPER:-}"
	mkdir -p "$RESULTS" "$LOGDIR"
	: >"$LOG"
	T=$(mktemp -d)
	# shellcheck disable=SC2064 # $T is fixed now
	trap "rm -rf '$T'" EXIT
	passed=0 failed=0 skipped=0
}

# tool_test_start LOGFILE TOOL ARGS...: the common start of a script
# called as "SCRIPT NAME BINDIR" (ARGS: its arguments): BIN is BINDIR,
# TOOL its tools/TOOL, and the phase NAME is set up (tool_test_init).
tool_test_start() {
	local logfile=$1 tool=$2
	shift 2
	[ $# -eq 2 ] || { echo "usage: $0 NAME BINDIR" >&2; exit 1; }
	BIN=$2
	TOOL=$BIN/tools/$tool
	tool_test_init "$1" "$logfile"
}

# run ARGS...: $TOOL under the wrapper, output in $T/out, status in $st.
run() {
	"${WRAP[@]}" "$TOOL" "$@" >"$T/out" 2>&1
	st=$?
}

pass() { passed=$((passed + 1)); echo "  ok   $1" >>"$LOG"; }
fail() {
	failed=$((failed + 1))
	echo "  FAIL $1: $2" | tee -a "$LOG"
	sed 's/^/       | /' "$T/out" | tee -a "$LOG"
}
skip() { skipped=$((skipped + 1)); echo "  skip $1: $2" >>"$LOG"; }

finish() {
	echo "$passed $failed $skipped" >"$RESULTS/$NAME"
	[ "${IPU_VERBOSE:-0}" != 1 ] || cat "$LOG"
	counts_line "$NAME" "$passed" "$failed" "$skipped"
	[ "$failed" -eq 0 ]
	exit
}

# A run that crashed or that a checker (sanitizer, valgrind) complained
# about ($st and $T/out from the last run).
broken() {
	# shellcheck disable=SC2154 # run sets st
	[ "$st" -ge 128 ] || grep -qE 'ERROR: [A-Za-z]*Sanitizer|runtime error:|^==[0-9]+== ' "$T/out"
}

# expect_exit TEST STATUS MESSAGE ARGS...: run ARGS exits with STATUS (0,
# 1: a failure, 2: a usage error), not by a signal or with a checker's
# report, and prints MESSAGE (a fixed string).
expect_exit() {
	local t=$1 want=$2 msg=$3
	shift 3
	run "$@"
	if broken; then
		fail "$t" "crashed or reported by a checker (exit status $st)"
	elif [ "$st" -ne "$want" ]; then
		fail "$t" "exit status $st, expected $want"
	elif ! grep -qF -- "$msg" "$T/out"; then
		fail "$t" "no message '$msg'"
	else
		pass "$t"
	fi
}

# numpy_python sets PY to a python3 that has numpy, "" for none (Debian's
# python3 has python3-numpy; a python3 earlier in PATH may not).
numpy_python() {
	local p
	PY=
	for p in python3 /usr/bin/python3; do
		if "$p" -c 'import numpy' 2>/dev/null; then
			PY=$p
			return
		fi
	done
}
