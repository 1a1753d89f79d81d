#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Write faults by kind of write (issue 31): the writer's test hook
# FLYTRAP_TEST_WRITE_FAULT=KIND:ERR[@NAME] (format/outfile.c) fails the
# header and metadata sections, a CPU's data, the index that follows the
# data, the fsync or the rename of a file with ENOSPC or EIO, for a plain
# recording, a --flight dump and a --rotate file.  Each: exit 1, one error
# line naming the file and the error, no file that looks complete, the
# kernel left as found; a rotation goes on and the next file counts what
# the failed one lost.  A plain recording's kept data is recovered after.
. "$(dirname "$0")/../lib.sh"
need_tracefs
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT
cd "$TMP"
KINDS="header data index fsync rename"
declare -A WHY=([ENOSPC]="No space left on device" [EIO]="Input/output error")
err_for() { case $1 in header|index|rename) echo ENOSPC ;; *) echo EIO ;; esac; }

kernel_clean() {	# NAME PID
	[ ! -e "$TRACEFS/instances/flytrap-$2" ] && ok "$1: instance removed" ||
		fail "$1: instance flytrap-$2 left"
}
one_error() {	# NAME FILE-PATTERN ERRNO-TEXT ERRFILE
	local n
	n=$(grep -c "error:" "$4")
	[ "$n" = 1 ] && grep "error:" "$4" | grep -q "$2" && grep "error:" "$4" | grep -q "$3" &&
		ok "$1: one error line naming the file and '$3'" ||
		{ fail "$1: $n error lines, wanted one naming $2 and '$3'"; cat "$4"; }
}

# a plain recording
for k in $KINDS; do
	e=$(err_for $k)
	d=$TMP/p-$k
	mkdir "$d"
	FLYTRAP_TEST_WRITE_FAULT=$k:$e "$FLYTRAP" record -e sched -d 0.5 -o "$d/p.dat" \
		>/dev/null 2>"$d/err" &
	rec=$!
	wait $rec
	rc=$?
	[ $rc = 1 ] && ok "plain $k: exit 1" || { fail "plain $k: exit $rc"; cat "$d/err"; }
	one_error "plain $k" "'$d/p\.dat'" "${WHY[$e]}" "$d/err"
	[ ! -e "$d/p.dat" ] && ok "plain $k: no p.dat" || fail "plain $k: p.dat exists"
	kernel_clean "plain $k" $rec
	# what was kept (temporary file and spools) is finished by recover
	if ls -A "$d" | grep -q '^\.p\.dat\.'; then
		"$FLYTRAP" recover "$d/p.dat" >/dev/null 2>"$d/rec.err" &&
			"$FLYTRAP" verify "$d/p.dat" >/dev/null 2>&1 &&
			ok "plain $k: recover finishes the kept file" ||
			{ fail "plain $k: recover"; cat "$d/rec.err"; }
	fi
	ls -A "$d" | grep -q '^\.' && fail "plain $k: hidden files left: $(ls -A "$d" | tr '\n' ' ')"
	[ ! -e "/run/flytrap/record-$rec" ] || fail "plain $k: run note left"
done


# a --flight dump (the live writer's own file is not the dump: @f-0001.dat)
for k in $KINDS; do
	e=$(err_for $k)
	d=$TMP/f-$k
	mkdir "$d"
	FLYTRAP_TEST_WRITE_FAULT=$k:$e@f-0001.dat "$FLYTRAP" record -e sched --flight 10s \
		--after 0.2s -d 1.2 -o "$d/f.dat" >/dev/null 2>"$d/err" &
	rec=$!
	wait_line "$d/err" "^flytrap: recording" 100 || fail "flight $k: did not start"
	"$FLYTRAP" trigger $rec >/dev/null 2>&1 || fail "flight $k: trigger failed"
	wait $rec
	rc=$?
	[ $rc = 1 ] && ok "flight $k: exit 1" || { fail "flight $k: exit $rc"; cat "$d/err"; }
	one_error "flight $k" "f-0001\.dat" "${WHY[$e]}" "$d/err"
	grep -q "the dump for trigger .* is lost" "$d/err" && ok "flight $k: the dump is said lost" ||
		fail "flight $k: nothing says the dump is lost"
	ls "$d" | grep -q '^f-.*\.dat$' && fail "flight $k: a dump file exists: $(ls "$d")"
	ls -A "$d" | grep -q '^\.' && fail "flight $k: hidden files left: $(ls -A "$d" | tr '\n' ' ')"
	kernel_clean "flight $k" $rec
done

# a --rotate file: file 2 fails, the recording goes on, file 3 counts the loss
for k in $KINDS; do
	e=$(err_for $k)
	d=$TMP/r-$k
	mkdir "$d"
	FLYTRAP_TEST_WRITE_FAULT=$k:$e@r-0002.dat "$FLYTRAP" record -e sched -e raw_syscalls \
		--rotate 0.3s -d 1.2 -o "$d/r.dat" >/dev/null 2>"$d/err" &
	rec=$!
	wait $rec
	rc=$?
	[ $rc = 1 ] && ok "rotate $k: exit 1" || { fail "rotate $k: exit $rc"; cat "$d/err"; }
	one_error "rotate $k" "r-0002\.dat" "${WHY[$e]}" "$d/err"
	grep -q "rotation file 2 is lost: about [0-9]* events" "$d/err" &&
		ok "rotate $k: the lost file's events are counted" || fail "rotate $k: no count"
	[ ! -e "$d/r-0002.dat" ] && [ -f "$d/r-0001.dat" ] && [ -f "$d/r-0003.dat" ] &&
		ok "rotate $k: file 2 missing, the recording went on" ||
		fail "rotate $k: files: $(ls "$d" | tr '\n' ' ')"
	if [ -f "$d/r-0003.dat" ]; then
		"$FLYTRAP" info "$d/r-0003.dat" 2>/dev/null | grep -q "rotation_lost_segments=2-2" &&
			ok "rotate $k: r-0003.dat names the lost file" ||
			fail "rotate $k: r-0003.dat does not name the lost file"
		said=$(sed -nE 's/.*rotation file 2 is lost: about ([0-9]+) events.*/\1/p' "$d/err")
		lost=$("$FLYTRAP" drops --json "$d/r-0003.dat" 2>/dev/null | python3 -c \
			'import json, sys; print(json.load(sys.stdin)["total"]["lost"])' 2>/dev/null)
		[ "${lost:-0}" -ge "${said:-1}" ] &&
			ok "rotate $k: drops on r-0003.dat counts $lost lost (said: $said)" ||
			fail "rotate $k: drops counts ${lost:-none}, the recorder said ${said:-nothing}"
	fi
	ls -A "$d" | grep -q '^\.' && fail "rotate $k: hidden files left: $(ls -A "$d" | tr '\n' ' ')"
	kernel_clean "rotate $k" $rec
done
finish
