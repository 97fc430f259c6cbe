#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/tools/test_ipu_bringup.sh NAME BINDIR
#
# End-to-end tests of ipu-bringup on the host, on the software model: its
# options and usage errors, a clean --quick run (every check PASS or
# SKIP, exit 0), its JSON parsed by Python's json module and checked
# against docs/ipu-bringup.md's schema (on stdout, and into a file with
# the lines and summary still on the console), --log, plain lines when not
# on a terminal and the progress bar, naming the device, on one. Without
# an IPU of ipu.ko and without --model or -d model:N it tests nothing and
# exits 3; --jobs N tests N IPUs at once with the report of one at a
# time; SIGINT or SIGTERM mid-run still gives the report, with what
# finished and an "interrupted" verdict, and exit status 130. Then what it exists to catch,
# with the model's fault injection (IPU_MODEL_FAULTS): silent corruption
# and failed transfers make `dma` FAIL, a hung launch makes `compute`
# FAIL and `reset` recover it, a failing launch makes `compute` FAIL;
# each exits 1. The guests run the same binary on simulated and PCI IPUs
# (tests/kernel/test_bringup.c). Each run must end with the expected
# status, never by a signal or a sanitizer or valgrind report.
#
#   NAME    the phase: counts go to $BUILD/results/NAME ("passed failed
#           skipped"), the log to $BUILD/test-logs/NAME/test_ipu_bringup.log
#   BINDIR  a build directory holding tools/ipu-bringup
#
# Environment: BUILD (default build), IPU_RUN_WRAPPER (a command prefix,
# e.g. valgrind), IPU_VERBOSE=1 (print the whole log).
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tool_test_start test_ipu_bringup.log ipu-bringup "$@"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# Two small model IPUs, whatever the caller's environment says; no
# ipu.ko devices (a host running the driver must not be tested here).
export IPU_MODEL_DEVICES=2 IPU_MODEL_MEM_MB=64
unset IPU_DEVICE IPU_MODEL_FAULTS
CHECKS="enumerate pcie-link firmware interrupts dma memory compute replicas reset stress telemetry"

# expect_line TEST STATUS CHECK DEVICE: the last run printed that result.
expect_line() {
	if grep -qE "^$2  $3 +$4 " "$T/out"; then
		pass "$1"
	else
		fail "$1" "no line \"$2  $3 ... $4\""
	fi
}

# Usage errors: exit 2, a message naming what is wrong.
expect_exit usage-unknown-check 2 'no check named "bogus"' --test dma,bogus
expect_exit usage-empty-test 2 "comma-separated list" --test ""
expect_exit usage-stray-argument 2 'unexpected argument "extra"' extra
expect_exit usage-unknown-option 2 "unknown option --frobnicate" --frobnicate
expect_exit usage-missing-value 2 "needs a value" --log
expect_exit usage-stress-zero 2 "--stress-seconds: 0.1 to 86400" --stress-seconds 0
expect_exit usage-stress-garbage 2 "--stress-seconds" --stress-seconds 1x
expect_exit usage-mem-limit 2 "--mem-limit" --mem-limit -5
# -j is --jobs (as make -j), a count of IPUs; --json's short form is -J.
expect_exit usage-jobs-zero 2 '--jobs: a number of IPUs, 1 to 64, not "0"' -j 0
expect_exit usage-jobs-negative 2 '--jobs: a number of IPUs, 1 to 64, not "-1"' -j -1
expect_exit usage-jobs-junk 2 'not "junk" (-j is --jobs since 1.1; --json is -J)' -j junk
expect_exit usage-jobs-fraction 2 'not "1.5"' --jobs 1.5
expect_exit usage-jobs-missing 2 "needs a value" -j
expect_exit usage-dma-pass 2 '--dma-pass: per cent of the link, 0 to 1000, not "x"' --dma-pass x
expect_exit usage-dma-warn 2 '--dma-warn: per cent of the link, 0 to 1000, not "-1"' --dma-warn -1
expect_exit usage-dma-warn-above-pass 2 "--dma-warn 80 is above --dma-pass 70" --dma-warn 80
expect_exit no-such-device 1 'no IPU "model:7"' --quick --device model:7
expect_exit no-such-hw-device 1 'no IPU "ipu9"' --quick --device ipu9
expect_exit no-such-hw-name 1 'no IPU "9"' --quick --device hw:9
expect_exit help 0 "Exit status" --help
# The program's name, not the path it was run by.
if grep -q '^usage: ipu-bringup ' "$T/out"; then
	pass help-program-name
