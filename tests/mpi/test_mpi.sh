#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/mpi/test_mpi.sh NAME BUILDDIR
#
# A program split across instances over Open MPI (docs/instances.md), on
# this host's loopback, as PopXL users run poprun: mpirun -np N of
# tests/mpi/mpi_allreduce (4 replicas; all-reduce sum over all, mean over
# groups spanning instances; variables whose groups, or all_replicas
# retrieval, span instances).
#  - 1x4, 2x2 and 4x1 print the same checksum of every replica's outputs,
#    and every instance the same checksum of the weights it fetched: the
#    bits do not depend on the split;
#  - ipu-run runs a saved split program under mpirun unchanged and with
#    --instances N (its flags, its files per instance, its refusals);
#  - a killed instance makes the others fail: under mpirun's default
#    policy mpirun ends the job (non-zero, in bounded time); with
#    --enable-recovery, which lets the survivors run on, each survivor
#    fails with the transport's "no answer from the other instances"
#    within IPU_INSTANCE_TIMEOUT_MS.
# Every mpirun runs under `timeout`, so a hang is a failure, not a stuck
# check. Counts go to $BUILD/results/NAME; the last line is
# "NAME: N passed, N failed".
set -uo pipefail

# shellcheck source=../tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 NAME BUILDDIR" >&2; exit 1; }
tool_test_init "$1" test_mpi.log
PROG=$2/tests/mpi/mpi_allreduce
# As root mpirun needs --allow-run-as-root; --oversubscribe: more ranks
# than cores. Loopback only: nothing leaves this host.
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca btl "self,vader,tcp"
	--mca btl_tcp_if_include lo --mca oob_tcp_if_include lo)
# Bound of one mpirun: start-up of 4 ranks on 2 cores takes seconds.
BOUND=120
DIE_TIMEOUT_MS=3000

run() {
	timeout "$BOUND" "$@" >"$T/out" 2>&1
	st=$?
}

# mpi_run ARGS...: run mpirun ARGS with every rank's stdout and stderr in
# files of their own, then $T/out: mpirun's own messages, then each
# rank's output whole. mpirun's copy of its ranks' output on its own
# stdout is not line-atomic across ranks (it forwards whatever each
# read of a rank's pty returns): two ranks' lines came out as one
# ("instance 0: ...instance 1: ...\n\n", about 1 run in 10 of the
# Python case), which no pattern over that copy can take apart.
mpi_run() {
	rm -rf "$T/ranks"
	run "${MPIRUN[@]}" --output-filename "$T/ranks:nocopy,nojobid" "$@"
	local f
	for f in "$T"/ranks/rank.*/stdout "$T"/ranks/rank.*/stderr; do
		[ -f "$f" ] && { cat "$f"; echo; }
	done >>"$T/out"
}

# agree TEST PATTERN COUNT REF: after a run, the checksums that
# `sed -n PATTERN` takes from its output must be COUNT lines (one per
# instance that prints one) of one value, and that value the one the
# first split gave (kept in the variable named REF, set by the first).
agree() {
	local t=$1 sums sum
	local -n ref=$4
	sums=$(sed -n "$2" "$T/out" | sort | uniq -c)
	echo "  $t: $sums" >>"$LOG"
	if [ "$st" -ne 0 ] || [ "$(echo "$sums" | wc -l)" -ne 1 ] ||
		[ "$(echo "$sums" | awk '{ print $1 }')" != "$3" ]; then
		fail "$t" "exit status $st; checksums: $sums"
		return
	fi
	sum=$(echo "$sums" | awk '{ print $2 }')
	ref=${ref:-$sum}
	if [ "$sum" = "$ref" ]; then
		pass "$t: the bits of the first split"
	else
		fail "$t" "checksum $sum, the first split gave $ref"
	fi
}

# The all-reduce (rank 0 prints it) and the weights every instance
# fetches, gathered from the others (PopXL's rules across instances).
# shellcheck disable=SC2034 # set through agree's nameref
want_ar='' want_w=''
for n in 1 2 4; do
	mpi_run -np "$n" "$PROG"
	agree "all-reduce as ${n}x$((4 / n))" \
		's/.*all-reduce checksum (FNV-1a 64): \([0-9a-f]*\)$/\1/p' 1 want_ar
	agree "weights as ${n}x$((4 / n)), every instance" \
		's/^instance [0-9]*: weights checksum (FNV-1a 64): \([0-9a-f]*\)$/\1/p' \
		"$n" want_w
done

