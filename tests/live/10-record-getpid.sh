#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap record on a program with a known number of getpid() calls: the file
# holds exactly those events for each of its processes (children followed),
# trace-cmd and flytrap print the same lines, and the event counts agree with
# the kernel's own per-CPU statistics stored in the file.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
[ -e "$TRACEFS/events/syscalls/sys_enter_getpid" ] || skip "no syscalls:sys_enter_getpid event"
. "$(dirname "$0")/_record.sh"
[ -x "$LOOP" ] || skip "getpid_loop not built"
read -r EXTRA_P EXTRA_C < <(runtime_getpids)
if [ "$tool_sanitized" = 0 ]; then
	[ "$EXTRA_P $EXTRA_C" = "0 0" ] && ok "a 1-call run records 1 call per process" ||
		fail "a 1-call run records $((EXTRA_P + 1)) and $((EXTRA_C + 1)) calls"
else
	echo "note: the sanitizer runtime adds $EXTRA_P (parent) and $EXTRA_C (child) getpid calls"
fi

N=3000
cd "$TMP"

# once through splice (the normal path), once through the read() fallback
check_mode() {
	mode=$1
	mkdir -p "$mode" && cd "$mode" || return
	"$FLYTRAP" record -e sched:sched_switch -e syscalls:sys_enter_getpid -o t.dat -- \
		"${TOOLENV[@]}" "$LOOP" $N 2 >pids.txt 2>rec.err
	rc=$?
	[ $rc = 0 ] || { cat rec.err; fail "$mode: record exited $rc"; cd ..; return; }
	[ "$(stat -c %a t.dat)" = 600 ] && ok "$mode: output mode 0600" || fail "$mode: output mode $(stat -c %a t.dat)"
	grep -q '^flytrap: CPU' rec.err && ok "$mode: per-CPU summary printed" || fail "$mode: no per-CPU summary"

	trace-cmd report -i t.dat >tc.txt 2>tc.err || { head tc.err; fail "$mode: trace-cmd report failed"; }
	"$FLYTRAP" report t.dat >ft.txt 2>ft.err || { head ft.err; fail "$mode: flytrap report failed"; }

	npids=0
	while read -r _ pid; do
		npids=$((npids + 1))
		[ $npids = 1 ] && EXTRA=$EXTRA_P || EXTRA=$EXTRA_C
		got=$(grep -E -- "-$pid +\[[0-9]+\] +[0-9.]+: sys_enter_getpid:" tc.txt | wc -l)
		if [ "$got" = $((N + EXTRA)) ]; then ok "$mode: pid $pid: $got sys_enter_getpid events"
		else fail "$mode: pid $pid: $got sys_enter_getpid events, expected $((N + EXTRA))"; fi
	done <pids.txt
	[ $npids = 3 ] && ok "$mode: parent and 2 children ran" || fail "$mode: $npids processes reported, expected 3"

	# the same lines from both readers, for the getpid events and for everything
	grep sys_enter_getpid tc.txt >tc.getpid
	grep sys_enter_getpid ft.txt >ft.getpid
	if cmp -s tc.getpid ft.getpid; then ok "$mode: trace-cmd and flytrap agree on the getpid lines"
	else fail "$mode: getpid lines differ"; diff tc.getpid ft.getpid | head -5; fi
	if cmp -s tc.txt ft.txt; then ok "$mode: whole listing identical"
	else fail "$mode: listings differ"; diff tc.txt ft.txt | head -5; fi

	# events per CPU in the file == "read events" of the CPU stats stored in it
	trace-cmd report --stat -i t.dat >stat.txt 2>/dev/null
	for cpu in $(awk '/^CPU: /{print $2}' stat.txt); do
		want=$(awk -v c="$cpu" '/^CPU: /{cur=$2} /^read events:/ && cur==c {print $3}' stat.txt)
		lost=$(awk -v c="$cpu" '/^CPU: /{cur=$2} /^overrun:/ && cur==c {print $2}' stat.txt)
		got=$(grep -cE "^ *.+ \[0*$cpu\] +[0-9]+\.[0-9]+: " tc.txt)
		if [ "$got" = "$want" ]; then ok "$mode: CPU $cpu: $got events = kernel's read events"
		else fail "$mode: CPU $cpu: $got events in the file, kernel read events $want"; fi
		[ "$lost" = 0 ] || fail "$mode: CPU $cpu lost $lost events in a light recording"
	done
	cd ..
}
check_mode splice
FLYTRAP_NO_SPLICE=1 check_mode read
finish
