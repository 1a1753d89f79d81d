#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --bpf syscalls,offcpu on a program that calls getppid() N times and sleeps
# M times: the file holds exactly N getppid syscall records for its pid with
# plausible durations, M off-CPU records of at least the sleep time after
# them, trace-cmd prints them (no [UNKNOWN EVENT]), flytrap report prints
# them interleaved in time with the ftrace events of the same run, and each
# CPU's BPF records are in timestamp order.  Then the same with
# syscalls=agg: one histogram whose count is N.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
need_cmd trace-cmd
case $(uname -m) in
x86_64) NR=110 ;;
aarch64) NR=173 ;;
*) skip "getppid syscall number unknown for $(uname -m)" ;;
esac
[ -e "$TRACEFS/events/raw_syscalls/sys_enter" ] || skip "no raw_syscalls:sys_enter event"

N=2000 M=5 MS=30
cd "$TMP"
"$FLYTRAP" record -q --bpf syscalls,offcpu -e raw_syscalls:sys_enter -o s.dat -- \
	"$WORKLOAD" sys $N $M $MS >w.out 2>rec.err
rc=$?
[ $rc = 0 ] && ! grep -q "not loaded" rec.err || { cat rec.err; fail "record exited $rc"; finish; }
pid=$(awk '/^pid/{print $2}' w.out)
"$DUMP" s.dat >d.txt || fail "bpf_dump reports damage: $(grep ^error d.txt | head -3)"

# N syscall records for getppid, each with a plausible duration
awk -v p="$pid" -v nr="$NR" '$1=="ev" && $2=="syscall" && $5==p && $7=="nr=" nr' d.txt >getppid.txt
n=$(wc -l <getppid.txt)
[ "$n" = $N ] && ok "$N getppid syscall records for pid $pid" || fail "$n getppid records, expected $N"
awk '{for (i=6;i<=NF;i++) {split($i,kv,"="); f[kv[1]]=kv[2]}
      if (f["duration"] <= 0 || f["duration"] > 100000000 || f["start"] + f["duration"] != $3 || f["ret"] <= 0) print}' \
	getppid.txt >bad.txt
[ -s bad.txt ] && fail "implausible getppid records: $(head -2 bad.txt)" ||
	ok "every getppid record: 0 < duration < 100 ms, start + duration = timestamp, ret = parent pid"
med=$(awk '{split($9,d,"="); print d[2]}' getppid.txt | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
[ "${med:-0}" -lt 1000000 ] && ok "median getppid duration ${med} ns" || fail "median getppid duration ${med} ns"

# M off-CPU records of at least the sleep time, after the last getppid
last=$(tail -1 getppid.txt | awk '{print $3}')
awk -v p="$pid" -v t="$last" -v min=$((MS * 1000000 * 9 / 10)) '$1=="ev" && $2=="offcpu" && $5==p {
	for (i=6;i<=NF;i++) {split($i,kv,"="); f[kv[1]]=kv[2]}
	if (f["start"] >= t && f["duration"] >= min) print }' d.txt >sleeps.txt
n=$(wc -l <sleeps.txt)
[ "$n" = $M ] && ok "$M off-CPU records of >= ${MS} ms after the syscalls" || fail "$n long off-CPU records, expected $M"
grep -q "kstack_depth=0 " sleeps.txt && fail "an off-CPU record without a kernel stack" ||
	ok "every sleep carries its kernel stack"

# stock trace-cmd prints them
trace-cmd report -i s.dat >tc.txt 2>tc.err || fail "trace-cmd report failed: $(head -2 tc.err)"
n=$(grep -cE "^ *flytrap-bpf: .*-$pid +\[[0-9]+\] +[0-9.]+: syscall: +tgid=$pid nr=$NR " tc.txt)
[ "$n" = $N ] && ok "trace-cmd prints the $N syscall records" || fail "trace-cmd prints $n syscall records"
n=$(grep -cE "^ *flytrap-bpf: .*-$pid +\[[0-9]+\] +[0-9.]+: offcpu: +tgid=$pid " tc.txt)
[ "$n" -ge $M ] && ok "trace-cmd prints $n off-CPU records" || fail "trace-cmd prints $n off-CPU records"
grep -q "UNKNOWN EVENT" tc.txt && fail "[UNKNOWN EVENT] in trace-cmd's listing" || ok "no [UNKNOWN EVENT]"