else
	fail help-program-name "the usage line does not start with \"usage: ipu-bringup \""
fi
expect_exit usage-json-empty 2 "--json: an empty file name" --json=
expect_exit json-unwritable 1 "--json $T/nodir/x" --model --quick --json "$T/nodir/x"

# No IPU of ipu.ko: a failure of its own (3) on the terminal, never a PASS
# of the model the operator did not ask for.
if compgen -G "/dev/ipu[0-9]*" >/dev/null; then
	skip no-ipu-fails "this host has an IPU of ipu.ko"
else
	expect_exit no-ipu-fails 3 "no IPU of ipu.ko to test" --quick --test enumerate
	if grep -q PASS "$T/out"; then
		fail no-ipu-no-pass "a PASS without an IPU to test"
	else
		pass no-ipu-no-pass
	fi
	expect_exit no-ipu-model-asked 0 "PASS  enumerate   model:0" --quick --test enumerate --device model:0
	expect_exit no-ipu-model-flag 0 "PASS  enumerate   model:1" --quick --test enumerate --model
fi
expect_exit version 0 "JSON schema version 1" --version

run --list
if [ "$st" -eq 0 ] && [ "$(tr '\n' ' ' <"$T/out")" = "$CHECKS " ]; then
	pass list
else
	fail list "exit status $st, not the eleven checks in order"
fi

# A clean quick run on the model: every check, no failure, exit 0.
run --model --quick --stress-seconds 0.5 --log "$T/log"
if [ "$st" -ne 0 ] || broken; then
	fail quick-clean "exit status $st, expected 0"
else
	pass quick-clean
fi
for c in enumerate firmware dma memory compute reset stress; do
	for d in model:0 model:1; do
		expect_line "quick-$c-$d" PASS "$c" "$d"
	done
done
expect_line quick-replicas PASS replicas all
for c in pcie-link interrupts telemetry; do
	expect_line "quick-$c-skips" SKIP "$c" model:0
done
if grep -q "bit for bit" "$T/out"; then
	pass quick-known-answer
else
	fail quick-known-answer "no known-answer reason"
fi
if grep -qE '^15 passed, 0 warned, 0 failed, 6 skipped$' "$T/out"; then
	pass quick-summary
else
	fail quick-summary "summary line"
fi
# Not a terminal: plain lines, no carriage return or escape.
if grep -q $'\r\|\033' "$T/out"; then
	fail quick-plain "a progress bar went to a pipe"
else
	pass quick-plain
fi
cp "$T/out" "$T/quick"
if grep -qE '^PASS  dma +model:0 .*\([0-9.]+ s\)$' "$T/log" && grep -q '^15 passed' "$T/log"; then
	pass log-file
else
	cp "$T/log" "$T/out"
	fail log-file "--log lacks the results or their times"
fi
expect_exit log-unwritable 1 "--log $T/nodir/x" --model --quick --log "$T/nodir/x"
# The header an engineer files: versions, host, time, options, devices.
if grep -qE '^ipu-bringup [0-9.]+ on .+, kernel .+, ipu.ko .+, [0-9-]+T[0-9:]+Z$' "$T/quick" &&
	grep -qE '^options: --model --quick --stress-seconds 0.5 --log ' "$T/quick" &&
	grep -qE '^device model:0: model, PCI -, serial [0-9a-f]{16}, firmware [0-9.]+, driver -, API [0-9]+$' "$T/quick"; then
	pass report-header
else
	cp "$T/quick" "$T/out"
	fail report-header "no header naming the host, kernel, versions, time, options and devices"
fi

# --test picks checks, in their usual order whatever the list's.
run --quick --test compute,dma --device model:1
grep -E '^[A-Z]{4}  ' "$T/out" >"$T/lines"
if [ "$st" -eq 0 ] && [ "$(cut -c7-17 "$T/lines" | tr -d ' ' | tr '\n' ' ')" = "dma compute " ] &&
	grep -q '^2 passed' "$T/out"; then
	pass test-selects
else
	fail test-selects "exit status $st, not dma then compute on model:1"
