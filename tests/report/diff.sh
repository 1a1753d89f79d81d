#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap diff, offline, on two synthetic workloads from tests/tools/mksynth
# whose every figure is known (see its "workload" mode): A runs 1000 rounds
# (getpid 2 us, FUNC alpha, syscall read), B 3000 rounds (getpid 4 us, FUNC
# beta, syscall write).  Checked: the counts, times, deltas, ratios and
# per-second rates of syscalls, the task, event types, functions and call
# paths (JSON and text); --per EVENT; what appeared and vanished comes first;
# 80 columns; the differential SVG's widths and colours; identical inputs
# show no change; usage errors exit 2 with one line; nothing is left behind
# by a failed --svg.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3
MK="$TOP/$O/tests/tools/mksynth"
[ -x "$MK" ] || skip "mksynth not built"
F=$FLYTRAP
cd "$TMP" || exit 1
"$MK" a.dat workload 1000 alpha 0 2 && "$MK" b.dat workload 3000 beta 1 4 || { fail "mksynth"; finish; }

"$F" diff --json a.dat b.dat >ab.json 2>ab.err
rc=$?
[ $rc = 0 ] && [ ! -s ab.err ] && ok "diff --json exits 0, quiet" || fail "diff --json: rc $rc: $(cat ab.err)"
python3 - ab.json <<'PY' && ok "JSON figures (syscalls, task, event types, functions, paths, rates)" || fail "JSON figures"
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
def chk(cond, what):
    if not cond:
        bad.append(what)
def row(table, name):
    r = [x for x in d[table] if x["name"] == name]
    chk(len(r) == 1, "%s %s: %d rows" % (table, name, len(r)))
    return r[0] if r else {"a": None, "b": None, "status": None, "ratio": {}, "delta": {}, "rate_count": {}}
span_a, span_b = 999 * 200e3 + 150e3, 2999 * 200e3 + 150e3
chk(d["a"]["duration_ns"] == span_a and d["b"]["duration_ns"] == span_b, "spans")
chk(d["per"] == "second" and d["callgraph"]["compared"] and d["callgraph"]["unit"] == "ns", "header")
g = row("syscalls", "getpid")
chk(g["status"] == "both" and g["a"]["count"] == 1000 and g["b"]["count"] == 3000, "getpid counts")
chk(g["delta"]["count"] == 2000 and abs(g["ratio"]["count"] - 3) < 1e-9, "getpid delta/ratio")
chk(g["a"]["p50_ns"] == 2000 and g["b"]["p99_ns"] == 4000 and abs(g["ratio"]["p50_ns"] - 2) < 1e-9, "getpid p50/p99")
ra, rb = 1000 / (span_a / 1e9), 3000 / (span_b / 1e9)
chk(abs(g["rate_count"]["a"] - ra) < 0.01 and abs(g["rate_count"]["b"] - rb) < 0.01, "getpid rates")
chk(abs(g["rate_count"]["ratio"] - rb / ra) < 1e-4, "getpid rate ratio")
w, r = row("syscalls", "write"), row("syscalls", "read")
chk(w["status"] == "appeared" and w["a"] is None and w["b"]["count"] == 3000 and w["ratio"]["count"] is None, "write appeared")
chk(r["status"] == "vanished" and r["b"] is None and r["a"]["count"] == 1000, "read vanished")
chk([x["status"] for x in d["syscalls"]] == ["appeared", "vanished", "both"], "appeared/vanished first")
t = row("tasks", "app")
chk(t["a"]["on_cpu_ns"] == 150e6 and t["b"]["on_cpu_ns"] == 450e6 and t["a"]["pids"] == 1, "task on-CPU")
chk(abs(t["rate_on_cpu_ns"]["a"] - 150e6 / (span_a / 1e9)) < 1, "task on-CPU per second")
e = row("event_types", "sched:sched_switch")
chk(e["a"]["count"] == 2000 and e["b"]["count"] == 6000, "sched_switch counts")
m = row("functions", "main")
chk(m["a"] == {"count": 1000, "total": 100e6, "self": 70e6} and m["b"]["total"] == 300e6, "main")
chk(row("functions", "alpha")["status"] == "vanished" and row("functions", "beta")["status"] == "appeared", "alpha/beta")
p = row("paths", "main;work")
chk(p["a"]["total"] == 20e6 and p["b"]["total"] == 60e6 and p["b"]["count"] == 3000, "main;work")
chk(row("paths", "main;beta")["b"]["self"] == 30e6, "main;beta")
if bad:
    print("wrong:", bad)
    sys.exit(1)
