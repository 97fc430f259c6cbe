# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""The demo's data: interleaved spirals, and the pseudo-random numbers
behind them, the weights' initialisation and the shuffling -- the same
numbers, bit for bit, as the C demo's (userspace/examples/mlp_data.c):
splitmix64 on Python integers, libm's sqrt/log/cos/sin through the math
module, and the same float64 -> float32 roundings."""
import math

import numpy as np

FEATURES = 2
CLASSES = 3
_M64 = (1 << 64) - 1


class Rng:
    """splitmix64 (mlp_rng_next): tiny, and the same everywhere."""

    def __init__(self, state):
        self.state = state & _M64

    def next(self):
        """The next 64 random bits."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & _M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        return z ^ (z >> 31)

    def uniform01(self):
        """Uniform in (0, 1]: never 0, so log() is finite."""
        return ((self.next() >> 11) + 1.0) * 2.0 ** -53

    def normal(self):
        """Standard normal (Box-Muller, the second value dropped)."""
        u = self.uniform01()
        v = self.uniform01()
        return math.sqrt(-2.0 * math.log(u)) * math.cos(2.0 * math.pi * v)

    def shuffle(self, idx):
        """Fisher-Yates over the list @idx, in place (mlp_shuffle)."""
        for i in range(len(idx), 1, -1):
            j = self.next() % i
            idx[i - 1], idx[j] = idx[j], idx[i - 1]


def spiral(per_class, seed):
    """CLASSES spiral arms of @per_class points, one turn from radius 0.1
    to 2, with Gaussian angular noise (mlp_data_spiral).

    Returns:
        (x, label): float32 [n, 2] and uint8 [n].
    """
    noise = 0.2
    rng = Rng(seed)
    n = per_class * CLASSES
    x = np.empty((n, FEATURES), np.float32)
    label = np.empty(n, np.uint8)
    for c in range(CLASSES):
        for i in range(per_class):
            k = c * per_class + i
            t = i / (per_class - 1) if per_class > 1 else 0.5
            r = 0.1 + 1.9 * t
            theta = 2.0 * math.pi * (c / CLASSES + t) + noise * rng.normal()
            x[k, 0] = r * math.cos(theta)
            x[k, 1] = r * math.sin(theta)
            label[k] = c
    return x, label
