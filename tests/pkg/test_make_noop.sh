#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/pkg/test_make_noop.sh RESULTS_NAME BUILD: a plain `make` on a tree
# that has not changed since the last one builds nothing. Counts go to
# $BUILD/results/RESULTS_NAME.
#
# What it guards: ipu.ko, once built, is built again only when what it is
# built from changed (it was rebuilt on every `make`, 23 s each); nor is any
# userspace file. `make` runs twice in BUILD (the first brings it up to
# date, whatever it held); the second must leave every file under BUILD
# as it was (none newer than a mark set between the two) and run neither
# the compiler nor scripts/build-module. Then a touched driver source
# must build ipu.ko again, so that "nothing" is not "never".
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
pkg_test_init "${1:?usage: $0 RESULTS_NAME BUILD}" "${2:?usage: $0 RESULTS_NAME BUILD}"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

if ! scripts/build-module --print-kdir host >/dev/null 2>&1; then
	skip "make; make" "no kernel headers for ipu.ko (scripts/install-deps build)"
	finish
fi

if ! make -j2 BUILD="$BUILD" >"$T/first.log" 2>&1; then
	tail -n 30 "$T/first.log"
	bad "the first make" "log above"
	finish
fi
ok "the first make"
check "the first make left ipu.ko" [ -e "$BUILD/kmod/host/ipu.ko" ]

# The mark: a file made now; a second make that writes anything under
# BUILD leaves a file newer than it. The second's own start is a second
# later, so that a file the first make wrote in the mark's second cannot
# look newer.
touch "$T/mark"
sleep 1
if ! make -j2 BUILD="$BUILD" >"$T/second.log" 2>&1; then
	tail -n 30 "$T/second.log"
	bad "the second make" "log above"
	finish
fi
# results/ holds the counts of test runs (this one's among them), not build output.
find "$BUILD" -newer "$T/mark" ! -type d ! -path "$BUILD/results/*" >"$T/newer"
if [ -s "$T/newer" ]; then
	head -n 20 "$T/newer"
	bad "the second make wrote nothing under BUILD" "$(wc -l <"$T/newer") file(s), above"
else
	ok "the second make wrote nothing under BUILD"
fi
if grep -E '(^| )(cc|gcc|clang) |build-module (host|--)' "$T/second.log" >"$T/ran"; then
	head -n 5 "$T/ran"
	bad "the second make ran no compiler and no build-module" "above"
else
	ok "the second make ran no compiler and no build-module"
fi

# Something changed: ipu.ko again. A copy of a driver file is touched,
# never the file: the tree's sources stay as they are.
src=$(find driver -maxdepth 1 -name '*.c' | head -n 1)
ko_before=$(stat -c %Y "$BUILD/kmod/host/ipu.ko")
cp -p "$src" "$T/src.c"
touch "$src"
sleep 1
make -j2 BUILD="$BUILD" >"$T/third.log" 2>&1
st=$?
# Its time back, so the tree does not look changed to the next make.
touch -r "$T/src.c" "$src"
if [ "$st" -eq 0 ] && [ "$(stat -c %Y "$BUILD/kmod/host/ipu.ko")" != "$ko_before" ]; then
	ok "a touched driver source builds ipu.ko again"
else
	tail -n 20 "$T/third.log"
	bad "a touched driver source builds ipu.ko again" "exit status $st"
fi

finish
