#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/tools/test_readme.sh NAME BUILD
#
# The README's promises, kept: its C example (the one ```c block) compiles
# with -Wall -Wextra -Werror against include/ and BUILD's static libraries
# and runs on the default device, its Python example (the one ```python
# block) runs with the package of userspace/python over BUILD's shared
# libraries, and each prints exactly what its "prints:" comment says; the
# two commands are there verbatim (.ci/run and newcomers rely on them), and
# every docs/*.md the README or a page of docs/ names exists.
#
#   NAME   the phase: counts go to $BUILD/results/NAME, the log to
#          $BUILD/test-logs/NAME/test_readme.log
#   BUILD  a build directory holding lib/lib*.a and lib/lib*.so.1
#          (make userspace shared)
#
# Environment: CC (default cc), IPU_VERBOSE=1 (print the whole log).
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 NAME BUILD" >&2; exit 1; }
tool_test_init "$1" test_readme.log
B=$(realpath -m "$2")
ROOT=$(realpath "$(dirname "$0")/../..")
README=$ROOT/README.md

# block LANG: the lines of the README's one ```LANG block.
block() { awk -v f="\`\`\`$1" '$0 == f { on = 1; n++; next } /^```/ { on = 0 } on && n == 1' "$README"; }
# promised FILE: what the example's "prints:" comment says it prints.
promised() { sed -n 's/.*prints: \(.*\)$/\1/p' "$1" | sed 's| \*/$||'; }

# check_output TEST SRC: $T/out is what SRC's comment promises.
check_output() {
	local want
	want=$(promised "$2")
	if [ -z "$want" ]; then
		fail "$1" "no \"prints:\" comment in the example"
	elif [ "$(cat "$T/out")" != "$want" ]; then
		fail "$1" "printed the above, the README says '$want'"
	else
		pass "$1"
	fi
}

# --- the two commands -------------------------------------------------------
: >"$T/out"
for c in 'make demo    # train a small neural network on the IPU (the software model without one)' \
	'make check   # every test: unit (plain, ASan+UBSan, valgrind), driver lint, kernel matrix in QEMU'; do
	if grep -qxF -- "$c" "$README"; then
		pass "README: ${c%%  *}"
	else
		fail "README: ${c%%  *}" "the line is gone or changed"
	fi
done

# --- the C example ----------------------------------------------------------
block c >"$T/hello.c"
[ "$(grep -c '^```c$' "$README")" -eq 1 ] || { : >"$T/out"; fail "C example" "not exactly one \`\`\`c block"; }
if ! "${CC:-cc}" -Wall -Wextra -Werror -I"$ROOT/include" "$T/hello.c" -o "$T/hello_c" \
	"$B/lib/libsession.a" "$B/lib/libipuir.a" "$B/lib/libipu.a" "$B/lib/libipufw.a" \
	-luring -lopenblas -lz -lm -lpthread >"$T/out" 2>&1; then
	fail "C example: compiles" "the compiler said the above"
else
	pass "C example: compiles"
	"$T/hello_c" >"$T/out" 2>&1
	st=$?
	if [ "$st" -ne 0 ]; then
		fail "C example: runs" "exit status $st"
	else
		check_output "C example: prints what it says" "$T/hello.c"
	fi
fi

# --- the Python example -----------------------------------------------------
block python >"$T/hello.py"
numpy_python
if [ -z "$PY" ]; then
	echo "no python3 with numpy: run scripts/install-deps" >"$T/out"
	fail "Python example" "numpy is missing"
elif [ ! -s "$T/hello.py" ]; then
	: >"$T/out"
	fail "Python example" "no \`\`\`python block"
else
	IPU_LIB_DIR=$B/lib PYTHONPATH=$ROOT/userspace/python "$PY" "$T/hello.py" >"$T/out" 2>&1
	st=$?
	if [ "$st" -ne 0 ]; then
		fail "Python example: runs" "exit status $st"
	else
		check_output "Python example: prints what it says" "$T/hello.py"
	fi
fi

# --- the pages it points to -------------------------------------------------
: >"$T/out"
grep -oh 'docs/[A-Za-z0-9_.-]*\.md' "$README" "$ROOT"/docs/*.md | sort -u >"$T/links"
while read -r f; do
	if [ -f "$ROOT/$f" ]; then
		pass "link: $f"
	else
		(cd "$ROOT" && grep -l "$f" README.md docs/*.md) >"$T/out"
		fail "link: $f" "no such file (named in the files above)"
	fi
done <"$T/links"

finish
