#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/pkg/test_summarize.sh RESULTS_NAME BUILD: scripts/summarize, the
# last step of `make check`, on made-up results. Counts go to
# $BUILD/results/RESULTS_NAME.
#
# What it guards: the tail of make check's output is often all a CI page
# keeps. A failed run must say there which test failed (the log's failure
# lines, repeated above the total), and the total must stay the very last
# line, "N passed, N failed[, N skipped]", with the exit status telling
# the same.
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
pkg_test_init "${1:?usage: $0 RESULTS_NAME BUILD}" "${2:?usage: $0 RESULTS_NAME BUILD}"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/green" "$T/red" "$T/empty" "$T/bad"
echo "3 0 1" >"$T/green/unit"
echo "2 0 0" >"$T/green/lint"
echo "3 0 0" >"$T/red/unit"
echo "44 1 0" >"$T/red/pkg-debs"
echo "3 x" >"$T/bad/unit"
{
	echo "  unit/test_a: ok: 3 passed, 0 failed"
	echo "[  FAILED  ] 1 test(s), listed below:"
	echo "  pkg-debs/boot: the kernel log is clean: FAILED (log /x)"
	echo "  FAIL ipu-run --bad: exit status 1"
	echo "FAILED tests/test_x.py::test_y - assert 0"
	echo "check: 'make lint' failed before its tests reported"
} >"$T/log"
for i in $(seq 1 20); do echo "  kernel-6.1/test_$i: FAILED (exit status 1)"; done >"$T/long.log"

scripts/summarize "$T/green" "$T/log" >"$T/out" 2>&1
st=$?
if [ $st -eq 0 ] && [ "$(tail -n 1 "$T/out")" = "5 passed, 0 failed, 1 skipped" ] &&
	! grep -q '^failed' "$T/out"; then
	ok "a green run: the total last, no failure list, exit status 0"
else
	bad "a green run: the total last, no failure list, exit status 0" "status $st: $(tr '\n' '|' <"$T/out")"
fi

scripts/summarize "$T/red" "$T/log" >"$T/out" 2>&1
st=$?
want=$(printf '%s\n' \
	"  pkg-debs/boot: the kernel log is clean: FAILED (log /x)" \
	"  FAIL ipu-run --bad: exit status 1" \
	"  FAILED tests/test_x.py::test_y - assert 0" \
	"  check: 'make lint' failed before its tests reported" \
	"47 passed, 1 failed")
if [ $st -ne 0 ] && [ "$(tail -n 5 "$T/out")" = "$want" ] &&
	grep -q "^failed (the first 4 of 4 lines of $T/log that name one):$" "$T/out"; then
	ok "a red run: each reporter's failure line just above the total, exit status non-zero"
else
	bad "a red run: each reporter's failure line just above the total" "status $st: $(tr '\n' '|' <"$T/out")"
fi
if ! grep -q 'ok: 3 passed\|test(s), listed' "$T/out"; then
	ok "a red run: passing lines and cmocka's count line are not repeated"
else
	bad "a red run: passing lines and cmocka's count line are not repeated" "$(tr '\n' '|' <"$T/out")"
fi

scripts/summarize "$T/red" "$T/long.log" >"$T/out" 2>&1
if [ "$(grep -c ': FAILED' "$T/out")" = 12 ] &&
	grep -q "^failed (the first 12 of 20 lines" "$T/out" &&
	[ "$(tail -n 1 "$T/out")" = "47 passed, 1 failed" ]; then
	ok "many failures: the first 12 and how many in all"
else
	bad "many failures: the first 12 and how many in all" "$(tr '\n' '|' <"$T/out")"
fi

scripts/summarize "$T/red" >"$T/out" 2>&1
st=$?
if [ $st -ne 0 ] && [ "$(tail -n 1 "$T/out")" = "47 passed, 1 failed" ] &&
	! grep -q '^failed' "$T/out"; then
	ok "no log: the counts alone"
else
	bad "no log: the counts alone" "status $st: $(tr '\n' '|' <"$T/out")"
fi

scripts/summarize "$T/empty" "$T/log" >"$T/out" 2>&1
st=$?
if [ $st -ne 0 ] && grep -q 'no test ran' "$T/out"; then
	ok "no results: not a pass"
else
	bad "no results: not a pass" "status $st: $(tr '\n' '|' <"$T/out")"
fi

scripts/summarize "$T/bad" "$T/log" >"$T/out" 2>&1
st=$?
if [ $st -ne 0 ] && grep -q 'malformed results file' "$T/out" &&
	[ "$(tail -n 1 "$T/out")" = "0 passed, 1 failed" ]; then
	ok "a malformed results file is a failure"
else
	bad "a malformed results file is a failure" "status $st: $(tr '\n' '|' <"$T/out")"
fi
finish
