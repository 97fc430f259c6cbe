#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/pkg/test_hardening.sh RESULTS_NAME BUILD: every ELF file the
# Debian packages of BUILD/deb ship (make deb) carries Debian's hardening,
# read from the files themselves with readelf (what hardening-check of
# devscripts reads, without its dependencies). Counts go to
# $BUILD/results/RESULTS_NAME.
#
# Per executable and shared library (scripts/build-debs builds them with
# dpkg-buildflags' hardening=+all):
#   relro   a GNU_RELRO segment (-z relro): the GOT is read-only after
#           relocation
#   now     BIND_NOW (-z now): every symbol bound at load, so all of the
#           GOT can be read-only
#   pie     executables only: position-independent (FLAGS_1 PIE), so ASLR
#           moves their code too
#   stack   imports __stack_chk_fail (-fstack-protector-strong)
#   fortify imports at least one __*_chk function (_FORTIFY_SOURCE=2: the
#           checked variants of memcpy, snprintf, read, ...)
# One test per file and property, so a failure names both.
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
pkg_test_init "${1:?usage: $0 RESULTS_NAME BUILD}" "${2:?usage: $0 RESULTS_NAME BUILD}"

debs=("$BUILD"/deb/*.deb)
if [ ! -e "${debs[0]}" ]; then
	bad "packages in $BUILD/deb (make deb)"
	finish
fi
X=$(mktemp -d)
trap 'rm -rf "$X"' EXIT
for d in "${debs[@]}"; do
	dpkg-deb -x "$d" "$X/$(basename "$d" .deb)"
done

n=0
while IFS= read -r -d '' f; do
	file -b "$f" | grep -q '^ELF' || continue
	n=$((n + 1))
	rel=${f#"$X"/}
	pkg=${rel%%_*}
	name="$pkg:/${rel#*/}"
	dyn=$(readelf -dW "$f" 2>/dev/null)
	syms=$(readelf --dyn-syms -W "$f" 2>/dev/null)
	segs=$(readelf -lW "$f" 2>/dev/null)
	check "$name relro" grep -q 'GNU_RELRO' <<<"$segs"
	check "$name now" grep -q -E '\(FLAGS\).*BIND_NOW|\(FLAGS_1\).* NOW' <<<"$dyn"
	# An executable asks for a program interpreter; a library does not.
	if grep -q 'INTERP' <<<"$segs"; then
		check "$name pie" grep -q -E '\(FLAGS_1\).* PIE' <<<"$dyn"
	fi
	check "$name stack" grep -q -E ' UND __stack_chk_fail(@|$)' <<<"$syms"
	check "$name fortify" grep -q -E ' UND __[a-z0-9_]+_chk(@|$)' <<<"$syms"
done < <(find "$X" -type f -print0 | sort -z)
if [ "$n" -ge 9 ]; then
	ok "ELF files checked: $n"
else
	bad "ELF files checked" "only $n: the packages lost their binaries?"
fi
finish
