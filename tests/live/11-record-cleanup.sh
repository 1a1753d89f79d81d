#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The recorder leaves tracefs exactly as it found it: after a normal end,
# SIGINT, SIGTERM, SIGHUP, a closed stderr, a setup error, a command that
# cannot run, and after SIGKILL followed by `flytrap reset` (run twice).
# The killed recorder's output is made readable by `flytrap recover`.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
UT=$TOP/$O/tests/tools/uprobe_target
[ -x "$UT" ] || skip "uprobe_target not built"
cd "$TMP"
busy_start	# the files must hold sched_switch events even on a quiet machine

# everything the recorder can change: events, a filter, stacktrace, uprobes, pids
REC=(-e sched:sched_switch -e 'irq:*' -e raw_syscalls:sys_enter -f 'id != 0' -T -b 64)
[ -e "$TRACEFS/uprobe_events" ] && REC+=(--uprobe "$UT:ut_*")

# The recorder only ever creates an instance named flytrap-<its pid>: that
# one is checked by name after each run (other tests may create and remove
# instances at the same time, so the instance list itself is not compared).
# Every other line of the snapshot is compared whole.
snap() {
	tracefs_snapshot | grep -v '^instances: '
}
last=0
gone() {
	[ ! -e "$TRACEFS/instances/flytrap-$last" ] || fail "$1: instance flytrap-$last left behind"
	! grep -q "flytrap_$last/" "$TRACEFS/uprobe_events" 2>/dev/null || fail "$1: uprobes of $last left behind"
}
snap >before.txt

same_as_before() {
	snap >after.txt
	gone "$1"
	if cmp -s before.txt after.txt; then ok "$1: tracefs as before"
	else fail "$1: tracefs changed"; diff before.txt after.txt | head -10; fi
}

