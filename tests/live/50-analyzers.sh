#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The analyzers on live recordings:
#  1. a program that calls getppid() N times, recorded with BPF syscall
#     records and the raw_syscalls tracepoints: `overhead` counts exactly N
#     getppid calls for that pid from either source, and its BPF total is
#     the sum of the durations of the BPF records in the file;
#  2. a deliberately small buffer under a syscall storm: `drops` reports,
#     per CPU, the kernel's own counters stored in the file (the overrun +
#     commit overrun + dropped events that trace-cmd report --stat prints;
#     the recorder's private instance starts at zero) and as many loss
#     markers as trace-cmd prints, with the loss marked in its time windows.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_tracefs
need_cmd trace-cmd
need_cmd python3
"$FLYTRAP" record --help >/dev/null 2>&1 || skip "flytrap was built without record (NO_RECORD=1)"
STORM=$TOP/$O/tests/tools/syscall_storm
jget() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
cd "$TMP"

# ---- 1. syscall counts and durations
if [ -x "$WORKLOAD" ] && [ -x "$DUMP" ] && [ -r /sys/kernel/btf/vmlinux ] &&
   "$FLYTRAP" record --help 2>&1 | grep -q -- '--bpf'; then
	case $(uname -m) in x86_64) NR=110 ;; aarch64) NR=173 ;; *) NR= ;; esac
	N=3000
	"$FLYTRAP" record -q --bpf syscalls -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o s.dat -- \
		"$WORKLOAD" sys $N 0 0 >w.out 2>rec.err
	rc=$?
	pid=$(awk '/^pid/{print $2}' w.out)
	if [ $rc != 0 ] || [ -z "$pid" ] || [ -z "$NR" ]; then
		fail "record exited $rc (pid '$pid'): $(head -3 rec.err)"
	else
		"$FLYTRAP" overhead --json --pid "$pid" s.dat >bpf.json || fail "overhead on the recording"
		"$FLYTRAP" overhead --json --pid "$pid" --syscalls tracepoints s.dat >tp.json || fail "overhead --syscalls tracepoints"
		q="[s for s in j['syscalls'] if s['nr']==$NR]"
		n_bpf=$(jget bpf.json "sum(s['count'] for s in $q)")
		n_tp=$(jget tp.json "sum(s['count'] for s in $q)")
		[ "$n_bpf" = $N ] && ok "BPF records: $N getppid calls" || fail "BPF records: $n_bpf getppid calls, expected $N"
		[ "$n_tp" = $N ] && ok "tracepoints: $N getppid calls" || fail "tracepoints: $n_tp getppid calls, expected $N"
		[ "$(jget bpf.json "j['syscall_source']")" = bpf ] || fail "default syscall source is not bpf"
		want=$("$DUMP" s.dat | awk -v p="$pid" -v nr="$NR" '$1=="ev" && $2=="syscall" && $5==p && $7=="nr=" nr {
			for (i = 6; i <= NF; i++) if ($i ~ /^duration=/) { sub(/duration=/, "", $i); s += $i } } END { printf "%.0f", s }')
		got=$(jget bpf.json "sum(s['total_ns'] for s in $q)")
		[ "$got" = "$want" ] && ok "BPF total $got ns = sum of the records' durations" ||
			fail "BPF total $got ns, records sum to $want ns"
		mx=$(jget bpf.json "max(s['max_ns'] for s in $q)")
		p99=$(jget bpf.json "max(s['p99_ns'] for s in $q)")
		[ "$p99" -le "$mx" ] && [ "$mx" -lt 100000000 ] && ok "p99 $p99 ns <= max $mx ns" || fail "p99 $p99, max $mx"
	fi
else
	echo "SKIP part 1: no BPF support here"
fi

# ---- 1b. per-syscall tracepoints (syscalls:sys_enter_NAME / sys_exit_NAME)
if [ -e "$TRACEFS/events/syscalls/sys_enter_getppid" ] && [ -x "$WORKLOAD" ]; then
	N=777
	"$FLYTRAP" record -q -e syscalls:sys_enter_getppid -e syscalls:sys_exit_getppid -o g.dat -- \
		"$WORKLOAD" sys $N 0 0 >w3.out 2>rec3.err || fail "record syscalls:*getppid: $(head -3 rec3.err)"
	pid=$(awk '/^pid/{print $2}' w3.out)
	"$FLYTRAP" overhead --json --pid "$pid" g.dat >g.json || fail "overhead on the getppid recording"
	got=$(jget g.json "'%d %s %d' % (len(j['syscalls']), j['syscalls'][0]['name'], j['syscalls'][0]['count'])")
	[ "$got" = "1 getppid $N" ] && ok "syscalls:sys_*_getppid: $N getppid calls" || fail "named tracepoints: $got"
fi

# ---- 2. losses under load
[ -x "$STORM" ] || skip "syscall_storm not built"
"$FLYTRAP" record -q -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -b 8 -o o.dat -- \
	"$STORM" 150000 2 >/dev/null 2>rec2.err || { fail "record exited $?: $(head -3 rec2.err)"; finish; }
"$FLYTRAP" drops --json --window 10ms o.dat >d.json || fail "drops on the recording"
trace-cmd report --stat -i o.dat >stat.txt 2>/dev/null
trace-cmd report -i o.dat 2>/dev/null | grep -c "EVENTS DROPPED\]" >markers.txt
total=0
for cpu in $(awk '/^CPU: /{print $2}' stat.txt); do
	k=$(awk -v c="$cpu" '/^CPU: /{cur=$2} cur==c && /^overrun:/{o=$2} cur==c && /^commit overrun:/{co=$3}
		cur==c && /^dropped events:/{d=$3} END{print o + co + d}' stat.txt)
	got=$(jget d.json "sum(s['kernel']['lost'] for s in j['streams'] if s['cpu']==$cpu and s['buffer']=='' and s['kernel'])")
	[ "$got" = "$k" ] && ok "CPU $cpu: drops reports $got lost = kernel counters" || fail "CPU $cpu: drops $got, kernel $k"
	total=$((total + k))
done
[ "$(jget d.json "j['total']['kernel_lost']")" = "$total" ] && ok "total kernel loss $total" ||
	fail "total kernel_lost $(jget d.json "j['total']['kernel_lost']"), expected $total"
[ "$total" -gt 0 ] || fail "the storm lost nothing with an 8 KiB buffer: the test proves little"
[ "$(jget d.json "j['total']['loss_markers']")" = "$(cat markers.txt)" ] && ok "$(cat markers.txt) loss markers, as trace-cmd" ||
	fail "markers: flytrap $(jget d.json "j['total']['loss_markers']"), trace-cmd $(cat markers.txt)"
[ "$(jget d.json "sum(w['loss_markers'] for w in j['windows'])")" = "$(cat markers.txt)" ] && ok "every marker in a window" ||
	fail "windows hold $(jget d.json "sum(w['loss_markers'] for w in j['windows'])") markers"
"$FLYTRAP" overhead o.dat | grep -q "^note: events were lost" && ok "overhead notes the loss" || fail "overhead does not note the loss"
finish