fi

# The JSON report against docs/ipu-bringup.md.
"${WRAP[@]}" "$TOOL" --model --quick --stress-seconds 0.2 --json >"$T/json" 2>"$T/out"
st=$?
if [ "$st" -ne 0 ] || broken; then
	fail json-run "exit status $st"
elif "$PY" - "$T/json" >>"$T/out" 2>&1 <<'PYEOF'; then
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "ipu-bringup" and d["version"] == 1, d
assert set(d) == {"schema", "version", "tool_version", "host", "kernel",
                  "driver_version", "started", "command", "device_info",
                  "quick", "devices", "results", "passed",
                  "warned", "failed", "skipped", "verdict", "ok"}, sorted(d)
assert d["quick"] is True and d["ok"] is True and d["failed"] == 0
assert d["verdict"] == "pass" and d["tool_version"] and d["host"] and d["kernel"]
assert d["driver_version"] is None or d["driver_version"]
assert d["started"].endswith("Z") and "T" in d["started"], d["started"]
assert d["command"][1:] == ["--model", "--quick", "--stress-seconds", "0.2", "--json"], d["command"]
assert [i["name"] for i in d["device_info"]] == d["devices"]
for i in d["device_info"]:
    assert set(i) == {"name", "platform", "pci_address", "serial", "firmware", "driver", "api_version"}, i
    assert isinstance(i["api_version"], int), i
    assert i["platform"] == "model" and i["pci_address"] is None and len(i["serial"]) == 16, i
assert d["devices"] == ["model:0", "model:1"], d["devices"]
assert len(d["results"]) == 21, len(d["results"])
for r in d["results"]:
    assert set(r) == {"check", "device", "status", "reason", "seconds", "figures"}, r
    assert r["status"] in ("PASS", "WARN", "FAIL", "SKIP") and r["reason"], r
    assert isinstance(r["seconds"], float) and r["seconds"] >= 0
    for f in r["figures"]:
        assert set(f) == {"name", "value", "unit"} and isinstance(f["value"], (int, float)), f
dma = [r for r in d["results"] if r["check"] == "dma"][0]
assert {"h2d_bandwidth", "d2h_bandwidth", "both_bandwidth"} <= {f["name"] for f in dma["figures"]}
# The model has no link: the rate, and no grade against one.
assert "no link to compare (the software model)" in dma["reason"], dma
assert not {"link_rate", "h2d_of_link"} & {f["name"] for f in dma["figures"]}, dma
assert d["passed"] + d["skipped"] == 21
PYEOF
	pass json-schema
else
	fail json-schema "the JSON does not follow docs/ipu-bringup.md"
fi

# --json FILE: the report there, and the lines and summary on the console.
run --model --quick --test enumerate,dma --json "$T/file.json"
if [ "$st" -ne 0 ] || broken; then
	fail json-file-run "exit status $st"
elif ! grep -q '^4 passed, 0 warned, 0 failed, 0 skipped$' "$T/out" ||
	! grep -qE '^PASS  dma +model:1 ' "$T/out"; then
	fail json-file-console "no result lines or summary on the console"
elif "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["passed"] == 4 and d["verdict"] == "pass", d' \
	"$T/file.json" >>"$T/out" 2>&1; then
	pass json-file
else
	fail json-file "the file's JSON"
fi

