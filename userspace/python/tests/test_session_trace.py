# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""Session(..., trace=FILE): the timeline (docs/trace.md), as
tests/unit/test_session_trace.c shows it from C."""
import json
import os

import numpy as np
import pytest

import ipu
from conftest import acc_ir, session


def events(path, cat, name=None):
    with open(path) as f:
        trace = json.load(f)
    return [e for e in trace["traceEvents"]
            if e.get("cat") == cat and (name is None or e["name"] == name)]


def test_the_file_is_complete_when_the_context_is_left(tmp_path):
    d, r = 2, 2
    path = tmp_path / "t.json"
    ir, x, y, w = acc_ir(replicas=r, transfers=d)
    with session(ir, trace=path) as s:
        s.run({x: np.ones((d, r, 2), np.float32)})
        s.run({x: np.ones((d, r, 2), np.float32)})
    launches = events(path, "launch")
    assert len(launches) == 2 * r
    assert sorted({e["tid"] for e in launches}) == [1, 2]
    xs = events(path, "h2d", "x")
    assert len(xs) == 2 * d * r
    assert all(e["args"]["bytes"] == 8 for e in xs)
    assert len(events(path, "d2h", "y")) == 2 * d * r


def test_ipu_trace_in_the_environment(tmp_path, monkeypatch):
    path = tmp_path / "env.json"
    monkeypatch.setenv("IPU_TRACE", str(path))
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        s.run({x: np.ones(2, np.float32)})
    assert len(events(path, "launch")) == 1


def test_no_file_without_asking(tmp_path, monkeypatch):
    monkeypatch.delenv("IPU_TRACE", raising=False)
    monkeypatch.chdir(tmp_path)
    ir, x, y, w = acc_ir()
    with session(ir) as s:
        s.run({x: np.ones(2, np.float32)})
    assert os.listdir(tmp_path) == []


def test_a_symbolic_link_is_refused(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    (tmp_path / "link.json").symlink_to(victim)
    ir, x, y, w = acc_ir()
    with pytest.raises(ipu.Error, match="link.json"):
        session(ir, trace=tmp_path / "link.json")
    assert victim.read_text() == "keep me"
