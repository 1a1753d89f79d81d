#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Events of the recorded command carry the command's name, never the
# recorder's: the command is our fork until its exec, and the kernel's
# saved_cmdlines may keep the pid under "flytrap" (one run of four on a
# quiet machine).  FLYTRAP_TEST_STALE_COMM forces that order (the kernel's
# table says "flytrap" for the command's pid); then ten plain runs.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
. "$TOP/tests/live/_record.sh"
[ -x "$LOOP" ] || skip "getpid_loop not built"
cd "$TMP"
N=20000

# all N getpid events of the command named after it, in trace-cmd and in flytrap report
named_right() {
	local f=$1 what=$2 pid n_tc n_ft bad
	pid=$(awk '{ print $2; exit }' "$f.pids")
	trace-cmd report -i "$f" >"$f.txt" 2>/dev/null
	n_tc=$(grep -cE -- "getpid_loop-$pid +\[[0-9]+\] +[0-9.]+: sys_enter_getpid:" "$f.txt")
	bad=$(grep -E -- "-$pid +\[[0-9]+\] +[0-9.]+: sys_enter_getpid:" "$f.txt" | grep -vc "getpid_loop-$pid")
	"$FLYTRAP" report "$f" >"$f.ft" 2>/dev/null
	n_ft=$(grep -cE -- "getpid_loop-$pid +\[[0-9]+\] +[0-9.]+: sys_enter_getpid:" "$f.ft")
	if [ "$n_tc" -ge "$N" ] && [ "$bad" = 0 ] && [ "$n_ft" = "$n_tc" ]; then
		ok "$what: $n_tc getpid events named getpid_loop-$pid (trace-cmd and flytrap report)"
	else
		fail "$what: trace-cmd $n_tc, flytrap report $n_ft named getpid_loop-$pid, $bad named otherwise"
		grep -E -- "-$pid +\[" "$f.txt" | grep -v "getpid_loop-$pid" | head -2
	fi
}

FLYTRAP_TEST_STALE_COMM=1 "$FLYTRAP" record -q -e syscalls:sys_enter_getpid -e sched:sched_switch \
	-o forced.dat -- "${TOOLENV[@]}" "$LOOP" $N >forced.dat.pids 2>forced.err ||
	{ fail "forced order: record failed"; cat forced.err; }
named_right forced.dat "kernel kept the pre-exec name"

for i in $(seq 10); do
	"$FLYTRAP" record -q -e syscalls:sys_enter_getpid -e sched:sched_switch \
		-o run$i.dat -- "${TOOLENV[@]}" "$LOOP" $N >run$i.dat.pids 2>run$i.err ||
		{ fail "run $i: record failed"; cat run$i.err; continue; }
	named_right run$i.dat "run $i"
done
finish
