#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/tools/test_bench_table.sh NAME
#
# scripts/bench-table on made-up logs: each row's figure computed from the
# log's own lines (a ratio of two of them where the benchmark prints no
# ratio), its floor and its goal, "met?" right on either side of the goal,
# a figure the log lacks said as "not measured" (n/a, exit status 0), the
# guest's lines bare and as scripts/kernel-check repeats them ("[K] bench
# ..."), the worst size of a sweep, --baseline, --markdown, and the errors
# (no bench line, a missing file, an unknown option). Timing is nowhere:
# the numbers are the test's.
#
#   NAME   the phase: counts go to $BUILD/results/NAME, the log to
#          $BUILD/test-logs/NAME/test_bench_table.log
#
# Environment: BUILD (default build), IPU_VERBOSE=1 (print the whole log).
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || { echo "usage: $0 NAME" >&2; exit 1; }
tool_test_init "$1" test_bench_table.log
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
# lib.sh's run: "${WRAP[@]}" "$TOOL" ARGS
# shellcheck disable=SC2034
TOOL=$(dirname "$0")/../../scripts/bench-table
WRAP=("$PY")

# has TEST LINE: the last run printed LINE (a fixed string, whole line).
has() {
	if grep -qxF -- "$2" "$T/out"; then
		pass "$1"
	else
		fail "$1" "no line '$2'"
	fi
}

cat >"$T/host.log" <<'EOF'
== build/tests/bench/bench_launch
bench model.launch_1replica.us_per_run 0.200 us
bench model.launch_2replica.us_per_run 0.500 us
bench model.launch_4replica.us_per_run 2.500 us
some noise a benchmark printed
bench model.xfer_h2d_4KiB.gbps 1.00 GB/s
bench memcpy_h2d_4KiB.gbps 10.00 GB/s
bench model.xfer_h2d_4KiB.ratio_vs_memcpy 0.100 x
bench model.xfer_d2h_4KiB.ratio_vs_memcpy 0.500 x
bench memcpy_d2h_4KiB.gbps 8.00 GB/s
bench session.run_4B.us_per_run 2.000 us
bench libipu.launch.us_per_launch 1.600 us
bench python.run_4B.ratio_vs_c 1.50 x
bench c.session.run_4B.us_per_run 2.100 us
bench session.stream_64MiB.ratio_vs_memcpy 0.950 x
bench session.stream_64MiB.gbps 5.70 GB/s
bench memcpy_64MiB_in_out.gbps 7.00 GB/s
bench mpi.allreduce_1MiB.np2.ours_ms 1.000 ms
bench mpi.allreduce_1MiB.np2.mpi_allreduce_ms 0.500 ms
bench mpi.allreduce_1MiB.np2.ratio_vs_mpi 2.00 x
bench mpi.allreduce_64MiB.np4.mpi_allreduce_ms 40.000 ms
bench mpi.allreduce_64MiB.np4.ratio_vs_mpi 1.20 x
bench model.matmul_1024.ratio_vs_cblas 0.940 x
bench model.matmul_1024.cblas_gflops 50.00 GFLOP/s
bench model.matmul_256.ratio_vs_cblas 0.990 x
bench model.matmul_256.cblas_gflops 20.00 GFLOP/s
bench trace.off.us_per_run 8.00 us
bench trace.on_vs_off.ratio 1.300 x
EOF

run "$T/host.log"
if [ "$st" -eq 0 ]; then pass "host log: exit status 0"; else fail "host log: exit status 0" "$st"; fi
has "xfer: the log's ratio, memcpy's rate as the floor, below the goal" \
	"bench-table model.xfer_h2d_4KiB 0.1 x floor memcpy 10 GB/s goal >= 0.5 met no"
has "xfer: a ratio at the goal meets it" \
	"bench-table model.xfer_d2h_4KiB 0.5 x floor memcpy 8 GB/s goal >= 0.5 met yes"