# The demo's training (tests/mpi/mlp_train: userspace/examples/mlp_train.c
# as an instance): every instance ends with the weights of one instance
# training all the replicas, 1x2 vs 2x1 and 1x4 vs 2x2 vs 4x1.
TRAIN=$2/tests/mpi/mlp_train
for r in 2 4; do
	# shellcheck disable=SC2034 # set through agree's nameref
	want=''
	for n in 1 2 4; do
		[ "$n" -le "$r" ] || continue
		mpi_run -np "$n" "$TRAIN" --replicas "$r" --instance-replicas $((r / n))
		agree "demo training, $r replicas as ${n}x$((r / n)), every instance" \
			's/^weights checksum (FNV-1a 64): \([0-9a-f]*\)$/\1/p' "$n" want
	done
done

# ipu-run (tests of ipu-run-instances.c): a saved split program
# (make_example_exe --mean-x: y = relu(mean of every replica's x @ w + b))
# under `mpirun -np 2 ipu-run` unchanged and `ipu-run --instances 4`, each
# instance with its own files ({instance}), gives what one instance of
# every replica writes. Open MPI takes the loopback settings from the
# environment here, as ipu-run passes on only the flags it needs.
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
numpy_python
IPU_RUN=$2/tools/ipu-run
MKEXE=$2/examples/make_example_exe
# same_slices R: ref<R>.npy of 1xR holds, replica by replica, y<i>.npy
# of Rx1.
same_slices() {
	"$PY" -c "import numpy as np, sys
y = np.load('$T/ref$1.npy')
sys.exit(any(y[i].tobytes() != np.load('$T/y%d.npy' % i).tobytes() for i in range($1)))" \
		>>"$T/out" 2>&1
}
for r in 2 4; do
	if ! "$MKEXE" --replicas $r --mean-x "$T/one$r.ipux" >"$T/out" 2>&1 ||
		! "$MKEXE" --replicas $r --mean-x --instance-replicas 1 "$T/split$r.ipux" \
			>"$T/out" 2>&1; then
		fail "make_example_exe, $r replicas" "failed"
	fi
done
if [ -z "$PY" ]; then
	skip "ipu-run under mpirun" "no python3 with numpy"
else
	for r in 2 4; do
		if ! "$PY" -c "import numpy as np
x = np.random.default_rng($r).standard_normal(($r, 4, 3)).astype(np.float32)
np.save('$T/x$r.npy', x)
for i in range($r): np.save('$T/x$r-%d.npy' % i, x[i])" >"$T/out" 2>&1 ||
			! "$IPU_RUN" "$T/one$r.ipux" -i "x=$T/x$r.npy" -o "y=$T/ref$r.npy" \
				>"$T/out" 2>&1; then
			fail "ipu-run setup, $r replicas" "the 1x$r run failed"
		fi
	done
	mpi_run -np 2 "$IPU_RUN" "$T/split2.ipux" -i "x=$T/x2-{instance}.npy" \
		-o "y=$T/y{instance}.npy"
	if [ "$st" -eq 0 ] && same_slices 2; then
		pass "mpirun -np 2 ipu-run: each instance writes the replicas of 1x2"
	else
		fail "mpirun -np 2 ipu-run" "exit status $st, or other outputs than 1x2's"
	fi
	rm -f "$T"/y[0-9].npy
	run "$IPU_RUN" --instances 4 "$T/split4.ipux" -i "x=$T/x4-{instance}.npy" \
		-o "y=$T/y{instance}.npy"
	flags=
	[ "$(id -u)" -ne 0 ] || flags="--allow-run-as-root "
	[ "$(getconf _NPROCESSORS_ONLN)" -ge 4 ] || flags="$flags--oversubscribe "
	if [ "$st" -eq 0 ] && same_slices 4 &&
		grep -qF "ipu-run: mpirun ${flags}-np 4 $(realpath "$2")/tools/ipu-run-mpi --instances 4" "$T/out"; then
		pass "ipu-run --instances 4: mpirun ${flags}-np 4, the replicas of 1x4"
	else
		fail "ipu-run --instances 4" "exit status $st, other flags than '${flags}' or other outputs than 1x4's"
	fi
fi

# A Python program as an instance (ipu.instances over libipu-mpi.so):
# every instance fetches the gathered weights of 1x4 (2x2 only: the C
# cases above cover the other splits; each Python start costs a second).
if [ -z "$PY" ]; then
	skip "Python instances" "no python3 with numpy"