# flytrap report: BPF and ftrace events of the run on one time line
"$FLYTRAP" report s.dat >ft.txt 2>ft.err || fail "flytrap report failed: $(head -2 ft.err)"
n=$(grep -cE "^ *flytrap-bpf: .*-$pid +\[[0-9]+\] +[0-9.]+: syscall: +tgid=$pid nr=$NR " ft.txt)
[ "$n" = $N ] && ok "flytrap report prints the $N syscall records" || fail "flytrap report prints $n syscall records"
# every BPF getppid record follows the ftrace sys_enter of the same call:
# in the listing, the line before each one (for that pid) is its sys_enter
awk -v p="$pid" -v nr="$NR" '
	$0 ~ "-" p " +\\[" && / sys_enter: / && $0 ~ "NR " nr " " { enters++ ; pend = 1 }
	$0 ~ "^ *flytrap-bpf: " && $0 ~ "-" p " +\\[" && $0 ~ "syscall: +tgid=" p " nr=" nr " " {
		if (pend) paired++; pend = 0 }
	END { print enters+0, paired+0 }' ft.txt >pair.txt
read -r enters paired <pair.txt
[ "$enters" = $N ] && [ "$paired" = $N ] && ok "each BPF getppid record comes after its ftrace sys_enter" ||
	fail "interleaving: $enters sys_enter lines, $paired BPF records right after one"

# per-CPU timestamp order of the BPF buffer
awk '$1=="ev" { if ($3 < last[$4]) bad++; last[$4] = $3 } END { exit bad > 0 }' d.txt &&
	ok "BPF records in timestamp order on every CPU" || fail "BPF records out of order on a CPU"

# aggregation mode: one histogram (thread, getppid) with count N
"$FLYTRAP" record -q --bpf syscalls=agg -o a.dat -- "$WORKLOAD" sys $N 0 0 >w2.out 2>rec2.err
pid=$(awk '/^pid/{print $2}' w2.out)
"$DUMP" a.dat >a.txt || fail "bpf_dump reports damage in the agg file"
line=$(awk -v p="$pid" -v nr="$NR" '$1=="ev" && $2=="syscall_hist" && $5==p && $7=="nr=" nr' a.txt)
cnt=$(echo "$line" | grep -o 'count=[0-9]*' | cut -d= -f2)
[ "$cnt" = $N ] && ok "syscalls=agg: histogram count $N for getppid" || fail "syscalls=agg: count '$cnt'"
[ "$(grep -c '^ev syscall ' a.txt)" = 0 ] && ok "syscalls=agg: no per-event records" ||
	fail "syscalls=agg wrote per-event records"
trace-cmd report -i a.dat 2>/dev/null | grep -qE "syscall_hist: +tgid=$pid nr=$NR count=$N " &&
	ok "trace-cmd prints the histogram" || fail "trace-cmd does not print the histogram"

# children of the recorded command are followed (the filter grows on fork)
"$FLYTRAP" record -q --bpf syscalls -o c.dat -- sh -c "'$WORKLOAD' sys 100 0 0 & '$WORKLOAD' sys 200 0 0; wait" \
	>c.out 2>rec3.err
"$DUMP" c.dat >c.txt || fail "bpf_dump reports damage in the children file"
got=$(awk '/^pid/{print $2}' c.out | while read -r p; do
	awk -v p="$p" -v nr="$NR" '$1=="ev" && $2=="syscall" && $5==p && $7=="nr=" nr' c.txt | wc -l
done | sort -n | tr '\n' ' ')
[ "$got" = "100 200 " ] && ok "both children of the command recorded (100 and 200 getppid)" ||
	fail "children's getppid records: '$got', expected '100 200 '"
finish
