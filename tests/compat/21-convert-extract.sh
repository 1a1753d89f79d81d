#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap convert on files trace-cmd makes on this machine: `trace-cmd
# extract` from a private instance (sched + syscall events, a small buffer
# under load so pages carry lost-event flags, and a second instance so the
# file has two named buffers), then `trace-cmd convert` to version 6 and to
# uncompressed v7.  For each, `trace-cmd report` (plain, -R raw fields and
# --stat without the data-layout lines) prints exactly the same on flytrap's
# zstd and uncompressed outputs as on the original, and `trace-cmd dump
# --summary` accepts them.  The instances are removed on every exit path.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_convert.sh"
need_cmd trace-cmd
need_tracefs

A=flytrap-compat-a-$$ B=flytrap-compat-b-$$
remove_instances() {
	for i in "$A" "$B"; do
		[ -d "$TRACEFS/instances/$i" ] || continue
		echo 0 >"$TRACEFS/instances/$i/tracing_on" 2>/dev/null
		echo 0 >"$TRACEFS/instances/$i/events/enable" 2>/dev/null
		rmdir "$TRACEFS/instances/$i" 2>/dev/null
	done
}
trap 'remove_instances; rm -rf "$TMP"' EXIT

for i in "$A" "$B"; do
	mkdir "$TRACEFS/instances/$i" || skip "cannot create a tracefs instance"
done
echo 16 >"$TRACEFS/instances/$A/buffer_size_kb"
echo 1 >"$TRACEFS/instances/$A/events/sched/enable" || skip "no sched events"
for e in sys_enter_openat sys_exit_openat sys_enter_read; do
	echo 1 >"$TRACEFS/instances/$A/events/syscalls/$e/enable" 2>/dev/null
done
echo 64 >"$TRACEFS/instances/$B/buffer_size_kb"
echo mono >"$TRACEFS/instances/$B/trace_clock"
echo 1 >"$TRACEFS/instances/$B/events/sched/sched_switch/enable"
echo 1 >"$TRACEFS/instances/$B/events/sched/sched_wakeup/enable"
# load: many short processes and file opens on both CPUs
for k in 1 2; do
	( for j in $(seq 300); do cat /proc/self/stat >/dev/null; done ) &
done
wait
# stop writing before reading: extract would otherwise chase its own events
for i in "$A" "$B"; do echo 0 >"$TRACEFS/instances/$i/tracing_on"; done
tc_extract -B "$A" -B "$B" -o "$TMP/ext.dat" >"$TMP/extract.log" 2>&1 ||
	{ cat "$TMP/extract.log"; fail "trace-cmd extract failed"; finish; }
remove_instances
# (other tests may own instances of their own: only ours must be gone)
for i in "$A" "$B"; do
	[ -e "$TRACEFS/instances/$i" ] && fail "instance $i left behind"
done
[ -s "$TMP/ext.dat" ] || skip "trace-cmd extract wrote nothing"
trace-cmd convert --file-version 6 -i "$TMP/ext.dat" -o "$TMP/v6.dat" >/dev/null 2>&1 ||
	fail "trace-cmd convert --file-version 6 failed"
trace-cmd convert --compression none -i "$TMP/ext.dat" -o "$TMP/none.dat" >/dev/null 2>&1 ||
	fail "trace-cmd convert --compression none failed"

files=0 lines=0
for src in ext v6 none; do
	f="$TMP/$src.dat"
	[ -s "$f" ] || continue
	trace-cmd report "$f" >"$TMP/o.txt" 2>/dev/null
	trace-cmd report -R "$f" >"$TMP/o.raw" 2>/dev/null
	trace-cmd report --stat "$f" 2>/dev/null | stat_filter >"$TMP/o.stat"
	n=$(grep -vc '^cpus=' "$TMP/o.txt")
	[ "$n" -gt 0 ] || fail "$src: the original has no events"
	drops=$(grep -c 'EVENTS DROPPED\]' "$TMP/o.txt")
	for comp in zstd none; do
		out="$TMP/out-$src-$comp.dat"
		if ! "$FLYTRAP" convert "$f" -o "$out" -c $comp 2>"$TMP/err"; then
			fail "$src ($comp): flytrap convert failed: $(head -c 300 "$TMP/err")"
			continue
		fi
		trace-cmd report "$out" >"$TMP/n.txt" 2>/dev/null
		trace-cmd report -R "$out" >"$TMP/n.raw" 2>/dev/null
		trace-cmd report --stat "$out" 2>/dev/null | stat_filter >"$TMP/n.stat"
		if cmp -s "$TMP/o.txt" "$TMP/n.txt"; then
			ok "$src ($comp): $n event lines identical ($drops drop markers)"
			lines=$((lines + n))
		else
			fail "$src ($comp): trace-cmd report differs"
			diff "$TMP/o.txt" "$TMP/n.txt" | head -10
		fi
		cmp -s "$TMP/o.raw" "$TMP/n.raw" || fail "$src ($comp): report -R differs"
		cmp -s "$TMP/o.stat" "$TMP/n.stat" || { fail "$src ($comp): report --stat differs"; diff "$TMP/o.stat" "$TMP/n.stat" | head -5; }
		kshark_check "$out" "$TMP/n.txt" "$src ($comp)"
		trace-cmd dump --summary -i "$out" >"$TMP/dump.txt" 2>&1 || fail "$src ($comp): trace-cmd dump --summary refuses it"
		grep -q "buffer \"$B\"" "$TMP/dump.txt" || fail "$src ($comp): instance $B missing from dump"
	done
	files=$((files + 1))
done
echo "compared $files files x 2 outputs, $lines event lines"
[ $files = 3 ] || fail "only $files of 3 source files"
finish
