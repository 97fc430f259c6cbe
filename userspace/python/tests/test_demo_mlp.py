# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""The Python MLP demo (python/examples/mlp_train.py) computes what the C
demo (build/examples/mlp_train) computes, bit for bit: the same loss and
accuracy every epoch, the same test result and the same weights checksum,
for several seeds, replica counts and devices. Both run on this machine,
so OpenBLAS picks the same kernels for both."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
C_DEMO = os.environ.get("IPU_MLP_TRAIN",
                        os.path.join(ROOT, "build", "examples", "mlp_train"))
PY_DEMO = os.path.join(ROOT, "userspace", "python", "examples", "mlp_train.py")


def results(cmd):
    """The lines of a demo's output that depend on the computation: every
    epoch's loss and accuracy (not its time), the test line, the
    checksum."""
    env = dict(os.environ)
    env.pop("IPU_DEVICE", None)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env=env, timeout=300).stdout
    keep = []
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+([\d.]+)\s+([\d.]+) %", line)
        if m:
            keep.append(m.groups())
        elif line.startswith(("test:", "weights checksum")):
            keep.append(line)
    return keep


@pytest.mark.parametrize("args", [
    ["--epochs", "4"],
    ["--epochs", "3", "--seed", "7"],
    ["--epochs", "3", "--replicas", "1", "--device", "cpu"],
    ["--epochs", "2", "--replicas", "4", "--seed", "12345"],
])
def test_demo_computes_the_c_demos_weights(args):
    if not os.access(C_DEMO, os.X_OK):
        pytest.fail("%s is missing: `make python-check` builds it" % C_DEMO)
    c = results([C_DEMO] + args)
    py = results([sys.executable, PY_DEMO] + args)
    assert any(str(x).startswith("weights checksum") for x in c)
    assert len(c) >= 4
    assert py == c
