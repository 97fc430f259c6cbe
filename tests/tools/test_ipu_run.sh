#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/tools/test_ipu_run.sh NAME BINDIR
#
# End-to-end tests of ipu-run: real NumPy writes the inputs, ipu-run runs an
# executable from make_example_exe (y = relu(x @ w + b)) on the model, and
# NumPy checks the outputs against its own x @ w + b (np.allclose). Then
# every kind of bad input: each must exit non-zero (never by a signal or a
# sanitizer report) with a message naming what is wrong.
#
#   NAME    the phase: counts go to $BUILD/results/NAME ("passed failed
#           skipped"), the log to $BUILD/test-logs/NAME/test_ipu_run.log
#   BINDIR  a build directory holding tools/ipu-run and
#           examples/make_example_exe (plain or sanitized builds)
#
# Environment: BUILD (default build), IPU_RUN_WRAPPER (a command prefix for
# ipu-run, e.g. "valgrind -q --error-exitcode=99 --leak-check=full": any
# report it prints fails the test), IPU_VERBOSE=1 (print the whole log).
# The last line is "NAME: N passed, N failed".
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tool_test_start test_ipu_run.log ipu-run "$@"
MAKE_EXE=$BIN/examples/make_example_exe

numpy_python

if [ -z "$PY" ]; then
	echo "no python3 with numpy: run scripts/install-deps" >"$T/out"
	fail setup "numpy is missing"
	finish
fi
py() { "$PY" -c "import numpy as np, sys; $1" >>"$T/out" 2>&1; }


# expect_ok TEST ARGS...: ipu-run succeeds.
expect_ok() {
	local t=$1
	shift
	run "$@"
	if [ "$st" -ne 0 ] || broken; then
		fail "$t" "exit status $st, expected 0"
		return 1
	fi
	return 0
}

# expect_fail TEST STATUS MESSAGE ARGS...: ipu-run exits with STATUS (1: a
# failure, 2: a usage error) and prints MESSAGE (a fixed string).
expect_fail() { expect_exit "$@"; }

# check_y TEST X_FILE Y_FILE RTOL ATOL [DTYPE]: Y = relu(X @ w + b) in
# NumPy, with the weights make_example_exe wrote next to the program.
check_y() {
	local t=$1 x=$2 y=$3 rtol=$4 atol=$5 dtype=${6:-}
	: >"$T/out"
	if py "
x = np.load('$x').astype(np.float64); y = np.load('$y')
w = np.load('$T/ex-w.npy'); b = np.load('$T/ex-b.npy')
want = np.maximum(x @ w + b, 0)
if '$dtype' and y.dtype != np.dtype('$dtype'): sys.exit('dtype %s' % y.dtype)
if y.shape != want.shape: sys.exit('shape %s, expected %s' % (y.shape, want.shape))
if not np.allclose(y, want, rtol=$rtol, atol=$atol): sys.exit('max error %g' % abs(y - want).max())
"; then
		pass "$t"
	else
		fail "$t" "outputs differ from NumPy's"
	fi
}

# make_exe ARGS...: the example program, as $T/ex.ipux (+ weights).
make_exe() {
	if ! "$MAKE_EXE" --weights "$T/ex" "$@" "$T/ex.ipux" >"$T/out" 2>&1; then
		fail "make_example_exe $*" "could not write the program"
		return 1
	fi
}

# rand FILE SHAPE SEED DTYPE: normal random numbers saved by NumPy.
rand() {
	py "np.save('$1', np.random.default_rng($3).standard_normal($2).astype('$4'))" ||
		{ fail "rand $*" "NumPy could not write it"; return 1; }
}

# --- runs that work ---------------------------------------------------------

make_exe && rand "$T/x.npy" "(4, 3)" 1 '<f4' &&
	expect_ok one_transfer --input "x=$T/x.npy" --output "y=$T/y.npy" "$T/ex.ipux" &&
	check_y one_transfer_matches_numpy "$T/x.npy" "$T/y.npy" 1e-5 1e-6 float32

