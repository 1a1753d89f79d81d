#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Rotation and the flight recorder when files cannot be written (issue 31,
# items 2 and 5), on a small tmpfs and under ulimit -f, without a real disk:
#  1. --rotate on a 4 MiB file system: the files that fail are errors naming
#     themselves (t-NNNN.dat, not t.dat), the recording ends in exit 1 and its
#     summary counts them;
#  2. a disk that fills and empties again: the file after the gap carries the
#     lost events in its loss records (drops counts them) and names the lost
#     segments, and the numbers of the lost files stay unused;
#  3. ulimit -f: EFBIG, reported like a full disk, instead of SIGXFSZ killing
#     the recorder with its instance still recording;
#  4. --flight with a trigger on a full disk: the pending dump is said to be
#     lost and the exit status is 1.
. "$(dirname "$0")/../lib.sh"
need_tracefs
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$STORM" ] || skip "syscall_storm not built"
MNT=$TMP/small
mkdir -p "$MNT"
mount -t tmpfs -o size=4m tmpfs "$MNT" 2>/dev/null || skip "cannot mount a small tmpfs"
storm=
# the storm's work is done by the processes it forks: those go first
storm_stop() { [ -n "$storm" ] || return 0; pkill -P "$storm"; kill "$storm"; wait "$storm"; storm=; } 2>/dev/null
trap 'storm_stop; kill -9 $(jobs -p) 2>/dev/null; umount -l "$MNT" 2>/dev/null; rm -rf "$TMP"' EXIT
cd "$TMP"

no_leftovers() {	# NAME: nothing hidden left on the small disk, no instance of pid
	ls -A "$MNT" | grep -q '^\.' && { fail "$1: hidden files left: $(ls -A "$MNT" | tr '\n' ' ')"; return; }
	[ ! -e "$TRACEFS/instances/flytrap-$2" ] && ok "$1: nothing left behind" ||
		fail "$1: instance flytrap-$2 left"
}

# 1. the issue's case: 4 MiB, --rotate 1M --keep 3 under a syscall load
"$STORM" 100000000 1 >/dev/null &
storm=$!
"$FLYTRAP" record -e sched -e raw_syscalls -d 5 --rotate 1M --keep 3 -o "$MNT/t.dat" 2>full.err &
rec=$!
wait $rec
rc=$?
[ $rc = 1 ] && ok "full disk: exit 1" || { fail "full disk: exit $rc"; cat full.err; }
grep -q "error: .*'$MNT/t-[0-9]*\.dat'.*rotation file [0-9]* is lost: about [0-9]* events" full.err &&
	ok "full disk: each failed file is named" || { fail "full disk: no error naming a t-NNNN.dat"; cat full.err; }
grep -q "'$MNT/t\.dat'.*No space\|cannot write.*'$MNT/t\.dat'" full.err &&
	fail "full disk: an error names t.dat" || ok "full disk: no error names t.dat"
grep -q "^flytrap: rotation: .* could not be written (about [0-9]* events lost" full.err &&
	ok "full disk: the summary counts the lost files" || { fail "full disk: summary"; cat full.err; }
no_leftovers "full disk" $rec
rm -f "$MNT"/*

# 2. files that fail, then files that are written: the one after the gap
# says what was lost before it.  A real full disk takes the store with it,
# so the recorder's test hook fails rotation files 2 to 4 as ENOSPC would.
FLYTRAP_TEST_FAIL_SEGMENTS=2-4 "$FLYTRAP" record -e sched -e raw_syscalls --rotate 1M \
	-o "$TMP/g.dat" 2>gap.err &
rec=$!
wait_line gap.err "rotation file 4 is lost" 300 || fail "gap: file 4 was not lost"
wait_line gap.err "^flytrap: wrote '$TMP/g-0005.dat'" 300 || fail "gap: no file after the gap"
kill -INT $rec
wait $rec
rc=$?
storm_stop
[ $rc = 1 ] && ok "gap: exit 1" || { fail "gap: exit $rc"; cat gap.err; }
grep -q "^flytrap: error: cannot write '$TMP/g-0002.dat': .*; rotation file 2 is lost: about [0-9]* events" gap.err &&
	ok "gap: the lost file is named" || { fail "gap: message"; cat gap.err; }
after=$TMP/g-0005.dat
if [ -f "$after" ]; then
	"$FLYTRAP" info "$after" >gap.info 2>&1
	grep -q "rotation_lost_segments=2-4" gap.info &&
		ok "gap: g-0005.dat names the lost segments 2-4" ||
		{ fail "gap: no rotation_lost_segments=2-4 in g-0005.dat"; grep -i rotation gap.info; }
	lost=$("$FLYTRAP" drops --json "$after" | python3 -c \
		'import json, sys; print(json.load(sys.stdin)["total"]["lost"])' 2>/dev/null)
	said=$(sed -nE 's/.*is lost: about ([0-9]+) events.*/\1/p' gap.err | awk '{ s += $1 } END { print s + 0 }')
	[ "$said" -gt 0 ] && [ "${lost:-0}" -ge "$said" ] &&
		ok "gap: drops on g-0005.dat counts $lost lost events (the recorder said $said)" ||
		fail "gap: drops counts ${lost:-none} lost events, the recorder said $said"
	[ ! -e "$TMP/g-0002.dat" ] && [ ! -e "$TMP/g-0004.dat" ] && [ -f "$TMP/g-0001.dat" ] &&
		ok "gap: the lost files' numbers stay unused" || fail "gap: file names: $(ls "$TMP"/g-*)"
	"$FLYTRAP" info "$TMP/g-0001.dat" |
		grep -q rotation_lost && fail "gap: g-0001.dat claims a loss" || true
