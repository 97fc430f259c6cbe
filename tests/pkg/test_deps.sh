#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/pkg/test_deps.sh RESULTS_NAME BUILD: each make target installs only
# its own dependencies (scripts/install-deps TARGET, read with --list),
# and make check still installs everything. Counts go to
# $BUILD/results/RESULTS_NAME.
#
# What it guards: `make demo` pulling QEMU, a kernel image or the kernel
# source again (a newcomer waited minutes for them); a target's list
# growing past check's (check would then not test what that target
# needs); the Makefile calling install-deps without a target where it
# means one.
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
pkg_test_init "${1:?usage: $0 RESULTS_NAME BUILD}" "${2:?usage: $0 RESULTS_NAME BUILD}"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for t in demo build unit python lint kernel fuzz deb pkg-check check; do
	scripts/install-deps --list "$t" >"$T/$t" || bad "install-deps --list $t"
done
scripts/install-deps --list >"$T/default"

heavy=$(grep -E '^(qemu-system-|linux-image-|linux-headers-|linux-source-|busybox-static$|debootstrap$|sparse$|valgrind$|clang$|lintian$)' "$T/demo")
if [ -s "$T/demo" ] && [ -z "$heavy" ]; then
	ok "demo wants only the compiler and the libraries it links ($(tr '\n' ' ' <"$T/demo"))"
else
	bad "demo wants only the compiler and the libraries it links" "$(echo "$heavy" | tr '\n' ' ')"
fi
if cmp -s "$T/default" "$T/check"; then
	ok "install-deps with no target is check"
else
	bad "install-deps with no target is check"
fi
for t in demo build unit python lint kernel fuzz deb pkg-check; do
	extra=$(comm -23 "$T/$t" "$T/check")
	if [ -z "$extra" ]; then
		ok "check wants everything $t wants"
	else
		bad "check wants everything $t wants" "$(echo "$extra" | tr '\n' ' ')"
	fi
done
grep -q '^qemu-system-x86$' "$T/kernel" && ok "kernel wants QEMU" || bad "kernel wants QEMU"

# What make runs: -n prints the recipes (the @ ones too) without running
# them, except lines that call $(MAKE), which it runs whole. demo's only
# such line is a -n make of the demo's binary; check's run the phases (this
# test among them), so check is read from its rule and deps' recipe.
calls() { make -n --no-print-directory BUILD="$BUILD" "$1" 2>/dev/null | grep -o 'scripts/install-deps[^;&|]*' | sed 's/ *$//' | sort -u; }
c=$(calls demo)
[ "$c" = "scripts/install-deps demo" ] && ok "make demo runs install-deps demo only" ||
	bad "make demo runs install-deps demo only" "$c"
c=$(calls deps)
if grep -q '^check: deps$' Makefile && [ "$c" = "scripts/install-deps" ]; then
	ok "make check runs install-deps for everything"
else
	bad "make check runs install-deps for everything" "$c"
fi

finish
