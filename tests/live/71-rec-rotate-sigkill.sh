#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# SIGKILL of a rotating recorder in the middle of writing a file (issue 31,
# item 5), then `flytrap reset` and `flytrap recover`:
#  - reset removes the unfinished rotation file (noted in scratch-PID) and
#    says so, where a hidden .r-NNNN.dat.XXXXXXXXXXXX used to stay for good,
#    and the output lock the killed recorder left;
#  - it keeps the store and the recording's metadata file, moving the
#    store's chunks and the kernel's pages into spools, and tells the user
#    to run recover (reset used to delete the store);
#  - recover writes the file being filled as the next rotation file: it has
#    events, the tasks of the files before it, passes verify, and trace-cmd
#    reads it (recover used to say "no recording of it is noted");
#  - after recover nothing hidden is left.
# The files written before the kill stay whole.  Looped: the kill must land
# in a write at least once.
. "$(dirname "$0")/../lib.sh"
need_tracefs
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$STORM" ] || skip "syscall_storm not built"
have_tc=0
command -v trace-cmd >/dev/null && have_tc=1
storm=
storm_stop() { [ -n "$storm" ] || return 0; pkill -P "$storm"; kill "$storm"; wait "$storm"; storm=; } 2>/dev/null
trap 'storm_stop; kill -9 $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT
cd "$TMP"
"$STORM" 100000000 1 >/dev/null &
storm=$!

# task names (trace-cmd's or flytrap's listing) with their count, most first
tasks() {
	if [ $have_tc = 1 ]; then
		trace-cmd report -i "$1" 2>/dev/null | awk '$2 ~ /^\[[0-9]+\]$/ { sub(/-[0-9]+$/, "", $1); print $1 }'
	else
		"$FLYTRAP" report "$1" 2>/dev/null | awk '$2 ~ /^\[[0-9]+\]$/ { sub(/-[0-9]+$/, "", $1); print $1 }'
	fi | sort | uniq -c | sort -rn
}

caught=0
rounds=5
[ "${FLYTRAP_TEST_LIGHT:-0}" = 1 ] && rounds=3
for round in $(seq $rounds); do
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
	before=$(ls "$d" | grep -c '^r-[0-9]*\.dat$')
	"$FLYTRAP" reset >"$d/reset.out" 2>&1 || { fail "round $round: reset failed"; cat "$d/reset.out"; }
	[ ! -e "$TRACEFS/instances/flytrap-$rec" ] || fail "round $round: instance left"
	[ ! -e "/run/flytrap/scratch-$rec" ] || fail "round $round: scratch note left"
	grep -lsx "pid=$rec" /run/flytrap/lock-* >/dev/null 2>&1 &&
		fail "round $round: the killed recorder's output lock is left" || true
	left=$(ls -A "$d" | grep '^\.r-' || true)
	[ -z "$left" ] && ok "round $round: no unfinished rotation file left after reset" ||
		fail "round $round: left after reset: $left"
	if [ -n "$hidden" ]; then
		caught=$((caught + 1))
		grep -q "removed '.*$hidden', the unfinished file killed recorder $rec was writing" "$d/reset.out" &&
			ok "round $round: reset removed the unfinished $hidden and said so" ||
			{ fail "round $round: reset said nothing of $hidden"; cat "$d/reset.out"; }
	fi
	grep -q "run 'flytrap recover .*r\.dat'" "$d/reset.out" &&
		ok "round $round: reset says to run recover" ||
		{ fail "round $round: reset did not point at recover"; cat "$d/reset.out"; }
	"$FLYTRAP" recover "$d/r.dat" >"$d/recover.out" 2>&1
	rc=$?
	[ $rc = 0 ] && ok "round $round: recover exits 0" ||
		{ fail "round $round: recover exit $rc"; cat "$d/recover.out"; }
	got=$(sed -nE "s/^flytrap: recovered '([^']*)'.*/\1/p" "$d/recover.out")
	after=$(ls "$d" | grep -c '^r-[0-9]*\.dat$')
	if [ -n "$got" ] && [ -f "$got" ]; then
		[ "$after" = $((before + 1)) ] && ok "round $round: recover wrote $(basename "$got")" ||
			fail "round $round: $before rotation files before recover, $after after"
		"$FLYTRAP" verify "$got" >/dev/null 2>"$d/verify.err" &&
			ok "round $round: verify passes on the recovered file" ||
			{ fail "round $round: verify"; cat "$d/verify.err"; }
		n=$("$FLYTRAP" info --json "$got" 2>/dev/null | python3 -c \
			'import json, sys; print(json.load(sys.stdin)["events"])' 2>/dev/null)
		[ "${n:-0}" -gt 0 ] && ok "round $round: the recovered file holds $n events" ||
			fail "round $round: the recovered file holds ${n:-no} events"
		if [ $have_tc = 1 ]; then
			lines=$(trace-cmd report -i "$got" 2>/dev/null | grep -c ': ')
			[ "$lines" -gt 0 ] && ok "round $round: trace-cmd reads $lines events" ||
				fail "round $round: trace-cmd reads nothing of $got"
		fi
		# the load's task is the busiest in the files before and in the recovered one
		first=$(ls "$d"/r-[0-9]*.dat | head -1)
		t_got=$(tasks "$got" | awk 'NR == 1 { print $2 }')
		t_first=$(tasks "$first" | awk 'NR == 1 { print $2 }')
		[ -n "$t_got" ] && [ "$t_got" = "$t_first" ] &&
			ok "round $round: the same busiest task ($t_got) as $(basename "$first")" ||
			fail "round $round: busiest task '$t_got' in the recovered file, '$t_first' before"
		tasks "$got" | grep -q ' syscall_storm$' &&
			ok "round $round: the load is named" || fail "round $round: syscall_storm unnamed"
	else
		fail "round $round: no recovered file"
		cat "$d/recover.out"
	fi
	left=$(ls -A "$d" | grep '^\.' || true)
	[ -z "$left" ] && ok "round $round: nothing hidden left after recover" ||
		fail "round $round: left after recover: $left"
	ls /run/flytrap/record-$rec >/dev/null 2>&1 && fail "round $round: run note left" || true
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
