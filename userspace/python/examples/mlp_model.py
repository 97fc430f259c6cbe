# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""The demo network as an ipu program, op for op as the C demo builds it
(userspace/examples/mlp_model.c), so both compute the same bits:

    h1 = tanh(x W1 + b1);  h2 = tanh(h1 W2 + b2);  z = h2 W3 + b3
    loss = -sum(y * log_softmax(z)) / B

and back (the IR has no autodiff), with d_l the loss's gradient at layer
l's pre-activation: d3 = (softmax(z) - y) / B; dW_l = h_{l-1}^T d_l;
db_l = sum over the batch of d_l; d_{l-1} = (d_l W_l^T) * (1 - h_{l-1}^2).
Each gradient is averaged over the replicas (all-reduce mean), then
applied: W -= lr * dW, all after the last gradient is computed.
"""
import math

import numpy as np

import ipu
from mlp_data import CLASSES, FEATURES, Rng

NAMES = ("w1", "b1", "w2", "b2", "w3", "b3")


class Config:
    """The demo's settings (mlp_config_default): 16 hidden units, batches
    of 16, 8 steps per run, 2 replicas, learning rate 0.5."""

    def __init__(self, hidden=16, batch=16, steps=8, replicas=2, lr=0.5):
        self.hidden, self.batch, self.steps = hidden, batch, steps
        self.replicas = replicas
        self.lr = float(np.float32(lr))

    @property
    def samples_per_run(self):
        return self.steps * self.replicas * self.batch

    def param_shapes(self):
        """(name, shape) of each parameter, in the flat order."""
        w = (FEATURES, self.hidden, self.hidden, CLASSES)
        out = []
        for layer in range(3):
            out.append((NAMES[2 * layer], (w[layer], w[layer + 1])))
            out.append((NAMES[2 * layer + 1], (w[layer + 1],)))
        return out


def init_params(cfg, seed):
    """Glorot-uniform weights, zero biases (mlp_params_init), as a dict
    name -> float32 array."""
    rng = Rng(seed)
    params = {}
    for name, shape in cfg.param_shapes():
        if len(shape) == 1:
            params[name] = np.zeros(shape, np.float32)
            continue
        limit = math.sqrt(6.0 / (shape[0] + shape[1]))
        vals = [(2 * ((rng.next() >> 11) * 2.0 ** -53) - 1) * limit
                for _ in range(shape[0] * shape[1])]
        params[name] = np.array(vals, np.float64).astype(np.float32) \
            .reshape(shape)
    return params


def checksum(params, cfg):
    """FNV-1a (64-bit) of the flat parameters' bytes (mlp_checksum)."""
    h = 0xCBF29CE484222325
    for name, _ in cfg.param_shapes():
        for b in np.ascontiguousarray(params[name], np.float32).tobytes():
            h = ((h ^ b) * 0x100000001B3) & ((1 << 64) - 1)
    return h


def build(cfg, params, train=True):
    """The training (or, with @train False, evaluation) program.

    Returns:
        (ir, streams, variables): streams a dict "x", "y", "loss", "probs"
        -> stream; variables a dict name -> ipu.Variable.
    """
    inv_batch = float(np.float32(1.0) / np.float32(cfg.batch))
    ir = ipu.Ir(name="mlp_train" if train else "mlp_eval")
    ir.num_host_transfers = cfg.steps
    ir.replication_factor = cfg.replicas
    with ir.main_graph:
        st = {
            "x": ipu.h2d_stream((cfg.batch, FEATURES), ipu.float32, "x"),
            "y": ipu.h2d_stream((cfg.batch, CLASSES), ipu.float32, "y"),
            "loss": ipu.d2h_stream((), ipu.float32, "loss"),
            "probs": ipu.d2h_stream((cfg.batch, CLASSES), ipu.float32,
                                    "probs"),
        }
        var = [ipu.variable(params[name], ipu.float32, name)
               for name, _ in cfg.param_shapes()]

        def step():
            ops = ipu.ops
            h = [ops.host_load(st["x"])]
            y = ops.host_load(st["y"])
            for layer in range(3):
                z = h[layer] @ var[2 * layer] + var[2 * layer + 1]
                if layer < 2:
                    h.append(ops.tanh(z))
            # log_softmax rather than log(softmax): no log(0).
            loss = ops.sum(y * ops.log_softmax(z, -1)) * -inv_batch
            probs = ops.softmax(z, -1)
            ops.host_store(st["loss"], loss)
            ops.host_store(st["probs"], probs)
            if not train:
                return
            d = (probs - y) * inv_batch
            grad = [None] * 6
            for layer in (2, 1, 0):
                grad[2 * layer] = h[layer].T @ d
                grad[2 * layer + 1] = ops.sum(d, [0])
                if layer > 0:
                    wT = var[2 * layer].T
                    dtanh = 1.0 - h[layer] * h[layer]  # tanh' = 1 - tanh^2
                    d = (d @ wT) * dtanh
            grad = [ops.collectives.replicated_all_reduce(g, "mean")
                    for g in grad]
            for v, g in zip(var, grad):
                ops.scaled_add_(v, g, 1.0, -cfg.lr)

        ipu.ops.repeat(ir.create_graph(step), cfg.steps)
    return ir, st, dict(zip(NAMES, var))
