#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Two recorders on one -o: the second refuses at once (exit 1, naming the
# first one's pid) instead of both exiting 0 while one recording replaces
# the other.  Started together, several times over, so that a race between
# the two shows; then one after the other, which must work (the lock goes
# with the recorder).
. "$(dirname "$0")/../lib.sh"
need_tracefs
[ -e "$TRACEFS/events/sched/sched_switch" ] || skip "no sched:sched_switch event"
cd "$TMP"
busy_start

for round in 1 2 3 4 5 6; do
	rm -f t.dat a.err b.err
	"$FLYTRAP" record -e sched:sched_switch -d 1.5 -o t.dat 2>a.err &
	a=$!
	"$FLYTRAP" record -e sched:sched_switch -d 1.5 -o "$TMP/./t.dat" 2>b.err &
	b=$!
	wait $a; ra=$?
	wait $b; rb=$?
	if [ "$ra" = 0 ] && [ "$rb" = 1 ]; then
		winner=$a loser_err=b.err
	elif [ "$ra" = 1 ] && [ "$rb" = 0 ]; then
		winner=$b loser_err=a.err
	else
		fail "round $round: exits $ra and $rb, not one 0 and one 1"
		cat a.err b.err
		continue
	fi
	grep -q "being recorded by flytrap pid $winner" "$loser_err" &&
		ok "round $round: the second recorder names pid $winner" ||
		{ fail "round $round: no message naming pid $winner"; cat "$loser_err"; }
	grep -q "^flytrap: recording" "$loser_err" &&
		fail "round $round: the refused recorder started recording" || true
	[ -f t.dat ] && "$FLYTRAP" info t.dat >/dev/null 2>&1 && ok "round $round: t.dat is whole" ||
		fail "round $round: t.dat missing or unreadable"
done

# one after the other: the first one's lock went with it
"$FLYTRAP" record -q -e sched:sched_switch -d 0.5 -o t.dat 2>c.err &&
	ok "a recorder after the others finished records" || { fail "next recorder refused"; cat c.err; }
# a SIGKILLed recorder's lock goes with it too
"$FLYTRAP" record -e sched:sched_switch -o k.dat 2>k.err &
k=$!
for i in $(seq 100); do grep -q '^flytrap: recording' k.err && break; sleep 0.1; done
kill -9 $k; wait $k 2>/dev/null
"$FLYTRAP" record -q -e sched:sched_switch -d 0.5 -o k.dat 2>k2.err &&
	ok "the output of a SIGKILLed recorder can be recorded again" ||
	{ fail "refused after SIGKILL"; cat k2.err; }
"$FLYTRAP" reset >/dev/null 2>&1
# reset only touches dead recorders' leftovers: ours is the one killed above
"$FLYTRAP" recover k.dat >/dev/null 2>&1
rm -f .k.dat.* k.dat
busy_stop
finish
