#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/tools/test_ipu_run_signals.sh NAME BINDIR
#
# Ctrl-C in ipu-run (issue 27.6): a run that would never end (the model's
# fault "hang": its launch never completes) gets SIGINT, or SIGTERM; ipu-run
# must stop it at once, print a summary line, write no outputs and exit 130
# (143), not be killed by the signal (which could print nothing). Only its
# signal thread takes the signals; one that comes after the last run
# completed stops nothing (exit 0, the outputs written).
#
#   NAME, BINDIR, IPU_RUN_WRAPPER: as tests/tools/test_ipu_run.sh. Under
#   valgrind the test is skipped: valgrind catches every signal itself, so
#   /proc cannot tell when ipu-run has its handler.
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tool_test_start test_ipu_run_signals.log ipu-run "$@"
MAKE_EXE=$BIN/examples/make_example_exe
SAFETY_S=60 # only so that a broken ipu-run cannot hang the test

numpy_python
if [ -z "$PY" ]; then
	echo "no python3 with numpy: run scripts/install-deps" >"$T/out"
	fail setup "numpy is missing"
	finish
fi
if [ "${#WRAP[@]}" -gt 0 ]; then
	skip signals "under ${WRAP[0]}, which catches signals itself"
	finish
fi

# catches PID SIG: whether process PID has a handler for signal SIG (its
# bit in /proc/PID/status's SigCgt).
catches() {
	local mask
	mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
	[ -n "$mask" ] && (( (16#$mask >> ($2 - 1)) & 1 ))
}

# interrupt TEST SIG SIGNUM: a hung run, SIG once ipu-run catches it;
# exit status 128 + SIGNUM, the summary, no output file.
interrupt() {
	local t=$1 sig=$2 num=$3 pid dog
	rm -f "$T/y.npy"
	IPU_MODEL_FAULTS=hang:1 "$TOOL" -i "x=$T/x.npy" -o "y=$T/y.npy" \
		--runs 3 "$T/ex.ipux" >"$T/out" 2>&1 &
	pid=$!
	(sleep "$SAFETY_S" && kill -KILL "$pid") 2>/dev/null &
	dog=$!
	# The event: ipu-run has installed its handler.
	while kill -0 "$pid" 2>/dev/null && ! catches "$pid" "$num"; do
		sleep 0.01
	done
	kill "-$sig" "$pid"
	wait "$pid"
	st=$?
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	if grep -qE 'ERROR: [A-Za-z]*Sanitizer|runtime error:' "$T/out"; then
		fail "$t" "reported by a checker"
	elif [ "$st" -ne $((128 + num)) ]; then
		fail "$t" "exit status $st, expected $((128 + num))"
	elif ! grep -q "^interrupted by $sig after 0 of 3 runs (total [0-9.]* ms); no outputs written$" "$T/out"; then
		fail "$t" "no summary line (killed by the signal?)"
	elif [ -e "$T/y.npy" ]; then
		fail "$t" "wrote an output"
	else
		pass "$t"
	fi
}

if ! "$MAKE_EXE" --weights "$T/ex" "$T/ex.ipux" >"$T/out" 2>&1 ||
	! "$PY" -c "import numpy as np; np.save('$T/x.npy', np.ones((4, 3), '<f4'))" >"$T/out" 2>&1; then
	fail setup "could not write the program or its input"
	finish
fi

interrupt sigint_stops_a_hung_run SIGINT 2
interrupt sigterm_stops_a_hung_run SIGTERM 15

# During a hung run, one thread takes SIGINT and SIGTERM, ipu-run's own
# signal thread: the others (the main thread, the model's) block them, so
# that no handler runs in a library's thread while a session is destroyed.
# OpenBLAS's pool, made before main(), is kept out with one thread.
threads_block_signals() {
	local t=threads_block_signals pid dog task others mask bad=
	OPENBLAS_NUM_THREADS=1 IPU_MODEL_FAULTS=hang:1 "$TOOL" -i "x=$T/x.npy" \
		--runs 3 "$T/ex.ipux" >"$T/out" 2>&1 &
	pid=$!
	(sleep "$SAFETY_S" && kill -KILL "$pid") 2>/dev/null &
	dog=$!
	# The event: a thread other than main and the signal thread (the
	# model's, made at attach) exists.
	while kill -0 "$pid" 2>/dev/null; do
		others=0
		for task in /proc/"$pid"/task/*; do
			[ "$task" = "/proc/$pid/task/$pid" ] && continue
			[ "$(cat "$task/comm" 2>/dev/null)" = ipu-run-signal ] && continue
			others=$((others + 1))
		done
		[ "$others" -ge 1 ] && break
		sleep 0.01
	done
	for task in /proc/"$pid"/task/*; do
		[ "$(cat "$task/comm" 2>/dev/null)" = ipu-run-signal ] && continue
		mask=$(awk '/^SigBlk:/ { print $2 }' "$task/status" 2>/dev/null) || continue
		(( (16#$mask >> 1) & 1 && (16#$mask >> 14) & 1 )) ||
			bad="$bad $(cat "$task/comm")(${task##*/}: SigBlk $mask)"
	done
	kill -INT "$pid"
	wait "$pid"
	st=$?
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	if [ -n "$bad" ]; then
		fail "$t" "threads that take SIGINT or SIGTERM:$bad"
	elif [ "$st" -ne 130 ]; then
		fail "$t" "exit status $st, expected 130"
	else
		pass "$t"
	fi
}
threads_block_signals

# A signal that comes once every run completed (here while ipu-run writes
# the output into a FIFO whose reader has not read yet: a full pipe) stops
# nothing: the output is written whole, ipu-run exits 0 and says the signal
# came late.
# With "twice", a second SIGINT then ends the process as SIGINT's default
# does (the handler resets itself): a device that does not let go, or an
# output nobody reads, must not leave ipu-run deaf to Ctrl-C. OpenBLAS's
# pool is kept to one thread, so that only ipu-run's own threads could take
# the second signal.
late_signal() {
	OPENBLAS_NUM_THREADS=1 "$PY" - "$TOOL" "$T" "$SAFETY_S" "${1:-once}" <<'EOF'
import fcntl, io, os, select, signal, subprocess, sys, termios, time
import numpy as np
tool, T, safety, mode = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
fifo = T + "/late.fifo"
if os.path.exists(fifo):
    os.unlink(fifo)
os.mkfifo(fifo)
# Held read-write: ipu-run's open does not wait; the pipe as small as can be.
fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
F_SETPIPE_SZ = 1031
size = fcntl.fcntl(fd, F_SETPIPE_SZ, 4096)
p = subprocess.Popen([tool, "-i", "x=%s/x4.npy" % T, "-o", "y=" + fifo,
                      T + "/late.ipux"], stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE)
deadline = time.monotonic() + safety


def queued():
    buf = bytearray(4)
    fcntl.ioctl(fd, termios.FIONREAD, buf)
    return int.from_bytes(buf, sys.byteorder)


# The event: the pipe is full, so every run is done and ipu-run writes.
while queued() < size:
    if p.poll() is not None or time.monotonic() > deadline:
        p.kill()
        sys.exit("ipu-run ended (or hung) before it filled the pipe: %s"
                 % (p.poll(),))
    time.sleep(0.01)
p.send_signal(signal.SIGINT)


def pending():
    """SIGINT is pending for the process or one of its threads."""
    for task in os.listdir("/proc/%d/task" % p.pid):
        with open("/proc/%d/task/%s/status" % (p.pid, task)) as f:
            for line in f:
                if line.startswith(("SigPnd:", "ShdPnd:")) and \
                        int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)):
                    return True
    return False


