#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# record --on-file CMD (issue 33 item 2): CMD runs once for each completed
# file (rotation files, flight dumps, a plain recording's -o file), after
# its rename (CMD sees the file at its final size, and no hidden name ever
# reaches it); one that hangs is killed at
# --on-file-timeout while the rotation goes on writing files; one that
# fails is said; both are counted in the metadata of a later file and in
# the closing line.
. "$(dirname "$0")/../lib.sh"
need_tracefs
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT
cd "$TMP"
LOG=$TMP/cmd.log
cat >"$TMP/cmd.sh" <<EOT
#!/bin/sh
# the file's name is the last argument; its size when CMD runs (compared with its final one)
echo "\$1 \$(stat -c %s "\$1" 2>/dev/null || echo missing)" >>"$LOG"
case "\$1" in
*r-0001.dat) exec sleep 60 ;;	# hangs: killed at the timeout
*r-0002.dat) exit 3 ;;		# fails
esac
exit 0
EOT
chmod +x "$TMP/cmd.sh"

runs_once() {	# NAME: every completed file in the log exactly once, whole, nothing else
	local f n bad=0
	for f in "$@"; do
		n=$(grep -c "^$f " "$LOG")
		[ "$n" = 1 ] || { fail "$NAME: CMD ran $n times for $f"; bad=1; }
		[ "$(grep "^$f " "$LOG" | cut -d' ' -f2)" = "$(stat -c %s "$f")" ] ||
			{ fail "$NAME: CMD saw $f before it was whole"; bad=1; }
		"$FLYTRAP" verify "$f" >/dev/null 2>&1 || { fail "$NAME: $f does not verify"; bad=1; }
	done
	grep -q '/\.' "$LOG" && { fail "$NAME: CMD saw a hidden file"; bad=1; }
	[ "$(wc -l <"$LOG")" = $# ] || { fail "$NAME: CMD ran $(wc -l <"$LOG") times for $# files"; bad=1; }
	[ $bad = 0 ] && ok "$NAME: CMD ran once for each of the $# completed files, each whole"
}

# 1. rotation: the first CMD hangs, the second fails; the files keep coming
NAME=rotate
mkdir r
"$FLYTRAP" record -e sched --rotate 0.3s -d 5 --on-file "$TMP/cmd.sh" --on-file-timeout 2s \
	-o "$TMP/r/r.dat" >/dev/null 2>r.err
rc=$?
[ $rc = 0 ] && ok "rotate: exit 0 (CMD's failures are said, not the recording's)" ||
	{ fail "rotate: exit $rc"; cat r.err; }
runs_once $(ls "$TMP"/r/r-*.dat)
# the recording went on while the first CMD hung: files written before it was killed
hang=$(grep -n "r-0001.dat: killed after the 2 s timeout" r.err | cut -d: -f1)
next=$(grep -n "^flytrap: wrote '.*r-0002.dat'" r.err | cut -d: -f1)
[ -n "$hang" ] && [ -n "$next" ] && [ "$next" -lt "$hang" ] &&
	ok "rotate: r-0002.dat was written while CMD hung on r-0001.dat" ||
	{ fail "rotate: the hang stalled the rotation (or was not killed)"; cat r.err; }
grep -q "warning: --on-file '.*': .*r-0002.dat: exit 3" r.err && ok "rotate: the failing CMD is said" ||
	fail "rotate: nothing says CMD failed on r-0002.dat"
grep -q "^flytrap: --on-file: [0-9]* runs, 1 failed, 1 timed out, 0 skipped" r.err &&
	ok "rotate: the closing line counts them" || { fail "rotate: no closing count"; cat r.err; }
t=0
for f in "$TMP"/r/r-*.dat; do
	v=$("$FLYTRAP" info "$f" 2>/dev/null | sed -n 's/^ *on_file_timed_out=//p')
	t=$((t + ${v:-0}))
done
[ $t = 1 ] && ok "rotate: the timed-out run is counted in a later file's metadata" ||
	fail "rotate: on_file_timed_out adds up to $t in the files"
"$FLYTRAP" info "$TMP/r/r-0002.dat" 2>/dev/null | grep -q "on_file_last=.*r-0001.dat" &&
	fail "rotate: r-0002.dat claims a run that had not ended" || true

# 2. flight dumps: one run per dump
NAME=flight
: >"$LOG"
mkdir f
"$FLYTRAP" record -e sched --flight 10s --after 0.2s -d 3 --on-file "$TMP/cmd.sh" \
	-o "$TMP/f/f.dat" >/dev/null 2>f.err &
rec=$!
for i in $(seq 100); do grep -q "^flytrap: recording" f.err && break; sleep 0.1; done
"$FLYTRAP" trigger $rec >/dev/null 2>&1
for i in $(seq 100); do [ -f "$TMP/f/f-0001.dat" ] && break; sleep 0.1; done
"$FLYTRAP" trigger $rec >/dev/null 2>&1
wait $rec
rc=$?
[ $rc = 0 ] && ok "flight: exit 0" || { fail "flight: exit $rc"; cat f.err; }
[ "$(ls "$TMP"/f/f-*.dat | wc -l)" = 2 ] && ok "flight: two dumps" || fail "flight: dumps: $(ls "$TMP/f")"
runs_once $(ls "$TMP"/f/f-*.dat)

# 3. a plain recording: its -o file, once
NAME=plain
: >"$LOG"
"$FLYTRAP" record -e sched -d 0.5 --on-file "$TMP/cmd.sh" -o "$TMP/p.dat" >/dev/null 2>p.err ||
	{ fail "plain: exit $?"; cat p.err; }
runs_once "$TMP/p.dat"

"$FLYTRAP" record --on-file '' -o x.dat -d 0.1 >/dev/null 2>u.err
[ $? = 2 ] && ok "an empty --on-file is a usage error" || fail "an empty --on-file: not exit 2"
finish
