# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tests/pkg/lib.sh: what the packaging tests (tests/pkg/test_*.sh) share;
# sourced, not run, after `set -uo pipefail`.
#
# pkg_test_init NAME BUILD: counts of this phase go to $BUILD/results/NAME
# ("passed failed skipped"); the working directory becomes the tree's
# root. Then ok NAME, bad NAME [WHY], skip NAME [WHY] and check NAME CMD... count one test
# each, and finish writes the counts, prints the summary line and exits
# non-zero when one failed.

# shellcheck source=../../scripts/lib/results.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/results.sh"

pkg_test_init() {
	NAME=$1
	BUILD=$(realpath -m "$2")
	cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
	mkdir -p "$BUILD/results"
	passed=0 failed=0 skipped=0
}
ok() { passed=$((passed + 1)); echo "  $NAME/$1: ok"; }
bad() { failed=$((failed + 1)); echo "  $NAME/$1: FAILED${2:+ ($2)}"; }
skip() { skipped=$((skipped + 1)); echo "  $NAME/$1: skipped${2:+ ($2)}"; }
# check NAME CMD...: one test, passed when CMD succeeds.
check() {
	local n=$1
	shift
	if "$@"; then ok "$n"; else bad "$n"; fi
}
finish() {
	echo "$passed $failed $skipped" >"$BUILD/results/$NAME"
	counts_line "$NAME" "$passed" "$failed" "$skipped"
	[ "$failed" -eq 0 ]
	exit
}
