#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Filters and figures users check by hand: --from/--to in drops and
# overhead, tasks that exit, pid-filtered recordings, the recorder's own
# CPU, deep call trees, names cut to fit 80 columns.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
F=$FLYTRAP
S=tests/data

# ---- drops and overhead honour --from/--to ----------------------------------------
out=$("$F" drops --from 99999 "$S/sample.dat")
echo "$out" | grep -q "0 events in the window 99999.000000..end: it is outside the file's span" &&
	! echo "$out" | grep -q '20679 events read,' &&
	ok "drops --from after the trace: 0 events in the window, outside the span" ||
	fail "drops --from 99999 sample.dat: $(echo "$out" | head -4)"
# rpt-drops.dat (tests/tools/mkrpt.c): from 20.3 s one marker is left (CPU 1, 7 events)
out=$("$F" drops --from 20.3 "$S/rpt-drops.dat")
echo "$out" | grep -q 'page loss markers:   1 marker, 7 events counted' &&
	echo "$out" | grep -q '3 events in the window, 20.300000..20.500000' &&
	[ "$(echo "$out" | sed -n '/^loss markers/,/^$/p' | grep -c 'CPU')" = 1 ] &&
	ok "drops --from 20.3: the summary counts the 1 marker the list shows" ||
	fail "drops --from 20.3 rpt-drops.dat: $(echo "$out" | head -12)"
"$F" drops --json --from 20.3 "$S/rpt-drops.dat" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["windowed"] and d["events"] == 3 and d["events_in_file"] == 11, d
assert d["total"]["loss_markers"] == 1 and d["total"]["lost_marked"] == 7, d["total"]
assert sum(s["loss_markers"] for s in d["streams"]) == 1
' && ok "drops --json --from 20.3: events, markers and streams count the window" ||
	fail "drops --json --from 20.3"
# the per-window table divides the window, not the file: 20 ms windows from 20.1 s
"$F" drops --json --from 20.1 --to 20.45 "$S/rpt-drops.dat" | python3 -c '
import json, sys
d = json.load(sys.stdin)
w = d["windows"]
assert d["window_ns"] == 20000000 and len(w) == 18, (d["window_ns"], len(w))
assert w[0]["start"] == 20100000000 and w[-1]["start"] <= 20450000000 < w[-1]["end"], w
assert sum(x["events"] for x in w) == d["events"] == 5, d["events"]
assert sum(x["loss_markers"] for x in w) == d["total"]["loss_markers"], w
' && ok "drops --from 20.1 --to 20.45: 18 windows of 20 ms from 20.1 s count the window's 5 events" ||
	fail "drops --json --from 20.1 --to 20.45: windows do not divide the window"
out=$("$F" overhead --from 99999 "$S/sample.dat")
echo "$out" | grep -q "the window is outside the file's span 1608.705592..1612.880176" &&
	ok "overhead --from after the trace says the window is outside the span" ||
	fail "overhead --from 99999: $(echo "$out" | head -4)"

# ---- overhead: exited tasks, pid-limited recordings, the recorder's CPU -------------
# sample.dat: ls-12615 exits (sched_process_exit, then switched out X) at
# 1608.900 s of a trace ending at 1612.880 s: nothing after that is "blocked"
"$F" overhead --json --pid 12615 "$S/sample.dat" | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = [t for t in d["tasks"] if t["pid"] == 12615][0]
assert t["exited"] is True, t
# it lived 1608.705..1608.900 s: on-CPU + runnable + blocked fit in 0.2 s
assert t["on_cpu_ns"] + t["off_cpu_ns"] < 200000000, t
' && ok "overhead: ls-12615 exits 0.2 s into the trace, no time counted after" ||
	fail "overhead --pid 12615: $("$F" overhead --pid 12615 "$S/sample.dat" | grep -- '-12615')"
out=$("$F" overhead "$S/sample.dat")
echo "$out" | grep -q '  ls-12615\*  ' && echo "$out" | grep -q '^  \* exited during the trace' &&
	ok "overhead text marks exited tasks" || fail "overhead: no exited marker: $(echo "$out" | grep -- '-12615')"
# sample.dat was recorded with -P 12525 (metadata pids=12525)
echo "$out" | grep -q 'limited to pids 12525' && ! echo "$out" | grep -q '100.0%' &&
	ok "overhead on a pid-limited recording claims no CPU busy/idle figures" ||
	fail "overhead on sample.dat: $(echo "$out" | sed -n '/^CPU time/,/^Tasks/p')"