has "launch: 4 replicas held to 2 us, against 1 replica" \
	"bench-table model.launch_4replicas 2.5 us floor 1_replica 0.2 us goal <= 2 met no"
has "launch: 2 replicas reported, no goal" \
	"bench-table model.launch_2replicas 0.5 us floor 1_replica 0.2 us goal - - met n/a"
has "session.run: the ratio of two of the log's times" \
	"bench-table session.run_4B_vs_launch 1.25 x floor the_launch 1.6 us goal <= 1.2 met no"
has "python: under 2x meets the goal" \
	"bench-table python.run_vs_c 1.5 x floor C_run 2.1 us goal <= 2 met yes"
has "streams: 0.95 meets >= 0.9, memcpy's rate that of the same rounds" \
	"bench-table session.stream_64MiB 0.95 x floor memcpy 6 GB/s goal >= 0.9 met yes"
has "all-reduce: a row per size and rank count the log holds" \
	"bench-table mpi.allreduce_1MiB_np2 2 x floor MPI_Allreduce 0.5 ms goal <= 1.25 met no"
has "all-reduce: 64 MiB on 4 ranks" \
	"bench-table mpi.allreduce_64MiB_np4 1.2 x floor MPI_Allreduce 40 ms goal <= 1.25 met yes"
has "matmul: a row per size, 0.94 misses 0.95" \
	"bench-table model.matmul_1024 0.94 x floor OpenBLAS 50 GFLOP/s goal >= 0.95 met no"
has "trace: reported, no goal" \
	"bench-table trace.on_vs_off 1.3 x floor off 8 us goal - - met n/a"
has "the table for people: a row per figure" \
	"| model launch, 4 replicas vs 1 | 2.5 us (12.5x 1 replica) | 1 replica 0.2 us | <= 2 us | no |"
if grep -q 'matmul_256.*matmul_1024' <(tr '\n' ' ' <"$T/out"); then
	pass "matmul: sizes in numeric order"
else
	fail "matmul: sizes in numeric order" "1024 before 256"
fi
if grep -q '^bench-table guest' "$T/out"; then
	fail "host log: no guest rows" "guest rows without guest lines"
else
	pass "host log: no guest rows"
fi

# A log without most figures: each said as not measured, never a number.
printf 'bench trace.on_vs_off.ratio 1.1 x\n' >"$T/part.log"
run "$T/part.log"
if [ "$st" -eq 0 ]; then pass "partial log: exit status 0"; else fail "partial log: exit status 0" "$st"; fi
has "a missing figure in the lines: -, n/a" \
	"bench-table session.stream_64MiB - x floor memcpy - GB/s goal >= 0.9 met n/a"
has "a missing figure in the table: not measured" \
	"| Python run vs C run | not measured | C run: not measured | <= 2 x | n/a |"

# The guest: kernel-check's repeated lines (two kernels) and a bare log.
cat >"$T/guest.log" <<'EOF'
  kernel-6.12: benchmarks
    [6.12] bench uring_h2d_4KiB.mbps 300.0 MB/s
    [6.12] bench ioctl_h2d_4KiB.mbps 200.0 MB/s
    [6.12] bench memcpy_h2d_4KiB.mbps 1000.0 MB/s
    [6.12] bench uring_h2d_4KiB.ratio_vs_memcpy 0.300 x
    [6.12] bench uring_h2d_64KiB.mbps 900.0 MB/s
    [6.12] bench ioctl_h2d_64KiB.mbps 1000.0 MB/s
    [6.12] bench uring_d2h_1MiB.mbps 500.0 MB/s
    [6.12] bench ioctl_d2h_1MiB.mbps 1000.0 MB/s
    [6.12] bench pci_uring_h2d_4KiB.mbps 10.0 MB/s
    [6.12] bench pci_ioctl_h2d_4KiB.mbps 40.0 MB/s
    [6.12] bench session_run_1_streams.io_uring_enter 1.00 calls
    [6.12] bench session_run_16_streams.io_uring_enter 2.00 calls
    [6.12] bench sim_launch.per_s 500.0 launches/s
    [6.12] bench uring_nop.per_s 5000.0 round trips/s
    [6.1] bench session_run_1_streams.io_uring_enter 3.00 calls
