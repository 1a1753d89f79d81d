#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The interoperability matrix, live, part 2 (tests/live/_matrix.sh): a flight recorder's
# first dump of two, the two dumps merged (their union, nothing twice), a rotation's middle
# segment, every segment merged (their sum), and the segments redacted as one set (one call,
# one key) then merged, whose figures must be those of the plain merge; each read
# by every reader of tests/matrix-lib.sh, under the planted secrets of part 1.
. "$(dirname "$0")/_matrix.sh"

# ---- a flight recorder's dumps: two triggers whose windows overlap -----------------------
unshare -u sh -c "$SETHOST" _ "$host" "$F" record -q --flight 30s \
	--after 0.2s -e sched -e raw_syscalls -o fl.dat -- sh cmd.sh "$arg" 3 > /dev/null 2> fl.err &
RP=$!
sleep 1.2
kill -USR1 $RP 2> /dev/null
sleep 1
kill -USR1 $RP 2> /dev/null
wait $RP
rc=$?
RP=
mapfile -t dumps < <(ls fl-*.dat 2> /dev/null)
if [ $rc = 0 ] && [ ${#dumps[@]} = 2 ]; then
	mx_writer flight-dump "$TMP/${dumps[0]}" self
	# the union of the two dumps' events, each once (ns stamps); a task's name at the head of
	# a line comes from its dump's cmdlines, which may differ: the pid stands for it
	for f in "${dumps[@]}"; do
		mx_listing "$f" -t | grep -E -- '-[0-9]+ +\[[0-9]+\] ' |
			sed -E 's/^ *.*-([0-9]+) +\[/\1 [/' > "$f.txt"
	done
	n=$(sort -u "${dumps[0]}.txt" "${dumps[1]}.txt" | wc -l)
	"$F" merge "${dumps[@]}" -o merge-dumps.dat > merge-dumps.log 2>&1 &&
		mx_writer merge-dumps "$TMP/merge-dumps.dat" "$n" || mx_writer_fail merge-dumps "$(why merge-dumps.log)"
else
	mx_writer_fail flight-dump "record --flight exit $rc, ${#dumps[@]} dumps (2 expected): $(why fl.err)"
	mx_writer_fail merge-dumps "no dumps"
fi

# ---- rotation: the middle segment, the segments merged, and redacted as one set then merged
if rec rot 3 --rotate 1s -e sched -e raw_syscalls; then
	mapfile -t segs < <(ls rot-*.dat 2> /dev/null)
	if [ ${#segs[@]} -ge 3 ]; then
		mx_writer rotation-segment "$TMP/${segs[1]}" self
		sum=0
		for f in "${segs[@]}"; do
			mx_listing "$f" > seg.txt
			sum=$((sum + $(mx_count_lines seg.txt)))
		done
		if "$F" merge "${segs[@]}" -o merge-segments.dat > merge-segments.log 2>&1; then
			mx_writer merge-segments "$TMP/merge-segments.dat" "$sum"
		else
			mx_writer_fail merge-segments "$(why merge-segments.log)"
		fi
		# the segments redacted as one set (one call, one random key), then merged
		mkdir -p red
		: > merge-redacted.log
		"$F" redact "${segs[@]}" -o red >> merge-redacted.log 2>&1
		if [ -e "red/${segs[-1]}" ] && "$F" merge red/*.dat -o merge-redacted.dat >> merge-redacted.log 2>&1; then
			mx_writer merge-redacted-segments "$TMP/merge-redacted.dat" parent merge-segments same
		else
			mx_writer_fail merge-redacted-segments "$(why merge-redacted.log)"
		fi
		mx_secrets merge-redacted-segments "${secrets[@]}"
	else
		mx_writer_fail rotation-segment "${#segs[@]} segments of a 3 s recording rotated every 1 s"
	fi
else
	mx_writer_fail rotation-segment "$(why rot.err)"
fi


mx_run
mx_finish
