#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap diff on two live recordings of getpid_loop, which calls getpid()
# 1000 times in A and 3000 times in B (syscall tracepoints, sched_switch,
# uprobes on its main and calls functions): the diff shows getpid going from
# 1000 to 3000 calls (+2000, ratio 3) and the program's task making 2000
# more syscalls, in JSON and in the text; the call graphs are compared
# (main;calls, longer in B), and the differential flame graph is written,
# is well-formed, and opens in headless Chromium with its script run.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd python3
[ -e "$TRACEFS/events/raw_syscalls/sys_enter" ] || skip "no raw_syscalls:sys_enter event"
[ -e "$TRACEFS/uprobe_events" ] || skip "no uprobe_events in tracefs (CONFIG_UPROBE_EVENTS)"
"$FLYTRAP" record --help >/dev/null 2>&1 || skip "flytrap was built without record (NO_RECORD=1)"
. "$(dirname "$0")/_record.sh"
[ -x "$LOOP" ] || skip "getpid_loop not built"
cd "$TMP" || exit 1

rec() { # out N
	"$FLYTRAP" record -q -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -e sched:sched_switch \
		--uprobe "$LOOP:main" --uprobe "$LOOP:calls" -o "$1" -- "${TOOLENV[@]}" "$LOOP" "$2" \
		>"$1.out" 2>"$1.err"
}
rec a.dat 1000 || { fail "record A: $(head -3 a.dat.err)"; finish; }
rec b.dat 3000 || { fail "record B: $(head -3 b.dat.err)"; finish; }
ok "two recordings: getpid_loop 1000 and 3000"

"$FLYTRAP" diff --json --comm getpid_loop a.dat b.dat >d.json 2>d.err
rc=$?
[ $rc = 0 ] && ok "diff --json exits 0" || { fail "diff --json: rc $rc: $(cat d.err)"; finish; }
python3 - d.json "$tool_sanitized" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sanitized = sys.argv[2] == "1"
def row(t, name):
    r = [x for x in d[t] if x["name"] == name]
    return r[0] if r else None
bad = []
g = row("syscalls", "getpid")
if not g or g["status"] != "both":
    bad.append("getpid not in both: %s" % g)
else:
    a, b = g["a"]["count"], g["b"]["count"]
    print("getpid: %d -> %d, ratio %.3f, per second %.0f -> %.0f" % (a, b, g["ratio"]["count"],
          g["rate_count"]["a"], g["rate_count"]["b"]))
    # the sanitizer runtime adds a few calls of its own to both runs
    if g["delta"]["count"] != 2000 or (not sanitized and (a, b) != (1000, 3000)):
        bad.append("getpid counts %d -> %d" % (a, b))
    if not 2.9 <= g["ratio"]["count"] <= 3.0 + 1e-9:
        bad.append("getpid ratio %s" % g["ratio"]["count"])
t = row("tasks", "getpid_loop")
if not t or t["status"] != "both":
    bad.append("task getpid_loop not in both: %s" % t)
else:
    print("task getpid_loop: syscalls %d -> %d (ratio %.2f), on-CPU %d -> %d ns" % (
          t["a"]["syscalls"], t["b"]["syscalls"], t["ratio"]["syscalls"], t["a"]["on_cpu_ns"],
          t["b"]["on_cpu_ns"]))
    if not 1990 <= t["delta"]["syscalls"] <= 2010:
        bad.append("task syscalls delta %d" % t["delta"]["syscalls"])
    if not (t["a"]["on_cpu_ns"] > 0 and t["b"]["on_cpu_ns"] > 0):
        bad.append("task on-CPU time missing")
if not d["callgraph"]["compared"]:
    bad.append("call graphs not compared")
