#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check a Chrome trace-event JSON file the way a trace viewer would read it.

usage: export-check.py FILE.json [--summary]

Checks: the document parses (strict JSON, UTF-8); traceEvents is a list;
every event has ph, ts, pid, tid with the right types; ph is one the
viewers know; X events carry a non-negative dur; B/E are balanced per
(pid, tid) and an E never ends before its B; the slices of each thread
(B/E pairs and X events) nest properly (no partial overlap), which is what
Perfetto's importer needs to draw them; instants have a valid scope;
counters have numeric args; flow steps and ends follow a start with the
same id, forward in time; metadata events name a known record; a tid
belongs to one pid only (Perfetto keys threads by tid).
Exit 0 when all hold, 1 otherwise (problems on stdout).  --summary prints
a JSON line with counts per ph and per (pid,tid) for the caller to assert on.
"""
import collections
import decimal
import json
import sys

PH = set("BEXiICMbensfOPND")


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        raw = f.read()
    try:
        # exact decimals: timestamps near 1e12 us lose ns in binary floats
        doc = json.loads(raw.decode("utf-8"), parse_float=decimal.Decimal)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        print("not valid JSON: %s" % e)
        return 1
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    if not isinstance(evs, list):
        print("traceEvents is not a list")
        return 1
    errs = []
    stacks = collections.defaultdict(list)
    slices = collections.defaultdict(list)
    counts = collections.Counter()
    owner = {}
    flows = {}

    def err(i, msg):
        if len(errs) < 30:
            errs.append("event %d: %s: %s" % (i, msg, json.dumps(evs[i])[:200]))
        else:
            errs.append(None)

    for i, e in enumerate(evs):
        if not isinstance(e, dict):
            err(i, "not an object")
            continue
        miss = [k for k in ("ph", "ts", "pid", "tid") if k not in e]
        if miss:
            err(i, "missing " + ",".join(miss))
            continue
        ph = e["ph"]
        counts[ph] += 1
        if ph not in PH:
            err(i, "unknown ph")
        if not isinstance(e["ts"], (int, decimal.Decimal)) or isinstance(e["ts"], bool) or e["ts"] < 0:
            err(i, "bad ts")
        if not isinstance(e["pid"], int) or not isinstance(e["tid"], int):
            err(i, "pid/tid not integers")
        key = (e["pid"], e["tid"])
        ts = e["ts"]
        # Perfetto keys threads by tid: one tid in two processes merges or splits tracks
        if owner.setdefault(e["tid"], e["pid"]) != e["pid"]:
            err(i, "tid %s also used in process %s" % (e["tid"], owner[e["tid"]]))
        if ph in "BX" and not isinstance(e.get("name"), str):
            err(i, "slice without a name")
        if ph == "B":
            stacks[key].append((ts, i))
        elif ph == "E":
            if not stacks[key]:
                err(i, "E without an open B on its thread")
            else:
                b, bi = stacks[key].pop()
                if ts < b:
                    err(i, "E before its B")
                slices[key].append((b, ts, bi))
        elif ph == "X":
            d = e.get("dur")
            if not isinstance(d, (int, decimal.Decimal)) or d < 0:
                err(i, "X without a valid dur")
            else:
                slices[key].append((ts, ts + d, i))
        elif ph in "iI":
            if e.get("s", "t") not in ("t", "p", "g"):
                err(i, "bad instant scope")
        elif ph == "C":
            a = e.get("args")
            if not isinstance(a, dict) or not a or not all(
                    isinstance(v, (int, decimal.Decimal)) for v in a.values()):
                err(i, "counter without numeric args")
        elif ph in "stf":
            if "id" not in e:
                err(i, "flow event without id")
            elif ph == "s":
                flows[e["id"]] = ts
            elif e["id"] not in flows:
                err(i, "flow %s ends before it starts" % e["id"])
            elif ts < flows[e["id"]]:
                err(i, "flow %s goes back in time" % e["id"])
        elif ph == "M":
            if e.get("name") not in ("process_name", "thread_name", "process_sort_index",
                                     "thread_sort_index", "process_labels"):
                err(i, "unknown metadata record")
    for key, st in stacks.items():
        for ts, i in st:
            err(i, "B never ended on thread %s" % (key,))
    # nesting: sorted by start, longest first; a slice must end inside its parent
    eps = 0
    for key, sl in slices.items():
        sl.sort(key=lambda s: (s[0], -s[1]))
        open_ = []
        for s, e_, i in sl:
            while open_ and open_[-1][1] <= s + eps:
                open_.pop()
            if open_ and e_ > open_[-1][1] + eps:
                err(i, "slice %s..%s overlaps %s..%s on thread %s without nesting"
                    % (s, e_, open_[-1][0], open_[-1][1], key))
            open_.append((s, e_))
    shown = [x for x in errs if x]
    for x in shown:
        print(x)
    if len(errs) > len(shown):
        print("... %d more problems" % (len(errs) - len(shown)))
    if "--summary" in sys.argv:
        per = collections.Counter()
        for e in evs:
            if isinstance(e, dict) and e.get("ph") in ("B", "X"):
                per["%s/%s" % (e.get("pid"), e.get("tid"))] += 1
        print(json.dumps({"ph": counts, "slices_per_track": per, "events": len(evs)}, default=str))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
