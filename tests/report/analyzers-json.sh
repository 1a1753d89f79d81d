#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The hand-checked numbers of the synthetic files, read from --json (the
# stable interface), and cross-checks against trace-cmd as the oracle:
# function_graph durations and loss markers as `trace-cmd report` prints
# them, kernel counters as the file stores them.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3

# jq-like: jget FILE PYTHON-EXPR (the JSON object is "j")
jget() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
expect() {	# what expected actual
	if [ "$2" = "$3" ]; then ok "$1 = $2"; else fail "$1: expected $2, got $3"; fi
}

# ---- callgraph: the known tree
"$FLYTRAP" callgraph --json tests/data/rpt-graph.dat > "$TMP/cg.json" || fail "callgraph --json"
expect "top-level total" 300000 "$(jget "$TMP/cg.json" 'j["total"]')"
expect "completed calls" 7 "$(jget "$TMP/cg.json" 'j["calls_completed"]')"
expect "open calls" 1 "$(jget "$TMP/cg.json" 'j["calls_open"]')"
expect "unmatched returns" 1 "$(jget "$TMP/cg.json" 'j["unmatched_exits"]')"
q='[c for c in j["tree"]["children"] if c["name"]=="ksys_read"][0]'
expect "ksys_read total/self" "200000 70000" "$(jget "$TMP/cg.json" "'%d %d' % ($q['total'], $q['self'])")"
q2="[c for c in $q['children'] if c['name']=='vfs_read'][0]"
expect "vfs_read self" 40000 "$(jget "$TMP/cg.json" "$q2['self']")"
q3="[c for c in $q2['children'] if c['name']=='ext4_file_read_iter'][0]"
expect "ext4 calls/total" "2 50000" "$(jget "$TMP/cg.json" "'%d %d' % ($q3['count'], $q3['total'])")"
# folded weights add up to the total
sum=$("$FLYTRAP" callgraph --folded tests/data/rpt-graph.dat | awk '{ s += $NF } END { print s }')
expect "folded sum" 300000 "$sum"

# function_graph of a real trace-cmd file: the sum of the top-level call
# durations trace-cmd prints equals flytrap's total
f=$FIXTURES/wsdias+LabSisOp__trace.dat
if [ -r "$f" ] && command -v trace-cmd >/dev/null; then
	want=$(trace-cmd report -i "$f" 2>/dev/null | awk '/funcgraph_exit/ { for (i = 1; i <= NF; i++) if ($i == "us") { v = $(i-1); gsub(/[^0-9.]/, "", v); s += v } } END { printf "%.0f", s * 1000 }')
	"$FLYTRAP" callgraph --json "$f" > "$TMP/fix.json" || fail "callgraph on the fixture"
	expect "fixture total (ns) vs trace-cmd" "$want" "$(jget "$TMP/fix.json" 'j["total"]')"
fi

# ---- overhead: CPU, task and syscall figures
"$FLYTRAP" overhead --json tests/data/rpt-sched.dat > "$TMP/ov.json" || fail "overhead --json"
expect "cpu0 busy/idle" "90000000 10000000" "$(jget "$TMP/ov.json" "'%d %d' % (j['cpus'][0]['busy_ns'], j['cpus'][0]['idle_ns'])")"
expect "cpu1 busy/idle" "50000000 50000000" "$(jget "$TMP/ov.json" "'%d %d' % (j['cpus'][1]['busy_ns'], j['cpus'][1]['idle_ns'])")"
t='[t for t in j["tasks"] if t["pid"]==100][0]'
expect "app on/runnable/blocked" "80000000 10000000 10000000" \
	"$(jget "$TMP/ov.json" "'%d %d %d' % ($t['on_cpu_ns'], $t['runnable_ns'], $t['blocked_ns'])")"
s='[s for s in j["syscalls"] if s["name"]=="read"][0]'
expect "read count/total/p50/p99/max" "2 6000000 2000000 4000000 4000000" \
	"$(jget "$TMP/ov.json" "'%d %d %d %d %d' % ($s['count'], $s['total_ns'], $s['p50_ns'], $s['p99_ns'], $s['max_ns'])")"
s='[s for s in j["syscalls"] if s["name"]=="write"][0]'
expect "write errors" 1 "$(jget "$TMP/ov.json" "$s['errors']")"
expect "irq 16 time" 500000 "$(jget "$TMP/ov.json" "j['irqs'][0]['total_ns']")"
expect "event bytes add up" "$(jget "$TMP/ov.json" "sum(e['bytes'] for e in j['event_types'])")" "$(jget "$TMP/ov.json" "j['bytes']")"
# the window clips intervals
"$FLYTRAP" overhead --json --from 10.020 --to 10.040 tests/data/rpt-sched.dat > "$TMP/ovw.json"
expect "clipped cpu0 busy" 20000000 "$(jget "$TMP/ovw.json" "j['cpus'][0]['busy_ns']")"