EOF
run "$T/guest.log"
has "guest: io_uring against the ioctl, same run" \
	"bench-table guest.6.12.xfer_h2d_4KiB.uring_vs_ioctl 1.5 x floor ioctl 200 MB/s goal >= 1 met yes"
has "guest: against memcpy, the benchmark's ratio" \
	"bench-table guest.6.12.xfer_h2d_4KiB.uring_vs_memcpy 0.3 x floor memcpy 1000 MB/s goal >= 0.5 met no"
has "guest: the worst size and direction named" \
	"bench-table guest.6.12.xfer_worst.uring_vs_ioctl 0.5 x floor ioctl_at_1MiB_D2H 1000 MB/s goal >= 1 met no"
has "guest: PCI rows of their own" \
	"bench-table guest.6.12.pci_xfer_h2d_4KiB.uring_vs_ioctl 0.25 x floor ioctl 40 MB/s goal >= 1 met no"
has "guest: one io_uring_enter per run meets the goal" \
	"bench-table guest.6.12.session_run_1_streams.io_uring_enter 1 calls floor submit_and_wait_in_one_call - - goal <= 1 met yes"
has "guest: two miss it" \
	"bench-table guest.6.12.session_run_16_streams.io_uring_enter 2 calls floor submit_and_wait_in_one_call - - goal <= 1 met no"
has "a floor that is no measurement: its words alone" \
	"| guest 6.12 io_uring_enter per session run, 1 stream | 1 calls | submit and wait in one call | <= 1 calls | yes |"
has "guest: launches against io_uring's NOP, no baseline: reported" \
	"bench-table guest.6.12.sim_launch 500 launches/s floor io_uring_NOP_round_trip 5000 /s goal - - met n/a"
has "guest: each kernel its own rows" \
	"bench-table guest.6.1.session_run_1_streams.io_uring_enter 3 calls floor submit_and_wait_in_one_call - - goal <= 1 met no"
if grep -q '^bench-table model\.' "$T/out"; then
	fail "guest log: no host rows" "host rows without host lines"
else
	pass "guest log: no host rows"
fi

printf 'bench sim_launch.per_s 200.0 launches/s\n' >"$T/before.log"
run --baseline "$T/before.log" "$T/guest.log"
has "--baseline: launches held to 2x the earlier run's" \
	"bench-table guest.6.12.sim_launch_vs_baseline 2.5 x floor baseline 200 launches/s goal >= 2 met yes"

# kernel-logs/kernel-K.txt: the guest's lines bare.
sed -n 's/^ *\[6\.12\] //p' "$T/guest.log" >"$T/bare.log"
run "$T/bare.log"
has "bare guest lines: the guest's rows" \
	"bench-table guest.xfer_h2d_4KiB.uring_vs_ioctl 1.5 x floor ioctl 200 MB/s goal >= 1 met yes"

run --markdown "$T/host.log"
if [ "$st" -eq 0 ] && ! grep -q '^bench-table' "$T/out" &&
	[ "$(head -n 1 "$T/out")" = "| figure | measured | floor (same run) | goal | met? |" ]; then
	pass "--markdown: the table alone"
else
	fail "--markdown: the table alone" "status $st"
fi

printf 'no benchmark here\n' >"$T/empty.log"
expect_exit "no bench line: an error naming the file" 1 "no 'bench NAME VALUE UNIT' line in $T/empty.log" "$T/empty.log"
expect_exit "a missing file: named" 1 "bench-table: $T/nope.log: No such file or directory" "$T/nope.log"
expect_exit "an unknown option: named" 1 "unknown option '--fast'" --fast "$T/host.log"
expect_exit "no LOG: usage" 1 "usage: bench-table" --markdown

finish