"$F" overhead --json "$S/sample.dat" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["recorded_pids"] == "12525", d["recorded_pids"]
assert all(c["busy_ns"] is None and c["idle_ns"] is None for c in d["cpus"]), d["cpus"]
' && ok "overhead --json: recorded_pids, busy/idle null" || fail "overhead --json on sample.dat"
"$F" overhead --json "$S/rpt-sched.dat" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["recorded_pids"] is None and d["cpus"][0]["busy_ns"] == 90000000, d["cpus"]
' && ok "overhead --json on a whole-system file keeps its CPU figures" || fail "overhead --json rpt-sched.dat"
# lab-kfunc.dat: capture_user_us=5988 capture_sys_us=20984 over duration_ns=42551170
# (63.4 %), while the process total (1042529 + 2468029 us) includes BPF setup
out=$("$F" overhead "$S/lab-kfunc.dat")
echo "$out" | grep -q 'recorder CPU while capturing: 5.988 ms user + 20.984 ms sys' &&
	echo "$out" | grep -q '63.4% of a CPU over 42.551 ms' &&
	echo "$out" | grep -q 'recorder CPU in total (setup and teardown included): 3.511 s' &&
	ok "overhead: the recorder's share of a CPU is its capture CPU (63.4 %), the total apart" ||
	fail "overhead recorder CPU: $(echo "$out" | grep -A2 'recorder CPU')"

# ---- callgraph: --svg checked first, deep trees readable, hidden nodes counted ------
for a in callgraph analyze; do
	"$F" $a --svg /nonexistent-dir/x.svg "$S/lab-function-graph.dat" > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc = 1 ] && [ ! -s "$TMP/o" ] && grep -q "cannot create '/nonexistent-dir/x.svg'" "$TMP/e" &&
		ok "$a --svg in a missing directory fails before printing anything" ||
		fail "$a --svg /nonexistent-dir/x.svg: exit $rc, $(wc -c < "$TMP/o") bytes out, $(cat "$TMP/e")"
done
"$F" callgraph --svg "$TMP/cg.svg" "$S/lab-function-graph.dat" > /dev/null && [ -s "$TMP/cg.svg" ] &&
	ok "callgraph --svg FILE still writes the picture" || fail "callgraph --svg $TMP/cg.svg"
# lab-function-graph.dat: 729 nodes, 24 levels deep
out=$("$F" callgraph "$S/lab-function-graph.dat")
echo "$out" | grep -Eq '^ .*  +\[24\] __default_send_IPI_dest_f~$' &&
	echo "$out" | grep -Eq '\[17\] ttwu_queue_wakelist$' &&
	ok "callgraph: deep levels carry a [N] marker, names whole or cut with ~" ||
	fail "callgraph deep tree: $(echo "$out" | grep -m3 'ttwu_queue\|IPI_dest')"
shown=$("$F" callgraph --depth 3 "$S/lab-function-graph.dat" | grep -c '%  *[0-9.]* [num ]*s ')
hidden=$("$F" callgraph --depth 3 "$S/lab-function-graph.dat" | sed -n 's/^  (\([0-9]*\) nodes below.*/\1/p')
[ $((shown + hidden)) = 729 ] && [ "$shown" -gt 0 ] &&
	ok "callgraph --depth 3: $shown shown + $hidden not shown = the 729 nodes" ||
	fail "callgraph --depth 3: $shown shown, '$hidden' said hidden, of 729"
"$F" callgraph --json --depth 3 "$S/lab-function-graph.dat" | python3 -c '
import json, sys
d = json.load(sys.stdin)
def n(t): return 1 + sum(n(c) for c in t["children"])
assert n(d["tree"]) - 1 + d["hidden"] == d["nodes"] == 729, (n(d["tree"]), d["hidden"], d["nodes"])
' && ok "callgraph --json --depth 3: shown + hidden = nodes" || fail "callgraph --json --depth 3 hidden count"

# ---- names cut for a column say so; one duration style ------------------------------
out=$("$F" overhead "$S/sample.dat")
echo "$out" | grep -q '  clock_nanosle~ ' && ! echo "$out" | grep -q 'clock_nanoslee' &&
	ok "overhead: a long syscall name is cut with a visible ~" ||
	fail "overhead syscall names: $(echo "$out" | grep clock_nano)"
echo "$out" | grep -Eq '[0-9](ns|us|ms|s)( |$)' &&
	fail "overhead mixes '4.13s' with '4.175 s': $(echo "$out" | grep -E '[0-9](ns|us|ms|s)( |$)' | head -2)" ||
	ok "overhead: every duration has a space before its unit"
for a in overhead drops callgraph; do
	for f in "$S"/*.dat; do
		w=$("$F" $a "$f" 2>/dev/null | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
		[ "$w" -le 80 ] || fail "$a ${f##*/}: a line of $w columns"
	done
done
ok "overhead, drops, callgraph on every tests/data file fit 80 columns"
finish