# An output that is no regular file (a FIFO, as /dev/stdout in a pipe):
# written as it is, not truncated (ftruncate fails on a FIFO).
# The shell holds the FIFO open too (read-write: no wait), so that the
# reader gets its end of file however ipu-run ends, even before it opened it.
make_exe && rand "$T/x.npy" "(4, 3)" 1 '<f4' && mkfifo "$T/fifo" && {
	exec 3<>"$T/fifo"
	cat "$T/fifo" >"$T/from-fifo.npy" 3>&- &
	reader=$!
	expect_ok output_to_a_fifo -i "x=$T/x.npy" -o "y=$T/fifo" "$T/ex.ipux"
	exec 3>&-
	wait "$reader"
	check_y output_to_a_fifo_matches_numpy "$T/x.npy" "$T/from-fifo.npy" 1e-5 1e-6 float32
}

make_exe --steps 3 --replicas 2 && rand "$T/x.npy" "(3, 2, 4, 3)" 2 '<f4' &&
	expect_ok transfers_and_replicas -i "x=$T/x.npy" -o "y=$T/y.npy" --device ipu_model "$T/ex.ipux" &&
	check_y transfers_and_replicas_match_numpy "$T/x.npy" "$T/y.npy" 1e-5 1e-6 float32

make_exe && rand "$T/x.npy" "(4, 3)" 3 '<f8' &&
	expect_ok float64_input_downcast -i "x=$T/x.npy" -o "y=$T/y.npy" "$T/ex.ipux" &&
	check_y float64_input_matches_numpy "$T/x.npy" "$T/y.npy" 1e-5 1e-5 float32

make_exe && py "np.save('$T/xb.npy', np.random.default_rng(4).standard_normal((4, 3)).astype('>f4'))" &&
	expect_ok big_endian_input -i "x=$T/xb.npy" -o "y=$T/y.npy" "$T/ex.ipux" &&
	check_y big_endian_input_matches_numpy "$T/xb.npy" "$T/y.npy" 1e-5 1e-6 float32

make_exe --dtype float16 && rand "$T/x.npy" "(4, 3)" 5 '<f2' &&
	expect_ok float16 -i "x=$T/x.npy" -o "y=$T/y.npy" "$T/ex.ipux" &&
	check_y float16_matches_numpy "$T/x.npy" "$T/y.npy" 1e-2 1e-2 float16

make_exe --dtype bfloat16 --steps 2 && rand "$T/x.npy" "(2, 4, 3)" 6 '<f4' &&
	expect_ok bfloat16_from_float32 -i "x=$T/x.npy" -o "y=$T/y.npy" "$T/ex.ipux" &&
	check_y bfloat16_written_as_float32 "$T/x.npy" "$T/y.npy" 3e-2 3e-2 float32

make_exe --steps 2 && rand "$T/x.npy" "(2, 4, 3)" 7 '<f4' &&
	expect_ok three_runs -i "x=$T/x.npy" -o "y=$T/y.npy" --runs 3 "$T/ex.ipux" &&
	if grep -q '^run 3: ' "$T/out" && grep -q '^3 runs: total ' "$T/out"; then
		pass three_runs_timed
	else
		fail three_runs_timed "no per-run and total timing"
	fi

make_exe && rand "$T/x.npy" "(4, 3)" 8 '<f4' &&
	expect_ok outputs_are_optional -i "x=$T/x.npy" "$T/ex.ipux" &&
	pass outputs_are_optional

# -q: nothing on stdout or stderr but errors; the outputs still written.
rm -f "$T/y.npy"
expect_ok quiet -q -i "x=$T/x.npy" -o "y=$T/y.npy" "$T/ex.ipux" &&
	if [ ! -s "$T/out" ]; then
		pass quiet_prints_nothing
	else
		fail quiet_prints_nothing "it printed"
	fi &&
	check_y quiet_writes_the_output "$T/x.npy" "$T/y.npy" 1e-5 1e-6 float32

run --help
if [ "$st" -eq 0 ] && grep -q '^usage: ' "$T/out" && ! broken; then
	pass help
else
	fail help "exit status $st or no usage text"
fi

# --- malformed files ----------------------------------------------------------