# ---- BPF records and uprobes
"$FLYTRAP" callgraph --json tests/data/rpt-bpf.dat > "$TMP/bpf.json" || fail "callgraph --json bpf"
q='[c for c in j["tree"]["children"] if c["name"]=="main"][0]'
expect "ufunc main total/self" "20000000 12000000" "$(jget "$TMP/bpf.json" "'%d %d' % ($q['total'], $q['self'])")"
q='[c for c in j["tree"]["children"] if c["name"]=="handle_req"][0]'
expect "uprobe handle_req total/self" "5000000 4000000" "$(jget "$TMP/bpf.json" "'%d %d' % ($q['total'], $q['self'])")"
"$FLYTRAP" callgraph --json --source offcpu tests/data/rpt-bpf.dat > "$TMP/off.json"
expect "offcpu blocked ns" 10000000 "$(jget "$TMP/off.json" "j['total']")"
"$FLYTRAP" overhead --json tests/data/rpt-bpf.dat > "$TMP/ovb.json"
expect "syscall source" bpf "$(jget "$TMP/ovb.json" "j['syscall_source']")"
s='[s for s in j["syscalls"] if s["name"]=="read"][0]'
expect "BPF read count/total/p50/max" "2 4000000 1000000 3000000" \
	"$(jget "$TMP/ovb.json" "'%d %d %d %d' % ($s['count'], $s['total_ns'], $s['p50_ns'], $s['max_ns'])")"
s='[s for s in j["syscalls"] if s["name"]=="open"][0]'
expect "in-kernel histogram count/total/max" "3 3000 1500 True" \
	"$(jget "$TMP/ovb.json" "'%d %d %d %s' % ($s['count'], $s['total_ns'], $s['max_ns'], $s['from_histograms'])")"

# ---- drops: totals equal the kernel's counters stored in the file
"$FLYTRAP" drops --json tests/data/rpt-drops.dat > "$TMP/dr.json" || fail "drops --json"
expect "kernel lost (end - start)" 22 "$(jget "$TMP/dr.json" "j['total']['kernel_lost']")"
expect "cpu0 kernel lost" 12 "$(jget "$TMP/dr.json" "[s for s in j['streams'] if s['cpu']==0][0]['kernel']['lost']")"
expect "cpu1 overrun+dropped" "7 3" "$(jget "$TMP/dr.json" "'%d %d' % ([s for s in j['streams'] if s['cpu']==1][0]['kernel']['overrun'], [s for s in j['streams'] if s['cpu']==1][0]['kernel']['dropped'])")"
expect "bpf drops" 6 "$(jget "$TMP/dr.json" "j['total']['bpf_drops']")"
expect "recorder lost" 3 "$(jget "$TMP/dr.json" "j['total']['recorder_lost']")"
expect "total" 31 "$(jget "$TMP/dr.json" "j['total']['lost']")"
expect "cpu0 complete from" 20200000000 "$(jget "$TMP/dr.json" "[s for s in j['streams'] if s['cpu']==0][0]['complete_from']")"
if command -v trace-cmd >/dev/null; then
	# page markers as trace-cmd reports them
	tc=$(trace-cmd report -i tests/data/rpt-drops.dat 2>/dev/null | awk '/EVENTS DROPPED/ { n++; if ($2 ~ /^\[[0-9]+$/) { sub(/\[/, "", $2); s += $2 } } END { print n + 0, s + 0 }')
	expect "markers and counted events vs trace-cmd" "$tc" \
		"$(jget "$TMP/dr.json" "'%d %d' % (j['total']['loss_markers'], j['total']['lost_marked'])")"
fi
"$FLYTRAP" drops --json --window 100ms tests/data/rpt-drops.dat > "$TMP/drw.json"
expect "100ms windows" 6 "$(jget "$TMP/drw.json" "len(j['windows'])")"
expect "window 1 lost" 5 "$(jget "$TMP/drw.json" "j['windows'][1]['lost_marked']")"
expect "bpf drops in windows" 6 "$(jget "$TMP/drw.json" "sum(w['bpf_drops'] for w in j['windows'])")"
# a file that lost events before every page: counts stay exact while the
# marker list stops growing at 65536 entries (later markers merge)
MK=$TOP/$O/tests/tools/mkrpt
if [ -x "$MK" ]; then
	"$MK" manyloss "$TMP/ml.dat" 70000 || fail "mkrpt manyloss"
	"$FLYTRAP" drops --json "$TMP/ml.dat" > "$TMP/ml.json" || fail "drops on 70000 loss markers"
	expect "markers / counted / unknown / entries / merged markers" "69999 139996 1 65536 69999" \
		"$(jget "$TMP/ml.json" "'%d %d %d %d %d' % (j['total']['loss_markers'], j['total']['lost_marked'], j['total']['unknown_markers'], len(j['losses']), sum(l['markers'] for l in j['losses']))")"
	"$FLYTRAP" overhead "$TMP/ml.dat" | grep -q "(69999 loss markers, 139996 events + an unknown number)" ||
		fail "overhead's loss note after merging"
	# 70000 sys_enter records, all the bytes: the advice names them and the loss
	"$FLYTRAP" overhead --json "$TMP/ml.dat" > "$TMP/mlo.json"
	expect "advice on the dominant event" True "$(jget "$TMP/mlo.json" "any(a.startswith('raw_syscalls:sys_enter is 100% of the bytes') for a in j['advice'])")"
	expect "advice on the loss" True "$(jget "$TMP/mlo.json" "any('loss markers' in a for a in j['advice'])")"
fi
# analyzers spanning the loss say so
"$FLYTRAP" overhead tests/data/rpt-drops.dat | grep -q "^note: events were lost" || fail "overhead does not mention the loss"
"$FLYTRAP" overhead tests/data/rpt-sched.dat | grep -q "^note: events were lost" && fail "overhead reports a loss in a file without any"
"$FLYTRAP" callgraph --folded tests/data/rpt-drops.dat 2>&1 >/dev/null | grep -q "^flytrap: warning: events were lost" ||
	fail "callgraph --folded does not warn about the loss on stderr"
finish
