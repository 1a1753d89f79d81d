#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Uprobe call graphs do not depend on how the probes were named: a
# uretprobe's __probe_func is its entry probe's __probe_ip, so callgraph
# pairs returns with entries by (task, function address) and names the
# call after the entry event.  Files from tests/tools/mksynth with the same
# calls under several naming schemes and event systems (issue 9, point 3).
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3
MK="$O/tests/tools/mksynth"
[ -x "$MK" ] || skip "no $MK (make builds it)"

# The known answer (see mksynth.c): OUTER 100 calls of 100 us with INNER
# twice inside (200 calls, 3 ms); worker's INNER 100 calls, 0.5 ms; 400 calls.
check() {	# LABEL SYSTEM OUTER OUTER_RET INNER INNER_RET
	local label=$1 f="$TMP/$1.dat"
	"$MK" "$f" uprobes "$2" "$3" "$4" "$5" "$6" > /dev/null || { fail "$label: mksynth"; return; }
	"$FLYTRAP" callgraph --json "$f" > "$TMP/$label.json" || { fail "$label: callgraph --json"; return; }
	if python3 - "$TMP/$label.json" "$3" "$5" <<'PY'; then ok "$label: 400 calls paired, named $3 > $5"; else fail "$label: $(head -c 300 "$TMP/$label.json")"; fi
import json, sys
j = json.load(open(sys.argv[1])); outer, inner = sys.argv[2], sys.argv[3]
top = {(n["name"], n["count"], n["total"]) for n in j["tree"]["children"]}
o = [n for n in j["tree"]["children"] if n["name"] == outer]
kids = {(n["name"], n["count"], n["total"]) for n in o[0]["children"]} if o else set()
bad = []
if (j["calls_completed"], j["calls_open"], j["unmatched_exits"], j["lost_frames"]) != (400, 0, 0, 0):
    bad.append("counts %s" % [j[k] for k in ("calls_completed", "calls_open", "unmatched_exits", "lost_frames")])
if top != {(outer, 100, 10000000), (inner, 100, 500000)}: bad.append("top level %s" % top)
if kids != {(inner, 200, 3000000)}: bad.append("under %s: %s" % (outer, kids))
if bad: print("; ".join(bad)); sys.exit(1)
PY
	true
}

check ret-suffix   grp      foo     foo_ret     bar     bar_ret
check p-r          uprobes  p_x     r_x         p_y     r_y
check return       uprobes  x       x__return   y       y__return
check no-names     probes   enter   leave       ping    pong
check flytrap      flytrap_4242 handle handle__return parse parse__return
# names that lie: each return is named after the other function
check swapped      uprobes  foo     bar__return bar     foo__return

# the text a user reads says the same (and fits 80 columns)
"$FLYTRAP" callgraph "$TMP/no-names.dat" > "$TMP/t" || fail "callgraph text"
grep -q "400 calls, 10.500 ms in top-level calls" "$TMP/t" && grep -q "0 still open at the end, 0 returns without a call" "$TMP/t" \
	&& ok "text: 400 calls, 0 open, 0 unmatched" || fail "text: $(cat "$TMP/t")"
awk 'length > 80 { exit 1 }' "$TMP/t" && ok "text within 80 columns" || fail "a line over 80 columns"
# per task: worker's calls hang under worker, app's under app
"$FLYTRAP" callgraph --per-task --folded "$TMP/no-names.dat" > "$TMP/fold" || fail "callgraph --folded"
grep -qx "app-700;enter;ping 3000000" "$TMP/fold" && grep -qx "worker-701;ping 500000" "$TMP/fold" \
	&& ok "per task: app-700;enter;ping and worker-701;ping" || fail "folded per task: $(cat "$TMP/fold")"
# a real recording: uprobe_target 1000 with probes set by hand in tracefs,
# p:cgtest/alpha and r:cgtest/omega on ut_outer, p:cgtest/ping and
# r:cgtest/pong on ut_middle (which ut_outer calls twice)
"$FLYTRAP" callgraph --json tests/data/uprobes-alpha-omega.dat > "$TMP/real.json" || fail "callgraph on the real file"
python3 - "$TMP/real.json" <<'PY' && ok "real uprobes alpha/omega, ping/pong: 3000 calls, 1000 > 2000" || fail "real file: $(head -c 300 "$TMP/real.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert (j["calls_completed"], j["calls_open"], j["unmatched_exits"]) == (3000, 0, 0), j
top = j["tree"]["children"]
# named after the function when this machine has the same binary, else after the entry event
assert len(top) == 1 and top[0]["name"] in ("ut_outer", "alpha") and top[0]["count"] == 1000, top
kids = top[0]["children"]
assert len(kids) == 1 and kids[0]["name"] in ("ut_middle", "ping") and kids[0]["count"] == 2000, kids
PY

# sql's slice table pairs the same way (its rows are the calls callgraph counts)
for l in swapped no-names; do
	"$FLYTRAP" sql -c "SELECT name, depth, count(*), sum(dur) FROM slice WHERE category = 'uprobe'
		GROUP BY 1, 2 ORDER BY 2, 4" "$TMP/$l.dat" > "$TMP/sql" 2>&1 || fail "sql on $l: $(cat "$TMP/sql")"
	tr -s ' ' < "$TMP/sql" | grep -v -- '--' > "$TMP/rows"
	case $l in swapped) o=foo i=bar ;; no-names) o=enter i=ping ;; esac
	printf '%s\n' "name depth count(*) sum(dur)" "$i 0 100 500000" "$o 0 100 10000000" "$i 1 200 3000000" "(3 rows)" |
		diff - "$TMP/rows" > /dev/null && ok "sql slice on $l: the same 400 calls" || fail "sql slice on $l: $(cat "$TMP/sql")"
done
finish
