#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap sql against its oracles: event counts per name as `trace-cmd
# report` prints them (fixtures and test files), per-syscall counts and p99
# as `flytrap overhead --json` gives them, function_graph slice durations
# as `flytrap callgraph --json` totals them; then the constraints the
# reader takes (ts, cpu, name, id) give the rows a plain filter gives, and
# the output forms, --each, rotations, --save and the usage errors.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3

expect() {	# what expected actual
	if [ "$2" = "$3" ]; then ok "$1 = $2"; else fail "$1: expected '$2', got '$3'"; fi
}
sq() { "$FLYTRAP" sql --csv "$@" | tail -n +2; }
jget() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# ---- event counts per name = trace-cmd report -R (raw: no merged function_graph lines)
tc_counts() {	# (tc_stable: trace-cmd 3.1.6 sometimes prints raw ns for old v6 files)
	tc_stable "$TMP/tc-counts.txt" -R -i "$1"
	awk '{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
		n = $(i + 1); sub(/:$/, "", n); c[n]++; break } } END { for (k in c) print k "," c[k] }' \
		"$TMP/tc-counts.txt" | sort
}
if command -v trace-cmd >/dev/null; then
	checked=0
	for f in "$FIXTURES"/*.dat tests/data/*.dat; do
		[ -r "$f" ] || continue
		want=$(tc_counts "$f")
		[ -n "$want" ] || continue	# trace-cmd cannot read it (zlib v7, damaged)
		got=$(sq -c "SELECT name, count(*) FROM ftrace_event GROUP BY name" "$f" | sort)
		if [ "$want" = "$got" ]; then
			checked=$((checked + 1))
		else
			fail "counts per event name differ from trace-cmd on $f"
			diff <(echo "$want") <(echo "$got") | head -5
		fi
	done
	[ "$checked" -ge 8 ] && ok "event counts per name equal trace-cmd report on $checked files" ||
		fail "only $checked files compared with trace-cmd"
else
	echo "note: trace-cmd is not installed: the count comparison is skipped"
fi

# ---- syscalls = overhead --json (both sources of sample.dat), p99 within 1/64
s=tests/data/sample.dat
for src in bpf tracepoints; do
	cat=$([ $src = bpf ] && echo bpf_syscall || echo syscall)
	"$FLYTRAP" overhead --json --syscalls $src "$s" > "$TMP/ov.json" || fail "overhead --json"
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
for x in sorted(j["syscalls"], key=lambda x: x["name"]): print("%s,%d,%d,%d" % (x["name"], x["count"], x["total_ns"], x["p99_ns"]))' \
		"$TMP/ov.json" > "$TMP/ov.txt"
	sq -c "SELECT name, count(*), sum(dur), percentile(dur, 99) FROM slice WHERE category = '$cat'
	       GROUP BY name ORDER BY name" "$s" > "$TMP/sq.txt"
	expect "$src syscall names, counts, totals" "$(cut -d, -f1-3 "$TMP/ov.txt")" "$(cut -d, -f1-3 "$TMP/sq.txt")"
	bad=$(paste -d, "$TMP/ov.txt" "$TMP/sq.txt" | awk -F, '{ d = $4 - $8; if (d < 0) d = -d; if (d > $8 / 64 + 1) print $1, $4, $8 }')
	expect "$src p99 within the histogram's 1/64" "" "$bad"
done
n=$(wc -l < "$TMP/sq.txt")
[ "$n" -ge 10 ] && ok "$n syscalls compared" || fail "only $n syscalls"

# ---- function_graph slices = callgraph totals
f=tests/data/lab-function-graph.dat
"$FLYTRAP" callgraph --json "$f" > "$TMP/cg.json" || fail "callgraph --json"
expect "top-level slice total = callgraph total" "$(jget "$TMP/cg.json" 'j["total"]')" \
	"$(sq -c "SELECT sum(dur) FROM slice WHERE depth = 0" "$f")"
expect "slices = completed calls" "$(jget "$TMP/cg.json" 'j["calls_completed"]')" "$(sq -c "SELECT count(*) FROM slice" "$f")"
expect "per top-level function" \
	"$(jget "$TMP/cg.json" '"\n".join("%s,%d,%d" % (c["name"], c["count"], c["total"]) for c in sorted(j["tree"]["children"], key=lambda c: c["name"]))')" \
	"$(sq -c "SELECT name, count(*), sum(dur) FROM slice WHERE depth = 0 GROUP BY name ORDER BY name" "$f")"
# (ts is the entry record's time, dur the kernel's calltime..rettime: a child
# may end a little after its parent's ts + dur, never start outside it)
expect "children start inside their parents, one level down" 0 \
	"$(sq -c "SELECT count(*) FROM slice c JOIN slice p ON c.parent_id = p.id WHERE c.ts < p.ts OR c.ts > p.ts + p.dur OR c.depth != p.depth + 1" "$f")"
expect "parents" "$(sq -c "SELECT count(*) FROM slice WHERE depth > 0" "$f")" "$(sq -c "SELECT count(*) FROM slice WHERE parent_id IS NOT NULL" "$f")"

# ---- pushed-down constraints give what a plain filter gives
s=tests/data/sample.dat
read -r t0 t1 <<< "$(sq -c "SELECT min(ts) + (max(ts) - min(ts)) / 3, min(ts) + (max(ts) - min(ts)) / 2 FROM ftrace_event" "$s" | tr , ' ')"
expect "ts window" "$(sq -c "SELECT count(*), sum(id % 1000) FROM ftrace_event WHERE ts + 0 BETWEEN $t0 AND $t1" "$s")" \
	"$(sq -c "SELECT count(*), sum(id % 1000) FROM ftrace_event WHERE ts BETWEEN $t0 AND $t1" "$s")"
expect "ts strict bounds" "$(sq -c "SELECT count(*) FROM ftrace_event WHERE ts + 0 > $t0 AND ts + 0 < $t1" "$s")" \
	"$(sq -c "SELECT count(*) FROM ftrace_event WHERE ts > $t0 AND ts < $t1" "$s")"
t=$(sq -c "SELECT ts FROM ftrace_event WHERE name = 'sched_switch' LIMIT 1 OFFSET 100" "$s")
expect "ts =" "$(sq -c "SELECT count(*) FROM ftrace_event WHERE ts + 0 = $t" "$s")" "$(sq -c "SELECT count(*) FROM ftrace_event WHERE ts = $t" "$s")"
expect "cpu =" "$(sq -c "SELECT count(*) FROM ftrace_event WHERE cpu + 0 = 1" "$s")" "$(sq -c "SELECT count(*) FROM ftrace_event WHERE cpu = 1" "$s")"
expect "name =" "$(sq -c "SELECT count(*) FROM ftrace_event WHERE name || '' = 'sched_wakeup'" "$s")" \
	"$(sq -c "SELECT count(*) FROM ftrace_event WHERE name = 'sched_wakeup'" "$s")"
expect "all three" "$(sq -c "SELECT count(*) FROM ftrace_event WHERE name || '' = 'sys_enter' AND cpu + 0 = 0 AND ts + 0 >= $t0" "$s")" \
	"$(sq -c "SELECT count(*) FROM ftrace_event WHERE name = 'sys_enter' AND cpu = 0 AND ts >= $t0" "$s")"
expect "time order" "$(sq -c "SELECT ts FROM ftrace_event WHERE cpu = 0 LIMIT 500" "$s" | sort -n | md5sum)" \
	"$(sq -c "SELECT ts FROM ftrace_event WHERE cpu = 0 LIMIT 500" "$s" | md5sum)"
# ids lead back to their events: args and extract_arg by id, each event's fields
expect "sched_switch args per event" "7" \
	"$(sq -c "SELECT count(*) / (SELECT count(*) FROM ftrace_event WHERE name = 'sched_switch') FROM ftrace_event e JOIN args a USING (arg_set_id) WHERE e.name = 'sched_switch'" "$s")"
expect "args join = extract_arg" "$(sq -c "SELECT sum(a.int_value) FROM ftrace_event e JOIN args a USING (arg_set_id) WHERE e.name = 'sched_switch' AND a.key = 'next_pid'" "$s")" \
	"$(sq -c "SELECT sum(extract_arg(arg_set_id, 'next_pid')) FROM ftrace_event WHERE name = 'sched_switch'" "$s")"
expect "next_pid = trace-cmd" "$(trace-cmd report -R -i "$s" 2>/dev/null | grep -o 'next_pid=[0-9]*' | awk -F= '{ s += $2 } END { print s }')" \
	"$(sq -c "SELECT sum(extract_arg(arg_set_id, 'next_pid')) FROM ftrace_event WHERE name = 'sched_switch'" "$s")"
expect "id = X" "sched_switch" "$(sq -c "SELECT name FROM ftrace_event WHERE id = (SELECT id FROM ftrace_event WHERE name = 'sched_switch' LIMIT 1 OFFSET 7)" "$s")"
# sched_slice: one slice per switch, the CPU time overhead counts
expect "sched_slice per CPU busy = overhead" \
	"$("$FLYTRAP" overhead --json tests/data/rpt-sched.dat | python3 -c 'import json,sys; j=json.load(sys.stdin); print(" ".join(str(c["busy_ns"]) for c in j["cpus"]))')" \
	"$(sq -c "SELECT group_concat(b, ' ') FROM (SELECT sum(dur) AS b FROM sched_slice WHERE utid != 0 GROUP BY cpu ORDER BY cpu)" tests/data/rpt-sched.dat)"

# ---- percentile: exact nearest rank
expect "percentile" "1,4,9,10,10" "$(sq -c "WITH v(x) AS (VALUES (3),(1),(4),(1),(5),(9),(2),(6),(5),(10))
	SELECT percentile(x, 0), percentile(x, 50), percentile(x, 90), percentile(x, 91), percentile(x, 100) FROM v" "$s")"
"$FLYTRAP" sql -c "SELECT percentile(1, 101)" "$s" > /dev/null 2>&1 && fail "percentile(x, 101) accepted" || ok "percentile p out of range fails"

# ---- outputs, --each, rotations, stdin, --save
a=tests/data/rpt-sched.dat b=tests/data/rpt-drops.dat
expect "csv header" "name,n" "$("$FLYTRAP" sql --csv -c "SELECT name, count(*) AS n FROM ftrace_event GROUP BY name" "$a" | head -1)"
"$FLYTRAP" sql --json -c "SELECT name, count(*) AS n, NULL AS z FROM ftrace_event GROUP BY name" "$a" > "$TMP/j" || fail "--json"
expect "json lines" "$(sq -c "SELECT count(DISTINCT name) FROM ftrace_event" "$a")" \
	"$(python3 -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(l)["z"] is None))' "$TMP/j")"
na=$(sq -c "SELECT count(*) FROM ftrace_event" "$a") nb=$(sq -c "SELECT count(*) FROM ftrace_event" "$b")
expect "rotation = one trace" $((na + nb)) "$(sq -c "SELECT count(*) FROM ftrace_event" "$a" "$b")"
expect "--each" "$a,$na
$b,$nb" "$("$FLYTRAP" sql --csv --each -c "SELECT count(*) FROM ftrace_event" "$a" "$b" | tail -n +2)"
expect "stdin, two statements" "$na
2" "$(printf 'SELECT count(*) FROM ftrace_event;\nSELECT count(*) FROM cpu;\n' | "$FLYTRAP" sql --csv "$a" | grep -v '^count')"
"$FLYTRAP" sql -c "SELECT name, count(*) FROM ftrace_event GROUP BY name" "$s" > "$TMP/tab" || fail "table output"
expect "table within 80 columns" 0 "$(awk 'length($0) > 80' "$TMP/tab" | wc -l)"
"$FLYTRAP" sql --save "$TMP/s.db" "$s" || fail "--save"
expect "--save: a real SQLite file with the tables" \
	"$(sq -c "SELECT (SELECT count(*) FROM ftrace_event), (SELECT count(*) FROM slice), (SELECT sum(dur) FROM sched_slice)" "$s")" \
	"$(python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(",".join(str(c.execute(q).fetchone()[0]) for q in ("SELECT count(*) FROM ftrace_event", "SELECT count(*) FROM slice", "SELECT sum(dur) FROM sched_slice")))' "$TMP/s.db")"
ls "$TMP"/s.db.tmp* > /dev/null 2>&1 && fail "--save left its temporary file"

# ---- errors
"$FLYTRAP" sql --bogus "$s" > /dev/null 2> "$TMP/e"; expect "unknown option exit" 2 $?
expect "one line" 1 "$(wc -l < "$TMP/e")"
"$FLYTRAP" sql -c "SELECT 1" "$TMP/none.dat" > /dev/null 2> "$TMP/e"; expect "missing file exit" 1 $?
grep -q "cannot open '$TMP/none.dat'" "$TMP/e" && ok "missing file named" || fail "message: $(cat "$TMP/e")"
"$FLYTRAP" sql -c "SELECT nosuch FROM ftrace_event" "$s" > /dev/null 2> "$TMP/e"; expect "SQL error exit" 1 $?
grep -q "no such column" "$TMP/e" && ok "SQL error said" || fail "message: $(cat "$TMP/e")"
# a cut file: answers cover the readable part, a warning, exit 1
head -c 3328 tests/data/rpt-drops.dat > "$TMP/cut.dat"
"$FLYTRAP" sql --csv -c "SELECT count(*) FROM ftrace_event" "$TMP/cut.dat" > "$TMP/o" 2> "$TMP/e"; rc=$?
n=$(tail -n +2 "$TMP/o")
[ "$rc" = 1 ] && [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" -le "$nb" ] &&
	grep -q "damaged or cut" "$TMP/e" && ok "cut file: $n events, warning, exit 1" || fail "cut file: rc $rc, '$n', $(cat "$TMP/e")"
finish