make_exe
rand "$T/x.npy" "(4, 3)" 9 '<f4'
printf 'garbage, not an array' >"$T/bad.npy"
expect_fail bad_magic 1 "$T/bad.npy: not a .npy file (bad magic" -i "x=$T/bad.npy" "$T/ex.ipux"
head -c 30 "$T/x.npy" >"$T/bad.npy"
expect_fail truncated_header 1 "$T/bad.npy: header truncated" -i "x=$T/bad.npy" "$T/ex.ipux"
head -c 8 "$T/x.npy" >"$T/bad.npy"
expect_fail truncated_preamble 1 "end before the header length" -i "x=$T/bad.npy" "$T/ex.ipux"
py "np.save('$T/bad.npy', np.asfortranarray(np.ones((4, 3), dtype='<f4')))"
expect_fail fortran_order 1 "only C order" -i "x=$T/bad.npy" "$T/ex.ipux"
cp "$T/x.npy" "$T/bad.npy" && printf 'x' >>"$T/bad.npy"
expect_fail data_longer_than_shape 1 "data is 49 bytes, but shape (4, 3) of '<f4' needs 48" -i "x=$T/bad.npy" "$T/ex.ipux"
head -c -4 "$T/x.npy" >"$T/bad.npy"
expect_fail data_shorter_than_shape 1 "data is 44 bytes" -i "x=$T/bad.npy" "$T/ex.ipux"
py "np.save('$T/bad.npy', np.ones((4, 3), dtype='<c8'))"
expect_fail unsupported_dtype 1 "unsupported dtype '<c8'" -i "x=$T/bad.npy" "$T/ex.ipux"
py "open('$T/bad.npy', 'wb').write(open('$T/x.npy', 'rb').read().replace(b'(4, 3)', b'(4; 3)'))"
expect_fail unparsable_header 1 "header dict unparsable" -i "x=$T/bad.npy" "$T/ex.ipux"
expect_fail missing_file 1 "$T/none.npy: cannot open" -i "x=$T/none.npy" "$T/ex.ipux"

# --- arrays that do not fit the program -----------------------------------------

rand "$T/x44.npy" "(4, 4)" 10 '<f4'
expect_fail shape_mismatch 1 "shape (4, 4) does not fit stream 'x': it takes (4, 3)" -i "x=$T/x44.npy" "$T/ex.ipux"
py "np.save('$T/xi.npy', np.ones((4, 3), dtype='<i4'))"
expect_fail dtype_mismatch 1 "dtype int32 ('<i4') cannot feed stream 'x' of float32" -i "x=$T/xi.npy" "$T/ex.ipux"
make_exe --steps 3 --replicas 2
expect_fail shape_without_leading_dims 1 "it takes (3, 2, 4, 3)" -i "x=$T/x.npy" "$T/ex.ipux"
make_exe
expect_fail missing_input 1 "no --input for host-to-device stream 'x'" "$T/ex.ipux"
expect_fail unknown_input_stream 1 "no host-to-device stream 'z' (it has: 'x')" -i "x=$T/x.npy" -i "z=$T/x.npy" "$T/ex.ipux"
expect_fail input_given_twice 1 "stream 'x' is given twice" -i "x=$T/x.npy" -i "x=$T/x.npy" "$T/ex.ipux"
expect_fail unknown_output_stream 1 "no device-to-host stream 'q' (it has: 'y')" -i "x=$T/x.npy" -o "q=$T/q.npy" "$T/ex.ipux"
expect_fail unwritable_output 1 "/nonexistent/y.npy: cannot create" -i "x=$T/x.npy" -o "y=/nonexistent/y.npy" "$T/ex.ipux"
# ... found before the run, not after it: a bad path wastes no run.
if grep -q '^run 1: ' "$T/out"; then
	fail unwritable_output_before_run "it ran before finding the output unwritable"
else
	pass unwritable_output_before_run
fi
# A run that fails (the model's launch fault) leaves no empty output file
# behind, and an existing one as it was.
IPU_MODEL_FAULTS=launch:1 expect_fail failed_run_new_output 1 "run 1: " -i "x=$T/x.npy" \
	-o "y=$T/new.npy" "$T/ex.ipux"
if [ -e "$T/new.npy" ]; then
	fail failed_run_no_empty_output "left $T/new.npy"
else
	pass failed_run_no_empty_output
