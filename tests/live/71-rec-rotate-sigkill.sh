#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# SIGKILL of a rotating recorder in the middle of writing a file (issue 31,
# item 5): the file it was writing is noted in the state directory
# (scratch-PID), and `flytrap reset` removes it with the store and says so
# (and the output lock the killed recorder left),
# where a hidden .r-NNNN.dat.XXXXXXXXXXXX used to stay for good.  The files
# written before the kill stay whole.  Looped: the kill must land in a write.
. "$(dirname "$0")/../lib.sh"
need_tracefs
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$STORM" ] || skip "syscall_storm not built"
storm=
storm_stop() { [ -n "$storm" ] || return 0; pkill -P "$storm"; kill "$storm"; wait "$storm"; storm=; } 2>/dev/null
trap 'storm_stop; kill -9 $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT
cd "$TMP"
"$STORM" 100000000 1 >/dev/null &
storm=$!

caught=0
for round in 1 2 3 4 5; do
	d=$TMP/r$round
	mkdir "$d"
	"$FLYTRAP" record -e sched -e raw_syscalls --rotate 1M -o "$d/r.dat" 2>"$d/rec.err" &
	rec=$!
	# kill it while a file is being written: its scratch note names it
	for i in $(seq 600); do
		[ -s "/run/flytrap/scratch-$rec" ] && grep -q "^flytrap: wrote" "$d/rec.err" && break
		sleep 0.01
	done
	kill -9 $rec
	wait $rec 2>/dev/null
	hidden=$(ls -A "$d" | grep '^\.r-.*\.dat\.' || true)
	"$FLYTRAP" reset >"$d/reset.out" 2>&1 || { fail "round $round: reset failed"; cat "$d/reset.out"; }
	[ ! -e "$TRACEFS/instances/flytrap-$rec" ] || fail "round $round: instance left"
	[ ! -e "/run/flytrap/scratch-$rec" ] || fail "round $round: scratch note left"
	grep -lsx "pid=$rec" /run/flytrap/lock-* >/dev/null 2>&1 &&
		fail "round $round: the killed recorder's output lock is left" || true
	left=$(ls -A "$d" | grep '^\.' || true)
	[ -z "$left" ] && ok "round $round: no hidden file left after reset" ||
		fail "round $round: left after reset: $left"
	if [ -n "$hidden" ]; then
		caught=$((caught + 1))
		grep -q "removed '.*$hidden', the unfinished file killed recorder $rec was writing" "$d/reset.out" &&
			ok "round $round: reset removed the unfinished $hidden and said so" ||
			{ fail "round $round: reset said nothing of $hidden"; cat "$d/reset.out"; }
	fi
	for f in "$d"/r-*.dat; do
		[ -e "$f" ] || continue
		"$FLYTRAP" info "$f" >/dev/null 2>&1 || fail "round $round: $f unreadable"
	done
	[ "$caught" -ge 2 ] && break
done
[ "$caught" -ge 1 ] && ok "the kill landed in a write $caught time(s)" ||
	fail "the kill never landed in a write (scratch note never seen)"
storm_stop
finish
