#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""bench_python.py BUILD - what the Python binding (userspace/python/ipu) adds, on
the model (`make python-bench`).

Overhead: the one-op program of tests/bench/bench_session.c (y = x + x on
one float) run from Python, with Session.run_with_outputs() on arrays made
once and with Session.run() (which allocates its outputs), against the
same run from C: bench_session's session.run_4B.us_per_run, measured by
running BUILD/tests/bench/bench_session in the same invocation.

Bandwidth: 64 MiB float32 streams in and out through run_with_outputs()
against np.copyto() of the same bytes (64 MiB in, 64 MiB out, through a
third array), timed in the same interleaved rounds, for y = x (the
compiler elides the program's copies: only the transfers) and y = x * 2.

Prints "bench <name> <value> <unit>" lines, as the C benchmarks do; best
of five rounds after a warm-up; nothing is asserted.
"""
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "userspace", "python"))
import ipu  # noqa: E402

ROUNDS = 5
RUNS = 5000
BIG = 64 << 20


def session(n, op):
    ir = ipu.Ir(name="bench")
    with ir.main_graph:
        x = ipu.h2d_stream((n,), ipu.float32, name="x")
        y = ipu.d2h_stream((n,), ipu.float32, name="y")
        t = ipu.ops.host_load(x)
        if op == "add_self":
            t = t + t
        elif op == "times_two":
            t = t * 2.0
        ipu.ops.host_store(y, t)
    s = ipu.Session(ir, "ipu_model")
    s.__enter__()
    return s, x, y


def best(fn, rounds=ROUNDS):
    """Best time of @fn over @rounds rounds after a warm-up one."""
    times = []
    for r in range(rounds + 1):
        t = time.perf_counter()
        fn()
        t = time.perf_counter() - t
        if r:
            times.append(t)
    return min(times)


def overhead():
    s, x, y = session(1, "add_self")
    xs = np.ones(1, np.float32)
    out = {y: np.zeros(1, np.float32)}
    inputs = {x: xs}

    def with_outputs():
        for _ in range(RUNS):
            s.run_with_outputs(inputs, out)

    def run():
        for _ in range(RUNS):
            s.run(inputs)

    rwo = best(with_outputs) / RUNS
    rn = best(run) / RUNS
    assert out[y][0] == 2
    s.close()
    return rwo, rn


def c_run_us(build):
    """bench_session's us per run of the same program, or None."""
    exe = os.path.join(build, "tests", "bench", "bench_session")
    out = subprocess.run([exe], check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[1] == "session.run_4B.us_per_run":
            return float(f[2])
    return None


def bandwidth(name, op, x, want):
    s, xs, ys = session(BIG // 4, op)
    y = np.zeros_like(x)
    z = np.empty_like(x)
    run_t = copy_t = 1e30
    for r in range(ROUNDS + 1):
        t = time.perf_counter()
        np.copyto(z, x)      # what goes in
        np.copyto(y, z)      # and what comes out
        c = time.perf_counter() - t
        y.fill(0)
        t = time.perf_counter()
        s.run_with_outputs({xs: x}, {ys: y})
        rt = time.perf_counter() - t
        if not np.array_equal(y, want):
            raise SystemExit("bench_python: %s: wrong output" % name)
        if r:
            run_t, copy_t = min(run_t, rt), min(copy_t, c)
    s.close()
    print("bench python.%s_64MiB.gbps %.2f GB/s" % (name, 2 * BIG / run_t /
                                                    1e9))
    print("bench python.%s_64MiB.ratio_vs_np_copyto %.3f x" %
          (name, copy_t / run_t))
    return copy_t


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    rwo, rn = overhead()
    c_us = c_run_us(build)
    print("bench python.run_with_outputs_4B.us_per_run %.3f us" % (rwo * 1e6))
    print("bench python.run_4B.us_per_run %.3f us" % (rn * 1e6))
    if c_us:
        print("bench c.session.run_4B.us_per_run %.3f us" % c_us)
        print("bench python.run_with_outputs_4B.ratio_vs_c %.2f x" %
              (rwo * 1e6 / c_us))
        print("bench python.run_4B.ratio_vs_c %.2f x" % (rn * 1e6 / c_us))
        print("bench python.run_with_outputs_4B.overhead_us %.3f us" %
              (rwo * 1e6 - c_us))
    x = np.arange(BIG // 4, dtype=np.float32)
    copy = bandwidth("stream", "identity", x, x)
    bandwidth("stream_x2", "times_two", x, x * 2)
    print("bench np_copyto_64MiB_in_out.gbps %.2f GB/s" % (2 * BIG / copy /
                                                          1e9))


if __name__ == "__main__":
    main()