# wait until the recorder says it records (at most 10 s)
wait_started() {
	local i
	for i in $(seq 100); do
		grep -q '^flytrap: recording' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

readable() {
	if trace-cmd report -i "$1" >"$1.txt" 2>"$1.err" && [ "$(grep -c ': sched_switch:' "$1.txt")" -gt 0 ]; then
		ok "$2: trace-cmd reads the file"
	else
		fail "$2: trace-cmd cannot read the file"; head -3 "$1.err"
	fi
}

# normal end: a command that finishes
snap >before.txt
"$FLYTRAP" record "${REC[@]}" -o normal.dat -- "$UT" 1000 >/dev/null 2>normal.err &
last=$!
wait $last
rc=$?
[ $rc = 0 ] && ok "normal end exits 0" || { fail "normal end exited $rc"; cat normal.err; }
same_as_before "normal end"
readable normal.dat "normal end"

for sig in INT TERM HUP; do
	snap >before.txt
	"$FLYTRAP" record "${REC[@]}" -o $sig.dat 2>$sig.err &
	pid=$!
	last=$pid
	if ! wait_started $sig.err; then
		fail "SIG$sig: recorder did not start"; cat $sig.err; kill -9 $pid; wait $pid
		continue
	fi
	sleep 0.5
	kill -$sig $pid
	wait $pid
	rc=$?
	[ $rc = 0 ] && ok "SIG$sig: exit 0" || { fail "SIG$sig: exit $rc"; tail -3 $sig.err; }
	same_as_before "SIG$sig"
	readable $sig.dat "SIG$sig"
done

# stderr closed under our feet: messages fail with EPIPE, the recording does not
{ "$FLYTRAP" record "${REC[@]}" -d 1 -o pipe.dat 2>&1 & echo $! >pipe.pid; wait $!; } | true
rc=${PIPESTATUS[0]}
last=$(cat pipe.pid)
[ $rc = 0 ] && ok "closed stderr: exit 0" || fail "closed stderr: exit $rc"
same_as_before "closed stderr"

# an error after the instance and the probes exist
"$FLYTRAP" record "${REC[@]}" -e sched:sched_wakeup -f 'no_such_field == 1' -o err.dat 2>err.err &
last=$!
wait $last
rc=$?
# a filter the kernel rejects is a usage error (exit 2), found after the instance exists
[ $rc = 2 ] && ok "bad filter: exit 2" || fail "bad filter: exit $rc (2 expected)"
grep -q "cannot set filter" err.err && ok "bad filter: clear message" || { fail "bad filter message"; cat err.err; }
same_as_before "bad filter"

"$FLYTRAP" record "${REC[@]}" -o nocmd.dat -- ./does-not-exist 2>nocmd.err &
last=$!
wait $last
rc=$?
[ $rc = 1 ] && ok "missing command: exit 1" || fail "missing command: exit $rc"
grep -q "cannot run './does-not-exist'" nocmd.err && ok "missing command: clear message" || { fail "missing command message"; cat nocmd.err; }
same_as_before "missing command"

# reset never touches a running recorder
"$FLYTRAP" record -e sched:sched_switch -o live.dat 2>live.err &
live=$!
if wait_started live.err; then
	"$FLYTRAP" reset >live-reset.out 2>&1
	[ -d "$TRACEFS/instances/flytrap-$live" ] && ! grep -q "flytrap-$live" live-reset.out &&
		ok "reset keeps a running recorder's instance" || fail "reset removed a running recorder's instance"
	kill -INT $live
	wait $live && ok "that recorder still ends cleanly" || fail "recorder failed after reset"
else
	fail "live recorder did not start"; kill -9 $live
fi

# SIGKILL: leftovers stay until reset; reset removes only the dead recorder's
mkdir -p "$TRACEFS/instances/not-flytrap-$$" || fail "cannot create a foreign instance"
trap 'rmdir "$TRACEFS/instances/not-flytrap-$$" 2>/dev/null; busy_stop; rm -rf "$TMP"' EXIT
snap >before.txt
"$FLYTRAP" record "${REC[@]}" -o kill.dat 2>kill.err &
pid=$!
last=$pid
if wait_started kill.err; then
	sleep 2.5		# past the first periodic flush
	kill -9 $pid
	wait $pid 2>/dev/null
	[ -d "$TRACEFS/instances/flytrap-$pid" ] && ok "SIGKILL leaves instance flytrap-$pid" ||
		fail "no leftover instance after SIGKILL"
	"$FLYTRAP" reset -n >dry.out 2>&1
	grep -q "would remove instance flytrap-$pid" dry.out && [ -d "$TRACEFS/instances/flytrap-$pid" ] &&
		ok "reset -n lists the leftover and keeps it" || { fail "reset -n"; cat dry.out; }
	"$FLYTRAP" reset >reset1.out 2>reset1.err
	rc=$?
	[ $rc = 0 ] && ok "reset exits 0" || { fail "reset exit $rc"; cat reset1.err; }
	grep -q "removed instance flytrap-$pid" reset1.out && ok "reset names the instance" ||
		{ fail "reset output"; cat reset1.out; }
	grep -q "run 'flytrap recover .*kill.dat'" reset1.out && ok "reset names the file to recover" ||
		{ fail "no recover hint"; cat reset1.out; }
	same_as_before "SIGKILL + reset"
	"$FLYTRAP" reset >reset2.out 2>reset2.err
	rc=$?
	[ $rc = 0 ] && ok "second reset exits 0" || fail "second reset exit $rc"
	[ ! -s reset2.out ] && ok "second reset finds nothing" || { fail "second reset did something"; cat reset2.out; }
	same_as_before "second reset"
	[ -d "$TRACEFS/instances/not-flytrap-$$" ] && ok "reset kept the foreign instance" ||
		fail "reset removed a foreign instance"

	"$FLYTRAP" recover kill.dat 2>recover.err
	rc=$?
	[ $rc = 0 ] && ok "recover exits 0" || { fail "recover exit $rc"; cat recover.err; }
	readable kill.dat "SIGKILL + recover"
else
	fail "SIGKILL run did not start"; kill -9 $pid
fi
finish
