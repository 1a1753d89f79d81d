#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# slice-compare.py ORIG.txt SLICE.txt FROM TO
# The report lines of the original inside [FROM, TO] (times as printed, loss
# markers right before them included) must equal the slice's report lines,
# except where trace-cmd's function_graph printer looks at the record after
# an entry (docs/man/flytrap-slice.1): a leaf "f();" whose exit lies after
# the window prints as "f() {", and an exit whose leaf entry lay before the
# window prints as a "}" line of its own.  Exit 1 with the first difference.
import difflib
import re
import sys

TS = re.compile(r"[\s\]](\d+\.\d+|\d+): ")
LEAF = re.compile(r"^(.*funcgraph_entry:)\s+.*\|(\s*)(\S.*)\(\);$")
OPEN = re.compile(r"^(.*funcgraph_entry:)\s+\|(\s*)(\S.*)\(\) \{$")


def ts(line):
    m = TS.search(line)
    return float(m.group(1)) if m else None


def window(lines, t0, t1):
    # a loss marker belongs to the event after it, a stack line ("=> f") to the one before
    out, pending, inside = [], [], False
    for ln in lines:
        t = ts(ln)
        if t is None:
            if "EVENTS DROPPED" in ln:
                pending.append(ln)
            elif inside:
                out.append(ln)
            continue
        inside = t0 <= t <= t1
        if inside:
            out += pending
            out.append(ln)
        pending = []
    return out


def squeeze(ln):
    return " ".join(ln.split())


def main():
    a = open(sys.argv[1], errors="replace").read().splitlines()
    b = open(sys.argv[2], errors="replace").read().splitlines()
    t0, t1 = float(sys.argv[3]), float(sys.argv[4])
    if a and a[0].startswith("cpus="):
        if not b or b[0] != a[0]:
            print("header differs: %r vs %r" % (a[0], b[0] if b else None))
            return 1
        a, b = a[1:], b[1:]
    w = [squeeze(x) for x in window(a, t0, t1)]
    s = [squeeze(x) for x in b]
    exceptions = 0
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, w, s, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        ok = True
        if op == "replace" and i2 - i1 == j2 - j1:
            for x, y in zip(w[i1:i2], s[j1:j2]):
                mx, my = LEAF.match(x), OPEN.match(y)
                ok &= bool(mx and my and mx.group(1) == my.group(1) and mx.group(3) == my.group(3))
        elif op == "insert":
            ok = all("funcgraph_exit:" in y for y in s[j1:j2])
        else:
            ok = False
        if not ok:
            print("window %s..%s: original %d lines, slice %d; first difference (%s):" %
                  (t0, t1, len(w), len(s), op))
            for x in w[i1:min(i2, i1 + 3)]:
                print("  orig : " + x)
            for y in s[j1:min(j2, j1 + 3)]:
                print("  slice: " + y)
            return 1
        exceptions += max(i2 - i1, j2 - j1)
    print("%d lines equal, %d function_graph lines printed as the window cut them" %
          (len(w) - exceptions, exceptions))
    return 0


sys.exit(main())
