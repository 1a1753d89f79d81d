#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap slice: trace-cmd report of a slice prints the original's lines of
# that window (every fixture and recorded file; function_graph lines the cut
# changes are the listed exception, see slice-compare.py), filters by CPU,
# callgraph on a slice through the middle of calls gives them the durations
# of the full file, info says where the slice came from, and the slice
# verifies whole.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd trace-cmd
F=$FLYTRAP
CMP=tests/report/slice-compare.py

# the middle third of the printed time stamps of a report
thirds() { python3 -c "
import re, sys
ts = sorted(m.group(1) for l in open(sys.argv[1], errors='replace')
            for m in [re.search(r'[\s\]](\d+(?:\.\d+)?): ', l)] if m)
ts.sort(key=float)
n = len(ts)
print('%s %s' % ((ts[n // 3], ts[2 * n // 3]) if n else ('0', '0')))" "$1"; }

n=0
for f in tests/data/*.dat ${FIXTURES:+"$FIXTURES"/*.dat}; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	# trace-cmd 3.1 cannot read zlib files: flytrap report is the oracle there
	if tc_stable "$TMP/o.txt" -i "$f"; then rep="trace-cmd report -i"
	else rep="$F report"; $rep "$f" > "$TMP/o.txt" 2>/dev/null || { fail "$b: unreadable"; continue; }; fi
	read -r t0 t1 < <(thirds "$TMP/o.txt")
	if [ "$t0 $t1" = "0 0" ]; then
		# a file without events: nothing to keep is a failure, and no file
		rm -f "$TMP/s.dat"
		"$F" slice "$f" --from 0 --to 0 -o "$TMP/s.dat" 2> "$TMP/e.txt"
		[ $? = 1 ] && [ ! -e "$TMP/s.dat" ] && grep -q 'holds no event' "$TMP/e.txt" ||
			fail "$b: a slice of no event: $(cat "$TMP/e.txt")"
		continue
	fi
	# the whole kallsyms: of several names at one address (sys_write, SyS_write)
	# libtraceevent prints the one its search meets, which depends on the table's size
	if ! "$F" slice --keep-kallsyms "$f" --from "$t0" --to "$t1" -o "$TMP/s.dat" 2> "$TMP/e.txt"; then
		fail "$b: slice failed: $(cat "$TMP/e.txt")"; continue
	fi
	tc_stable "$TMP/s.txt" -i "$TMP/s.dat" || { fail "$b: trace-cmd cannot read the slice"; continue; }
	[ "$rep" = "trace-cmd report -i" ] || $rep "$TMP/s.dat" > "$TMP/s.txt"
	if out=$(python3 "$CMP" "$TMP/o.txt" "$TMP/s.txt" "$t0" "$t1"); then
		n=$((n + 1))
		[ -n "${V:-}" ] && echo "$b: $out"
	else
		fail "$b ($t0..$t1): $out"
	fi
	"$F" verify "$TMP/s.dat" > /dev/null || fail "$b: the slice does not verify"
done
ok "$n files: report of the slice = the original's lines in the middle third of its time span"

# a CPU filter and an event filter: trace-cmd's --cpu and the lines of the event are the oracle
S=tests/data/sample.dat
"$F" slice $S --cpu 1 -o "$TMP/c.dat" || fail "slice --cpu 1"
trace-cmd report -i "$TMP/c.dat" 2>/dev/null | tail -n +2 | tr -s ' ' > "$TMP/c.txt"
# (trace-cmd's --cpu leaves the instances' lines out: CPU 1's lines of every buffer instead)
trace-cmd report -i $S 2>/dev/null | grep ' \[001\] ' | tr -s ' ' > "$TMP/co.txt"
[ -s "$TMP/c.txt" ] && cmp -s "$TMP/c.txt" "$TMP/co.txt" &&
	ok "--cpu 1: the lines of CPU 1 in the original ($(wc -l < "$TMP/c.txt"))" ||
	fail "--cpu slice differs from trace-cmd --cpu: $(diff "$TMP/c.txt" "$TMP/co.txt" | head -4)"
"$F" slice $S -e 'sched:sched_sw*' -o "$TMP/c.dat" || fail "slice -e"
trace-cmd report -i "$TMP/c.dat" 2>/dev/null | tail -n +2 | tr -s ' ' > "$TMP/c.txt"
trace-cmd report -i $S 2>/dev/null | grep ' sched_switch: ' | tr -s ' ' > "$TMP/co.txt"
[ -s "$TMP/c.txt" ] && cmp -s "$TMP/c.txt" "$TMP/co.txt" &&
	ok "-e 'sched:sched_sw*': the original's sched_switch lines ($(wc -l < "$TMP/c.txt"))" ||
	fail "-e slice differs: $(diff "$TMP/c.txt" "$TMP/co.txt" | head -4)"

# callgraph through the middle of calls: the durations of the full file
G=tests/data/lab-function-graph.dat
trace-cmd report -i $G 2>/dev/null > "$TMP/g.txt"
from=69.145000 to=69.165000
expect=$(python3 - "$TMP/g.txt" $from $to <<'EOF'
import re, sys
# top-level do_sys_openat2 calls per task: entry time, exit time, duration from the exit line
t0, t1 = float(sys.argv[2]), float(sys.argv[3])
open_at, total, n = {}, 0.0, 0
for l in open(sys.argv[1]):
    m = re.search(r'-(\d+)\s+\[\d+\]\s+(\d+\.\d+): funcgraph_(entry|exit):\s+(.*)\|(\s*)(.*)$', l)
    if not m or len(m.group(5)) != 2:
        continue
    pid, t, kind, dur, body = m.group(1), float(m.group(2)), m.group(3), m.group(4), m.group(6)
    if kind == 'entry' and body.startswith('do_sys_openat2'):
        open_at[pid] = t
    elif kind == 'exit' and body == '}' and pid in open_at:
        if open_at.pop(pid) <= t1 and t >= t0:
            total += float(re.search(r'([\d.]+) us', dur).group(1))
            n += 1
print(n, round(total * 1000))
EOF
)
"$F" slice $G --from $from --to $to -o "$TMP/g.dat" || fail "slice of $G"
got=$("$F" callgraph --json "$TMP/g.dat" | python3 -c "
import json, sys
t = json.load(sys.stdin)['tree']
d = [c for c in t['children'] if c['name'] == 'do_sys_openat2'][0]
print(d['count'], d['total'])")
read -r en et <<< "$expect"; read -r gn gt <<< "$got"
[ "$en" -ge 2 ] && [ "$en" = "$gn" ] && [ $(( gt > et ? gt - et : et - gt )) -le $((en * 1000)) ] &&
	ok "callgraph of a slice cutting $en do_sys_openat2 calls: total $gt ns, the full file's $et ns" ||
	fail "callgraph of the slice: $got, expected $expect (count, ns)"
"$F" callgraph --json "$TMP/g.dat" | grep -q '"unmatched_exits":0' &&
	ok "no exit without its entry in the slice's call graph" || fail "unmatched exits in the slice's call graph"

# info: where the slice came from
"$F" info "$TMP/g.dat" > "$TMP/i.txt"
grep -q "slice_of=lab-function-graph.dat" "$TMP/i.txt" && grep -q "from=69.145000" "$TMP/i.txt" &&
	grep -q "filters=--from 69.145000 --to 69.165000" "$TMP/i.txt" &&
	ok "info names the source, the window and the filters" || fail "info: $(grep -A6 slice "$TMP/i.txt")"
"$F" info --json "$TMP/g.dat" | python3 -c "
import json, sys
s = json.load(sys.stdin)['slice']
assert s['slice_of'] == 'lab-function-graph.dat' and s['to'] == '69.165000', s" || fail "info --json slice"

# usage and outputs
"$F" slice $S > /dev/null 2>&1; [ $? = 2 ] || fail "no -o: not exit 2"
"$F" slice $S -o "$TMP/x.dat" --bogus 2> "$TMP/e"; rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && [ ! -e "$TMP/x.dat" ] && ok "a wrong flag: one line, exit 2, no output" ||
	fail "bad flag: rc=$rc"
"$F" slice $S -o $S 2> /dev/null; [ $? = 2 ] || fail "output = input accepted"
"$F" slice $S -o "$TMP/nodir/x.dat" 2> "$TMP/e"; [ $? = 1 ] && grep -q "cannot create" "$TMP/e" || fail "missing dir"
ls -a "$TMP" | grep -q '^\.s\.dat\.' && fail "a temporary file was left behind"
finish
