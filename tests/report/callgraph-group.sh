#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# callgraph --group and the HTML report's flame graph (issue 35, item 8):
#  - --group comm|process|thread|none keep the tree's total; each group
#    frame holds the sum of its tasks (a comm's frame is the sum of its
#    threads' "comm-tid" frames), and no function's figures change;
#  - --per-task is --group thread; a wrong --group is one line and exit 2;
#  - export --html groups the flame graph by task name: on a recording of
#    many short `ls` processes the widest tower is `ls`, not one thin
#    "ls-PID" tower each, nor an [unwind: ...] marker; --group thread gives
#    the comm-tid towers back; Chromium renders the same widest tower and a
#    screenshot is kept ($O/test-logs/callgraph-group.png).
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3

# sums FILE SOURCE: the figures of every grouping agree
sums() {
	local f=$1 src=$2 g
	for g in none comm process thread; do
		"$FLYTRAP" callgraph --json --source "$src" --group "$g" "$f" >"$TMP/$g.json" 2>/dev/null ||
			{ fail "$(basename "$f"): callgraph --group $g exits non-zero"; return; }
	done
	"$FLYTRAP" callgraph --json --source "$src" --per-task "$f" >"$TMP/pt.json" 2>/dev/null
	cmp -s "$TMP/pt.json" "$TMP/thread.json" || fail "$(basename "$f"): --per-task is not --group thread"
	python3 - "$TMP" "$(basename "$f")" <<'PY' || { fail "$(basename "$f") ($src): the groupings disagree"; return; }
import json, sys, collections
d = sys.argv[1]
r = {g: json.load(open('%s/%s.json' % (d, g))) for g in ('none', 'comm', 'process', 'thread')}
tot = {g: r[g]['total'] for g in r}
assert len(set(tot.values())) == 1, tot
assert [r[g]['group'] for g in r] == list(r), [r[g]['group'] for g in r]
def top(g):
    t = r[g]['tree']
    return t.get('children', [])
# every top node of a grouped tree is a group frame: comm-tagged, or with a pid
for n in top('comm'):
    assert n.get('comm') is True and 'pid' not in n, n['name']
for g in ('process', 'thread'):
    for n in top(g):
        assert 'pid' in n and n['name'].endswith('-%d' % n['pid']), n['name']
# a comm's frame is the sum of its threads' frames
by = collections.Counter()
for n in top('thread'):
    by[n['name'].rsplit('-', 1)[0]] += n['total']
comm = {n['name']: n['total'] for n in top('comm')}
assert sum(comm.values()) == tot['none'], (sum(comm.values()), tot['none'])
assert sum(by.values()) == tot['none']
# a task renamed by exec (sh -> ls) is under its name at each sample, where its thread frame
# takes the last name: the names agree, the split between them may not
assert set(comm) & set(by) and len(comm) <= len(top('thread')), (comm, dict(by))
# the functions' figures do not depend on the grouping
def funcs(t, acc):
    for c in t.get('children', []):
        if 'pid' not in c and not c.get('comm'):
            acc[c['name']] += c['total']
        funcs(c, acc)
    return acc
f0 = funcs(r['none']['tree'], collections.Counter())
for g in ('comm', 'process', 'thread'):
    assert funcs(r[g]['tree'], collections.Counter()) == f0, g
open(d + '/sums.txt', 'w').write('%s: total %d in %d comm, %d process, %d thread frames' % (
      sys.argv[2], tot['none'], len(top('comm')), len(top('process')), len(top('thread'))))
PY
	ok "$src: $(cat "$TMP/sums.txt")"
}
for fs in "tests/data/sample.dat samples" "tests/data/sample.dat offcpu" \
	"tests/data/rpt-stacks.dat samples" "tests/data/lab-function-graph.dat calls" \
	"tests/data/uprobes-alpha-omega.dat calls"; do
	read -r f src <<<"$fs"
	sums "$f" "$src"
done

