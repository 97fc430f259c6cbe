# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/lib/results.sh: helpers shared by scripts/run-tests and
# scripts/kernel-check (sourced, not run), so that a test binary is counted
# the same way on the host and in the QEMU guest.
#
# A results file ($BUILD/results/NAME) is one line: "passed failed skipped".

# cmocka_counts STATUS FILE
#   Print "passed failed skipped" for one run of one test binary, from the
#   summary lines cmocka prints for each group in FILE:
#     [  PASSED  ] N test(s).
#     [  FAILED  ] N test(s), listed below:
#     [  SKIPPED ] N test(s), listed below:
#   and its exit STATUS: 77 with no cmocka summary is one skip; non-zero
#   (crash, timeout, valgrind error, ...) with no failure reported by cmocka
#   is one failure; 0 with no cmocka output is one pass.
cmocka_counts() {
	awk -v st="$1" '
	{ sub(/\r$/, "") }
	function num(line) { sub(/^\[[^]]*\] /, "", line); return line + 0 }
	/^\[  PASSED  \] [0-9]+ test\(s\)/ { p += num($0) }
	/^\[  FAILED  \] [0-9]+ test\(s\)/ { f += num($0) }
	/^\[  SKIPPED \] [0-9]+ test\(s\)/ { s += num($0) }
	END {
		if (st == 77 && p + f + s == 0)
			s = 1
		else if (st != 0 && st != 77 && f == 0)
			f = 1
		else if (st == 0 && p + f + s == 0)
			p = 1
		print p + 0, f + 0, s + 0
	}' "$2"
}

# counts_line NAME PASSED FAILED SKIPPED: the human summary line.
counts_line() {
	local line="$1: $2 passed, $3 failed"
	[ "$4" -eq 0 ] || line="$line, $4 skipped"
	echo "$line"
}