fi
echo keep >"$T/keep.npy"
IPU_MODEL_FAULTS=launch:1 expect_fail failed_run_old_output 1 "run 1: " -i "x=$T/x.npy" \
	-o "y=$T/keep.npy" "$T/ex.ipux"
if [ "$(cat "$T/keep.npy")" = keep ]; then
	pass failed_run_keeps_an_existing_output
else
	fail failed_run_keeps_an_existing_output "$T/keep.npy changed"
fi

# --- bad programs and usage -----------------------------------------------------

printf 'not an executable' >"$T/bad.ipux"
expect_fail bad_program 1 "$T/bad.ipux" -i "x=$T/x.npy" "$T/bad.ipux"
expect_fail missing_program 1 "$T/none.ipux" -i "x=$T/x.npy" "$T/none.ipux"
expect_fail binding_without_file 2 "expected STREAM=FILE.npy" -i x "$T/ex.ipux"
expect_fail zero_runs 2 "--runs '0'" -i "x=$T/x.npy" --runs 0 "$T/ex.ipux"
expect_fail no_program 2 "which program?" -i "x=$T/x.npy"
# A usage error: one line, pointing to --help (not the whole usage).
for args in "--bogus $T/ex.ipux" "-i" "-i x=$T/x.npy" "-i x=$T/x.npy a.ipux b.ipux"; do
	# shellcheck disable=SC2086 # the words are the arguments
	run $args
	if [ "$st" -eq 2 ] && [ "$(wc -l <"$T/out")" -eq 1 ] && grep -q -- "--help" "$T/out" && ! broken; then
		pass "usage_one_line: $args"
	else
		fail "usage_one_line: $args" "exit status $st, or not one line naming --help"
	fi
done
run --help
if grep -q '^usage: ipu-run ' "$T/out" && grep -q 'make_example_exe\|ipu.ir\|\.ipux' "$T/out"; then
	pass help_names_program
else
	fail help_names_program "no \"usage: ipu-run\" line"
fi
# A bad IPU_DEVICE is refused, naming it, not run on the model (issue 27).
for v in junk model:99 model:-1 model:1x; do
	IPU_DEVICE=$v expect_fail "ipu_device_$v" 1 "IPU_DEVICE=\"$v\"" -i "x=$T/x.npy" "$T/ex.ipux"
done
expect_fail unknown_device 1 "tpu" -i "x=$T/x.npy" --device tpu "$T/ex.ipux"
make_exe --replicas 2
rand "$T/x2.npy" "(2, 4, 3)" 11 '<f4'
expect_fail cpu_has_one_ipu 1 "cpu" -i "x=$T/x2.npy" --device cpu "$T/ex.ipux"


# --- a program reaches only the files it is granted (S22) -----------------------
# An executable is untrusted: a memory-mapped variable's file is looked up
# only in the --data-dir directory. The attacks are real files an attacker
# could write; the user's file next to them must not change.

victim=$T/victim.bin
py "np.full(15, 7, dtype='<f4').tofile('$victim')"
# Its bytes and its mtime: writing the same bytes back (a program that
# leaves its weights alone) still shows as a write.
victim_sum="$(sha256sum <"$victim") $(stat -c %y "$victim")"
# intact TEST: the user's file is as it was, untouched.
intact() {
	if [ "$(sha256sum <"$victim") $(stat -c %y "$victim")" = "$victim_sum" ]; then
		pass "$1"
	else
		fail "$1" "ipu-run modified $victim"
	fi
}

# patch_path IN OUT OLD NEW: IN with string OLD of its string table replaced
# by NEW (as long), the checksums redone: a well-formed file that says NEW.
patch_path() {
	py "
import struct, zlib
b = bytearray(open('$1', 'rb').read())
_, _, hsz, nblobs = struct.unpack_from('<IIII', b, 0)
old, new = b'$3' + b'\0', b'$4' + b'\0'
assert len(old) == len(new)
for i in range(nblobs):
    at = hsz + 24 * i
    typ, _, off, size = struct.unpack_from('<IIQQ', b, at)
    if typ == 2:
        blob = bytes(b[off:off + size])
        assert old in blob
        blob = blob.replace(old, new, 1)
        b[off:off + size] = blob
        struct.pack_into('<I', b, at + 4, zlib.crc32(blob))
struct.pack_into('<I', b, 24, zlib.crc32(bytes(b[hsz:hsz + 24 * nblobs])))
open('$2', 'wb').write(b)
" || { fail "patch_path $3 $4" "could not write the program"; return 1; }
}

