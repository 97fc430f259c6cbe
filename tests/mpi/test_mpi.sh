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
want_ar= want_w=
for n in 1 2 4; do
	run "${MPIRUN[@]}" -np "$n" "$PROG"
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
	want=
	for n in 1 2 4; do
		[ "$n" -le "$r" ] || continue
		run "${MPIRUN[@]}" -np "$n" "$TRAIN" --replicas "$r" --instance-replicas $((r / n))
		agree "demo training, $r replicas as ${n}x$((r / n)), every instance" \
			's/^weights checksum (FNV-1a 64): \([0-9a-f]*\)$/\1/p' "$n" want
	done
done

# A split program in a process that is no instance: a clear refusal.
run "$2/examples/mlp_train" --instance-replicas 1 --epochs 1
if [ "$st" -ne 0 ] && grep -qF "runs 1 of its 2 replicas per instance, as 2 instances; this process is not split" "$T/out"; then
	pass "a split program outside mpirun is refused with a message"
else
	fail "a split program outside mpirun" "exit status $st, no refusal message"
fi

# A bad timeout is refused before anything runs.
IPU_INSTANCE_TIMEOUT_MS=soon run "${MPIRUN[@]}" -x IPU_INSTANCE_TIMEOUT_MS -np 1 "$PROG"
if [ "$st" -ne 0 ] && grep -qF 'IPU_INSTANCE_TIMEOUT_MS="soon" is not a number of milliseconds' "$T/out"; then
	pass "a bad IPU_INSTANCE_TIMEOUT_MS is refused with a message"
else
	fail "a bad IPU_INSTANCE_TIMEOUT_MS" "exit status $st, no refusal message"
fi

# A killed instance, mpirun's default policy: the job ends, non-zero.
for n in 2 4; do
	start=$SECONDS
	run "${MPIRUN[@]}" -np "$n" "$PROG" --die 1
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
	IPU_INSTANCE_TIMEOUT_MS=$DIE_TIMEOUT_MS run "${MPIRUN[@]}" --enable-recovery \
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
