#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""The MLP demo in Python (`make python-demo`): userspace/examples/mlp_train.c
written with `import ipu`. It trains the same 2-16-16-3 tanh perceptron
on the same spirals with the same seed, op for op, and so ends with the
same weights checksum as the C demo on the same machine.

    /usr/bin/python3 python/examples/mlp_train.py [--epochs N]
        [--device auto|ipu_model|cpu|ipu_hw] [--replicas N] [--seed N]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import ipu  # noqa: E402
from mlp_data import CLASSES, FEATURES, Rng, spiral  # noqa: E402
from mlp_model import Config, build, checksum, init_params  # noqa: E402

POINTS_PER_CLASS = 256


class Stats:
    """Totals over runs (struct mlp_stats)."""

    def __init__(self):
        self.loss_sum, self.loss_count, self.correct, self.seen = 0.0, 0, 0, 0

    def line(self):
        return (self.loss_sum / self.loss_count,
                100.0 * self.correct / self.seen)


def run_all(session, st, cfg, x, label, order, stats):
    """An epoch: one run per samples_per_run samples of @order, the
    remainder left out (mlp_session_run_all). Sample order[i] goes to step
    i // (replicas * batch), replica (i // batch) % replicas."""
    per_run = cfg.samples_per_run
    # S11: the (steps, replicas) dims are there only when > 1.
    lead = tuple(d for d in (cfg.steps, cfg.replicas) if d > 1)
    shape_x = lead + (cfg.batch, FEATURES)
    shape_y = lead + (cfg.batch, CLASSES)
    outputs = session.create_host_outputs()
    eye = np.eye(CLASSES, dtype=np.float32)
    for first in range(0, len(order) - per_run + 1, per_run):
        idx = np.asarray(order[first:first + per_run])
        xs = x[idx].reshape(shape_x)
        ys = eye[label[idx]].reshape(shape_y)
        session.run_with_outputs({st["x"]: xs, st["y"]: ys}, outputs)
        for v in outputs[st["loss"]].ravel():
            stats.loss_sum += float(v)
        stats.loss_count += outputs[st["loss"]].size
        # argmax picks the first of equal maxima, as the C loop does.
        best = outputs[st["probs"]].reshape(-1, CLASSES).argmax(axis=1)
        stats.correct += int((best == label[idx]).sum())
        stats.seen += per_run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    cfg = Config(replicas=a.replicas)
    seeds = Rng(a.seed)
    train_x, train_l = spiral(POINTS_PER_CLASS, seeds.next())
    test_x, test_l = spiral(POINTS_PER_CLASS, seeds.next())
    params = init_params(cfg, seeds.next())
    rng = Rng(seeds.next())
    order = list(range(len(train_x)))
    print("MLP demo (Python): 3 interleaved spirals, %d training and %d test "
          "points, seed %d" % (len(train_x), len(test_x), a.seed))
    print("network: 2 -> %d -> %d -> 3, tanh, softmax cross-entropy, SGD "
          "with learning rate %g" % (cfg.hidden, cfg.hidden, cfg.lr))

    start = time.monotonic()
    ir, st, var = build(cfg, params, train=True)
    with ipu.Session(ir, a.device) as session:
        print("device: %s, %d replicas averaging their gradients (all-reduce "
              "mean),\n        %d SGD steps per run of %d samples per "
              "replica\n" % (session.device, cfg.replicas, cfg.steps,
                             cfg.batch))
        print("epoch    loss   accuracy      time")
        for e in range(1, a.epochs + 1):
            t0 = time.monotonic()
            rng.shuffle(order)
            stats = Stats()
            run_all(session, st, cfg, train_x, train_l, order, stats)
            loss, acc = stats.line()
            print("%5d  %6.4f    %5.1f %%  %6.1f ms" %
                  (e, loss, acc, (time.monotonic() - t0) * 1e3), flush=True)
        got = session.get_tensors_data(list(var.values()))
    params = {name: got[v] for name, v in var.items()}
    print("trained in %.0f ms" % ((time.monotonic() - start) * 1e3))

    ir, st, var = build(cfg, params, train=False)
    with ipu.Session(ir, a.device) as session:
        stats = Stats()
        run_all(session, st, cfg, test_x, test_l, list(range(len(test_x))),
                stats)
    loss, acc = stats.line()
    print("test: loss %.4f, accuracy %.1f %% on %d held-out points" %
          (loss, acc, stats.seen))
    print("weights checksum (FNV-1a 64): %016x" % checksum(params, cfg))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ipu.Error as e:
        print("mlp_train.py: %s" % e, file=sys.stderr)
        sys.exit(1)