# interrupt_test TEST SIGNAL JSON_ARGS...: SIGNAL once dma has finished on
# both IPUs (the --log file says so) and stress runs; the report has the
# dma results, stress "interrupted", the verdict "interrupted", exit 130.
# The JSON goes to $T/int.json (by --json FILE or by stdout).
interrupt_test() {
	local t=$1 sig=$2 pid i
	shift 2
	rm -f "$T/int.json" "$T/int.log"
	"${WRAP[@]}" "$TOOL" --model --quick --test dma,stress --stress-seconds 3600 \
		--log "$T/int.log" "$@" >"$T/int.stdout" 2>"$T/out" &
	pid=$!
	# The event is the log's line; 120 s is only the safety limit.
	for ((i = 0; i < 1200; i++)); do
		grep -qE '^PASS  dma +model:1 ' "$T/int.log" 2>/dev/null && break
		sleep 0.1
	done
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid"
	st=$?
	[ -s "$T/int.json" ] || cp "$T/int.stdout" "$T/int.json"
	cat "$T/int.stdout" >>"$T/out"
	if [ "$st" -ne 130 ] || grep -qE 'ERROR: [A-Za-z]*Sanitizer|runtime error:|^==[0-9]+== ' "$T/out"; then
		fail "$t" "exit status $st, expected 130"
	elif ! "$PY" - "$T/int.json" >>"$T/out" 2>&1 <<'PYEOF'; then
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "interrupted" and d["ok"] is False, d
st = [(r["check"], r["device"], r["status"]) for r in d["results"]]
assert st[:2] == [("dma", "model:0", "PASS"), ("dma", "model:1", "PASS")], st
assert st[2:] == [("stress", "model:0", "SKIP")], st
assert "interrupted" in d["results"][2]["reason"], d["results"][2]
PYEOF
		fail "$t" "the report of an interrupted run"
	elif ! grep -q 'skipped: interrupted$' "$T/int.log"; then
		fail "$t" "no summary saying it was interrupted"
	else
		pass "$t"
	fi
}
interrupt_test interrupted-sigint-json-file INT --json "$T/int.json"
interrupt_test interrupted-sigterm-json-stdout TERM --json

# --jobs: three IPUs, two at a time, give the verdicts and the report's
# order of one at a time (console and JSON), whichever finishes first.
jobs_run() {
	IPU_MODEL_DEVICES=3 "${WRAP[@]}" "$TOOL" --quick --stress-seconds 0.2 \
		--device model:0,model:1,model:2 "$@" >"$T/jobs.out" 2>&1
}
jobs_run -j 1 --json "$T/j1.json"
st1=$?
grep -E '^[A-Z]{4}  ' "$T/jobs.out" | cut -c1-30 >"$T/j1.lines"
jobs_run --jobs 2 -J "$T/j2.json"
st2=$?
grep -E '^[A-Z]{4}  ' "$T/jobs.out" | cut -c1-30 >"$T/j2.lines"
cp "$T/jobs.out" "$T/out"
st=$st2
if [ "$st1" -ne 0 ] || [ "$st2" -ne 0 ] || broken; then
	fail jobs-same-report "exit statuses $st1 and $st2, expected 0"
elif ! cmp -s "$T/j1.lines" "$T/j2.lines"; then
	diff "$T/j1.lines" "$T/j2.lines" >>"$T/out"
	fail jobs-same-report "-j 2's lines differ from -j 1's"
elif "$PY" - "$T/j1.json" "$T/j2.json" >>"$T/out" 2>&1 <<'PYEOF'; then
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
key = lambda d: [(r["check"], r["device"], r["status"]) for r in d["results"]]
assert key(a) == key(b), (key(a), key(b))
assert len(key(a)) == 31 and a["verdict"] == b["verdict"] == "pass", key(a)
assert [r["device"] for r in a["results"][:3]] == ["model:0", "model:1", "model:2"]
assert "-J" in b["command"] and b["devices"] == a["devices"]
PYEOF
	pass jobs-same-report
else
	fail jobs-same-report "-j 2's JSON differs from -j 1's"
fi
# One IPU's failure stops nothing on the other (model:0 cannot be attached).
IPU_MODEL_FAULTS=attach:1 expect_exit jobs-fail-isolated 1 "PASS  dma         model:1" \
	-j 2 --quick --test enumerate,dma --device model:0,model:1
expect_line jobs-fail-isolated-fail FAIL dma model:0
expect_line jobs-fail-isolated-pass PASS enumerate model:1

# SIGINT during --jobs 2: both IPUs' dma done, their stress running; the
# report has every result that finished, stress "interrupted", exit 130.
rm -f "$T/jint.json" "$T/jint.log"
"${WRAP[@]}" "$TOOL" --model --quick --test dma,stress --stress-seconds 3600 -j 2 \
	--log "$T/jint.log" --json "$T/jint.json" >"$T/out" 2>&1 &
pid=$!
# The event is the log's line; 120 s is only the safety limit.
for ((i = 0; i < 1200; i++)); do
	grep -qE '^PASS  dma +model:1 ' "$T/jint.log" 2>/dev/null && break
	sleep 0.1
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
st=$?
if [ "$st" -ne 130 ] || grep -qE 'ERROR: [A-Za-z]*Sanitizer|runtime error:|^==[0-9]+== ' "$T/out"; then
	fail jobs-interrupted "exit status $st, expected 130"