mkdir -p "$T/dd" "$T/dd2"
rand "$T/x.npy" "(4, 3)" 12 '<f4'
ph=$(printf '%*s' ${#victim} '' | tr ' ' p)
make_exe --mmap-weights "$ph" && patch_path "$T/ex.ipux" "$T/evil.ipux" "$ph" "$victim" && {
	expect_fail evil_absolute_path 1 "memory-mapped from '$victim': an absolute path" -i "x=$T/x.npy" "$T/evil.ipux"
	intact evil_absolute_path_left_the_file
	expect_fail evil_absolute_path_granted 1 "an absolute path" -i "x=$T/x.npy" --data-dir "$T/dd" "$T/evil.ipux"
	intact evil_absolute_path_granted_left_the_file
}
make_exe --mmap-weights ppppppppppppp && patch_path "$T/ex.ipux" "$T/evil.ipux" ppppppppppppp ../victim.bin && {
	expect_fail evil_dotdot_path 1 "memory-mapped from '../victim.bin': a \"..\" component" -i "x=$T/x.npy" --data-dir "$T/dd" "$T/evil.ipux"
	intact evil_dotdot_path_left_the_file
}
ln -s "$victim" "$T/dd/w.bin"
make_exe --mmap-weights w.bin && {
	expect_fail evil_symlink_out 1 "memory-mapped variable 'w': opening 'w.bin' read-write in the data directory '$T/dd': it is, or goes through, a symbolic link" -i "x=$T/x.npy" --data-dir "$T/dd" "$T/ex.ipux"
	intact evil_symlink_out_left_the_file
	# A program's own file, but no grant: refused, the file untouched.
	cp "$victim" "$T/dd2/w.bin"
	expect_fail mmap_without_data_dir 1 "memory-mapped variable 'w' wants the file 'w.bin'" -i "x=$T/x.npy" "$T/ex.ipux"
	if cmp -s "$victim" "$T/dd2/w.bin"; then
		pass mmap_without_data_dir_left_the_file
	else
		fail mmap_without_data_dir_left_the_file "w.bin changed"
	fi
	# Granted: w's values come from the file.
	py "np.load('$T/ex-w.npy').astype('<f4').tofile('$T/dd2/w.bin')" &&
		expect_ok mmap_with_data_dir -i "x=$T/x.npy" -o "y=$T/y.npy" --data-dir "$T/dd2" "$T/ex.ipux" &&
		check_y mmap_with_data_dir_matches_numpy "$T/x.npy" "$T/y.npy" 1e-5 1e-6 float32
}

# An output path that is a symbolic link (planted in a shared directory, say)
# is refused: following it would overwrite whatever it points at. So is one
# that is neither a regular file nor a stream (a FIFO, a character device).
ln -s "$victim" "$T/y-link.npy"
make_exe && rand "$T/x.npy" "(4, 3)" 1 '<f4' && {
	expect_fail output_symlink 1 "--output y=$T/y-link.npy: it is a symbolic link" -i "x=$T/x.npy" -o "y=$T/y-link.npy" "$T/ex.ipux"
	intact output_symlink_left_the_file
	ln -s "$T/nowhere.npy" "$T/y-dangling.npy"
	expect_fail output_dangling_symlink 1 "--output y=$T/y-dangling.npy: it is a symbolic link" -i "x=$T/x.npy" -o "y=$T/y-dangling.npy" "$T/ex.ipux"
	if [ -e "$T/nowhere.npy" ]; then
		fail output_dangling_symlink_made_nothing "$T/nowhere.npy was created"
	else
		pass output_dangling_symlink_made_nothing
	fi
	mkdir "$T/ydir"
	expect_fail output_directory 1 "--output y=$T/ydir" -i "x=$T/x.npy" -o "y=$T/ydir" "$T/ex.ipux"
	# /dev/null is a character device: written as a stream.
	expect_ok output_to_dev_null -i "x=$T/x.npy" -o "y=/dev/null" "$T/ex.ipux" && pass output_to_dev_null
}

finish
