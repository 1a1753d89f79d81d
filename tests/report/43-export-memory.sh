#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap export streams: peak memory does not grow with the number of
# events (8x more events, same tasks: same peak RSS within a small
# margin), for the JSON and for the HTML report; and the JSON of a
# 500k-event trace still loads (balanced, nested).
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
need_cmd python3
MK="$TOP/$O/tests/tools/mkexport"
[ -x "$MK" ] || skip "$MK is not built"
"$MK" "$TMP/s1.dat" --scale 10000 >/dev/null || fail "mkexport s1"
"$MK" "$TMP/s8.dat" --scale 80000 >/dev/null || fail "mkexport s8"

# under ASan, freed memory sits in a quarantine that grows with the work done
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
[ -x /usr/bin/time ] || skip "GNU time (/usr/bin/time, Debian package 'time') is not installed"
peak() { # args... -> max RSS in KiB of the command
	/usr/bin/time -f %M -o "$TMP/rss" "$@" >/dev/null && cat "$TMP/rss"
}

# The same thread count for both files: by default a file over 4 MiB may
# get a reader thread (when two threads measure as parallel at that moment)
# and a small one never, and the reader's queue of pages is a fixed 6 MB
# that must not pass for growth.  One thread and two, each compared alike.
for threads in 1 2; do
	for mode in json html; do
		extra=(--threads "$threads")
		[ $mode = html ] && extra+=(--html)
		a=$(peak "$FLYTRAP" export "${extra[@]}" "$TMP/s1.dat" -o "$TMP/s1.$mode") || fail "$mode s1"
		b=$(peak "$FLYTRAP" export "${extra[@]}" "$TMP/s8.dat" -o "$TMP/s8.$mode") || fail "$mode s8"
		# 8x the events may cost at most a quarter more (allocator noise), never 8x
		if [ -n "$a" ] && [ -n "$b" ] && [ "$b" -le $((a + a / 4 + 2048)) ]; then
			ok "$mode, --threads $threads: peak RSS $a KiB for 262k events, $b KiB for 2.1M events"
		else
			fail "$mode, --threads $threads: peak RSS grows with events: $a KiB -> $b KiB"
		fi
	done
done
python3 "$TOP/tests/report/export-check.py" "$TMP/s1.json" >/dev/null && ok "262k-event JSON loads" ||
	fail "262k-event JSON does not load"
finish
