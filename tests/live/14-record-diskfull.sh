#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A full disk ends the recording cleanly: when the recorder sees the disk
# filling it stops while the file can still be finished (exit 0, complete
# file); when something else fills the disk under it, it stops with one clear
# error, restores tracefs, and `flytrap recover` finishes the file once
# there is room again.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$STORM" ] || skip "syscall_storm not built"
MNT=$TMP/small
mkdir -p "$MNT"
mount -t tmpfs -o size=6m tmpfs "$MNT" 2>/dev/null || skip "cannot mount a small tmpfs"
trap 'kill -9 $(jobs -p) 2>/dev/null; umount -l "$MNT" 2>/dev/null; rm -rf "$TMP"' EXIT
cd "$TMP"

# 1. the recorder notices the disk filling up
"$FLYTRAP" record -b 64 -e 'raw_syscalls:*' -o "$MNT/a.dat" -- "$STORM" 4000000 2 >/dev/null 2>a.err
rc=$?
[ $rc = 0 ] && ok "nearly full disk: exit 0" || { fail "nearly full disk: exit $rc"; cat a.err; }
grep -q "left on the disk" a.err && ok "nearly full disk: clear message" || { fail "no disk message"; cat a.err; }
trace-cmd report -i "$MNT/a.dat" >a.txt 2>/dev/null && [ "$(grep -c sys_enter a.txt)" -gt 1000 ] &&
	ok "nearly full disk: complete readable file" || fail "nearly full disk: file not readable"
ls -A "$MNT" | grep -q spool && fail "spool files left behind" || ok "no spool files left"
# the workload outlives the recording; end it by the pid the recorder names
left=$(sed -nE 's/.*\(pid ([0-9]+)\) is still running.*/\1/p' a.err)
[ -n "$left" ] && kill "$left" 2>/dev/null
rm -f "$MNT/a.dat"

# 2. another program fills the disk while we record
"$FLYTRAP" record -b 64 -e 'raw_syscalls:*' -o "$MNT/b.dat" 2>b.err &
rec=$!
for i in $(seq 100); do grep -q '^flytrap: recording' b.err && break; sleep 0.1; done
sleep 1.5		# let a first flush reach the spool
dd if=/dev/zero of="$MNT/filler" bs=64k 2>/dev/null
"$STORM" 300000 2 >/dev/null	# keep the recorder writing into the full disk
for i in $(seq 50); do kill -0 $rec 2>/dev/null || break; sleep 0.2; done
kill -INT $rec 2>/dev/null
wait $rec
rc=$?
if ! grep -qE "is full|No space" b.err && grep -q "left on the disk" b.err; then
	# it saw the disk fill before a write failed: a clean stop is fine too
	[ $rc = 0 ] && ok "filled disk: stopped in time" || { fail "filled disk: exit $rc"; cat b.err; }
else
	[ $rc = 1 ] && ok "filled disk: exit 1" || { fail "filled disk: exit $rc"; cat b.err; }
	grep -qE "full|No space" b.err && ok "filled disk: clear message" || { fail "no message"; cat b.err; }
fi
[ ! -e "$TRACEFS/instances/flytrap-$rec" ] && ok "filled disk: instance removed" ||
	fail "filled disk: instance flytrap-$rec left"
rm -f "$MNT/filler"
if ls -A "$MNT" | grep -q spool; then
	"$FLYTRAP" recover "$MNT/b.dat" 2>rec.err && ok "recover after freeing space" ||
		{ fail "recover failed"; cat rec.err; }
fi
trace-cmd report -i "$MNT/b.dat" >b.txt 2>/dev/null && ok "filled disk: file readable in the end" ||
	fail "filled disk: file not readable"
finish