PY

# --per: rates per sched_switch (2 per round in both): getpid 0.5 per switch in both
"$F" diff --json --per sched:sched_switch a.dat b.dat >per.json 2>per.err || fail "--per: $(cat per.err)"
"$F" diff --json --per sched_switch a.dat b.dat >per2.json 2>&1 || fail "--per NAME without system"
python3 - per.json per2.json <<'PY' && ok "--per EVENT: per-occurrence rates (getpid 0.5 per switch)" || fail "--per rates"
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    assert d["a"]["basis"] == 2000 and d["b"]["basis"] == 6000, (d["a"], d["b"])
    g = [x for x in d["syscalls"] if x["name"] == "getpid"][0]
    assert g["rate_count"]["a"] == 0.5 and g["rate_count"]["b"] == 0.5 and g["rate_count"]["ratio"] == 1, g
PY

# text: appeared/vanished first, the getpid row, 80 columns
"$F" diff a.dat b.dat >ab.txt 2>&1 || fail "diff text"
wide=$(awk 'length($0) > 80' ab.txt | wc -l)
[ "$wide" = 0 ] && ok "text within 80 columns" || fail "$wide lines over 80 columns"
first_table=$(grep -n '^Syscalls: calls' ab.txt | cut -d: -f1)
app=$(grep -n '^Appeared' ab.txt | cut -d: -f1)
van=$(grep -n '^Vanished' ab.txt | cut -d: -f1)
[ -n "$app" ] && [ -n "$van" ] && [ "$app" -lt "$first_table" ] && [ "$van" -lt "$first_table" ] &&
	grep -q '^  syscall  write: 3000 calls$' ab.txt && grep -q '^  function alpha: 1000 calls$' ab.txt &&
	ok "appeared (write, beta) and vanished (read, alpha) listed before the tables" ||
	fail "appeared/vanished: $(head -30 ab.txt)"
grep -Eq '^  getpid +1000 +3000 +\+2000 +3\.00x +5001\.3 +5000\.4 +1\.00x$' ab.txt &&
	ok "text: getpid 1000 -> 3000, +2000, 3.00x, rates 5001.3/s and 5000.4/s" ||
	fail "getpid row: $(grep getpid ab.txt)"
grep -Eq '^  app +150\.0 ms +450\.0 ms +\+300\.0 ms +3\.00x +750\.2 ms +750\.1 ms +1\.00x$' ab.txt &&
	ok "text: app on-CPU 150 ms -> 450 ms" || fail "app row: $(grep -E '^  app ' ab.txt)"
grep -Eq '^  getpid +2\.0 us +4\.0 us +2\.00x +2\.0 us +4\.0 us +2\.00x$' ab.txt &&
	ok "text: getpid p50/p99 2 us -> 4 us" || fail "latency row: $(grep getpid ab.txt)"

# identical inputs: no change anywhere
"$F" diff --json a.dat a.dat | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = [r for t in ("syscalls", "tasks", "event_types", "functions", "paths") for r in d[t]]
assert rows and all(r["status"] == "both" for r in rows)
assert all(v == 0 for r in rows for v in r["delta"].values())
assert all(v == 1 for r in rows for v in r["ratio"].values() if v is not None)
' && ok "a file against itself: every delta 0, every ratio 1" || fail "self diff shows changes"
"$F" diff a.dat a.dat | grep -q -e '^Appeared' -e '^Vanished' && fail "self diff lists changes" || true

# sections: --syscalls alone has no call graph or task tables
"$F" diff --syscalls --json a.dat b.dat | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert "syscalls" in d and "tasks" not in d and "functions" not in d' &&
	ok "--syscalls: only the syscall tables" || fail "--syscalls sections"

# the differential flame graph: widths from B, red where B grew, blue where it shrank
svg_frames() { # file -> "name fill width" per frame
	python3 - "$1" <<'PY'
import re, sys, xml.dom.minidom
s = open(sys.argv[1]).read()
xml.dom.minidom.parseString(s)
for m in re.finditer(r'<g class="f" data-x="[^"]*" data-w="([^"]*)"[^>]*><title>([^ <]*) \(([^<]*)</title><rect[^>]*fill="([^"]*)"', s):
    print(m.group(2), m.group(4), "%.4f" % float(m.group(1)))
PY
}
"$F" diff --svg ab.svg a.dat b.dat >/dev/null 2>svg.err && [ -s ab.svg ] && ok "--svg written" || fail "--svg: $(cat svg.err)"
svg_frames ab.svg >ab.frames || fail "the SVG is not well-formed XML"
# B: main 300 ms = all, work 60 ms (both 3x: 2/3 of the deepest red), beta 30 ms (new: deepest)
grep -qx 'main rgb(255,112,112) 1.0000' ab.frames && grep -qx 'work rgb(255,112,112) 0.2000' ab.frames &&
	grep -qx 'beta rgb(255,45,45) 0.1000' ab.frames && ! grep -q '^alpha ' ab.frames &&
	ok "SVG: widths from B (work 20%, beta 10%), red where B grew, alpha (A only) not drawn" ||
	fail "SVG frames: $(cat ab.frames)"