# usage errors: one line, exit 2
for a in "callgraph --group" "callgraph --group bogus" "export --group comm" "export --html --group x"; do
	# shellcheck disable=SC2086
	"$FLYTRAP" $a tests/data/sample.dat >"$TMP/u.out" 2>"$TMP/u.err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$TMP/u.err")" = 1 ] && ok "$a: exit 2, $(cat "$TMP/u.err")" ||
		fail "$a: exit $rc, $(head -3 "$TMP/u.err")"
done

# widest FILE.html: the widest frame just above "all" in the page's inline SVG (or a rendered DOM)
widest() {
	python3 - "$1" <<'PY'
import re, sys, html
s = open(sys.argv[1], encoding='utf-8', errors='replace').read()
best = None
for m in re.finditer(r'<g class="f"[^>]*data-w="([0-9.]+)"[^>]*data-d="1"[^>]*><title>([^<]*)</title>', s):
    w, name = float(m.group(1)), html.unescape(m.group(2)).rsplit(' (', 1)[0]
    if best is None or w > best[0]:
        best = (w, name)
print('%s %.3f' % (best[1], best[0]) if best else '')
PY
}
# sample.dat: a loop of short `ls` processes, each sampled a few times
f=tests/data/sample.dat
"$FLYTRAP" export --html -o "$TMP/g.html" "$f" 2>/dev/null || fail "export --html $f"
"$FLYTRAP" export --html --group thread -o "$TMP/t.html" "$f" 2>/dev/null ||
	fail "export --html --group thread $f"
read -r wname ww <<<"$(widest "$TMP/g.html")"
read -r tname tw <<<"$(widest "$TMP/t.html")"
nls=$("$FLYTRAP" callgraph --json --group process "$f" | python3 -c 'import json, sys
print(sum(1 for n in json.load(sys.stdin)["tree"]["children"] if n["name"].startswith("ls-")))')
case $wname in
ls) ok "the HTML flame graph's widest tower is 'ls' ($ww of the width; $nls ls processes)" ;;
*) fail "the widest tower of the HTML flame graph is '$wname' ($ww), not ls" ;;
esac
case $tname in
ls-[0-9]*) python3 -c "import sys; sys.exit(not float('$tw') < float('$ww'))" &&
	ok "--group thread: one tower per task, the widest '$tname' ($tw)" ||
	fail "--group thread: '$tname' ($tw) is not narrower than ls ($ww)" ;;
*) fail "--group thread: the widest tower is '$tname'" ;;
esac
[ "$nls" -gt 3 ] || fail "sample.dat has $nls ls processes, the test wants several"

# what the browser draws (not in the sanitizer run: Chromium is not ours)
CHROME=$(command -v chromium || command -v chromium-browser || true)
if light; then
	echo "note: light run: the browser check is left to the full run"
elif [ -z "$CHROME" ]; then
	echo "note: the browser check needs chromium (apt-get install -y chromium)"
else
	prof=$(mktemp -d "$TMP/chrome.XXXXXX")
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--no-first-run --user-data-dir="$prof" --window-size=1400,1200 \
		--dump-dom "file://$TMP/g.html" >"$TMP/g.dom" 2>/dev/null
	read -r dname dw <<<"$(widest "$TMP/g.dom")"
	grep -q 'data-ready="1"' "$TMP/g.dom" && [ "$dname" = ls ] &&
		ok "Chromium draws the flame graph with 'ls' widest ($dw)" ||
		fail "Chromium's page: widest '$dname', ready: $(grep -c 'data-ready="1"' "$TMP/g.dom")"
	mkdir -p "$TOP/$O/test-logs"
	prof=$(mktemp -d "$TMP/chrome.XXXXXX")
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--no-first-run --user-data-dir="$prof" --window-size=1400,1600 \
		--screenshot="$TOP/$O/test-logs/callgraph-group.png" "file://$TMP/g.html" >/dev/null 2>&1
	sz=$(stat -c %s "$TOP/$O/test-logs/callgraph-group.png" 2>/dev/null || echo 0)
	[ "$sz" -gt 20000 ] && ok "screenshot $O/test-logs/callgraph-group.png ($sz bytes)" ||
		fail "no usable screenshot ($sz bytes)"
fi
finish
