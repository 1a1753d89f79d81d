#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap export on a synthetic trace whose answer is known exactly
# (tests/tools/mkexport.c lists it): syscalls from raw_syscalls and from
# BPF records, kernel functions from function_graph (one entry lost), a
# uprobe pair, an IRQ, sched_switch runs per CPU, a page that lost 7
# events, a BPF drop window, an exit without entry, calls that never
# return.  Then the common filters.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
need_cmd python3
MK="$TOP/$O/tests/tools/mkexport"
[ -x "$MK" ] || skip "$MK is not built"
"$MK" "$TMP/syn.dat" >/dev/null || { fail "mkexport"; finish; }

"$FLYTRAP" export "$TMP/syn.dat" -o "$TMP/syn.json" || fail "export"
python3 "$TOP/tests/report/export-check.py" "$TMP/syn.json" || fail "JSON does not load"

python3 - "$TMP/syn.json" <<'PY' && ok "every slice, marker and track as expected" || fail "synthetic answer"
import json, sys
from decimal import Decimal as D
d = json.load(open(sys.argv[1]), parse_float=D)
ev = d["traceEvents"]
B = 1000000  # 1 s in us
CPU_PID = 0x7ff00000
CPU0, CPU1 = CPU_PID + 1, CPU_PID + 2      # CPU tracks
IRQ0 = CPU_PID + 0x10001                   # interrupts of CPU 0

def us(ns):
    return B + D(ns) / 1000

# every slice is a B and its E, next to each other, with the same name and
# args (speedscope pairs them so); no X (a viewer adds dur in floating point)
assert not [e for e in ev if e["ph"] == "X"], "X events"
slices = {}
for i, e in enumerate(ev):
    if e["ph"] == "B":
        f = ev[i + 1]
        assert f["ph"] == "E" and (f["tid"], f["name"], f.get("args")) == (e["tid"], e["name"], e.get("args")), (e, f)
        slices.setdefault(e["tid"], []).append((e["name"], e["ts"], f["ts"], e.get("args")))
for k in slices:
    slices[k].sort(key=lambda s: (s[1], -s[2]))

def expect(tid, want):
    got = [(n, s, e) for n, s, e, a in slices.get(tid, [])]
    want = [(n, us(s), us(e)) for n, s, e in want]
    assert got == want, "tid %d:\n got  %s\n want %s" % (tid, got, want)

expect(100, [("read", 2000, 3000), ("ksys_read", 2100, 2900), ("vfs_read", 2200, 2700),
             ("getpid", 6000, 6500), ("ksys_read", 6550, 7800),
             ("do_sys_open", 6600, 7000)])
expect(101, [("read", 8500, 9000), ("off-CPU", 8600, 8900)])
# entries whose exit is not in the trace: instants at the entry, not slices of a guessed length
noexit = sorted((e["tid"], e["name"], e["ts"], e["cat"]) for e in ev
                if e["ph"] == "i" and e.get("args") == {"exit": "not in the trace"})
assert noexit == [(100, "write", us(5000), "syscall"), (101, "futex", us(9500), "syscall")], noexit
expect(102, [("nanosleep", 3000, 4500), ("foo", 5500, 5800), ("exit", 9800, 10000)])
# BPF user-function records of the same call as the uprobes: a second track of gamma
expect(102 + 0x40000000, [("foo", 5501, 5799)])
args = {(tid, n): a for tid, l in slices.items() for n, s, e, a in l if a != {"entry_lost": True} or n != "ksys_read"}
assert args[(100, "read")] == {"ret": 5}, args[(100, "read")]
assert args[(100, "getpid")] == {"ret": 100}
assert args[(101, "read")] == {"ret": 3}
assert args[(102, "nanosleep")] == {"ret": 0}
assert args[(100, "do_sys_open")] == {"entry_lost": True}
assert args[(101, "off-CPU")] == {"state": 1, "waker_pid": 102, "waker_comm": "gamma"}, args[(101, "off-CPU")]
cats = {e["name"]: e["cat"] for e in ev if e["ph"] in "BX" and e["pid"] != CPU_PID}
assert cats["read"] == "syscall" and cats["vfs_read"] == "kernel"
assert sorted(e["cat"] for e in ev if e.get("name") == "foo" and e["ph"] == "B") == ["probe", "user"]

# CPU tracks: runs from sched_switch, the IRQ, loss markers
runs = sorted((k, n, s, e, a.get("partial", False)) for k in (CPU0, CPU1) for n, s, e, a in slices.get(k, []))
assert runs == [(CPU0, "alpha", us(1000), us(8000), False), (CPU0, "beta", us(8000), us(10000), True),
                (CPU1, "gamma", us(1500), us(10000), False)], runs