else
	fail "gap: g-0005.dat missing"; cat gap.err
fi
ls -A "$TMP" | grep -q '^\.g' && fail "gap: hidden files left: $(ls -A "$TMP" | grep '^\.')" ||
	ok "gap: nothing hidden left"

# 3. a file size limit: EFBIG, not SIGXFSZ
( ulimit -f 900; exec "$FLYTRAP" record -e sched -e raw_syscalls -d 3 --rotate 1M -o "$MNT/u.dat" \
	-- "$STORM" 300000 1 ) >/dev/null 2>ulim.err &
rec=$!
wait $rec
rc=$?
[ ! -e "$TRACEFS/instances/flytrap-$rec" ] && ok "ulimit -f: instance removed" ||
	{ fail "ulimit -f: instance flytrap-$rec left"; "$FLYTRAP" reset >/dev/null 2>&1; }
[ $rc = 1 ] && ok "ulimit -f: exit 1" || { fail "ulimit -f: exit $rc (153: killed by SIGXFSZ)"; cat ulim.err; }
grep -q "File too large" ulim.err && ok "ulimit -f: said File too large" || { fail "ulimit -f: message"; cat ulim.err; }
ls -A "$MNT" | grep -q . && { fail "ulimit -f: files left: $(ls -A "$MNT" | tr '\n' ' ')"; rm -f "$MNT"/* "$MNT"/.[!.]*; } ||
	ok "ulimit -f: nothing left on the disk"

# 4. --flight and a trigger on a full disk: the pending dump is said to be lost.  A 3 MiB
# window on the 4 MiB disk: the store alone fits, so the recorder is still there to take the
# trigger (a store that filled the disk first would stop it before the trigger came); once the
# store holds 2.5 MiB, a dump of it cannot fit beside it.
"$STORM" 100000000 1 >/dev/null &
storm=$!
"$FLYTRAP" record -e sched -e raw_syscalls --flight 3M --after 0.5s -o "$MNT/f.dat" 2>fl.err &
rec=$!
wait_line fl.err "^flytrap: recording" 100 || fail "flight: did not start"
# one reading of the size per step: the store drops its oldest segment as it writes a new one,
# so a second look may find it below the mark it had just reached
sz=0
for i in $(seq 300); do
	sz=$(du -sk "$MNT" | cut -f1)
	[ "$sz" -ge 2560 ] && break
	kill -0 $rec 2>/dev/null || break
	sleep 0.1
done
[ "$sz" -ge 2560 ] || fail "flight: the store did not reach 2.5 MiB in 30 s ($sz KiB)"
"$FLYTRAP" trigger $rec 2>trig.err || { fail "flight: trigger failed"; cat trig.err; }
wait_line fl.err "is lost" 200 || fail "flight: no dump failed in 20 s"
kill -INT $rec 2>/dev/null
wait $rec
rc=$?
storm_stop
[ $rc = 1 ] && ok "flight: exit 1" || { fail "flight: exit $rc"; cat fl.err; }
grep -q "the dump for trigger 'flytrap trigger (pid [0-9]*)' is lost" fl.err &&
	ok "flight: the lost dump is said" || { fail "flight: nothing says the dump is lost"; cat fl.err; }
no_leftovers "flight" $rec
finish
