# SPDX-License-Identifier: GPL-2.0
"""scripts/lib/hotplug-relay against a fake QEMU: its monitor and the
guest's port are sockets this test connects to the relay, as QEMU's
-chardev socket clients do. What the guest sends is hostile by default:
only device_del/device_add of the devices the rig named, with the rig's
arguments, may reach the monitor; device_del answers only on the device's
DEVICE_DELETED; the relay dies with QEMU."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time

import pytest

RELAY = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "lib",
                     "hotplug-relay")
DEV = {"driver": "vfio-user-pci", "id": "ipu1", "bus": "rp1", "rombar": 0,
       "socket": {"type": "unix", "path": "/tmp/x/ipu1.sock"}}
# Bound on every wait of this test (a hang guard: nothing here takes long).
GUARD = 20


class FakeQemu:
    """The relay, started with DEV, and QEMU's two ends of it."""

    def __init__(self, wait=GUARD):
        self.dir = tempfile.mkdtemp()
        self.log = os.path.join(self.dir, "relay.log")
        qmp = os.path.join(self.dir, "qmp.sock")
        guest = os.path.join(self.dir, "hotplug.sock")
        self.proc = subprocess.Popen(
            [sys.executable, RELAY, "--qmp", qmp, "--guest", guest,
             "--log", self.log, "--wait", str(wait),
             "--device", json.dumps(DEV)],
            stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline() == "hotplug-relay: ready\n"
        self.mon = socket.socket(socket.AF_UNIX)
        self.mon.connect(qmp)
        self.mon.settimeout(GUARD)
        self.guest = socket.socket(socket.AF_UNIX)
        self.guest.connect(guest)
        self.guest.settimeout(GUARD)
        self.mon_buf = b""
        self.guest_buf = b""
        self.send({"QMP": {"version": {}, "capabilities": []}})
        assert self.command() == {"execute": "qmp_capabilities"}
        self.send({"return": {}})

    def send(self, msg):
        self.mon.sendall(json.dumps(msg).encode() + b"\r\n")

    def command(self):
        """The relay's next monitor command."""
        while b"\n" not in self.mon_buf:
            data = self.mon.recv(4096)
            if not data:
                return None
            self.mon_buf += data
        line, self.mon_buf = self.mon_buf.split(b"\n", 1)
        return json.loads(line)

    def ask(self, line):
        """Send the guest's @line, return the relay's answer line."""
        self.guest.sendall(line)
        return self.answer()

    def answer(self):
        while b"\n" not in self.guest_buf:
            data = self.guest.recv(4096)
            assert data, "the relay closed the guest's port"
            self.guest_buf += data
        line, self.guest_buf = self.guest_buf.split(b"\n", 1)
        return line.decode()

    def nothing_sent(self):
        """The monitor got no command since the last one read."""
        self.mon.settimeout(0.2)
        try:
            return self.mon.recv(4096) == b""
        except socket.timeout:
            return True
        finally:
            self.mon.settimeout(GUARD)

    def quit(self):
        """QEMU exits: the relay must follow, with status 0."""
        self.mon.close()
        self.guest.close()
        return self.proc.wait(GUARD)


@pytest.fixture
def qemu():
    q = FakeQemu()
    yield q
    if q.proc.poll() is None:
        q.proc.kill()
        q.proc.wait()


def deleted(dev):
    return {"event": "DEVICE_DELETED", "data": {"device": dev, "path": "/x"},
            "timestamp": {"seconds": 1, "microseconds": 0}}


def test_device_del_answers_on_device_deleted_only(qemu):
    qemu.guest.sendall(b"device_del ipu1\n")
    assert qemu.command() == {"execute": "device_del",
                              "arguments": {"id": "ipu1"}}
    qemu.send({"return": {}})
    # Another device's event and an unrelated one are not the answer.
    qemu.send(deleted("ipu0"))
    qemu.send({"event": "RESUME", "timestamp": {}})
    qemu.guest.settimeout(0.3)
    with pytest.raises(socket.timeout):
        qemu.guest.recv(1)
    qemu.guest.settimeout(GUARD)
    qemu.send(deleted("ipu1"))
    assert qemu.answer() == "ok deleted ipu1"
    # Deleted: a second device_del is refused without asking QEMU.
    assert qemu.ask(b"device_del ipu1\n").startswith("error: ")
    assert qemu.nothing_sent()
    # device_add gives the rig's arguments, exactly.
    qemu.guest.sendall(b"device_add ipu1\n")
    assert qemu.command() == {"execute": "device_add", "arguments": DEV}
    qemu.send({"return": {}})
    assert qemu.answer() == "ok added ipu1"
    assert qemu.quit() == 0


def test_refuses_what_the_rig_did_not_name(qemu):
    hostile = [
        b"device_del ipu0\n", b"device_add ipu0\n", b"device_del rp1\n",
        b"quit\n", b'{"execute": "quit"}\n', b"device_del ipu1 now\n",
        b"device_add ipu1,bus=pcie.0\n", b"device_del\n", b"\xff\xfe ipu1\n",
        b"device_add ipu1\n",        # plugged already
        b"x" * 300 + b"\n",          # longer than a request
        b"y" * 5000 + b"\n",         # longer than a read
    ]
    for line in hostile:
        assert qemu.ask(line).startswith("error: "), line
    assert qemu.nothing_sent()
    # Blank lines get no answer; the next request is heard.
    qemu.guest.sendall(b"\n\n  \ndevice_del ipu1\n")
    assert qemu.command()["execute"] == "device_del"
    qemu.send({"return": {}})
    qemu.send(deleted("ipu1"))
    assert qemu.answer() == "ok deleted ipu1"
    assert qemu.quit() == 0


def test_monitor_errors_reach_the_guest(qemu):
    qemu.guest.sendall(b"device_del ipu1\n")
    qemu.command()
    qemu.send({"error": {"class": "GenericError",
                         "desc": "Device ipu1 is already in the process of unplug"}})
    assert qemu.answer() == \
        "error: device_del ipu1: Device ipu1 is already in the process of unplug"
    # Still plugged for the relay: it may ask again.
    qemu.guest.sendall(b"device_del ipu1\n")
    assert qemu.command()["execute"] == "device_del"
    assert qemu.quit() == 0


def test_dies_with_qemu_while_a_device_del_waits(qemu):
    qemu.guest.sendall(b"device_del ipu1\n")
    qemu.command()
    qemu.send({"return": {}})
    # QEMU exits before the guest's pciehp let the device go.
    assert qemu.quit() == 0
    with open(qemu.log, encoding="utf-8") as f:
        assert "QEMU closed the monitor" in f.read()


def test_hang_guard_answers_an_error():
    q = FakeQemu(wait=1)
    try:
        q.guest.sendall(b"device_del ipu1\n")
        q.command()
        q.send({"return": {}})
        start = time.monotonic()
        assert q.answer() == "error: no DEVICE_DELETED for ipu1 within 1.0 s"
        assert time.monotonic() - start < GUARD
        assert q.quit() == 0
    finally:
        if q.proc.poll() is None:
            q.proc.kill()


def test_broken_monitor_fails_the_relay(qemu):
    qemu.guest.sendall(b"device_add ipu1\n")
    qemu.send(deleted("ipu1"))          # unplugged meanwhile: add is allowed
    qemu.guest.sendall(b"device_add ipu1\n")
    qemu.mon.sendall(b"this is not JSON\n")
    assert qemu.proc.wait(GUARD) == 1
    with open(qemu.log, encoding="utf-8") as f:
        assert "error: not JSON" in f.read()
