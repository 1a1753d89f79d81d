#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Every trigger is accounted for (issue 31, item 4).  Triggers sent 0.35 s
# apart to a flight recorder: two SIGUSR1 merge while the recorder is busy,
# the requests of `flytrap trigger` do not.  Each `flytrap trigger` prints
# what became of its trigger, and the closing summary's one line adds up:
# N triggers = D dumps + J joined + I ignored, with D files written.  Looped,
# so that a race shows; then --min-gap ignores and says so.
. "$(dirname "$0")/../lib.sh"
need_tracefs
[ -e "$TRACEFS/events/sched/sched_switch" ] || skip "no sched:sched_switch event"
cd "$TMP"
busy_start


# R ROUNDS of K triggers, each round's triggers 0.35 s apart; ARGS for record
run() {
	local name=$1 rounds=$2 k=$3 rec r i sent=0
	shift 3
	"$FLYTRAP" record -e sched --flight 20s "$@" -o "$TMP/$name.dat" 2>"$name.err" &
	rec=$!
	wait_line "$name.err" "^flytrap: recording" 100 || fail "$name: did not start"
	sleep 0.5
	for r in $(seq "$rounds"); do
		local tp=()
		for i in $(seq "$k"); do
			"$FLYTRAP" trigger $rec 2>"$name.t$r.$i" &
			tp+=($!)
			sent=$((sent + 1))
			sleep 0.35
		done
		wait "${tp[@]}"
		sleep 2
	done
	kill -INT $rec
	wait $rec
	echo $? >"$name.rc"
	echo $sent >"$name.sent"
}

check() {	# NAME: the summary line adds up, each trigger printed its fate
	local name=$1 sent line n d j i files answered
	sent=$(cat "$name.sent")
	[ "$(cat "$name.rc")" = 0 ] && ok "$name: exit 0" || { fail "$name: exit $(cat "$name.rc")"; cat "$name.err"; }
	line=$(grep -E '^flytrap: [0-9]+ triggers?: ' "$name.err")
	read -r n d j i < <(echo "$line" | sed -nE \
		's/^flytrap: ([0-9]+) triggers?: ([0-9]+) dumps?, ([0-9]+) joined a dump in progress, ([0-9]+) ignored \(--min-gap\).*/\1 \2 \3 \4/p')
	if [ -z "${n:-}" ]; then
		fail "$name: no trigger line in the summary"; cat "$name.err"; return
	fi
	[ "$n" = "$sent" ] && ok "$name: $sent triggers sent, $n counted" || { fail "$name: $sent sent, $n counted: $line"; }
	[ $((d + j + i)) = "$n" ] && ok "$name: $d dumps + $j joined + $i ignored = $n" ||
		fail "$name: $line does not add up"
	files=$(ls "$TMP/$name"-*.dat 2>/dev/null | wc -l)
	[ "$files" = "$d" ] && ok "$name: $files files for $d dumps" || fail "$name: $files files for $d dumps"
	answered=$(cat "$name".t* | grep -cE "^flytrap: recorder [0-9]+: (a dump|joined|ignored)")
	[ "$answered" = "$sent" ] && ok "$name: every flytrap trigger printed what became of it" ||
		{ fail "$name: $answered of $sent triggers answered"; cat "$name".t*; }
	[ -n "${2:-}" ] && { [ "$i" -ge "$2" ] && ok "$name: $i ignored by --min-gap" ||
		fail "$name: only $i ignored by --min-gap"; }
	return 0
}

# 3 rounds of 3 triggers: a trigger within --after (1 s) of a dump's joins it
run joined 3 3
check joined

# --after 0.1s --min-gap 30s: the first trigger dumps, the later ones are
# ignored (the second round comes 2 s after the first: within the gap)
run gap 2 3 --after 0.1s --min-gap 30s
check gap 3
grep -q "^flytrap: recorder [0-9]*: ignored: .* within --min-gap" gap.t2.1 &&
	ok "gap: flytrap trigger says its trigger was ignored" || { fail "gap: answer"; cat gap.t*; }

# the dump's metadata says why it holds more than --flight
f=$(ls "$TMP"/joined-*.dat | head -1)
"$FLYTRAP" info "$f" 2>/dev/null | grep -q "window_note=.*before the trigger (--flight)" &&
	ok "the dump says which window was asked" || fail "no window_note in $f"
busy_stop
finish
