# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""userspace/python/examples/popxl_*.py (issue 26): the user guide's
programs written with ``import popxl`` alone, each run as its own
process with nothing but this tree's package on the path. Each checks
its results itself (assertions) and exits non-zero when one fails."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)
EXAMPLES = os.path.join(PKG, "examples")


@pytest.mark.parametrize("name, want", [
    ("popxl_basic_graph.py", "result "),
    ("popxl_tensor_addition.py", "result 4 then 11"),
    ("popxl_float8.py", "result "),
    ("popxl_call_repeat.py", "result [36.0, -13.0] [5.0, 6.0]"),
    ("popxl_tensor_by_ref.py", "result [2.0, 2.5] [2.0, 1.0]"),
    ("popxl_replication.py", "result [102.0, 248.0]"),
    ("popxl_variables_in_sequence.py", "result [0.75, -2.25, 4.5] 2"),
])
def test_example_runs_with_popxl_only(name, want):
    path = os.path.join(EXAMPLES, name)
    with open(path) as f:
        src = f.read()
    # PopXL's names only: no `ipu` import in the program.
    assert "import ipu" not in src and "from ipu" not in src
    env = dict(os.environ, PYTHONPATH=PKG)
    r = subprocess.run([sys.executable, path], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert want in r.stdout