else
	# shellcheck disable=SC2034 # set through agree's nameref
	want_py=''
	for n in 1 2; do
		IPU_LIB_DIR=$(realpath "$2/lib") mpi_run -x IPU_LIB_DIR -x PYTHONPATH \
			-np "$n" "$PY" "$(dirname "$0")/mpi_python.py"
		agree "Python as ${n}x$((4 / n)), every instance" \
			's/^instance [0-9]*: python weights checksum (FNV-1a 64): \([0-9a-f]*\)$/\1/p' \
			"$n" want_py
	done
fi

# Its refusals, each with a message: an output every instance would write,
# a bad count, no ipu-run-mpi beside it, a count the launcher contradicts.
mpi_run -np 2 "$IPU_RUN" "$T/split2.ipux" -i "x=$T/x2-{instance}.npy" -o "y=$T/y.npy"
if [ "$st" -ne 0 ] && grep -qF "2 instances would all write this file: put {instance} in its name" "$T/out"; then
	pass "ipu-run: one output file for 2 instances is refused"
else
	fail "ipu-run: one output file for 2 instances" "exit status $st, no refusal message"
fi
run "$IPU_RUN" --instances 0 "$T/split2.ipux"
if [ "$st" -eq 2 ] && grep -qF "expected a number from 1 to 4096" "$T/out"; then
	pass "ipu-run --instances 0 is a usage error"
else
	fail "ipu-run --instances 0" "exit status $st, no usage message"
fi
mkdir -p "$T/alone" && cp "$IPU_RUN" "$T/alone/ipu-run"
run "$T/alone/ipu-run" --instances 2 "$T/split2.ipux"
if [ "$st" -eq 1 ] && grep -qF "needs ipu-run-mpi next to ipu-run" "$T/out"; then
	pass "ipu-run --instances without ipu-run-mpi says what is missing"
else
	fail "ipu-run --instances without ipu-run-mpi" "exit status $st, no message"
fi
mpi_run -np 2 "$IPU_RUN" --instances 4 "$T/split2.ipux" -i "x=$T/x2-{instance}.npy"
if [ "$st" -ne 0 ] && grep -qF -- "--instances 4, but the MPI launcher started 2" "$T/out"; then
	pass "ipu-run --instances 4 under mpirun -np 2 is refused"
else
	fail "ipu-run --instances 4 under mpirun -np 2" "exit status $st, no refusal message"
fi

# A split program in a process that is no instance: a clear refusal.
run "$2/examples/mlp_train" --instance-replicas 1 --epochs 1
if [ "$st" -ne 0 ] && grep -qF "runs 1 of its 2 replicas per instance, as 2 instances; this process is not split" "$T/out"; then
	pass "a split program outside mpirun is refused with a message"
else
	fail "a split program outside mpirun" "exit status $st, no refusal message"
fi

# A bad timeout is refused before anything runs.
IPU_INSTANCE_TIMEOUT_MS=soon mpi_run -x IPU_INSTANCE_TIMEOUT_MS -np 1 "$PROG"
if [ "$st" -ne 0 ] && grep -qF 'IPU_INSTANCE_TIMEOUT_MS="soon" is not a number of milliseconds' "$T/out"; then
	pass "a bad IPU_INSTANCE_TIMEOUT_MS is refused with a message"
else
	fail "a bad IPU_INSTANCE_TIMEOUT_MS" "exit status $st, no refusal message"
fi

# A killed instance, mpirun's default policy: the job ends, non-zero.
for n in 2 4; do
	start=$SECONDS
	mpi_run -np "$n" "$PROG" --die 1
	if [ "$st" -eq 124 ]; then
		fail "killed instance of $n, default policy" "still running after ${BOUND} s"
	elif [ "$st" -eq 0 ]; then
		fail "killed instance of $n, default policy" "mpirun exited 0"
	else
		pass "killed instance of $n, default policy: the job ends (status $st, $((SECONDS - start)) s)"
	fi
done

# The same with --enable-recovery: every survivor fails on its own, with
# the transport's message.
for n in 2 4; do
	start=$SECONDS
	IPU_INSTANCE_TIMEOUT_MS=$DIE_TIMEOUT_MS mpi_run --enable-recovery \
		-x IPU_INSTANCE_TIMEOUT_MS -np "$n" "$PROG" --die 1
	got=$(grep -c "no answer from the other instances within $DIE_TIMEOUT_MS ms" "$T/out")
	if [ "$st" -eq 124 ]; then
		fail "killed instance of $n, recovery" "still running after ${BOUND} s"
	elif [ "$got" -ne $((n - 1)) ]; then
		fail "killed instance of $n, recovery" "$got of $((n - 1)) survivors said so"
	else
		pass "killed instance of $n, recovery: $got survivors fail with the timeout ($((SECONDS - start)) s)"
	fi
done

finish
