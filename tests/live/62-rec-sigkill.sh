#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A recorder killed with SIGKILL early loses nothing the kernel still holds:
# `flytrap reset` saves what is left in the dead recorder's instance into that
# recording's spool files (found through its run note) before removing it,
# and `flytrap recover` puts it in the file.  A command makes 3000 getpid
# calls and sleeps; the recorder is killed 1 s in; trace-cmd counts all 3000.
# A busier run, where the recorder had read and spooled pages, keeps every
# event too (killed 1 s after the calls, longer than its 250 ms flush), and
# `drops` marks where a crash could have cut the data.  A flight recorder
# killed the same way leaves its store's segment files beside the output
# (recover says it cannot make a file of them and leaves them to reset):
# reset finds them through the run note and removes them, saying how much.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
. "$TOP/tests/live/_record.sh"
[ -x "$LOOP" ] || skip "getpid_loop not built"
cd "$TMP"
CMDPID=
trap '[ -n "$CMDPID" ] && kill "$CMDPID" 2>/dev/null; busy_stop; rm -rf "$TMP"' EXIT
read -r extra _ <<<"$(runtime_getpids)"

wait_started() {
	local i
	for i in $(seq 100); do
		grep -q '^flytrap: recording' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# kill_run NAME N [record options]: record "getpid_loop N; sleep", SIGKILL at 1 s
kill_run() {
	local name=$1 n=$2 rec i
	shift 2
	"$FLYTRAP" record -e syscalls:sys_enter_getpid "$@" -o "$name.dat" -- sh -c \
		'echo $$ >"$1.cmd"; "$2" "$3" >"$1.pids"; echo >"$1.done"; exec sleep 60' _ "$name" \
		"$LOOP" "$n" 2>"$name.err" &
	rec=$!
	wait_started "$name.err" || { fail "$name: recorder did not start"; cat "$name.err"; }
	sleep 1
	# the calls are made (on a loaded machine they can take longer than 1 s), and
	# what the recorder read of them is older than its 250 ms flush
	for i in $(seq 100); do [ -e "$name.done" ] && break; sleep 0.1; done
	[ "$name" = quiet ] || sleep 1
	kill -9 $rec
	wait $rec 2>/dev/null
	CMDPID=$(cat "$name.cmd" 2>/dev/null)
	[ -n "$CMDPID" ] && kill "$CMDPID" 2>/dev/null
	CMDPID=
	[ -e "$TRACEFS/instances/flytrap-$rec" ] && ok "$name: the dead recorder's instance is there" ||
		fail "$name: no instance left to save"
	"$FLYTRAP" reset >"$name.reset" 2>"$name.reset.err" || { fail "$name: reset failed"; cat "$name.reset.err"; }
	grep -q "^saved [0-9]* pages\? left in instance flytrap-$rec for '.*$name.dat'" "$name.reset" &&
		ok "$name: reset saved the instance's pages" || { fail "$name: reset output"; cat "$name.reset" "$name.reset.err"; }
	[ ! -e "$TRACEFS/instances/flytrap-$rec" ] || fail "$name: reset left the instance"
	"$FLYTRAP" recover "$name.dat" 2>"$name.rec.err" || { fail "$name: recover failed"; cat "$name.rec.err"; }
	[ ! -e "/run/flytrap/record-$rec" ] && ok "$name: recover dropped the run note" ||
		fail "$name: the run note is still there"
	local pid got
	pid=$(awk '{ print $2; exit }' "$name.pids")
	got=$(trace-cmd report -i "$name.dat" 2>/dev/null |
		grep -cE -- "-$pid +\[[0-9]+\] +[0-9.]+: sys_enter_getpid:")
	[ "$got" = $((n + extra)) ] && ok "$name: trace-cmd counts all $n getpid calls" ||
		fail "$name: trace-cmd counts $got of $((n + extra)) getpid calls"
}

kill_run quiet 3000
# more than a buffer holds: the recorder reads and spools pages before the kill
kill_run busy 100000

# the saved part starts with a page flagged as a possible loss: drops says so
"$FLYTRAP" drops busy.dat >drops.txt 2>&1
rc=$?
{ [ $rc = 0 ] || [ $rc = 3 ]; } && grep -qi 'marker\|lost' drops.txt &&
	ok "drops shows where the crash may have cut the data" ||
	{ fail "drops (exit $rc)"; head -20 drops.txt; }

# a flight recorder's store: kept only in segment files until a trigger
busy_start
"$FLYTRAP" record --flight 8M -e sched:sched_switch -e syscalls:sys_enter_getpid -o fl.dat 2>fl.err &
rec=$!
wait_started fl.err || { fail "flight: recorder did not start"; cat fl.err; }
"$LOOP" 20000 > /dev/null
for i in $(seq 100); do
	ls -A | grep -q "^\.fl\.dat\.flight-$rec-.*\.[0-9]*$" && break
	sleep 0.1
done
sleep 1
kill -9 $rec
wait $rec 2>/dev/null
busy_stop
nseg=$(ls -A | grep -c "^\.fl\.dat\.flight-$rec-.*\.[0-9]*$")
[ "$nseg" -gt 0 ] && ok "flight: the killed recorder left $nseg store file(s)" ||
	fail "flight: no store file to clean up ($(ls -A | tr '\n' ' '))"
grep -q "^store=$TMP/\.fl\.dat\.flight-$rec-" "/run/flytrap/record-$rec" 2>/dev/null &&
	ok "flight: the run note names the store" || fail "flight: the run note has no store line"
"$FLYTRAP" reset -n > fl.dry 2>&1
grep -q "^would remove $nseg store files\? " fl.dry && [ "$(ls -A | grep -c "^\.fl\.dat\.flight-$rec-")" = "$nseg" ] &&
	ok "flight: reset -n says it would remove them, and does not" || { fail "flight: reset -n"; cat fl.dry; }
# recover cannot make a file of a store (chunks without their CPUs and metadata): it says so
# and leaves the note, so that reset still finds the store
"$FLYTRAP" recover fl.dat > fl.rec 2>&1; rc=$?
[ $rc = 1 ] && [ "$(wc -l < fl.rec)" = 1 ] && grep -q "flight.*recorder.*flytrap reset" fl.rec &&
	[ -e "/run/flytrap/record-$rec" ] && [ "$(ls -A | grep -c "^\.fl\.dat\.flight-$rec-")" = "$nseg" ] &&
	ok "flight: recover refuses the store in one line naming reset, and keeps the note" ||
	{ fail "flight: recover of a store (exit $rc)"; cat fl.rec; }
"$FLYTRAP" reset > fl.reset 2> fl.reset.err || { fail "flight: reset failed"; cat fl.reset.err; }
if grep -q "^removed $nseg store files\? ([0-9.]* MiB) of killed recorder $rec beside '$TMP/fl.dat'" fl.reset &&
	[ -z "$(ls -A | grep "^\.fl\.dat\.flight-$rec")" ] && [ ! -e "/run/flytrap/record-$rec" ] &&
	[ ! -e "$TRACEFS/instances/flytrap-$rec" ]; then
	ok "flight: reset removed the store files, the run note and the instance"
else
	fail "flight: after reset: $(ls -A | grep "^\.fl" | tr '\n' ' ')"; cat fl.reset fl.reset.err
fi

# a second reset finds nothing (the saved recording waits for recover only)
"$FLYTRAP" reset >again.out 2>&1
[ ! -s again.out ] || grep -q 'nothing to reset' again.out && ok "a second reset does nothing" ||
	{ fail "second reset"; cat again.out; }
finish