elif "$PY" - "$T/jint.json" >>"$T/out" 2>&1 <<'PYEOF'; then
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "interrupted" and d["ok"] is False, d
st = [(r["check"], r["device"], r["status"]) for r in d["results"]]
assert st[:2] == [("dma", "model:0", "PASS"), ("dma", "model:1", "PASS")], st
# A job between its dma and its stress when the signal came starts none.
assert 1 <= len(st[2:]) <= 2, st
assert all(c == "stress" and s == "SKIP" for c, _, s in st[2:]), st
assert [dv for _, dv, _ in st[2:]] in (["model:0"], ["model:1"], ["model:0", "model:1"]), st
assert all("interrupted" in r["reason"] for r in d["results"][2:]), d["results"]
PYEOF
	pass jobs-interrupted
else
	fail jobs-interrupted "the report of an interrupted -j 2 run"
fi

# What it exists to catch. Silent corruption (the first transfer of dma
# comes back with its bytes inverted, status OK): dma FAILs, naming it.
IPU_MODEL_FAULTS=corrupt:1 expect_exit corrupt-fails-dma 1 "corrupts data" --quick --test dma --device model:0
expect_line corrupt-dma-line FAIL dma model:0
# ... from the device: every second transfer, the first to come back.
IPU_MODEL_FAULTS=corrupt:%2 expect_exit corrupt-d2h-fails-dma 1 "corrupts data" --quick --test dma --device model:0
# A transfer that fails (EIO).
IPU_MODEL_FAULTS=dma:1 expect_exit failed-transfer-fails-dma 1 "Input/output error" --quick --test dma,memory --device model:0
expect_line failed-transfer-dma-line FAIL dma model:0
expect_line failed-transfer-memory-passes PASS memory model:0
# A hung launch: compute FAILs, reset brings the device back and
# computes the known answer again.
IPU_MODEL_FAULTS=hang:1 expect_exit hang-fails-compute 1 "the launch hangs" --quick --test compute,reset --device model:0
expect_line hang-compute-line FAIL compute model:0
expect_line hang-reset-recovers PASS reset model:0
# A launch the device fails.
IPU_MODEL_FAULTS=launch:1 expect_exit failed-launch-fails-compute 1 "FAIL  compute" --quick --test compute --device model:0
# A reset that does not happen.
IPU_MODEL_FAULTS=reset:1 expect_exit failed-reset-fails-reset 1 "reset failed" --quick --test reset --device model:0
# Another process's model is its own; this one's device, attached by
# ipu-bringup for the whole run, is not shared with a second handle.

# A terminal gets the progress bar of the long checks.
if command -v script >/dev/null; then
	script -qec "${WRAP[*]} $TOOL --quick --test memory --device model:0" /dev/null >"$T/tty" 2>&1
	cp "$T/tty" "$T/out"
	if grep -q 'memory *model:0 *\[#' "$T/tty" && grep -q '^PASS  memory' <(tr '\r' '\n' <"$T/tty" | sed 's/\x1b\[K//g'); then
		pass tty-progress-bar
	else
		fail tty-progress-bar "no progress bar on a terminal"
	fi
else
	skip tty-progress-bar "no script(1)"
fi
# ... and with --jobs, a line per IPU under test, naming it: a bar that
# ends its line (one at a time, the bar is overwritten on its line).
if command -v script >/dev/null; then
	script -qec "${WRAP[*]} $TOOL --quick -j 2 --test memory --model" /dev/null >"$T/tty" 2>&1
	cp "$T/tty" "$T/out"
	if grep -qE $'memory +model:0 +\\[#+\\.*\\] +[0-9]+%\r?$' "$T/tty" &&
		grep -qE $'memory +model:1 +\\[#+\\.*\\] +[0-9]+%\r?$' "$T/tty" &&
		grep -q '^PASS  memory *model:1' <(tr '\r' '\n' <"$T/tty" | sed 's/\x1b\[[0-9]*[AJK]//g'); then
		pass tty-progress-jobs
	else
		fail tty-progress-jobs "no progress line per IPU on a terminal with -j 2"
	fi
else
	skip tty-progress-jobs "no script(1)"
fi

finish