"$F" diff --svg ba.svg b.dat a.dat >/dev/null 2>&1
svg_frames ba.svg >ba.frames
grep -qx 'work rgb(112,112,255) 0.2000' ba.frames && grep -qx 'alpha rgb(255,45,45) 0.1000' ba.frames &&
	grep -qx 'main rgb(112,112,255) 1.0000' ba.frames &&
	ok "SVG the other way: blue where it shrank" || fail "reverse SVG frames: $(cat ba.frames)"
grep -q '<title>work (20,000,000 ns, 20.00%; before 60,000,000, -66.7%)</title>' ba.svg &&
	ok "SVG hover title gives both weights and the change" || fail "SVG title: $(grep -o '<title>work[^<]*' ba.svg)"

"$F" diff --svg aa.svg a.dat a.dat >/dev/null 2>&1
svg_frames aa.svg >aa.frames
[ -s aa.frames ] && ! grep -qv 'rgb(255,245,245)' aa.frames && ok "SVG of a file against itself: all pale" ||
	fail "self SVG: $(cat aa.frames)"

# no call graphs to compare: no picture, said on stderr
"$F" diff --svg none.svg "$TOP/tests/data/rpt-sched.dat" "$TOP/tests/data/rpt-sched.dat" >/dev/null 2>none.err
rc=$?
[ $rc = 0 ] && [ ! -e none.svg ] && grep -q "not written" none.err && ok "no call graphs: no SVG, a warning" ||
	fail "no call graphs: rc $rc, $(cat none.err)"
"$F" diff --callgraph "$TOP/tests/data/rpt-graph.dat" "$TOP/tests/data/rpt-stacks.dat" >kinds.txt 2>&1
grep -q 'call graphs not compared: A has calls data, B has samples' kinds.txt &&
	ok "call graphs of different kinds are not compared" || fail "kinds: $(head -8 kinds.txt)"

# a cut B: compared on what it holds, a warning, partial in the JSON, exit 1
head -c $(($(stat -c %s b.dat) * 2 / 3)) b.dat >cut.dat
"$F" diff --json a.dat cut.dat >cut.json 2>cut.err
rc=$?
[ $rc = 1 ] && grep -q "partial" cut.err && python3 -c '
import json, sys
d = json.load(open("cut.json"))
g = [x for x in d["syscalls"] if x["name"] == "getpid"][0]
assert d["b"]["partial"] and not d["a"]["partial"] and 1000 < g["b"]["count"] < 3000' &&
	ok "a cut file: partial figures, a warning, exit 1" || fail "cut file: rc $rc, $(cat cut.err)"

# usage errors: one line, exit 2; failures: exit 1; a failed --svg leaves nothing
usage() { # expected-rc args...
	local want=$1
	shift
	"$F" diff "$@" >u.out 2>u.err
	local rc=$? n
	n=$(wc -l <u.err)
	[ $rc = "$want" ] && [ "$n" = 1 ] && [ ! -s u.out ] && ok "diff $* -> exit $want, one line" ||
		fail "diff $*: rc $rc, $n lines: $(cat u.err)"
}
usage 2
usage 2 a.dat
usage 2 a.dat b.dat b.dat
usage 2 --per
usage 2 --top 0 a.dat b.dat
usage 2 --top x a.dat b.dat
usage 2 --bogus a.dat b.dat
usage 2 --syscalls=1 a.dat b.dat
usage 2 --syscalls --svg x.svg a.dat b.dat
usage 2 --svg "$TMP" a.dat b.dat
usage 1 --per nosuch a.dat b.dat
usage 1 a.dat missing.dat
usage 1 --svg "$TMP/nodir/x.svg" a.dat b.dat
[ ! -e x.svg ] && [ -z "$(ls -A | grep '^\.')" ] && ok "no SVG or temporary file left by the refused runs" ||
	fail "left: $(ls -A)"
"$F" diff --help | grep -q -- '--per EVENT' && ok "--help" || fail "--help"
finish
