#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The peer for bench/export.sh: `trace-cmd report -t -i F | tc2chrome.py`
writes the Chrome trace-event JSON `flytrap export` writes for the same
events (syscalls from raw_syscalls as B/E per thread with names from a
syscall table, function_graph calls as B/E, sched_switch runs as X events
on per-CPU tracks, lost-event markers), streaming, memory bounded by open
slices.  Only as much as the benchmark needs: x86_64 syscall names."""
import re
import sys

CPU_PID = 0x7ff00000
LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\w+):\s+(.*)$")
SW = re.compile(r"(.*):(\d+) \[-?\d+\] (\S+) ==> (.*):(\d+) \[-?\d+\]")
DROP = re.compile(r"CPU:(\d+) \[(\d+) EVENTS DROPPED\]")
SYSNAMES = {}
try:
    with open("/usr/include/x86_64-linux-gnu/asm/unistd_64.h") as f:
        for l in f:
            m = re.match(r"#define __NR_(\w+) (\d+)", l)
            if m:
                SYSNAMES[int(m.group(2))] = m.group(1)
except OSError:
    pass


def us(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


def jstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    out = sys.stdout
    w = out.write
    w('{"traceEvents":[')
    first = [True]

    def ev(s):
        if first[0]:
            w("\n" + s)
            first[0] = False
        else:
            w(",\n" + s)

    stacks = {}
    run = {}
    comm = {}
    last = 0
    for line in sys.stdin:
        m = LINE.match(line)
        if not m:
            d = DROP.search(line)
            if d:
                ev('{"ph":"i","ts":%s,"pid":%d,"tid":%s,"s":"t","name":"events lost","args":{"count":%s}}'
                   % (us(last), CPU_PID, d.group(1), d.group(2)))
            continue
        name, pid, cpu, sec, frac, event, rest = m.groups()
        pid = int(pid)
        ts = int(sec) * 1000000000 + int(frac.ljust(9, "0")[:9])
        last = ts
        comm[pid] = name.strip()
        if event == "sys_enter":
            nr = int(rest.split()[1])
            st = stacks.setdefault(pid, [])
            st.append(ts)
            ev('{"ph":"B","ts":%s,"pid":%d,"tid":%d,"name":%s,"cat":"syscall"}'
               % (us(ts), pid, pid, jstr(SYSNAMES.get(nr, "syscall_%d" % nr))))
        elif event == "sys_exit":
            st = stacks.get(pid)
            if st:
                st.pop()
                ret = rest.split("=")[1].strip()
                ev('{"ph":"E","ts":%s,"pid":%d,"tid":%d,"args":{"ret":%s}}' % (us(ts), pid, pid, ret))
        elif event == "funcgraph_entry":
            fn = rest.split("|", 1)[1].strip().rstrip("{;").strip()
            if fn.endswith("()"):
                fn = fn[:-2]
            ev('{"ph":"B","ts":%s,"pid":%d,"tid":%d,"name":%s,"cat":"kernel"}' % (us(ts), pid, pid, jstr(fn)))
            if rest.rstrip().endswith(";"):
                ev('{"ph":"E","ts":%s,"pid":%d,"tid":%d}' % (us(ts), pid, pid))
            else:
                stacks.setdefault(pid, []).append(ts)
        elif event == "funcgraph_exit":
            st = stacks.get(pid)
            if st:
                st.pop()
                ev('{"ph":"E","ts":%s,"pid":%d,"tid":%d}' % (us(ts), pid, pid))
        elif event == "sched_switch":
            s = SW.match(rest)
            if s:
                c = int(cpu)
                prev, nxt = int(s.group(2)), int(s.group(5))
                if c in run and prev != 0:
                    t0, _ = run[c]
                    ev('{"ph":"X","ts":%s,"pid":%d,"tid":%d,"dur":%s,"name":%s,"cat":"sched","args":{"pid":%d}}'
                       % (us(t0), CPU_PID, c, us(ts - t0), jstr(s.group(1)), prev))
                run[c] = (ts, nxt)
    for pid, st in stacks.items():
        while st:
            st.pop()
            ev('{"ph":"E","ts":%s,"pid":%d,"tid":%d}' % (us(last), pid, pid))
    for pid, name in comm.items():
        ev('{"ph":"M","ts":0,"pid":%d,"tid":%d,"name":"thread_name","args":{"name":%s}}' % (pid, pid, jstr(name)))
    w("\n]}\n")


if __name__ == "__main__":
    main()