p = row("paths", "main;calls")
# (its times are wall-clock, so other load on the machine can make either run the longer one)
if not p or p["a"]["count"] != 1 or p["b"]["count"] != 1 or not p["a"]["total"] or not p["b"]["total"]:
    bad.append("path main;calls: %s" % p)
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
PY
[ $? = 0 ] && ok "getpid 1000 -> 3000 (+2000, ratio 3), the task +2000 syscalls, main;calls in both" ||
	fail "diff figures"

"$FLYTRAP" diff --comm getpid_loop --svg d.svg a.dat b.dat >d.txt 2>d2.err || fail "diff --svg: $(cat d2.err)"
if [ "$tool_sanitized" = 0 ]; then
	grep -Eq '^  getpid +1000 +3000 +\+2000 +3\.00x ' d.txt && ok "text: getpid 1000 3000 +2000 3.00x" ||
		fail "text getpid row: $(grep getpid d.txt)"
else
	grep -Eq '^  getpid +[0-9]+ +[0-9]+ +\+2000 +(2\.9[0-9]|3\.00)x ' d.txt && ok "text: getpid +2000, ~3x" ||
		fail "text getpid row: $(grep getpid d.txt)"
fi
grep -Eq '^  getpid_loop ' d.txt && ok "text: the program's task in the task table" || fail "no task row"
[ "$(awk 'length($0) > 80' d.txt | wc -l)" = 0 ] && ok "text within 80 columns" || fail "text wider than 80"

[ -s d.svg ] && ok "differential SVG written" || { fail "no SVG: $(cat d2.err)"; finish; }
python3 - d.svg d.json <<'PY' && ok "SVG well-formed, main and calls drawn, coloured by B against A" ||
import json, re, sys, xml.dom.minidom
s = open(sys.argv[1]).read()
xml.dom.minidom.parseString(s)
fr = dict((m.group(1), (m.group(2), m.group(3))) for m in re.finditer(
    r'<g class="f"[^>]*><title>([^ <]*) \(([^<]*)</title><rect[^>]*fill="rgb\(([0-9,]*)\)"', s))
assert "main" in fr and "calls" in fr, fr
# red when B's time in calls() is larger, blue when smaller (the JSON's figures)
p = [x for x in json.load(open(sys.argv[2]))["paths"] if x["name"] == "main;calls"][0]
r, g, b = map(int, fr["calls"][1].split(","))
grew = p["b"]["total"] >= p["a"]["total"]
assert (r == 255 and g == b) if grew else (b == 255 and r == g), (fr["calls"], p)
assert "; before " in fr["calls"][0], fr["calls"]
PY
	fail "SVG content"

CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROME" ] || { echo "note: no chromium: the SVG was not opened in a browser"; finish; }
case "$(readlink -f "$CHROME")" in /snap/*) echo "note: chromium is a snap, it cannot open $TMP"; finish ;; esac
prof=$(mktemp -d "$TMP/chrome.XXXXXX")
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
	--user-data-dir="$prof" --enable-logging=stderr --v=0 --dump-dom "file://$TMP/d.svg" >d.dom 2>chrome.log
grep -q 'data-ready="1"' d.dom && ok "Chromium opened the SVG and ran its script" ||
	fail "Chromium: the flame graph script did not run: $(grep -m3 -E 'ERROR|CONSOLE' chrome.log)"
grep -q CONSOLE chrome.log && fail "console messages: $(grep CONSOLE chrome.log | head -3)"
prof=$(mktemp -d "$TMP/chrome.XXXXXX")
mkdir -p "$TOP/$O/test-logs"
png="$TOP/$O/test-logs/diff-flame.png"
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
	--user-data-dir="$prof" --window-size=1250,300 --screenshot="$png" "file://$TMP/d.svg" >/dev/null 2>&1
sz=$(stat -c %s "$png" 2>/dev/null || echo 0)
[ "$sz" -gt 5000 ] && ok "rendered: screenshot $O/test-logs/diff-flame.png ($sz bytes)" ||
	fail "no usable screenshot ($sz bytes)"
finish