# The event: a thread took the signal (else ipu-run could be done before
# any thread ran the handler, and the signal would die with it).
while pending():
    if time.monotonic() > deadline:
        p.kill()
        sys.exit("SIGINT stayed pending")
    time.sleep(0.01)
if mode == "twice":
    p.send_signal(signal.SIGINT)
    # The event: the process ends (a signal no thread takes stays pending).
    while p.poll() is None:
        if time.monotonic() > deadline:
            p.kill()
            sys.exit("a second SIGINT did not end ipu-run (pending: %s)"
                     % pending())
        time.sleep(0.01)
    if p.returncode != -signal.SIGINT:
        sys.exit("exit status %d, expected death by SIGINT" % p.returncode)
    sys.exit(0)
data = b""
while True:
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        data += os.read(fd, 65536)
    elif p.poll() is not None:
        break
    if time.monotonic() > deadline:
        p.kill()
        sys.exit("ipu-run did not end")
out, err = p.communicate()
sys.stdout.write(out.decode() + err.decode())
if p.returncode != 0:
    sys.exit("exit status %d, expected 0" % p.returncode)
if b"SIGINT came after the last run completed" not in err:
    sys.exit("no word of the late signal")
y = np.load(io.BytesIO(data))
if y.shape != (64, 4, 4, 5):
    sys.exit("output shape %s" % (y.shape,))
EOF
}
if "$MAKE_EXE" --steps 64 --replicas 4 --weights "$T/late" "$T/late.ipux" >"$T/out" 2>&1 &&
	"$PY" -c "import numpy as np; np.save('$T/x4.npy', np.ones((64, 4, 4, 3), '<f4'))" >>"$T/out" 2>&1; then
	if late_signal >"$T/out" 2>&1; then
		pass late_signal_stops_nothing
	else
		fail late_signal_stops_nothing "$(tail -1 "$T/out")"
	fi
	if late_signal twice >"$T/out" 2>&1; then
		pass second_signal_ends_ipu_run
	else
		fail second_signal_ends_ipu_run "$(tail -1 "$T/out")"
	fi
else
	fail late_signal_stops_nothing "could not write the program or its input"
fi

finish