irq = [(IRQ0, n, s, e - s) for n, s, e, a in slices.get(IRQ0, [])]
assert irq == [(IRQ0, "irq 19 eth0", us(3500), D("0.100"))], irq
lost = [(e["tid"], e["ts"], e["args"]["count"]) for e in ev if e["ph"] == "i" and e["name"] == "events lost"]
assert lost == [(CPU0, us(9000), 7)], lost
bpf = [(e["tid"], e["ts"], e["args"]) for e in ev if e["ph"] == "i" and e["name"] == "BPF records lost"]
assert bpf == [(CPU1, us(9900), {"count": 2, "program": "syscalls"})], bpf
flow = sorted((e["ph"], e["tid"], e["ts"], e["id"]) for e in ev if e["ph"] in "sf")
assert flow == [("f", CPU0, us(8000), 1), ("s", CPU1, us(7900), 1)], flow
busy = [(e["ts"], e["args"]["busy"]) for e in ev if e["ph"] == "C" and e["name"] == "busy CPUs"]
assert busy == [(us(1000), 1), (us(1500), 2), (us(10000), 1)], busy

names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert names[(100, 100)] == "alpha" and names[(101, 101)] == "beta" and names[(102, 102)] == "gamma"
assert names[(CPU_PID, CPU0)] == "CPU 0" and names[(CPU_PID, CPU1)] == "CPU 1"
# no track id is shared between processes (Perfetto keys threads by tid)
owner = {}
for e in ev:
    assert owner.setdefault(e["tid"], e["pid"]) == e["pid"], ("tid in two processes", e)
assert names[(102, 102 + 0x40000000)] == "gamma (BPF)", names
o = d["otherData"]
assert o["events"] == 31 and o["wakeups"] == 1 and o["exits_without_entry"] == 2 and o["events_lost"] == 7, o
assert o["enters_without_exit"] == 2 and o["closed_at_task_exit"] == 1, o
PY

# the same trace on a wall-clock time line: timestamps past 2^53 ns lose
# nanoseconds in a viewer's doubles, so they count from the first second
"$TOP/$O/tests/tools/mkexport" "$TMP/ep.dat" --epoch >/dev/null || fail "mkexport --epoch"
"$FLYTRAP" export "$TMP/ep.dat" -o "$TMP/ep.json" || fail "export of the epoch file"
python3 "$TOP/tests/report/export-check.py" "$TMP/ep.json" || fail "epoch JSON does not load"
python3 - "$TMP/syn.json" "$TMP/ep.json" <<'PY' && ok "wall-clock file: same events, ts from its first second" || fail "epoch offsets"
import json, sys
from decimal import Decimal as D
a = json.load(open(sys.argv[1]), parse_float=D)
b = json.load(open(sys.argv[2]), parse_float=D)
assert b["otherData"]["ts_offset_us"] == D("1795000000000000.000"), b["otherData"]
assert a["otherData"]["ts_offset_us"] == 0
ea = [(e["ph"], e["ts"] - 1000000) for e in a["traceEvents"] if e["ph"] in "BEX"]
eb = [(e["ph"], e["ts"]) for e in b["traceEvents"] if e["ph"] in "BEX"]
assert ea == eb, (ea[:5], eb[:5])
PY

# filters: a pid, a CPU, a time window
"$FLYTRAP" export "$TMP/syn.dat" --pid 101 -o "$TMP/p.json" || fail "--pid"
python3 - "$TMP/p.json" <<'PY' && ok "--pid 101: only beta's calls" || fail "--pid filter"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
tids = {e["tid"] for e in ev if e["ph"] in "BE" or (e["ph"] == "X" and e.get("cat") != "sched")}
assert tids == {101}, tids
PY
"$FLYTRAP" export "$TMP/syn.dat" --cpu 1 -o "$TMP/c.json" || fail "--cpu"
python3 - "$TMP/c.json" <<'PY' && ok "--cpu 1: CPU 1 tasks only" || fail "--cpu filter"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
assert not [e for e in ev if e["ph"] in "BEX" and e["tid"] in (100, 101)], "CPU 0 tasks present"
assert [e for e in ev if e["ph"] == "B" and e["name"] == "nanosleep"]
assert not [e for e in ev if e["ph"] == "i" and e["name"] == "events lost"], "CPU 0 loss marker kept"
PY
"$FLYTRAP" export "$TMP/syn.dat" --from 1.000005 --to 1.000007 -o "$TMP/w.json" || fail "--from/--to"
python3 "$TOP/tests/report/export-check.py" "$TMP/w.json" || fail "window JSON does not load"
python3 - "$TMP/w.json" <<'PY' && ok "--from/--to: only calls inside the window" || fail "window filter"
import json, sys
from decimal import Decimal as D
ev = json.load(open(sys.argv[1]), parse_float=D)["traceEvents"]
names = sorted(e["name"] for e in ev if e["ph"] == "B")
assert names == ["do_sys_open", "foo", "foo", "getpid"], names
assert [e["name"] for e in ev if e["ph"] == "i" and e.get("cat") == "syscall"] == ["write"]
assert all(D(1000005) <= e["ts"] <= D(1000007) for e in ev if e["ph"] in "BE")
PY
finish
