#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --rotate SIZE under load: a sequence of complete files that trace-cmd reads,
# where every event is in exactly one file (the known number of getppid calls
# adds up over the files, and per CPU each file ends before the next begins);
# with --keep 3 at most 3 files remain.  Every file but the last ends near the
# size asked: the rotation counts what a file holds besides its events
# (symbols, formats), measured by the recorder, not only the event chunks.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
[ -e "$TRACEFS/events/syscalls/sys_enter_getppid" ] || skip "no syscalls:sys_enter_getppid event"
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$STORM" ] || skip "syscall_storm not built"
cd "$TMP"
N=600000 RATE=60000	# 10 s, about 2 MB of chunks and 1 MB of symbols and formats per file
SIZE=1536	# KiB

"$FLYTRAP" record -q --rotate ${SIZE}K -e syscalls:sys_enter_getppid -e raw_syscalls:sys_enter \
	-e raw_syscalls:sys_exit -o r.dat -- "$STORM" $N 1 $RATE >storm.out 2>rec.err
rc=$?
[ $rc = 0 ] || { cat rec.err; fail "record exited $rc"; finish; }
ls r-*.dat >files.txt
nf=$(wc -l <files.txt)
[ "$nf" -ge 3 ] && ok "$nf files" || fail "only $nf file(s)"
[ ! -e r.dat ] && ok "no r.dat besides the sequence" || fail "r.dat written"
# a file is written at the first tick past the size: 1/4 over is generous
big=$(head -n -1 files.txt | xargs stat -c '%s %n' | awk -v m=$((SIZE * 1024 * 5 / 4)) '$1 > m')
[ -z "$big" ] && ok "every file but the last within 1.25 x ${SIZE}K" || fail "files over ${SIZE}K: $big"
total=0 prev=""
for f in $(cat files.txt); do
	trace-cmd report -i "$f" >"$f.txt" 2>"$f.err" || { fail "trace-cmd cannot read $f"; head -3 "$f.err"; }
	n=$(grep -c ': sys_enter_getppid:' "$f.txt")
	total=$((total + n))
	# per CPU: first and last time stamp
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { c = $i; t = $(i + 1); sub(":", "", t)
		if (!(c in lo)) lo[c] = t; hi[c] = t; break } }
	     END { for (c in lo) print c, lo[c], hi[c] }' "$f.txt" | sort >"$f.span"
	if [ -n "$prev" ]; then
		bad=$(join "$prev.span" "$f.span" | awk '$3 >= $4 { print }')
		[ -z "$bad" ] && ok "$prev ends before $f begins on every CPU" || fail "$prev and $f overlap: $bad"
	fi
	prev=$f
done
# a loaded machine can overrun the kernel buffer: those events are counted
# as lost in the files, and then the ones there plus the lost cover the calls
lost=0
for f in $(cat files.txt); do
	l=$("$FLYTRAP" drops --json "$f" | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["lost"])')
	lost=$((lost + ${l:-0}))
done
if [ "$total" = "$N" ]; then
	ok "the getppid calls add up over the files: $total"
elif [ "$lost" -gt 0 ] && [ "$total" -lt "$N" ] && [ $((total + lost)) -ge "$N" ]; then
	ok "the getppid calls add up over the files: $total, and $lost events counted as lost (buffer overrun)"
else
	fail "$total getppid events in the files ($lost counted as lost), $N calls made"
fi
"$FLYTRAP" info "$(head -1 files.txt)" 2>/dev/null | grep -q '^  rotation_segment=1' &&
	ok "the first file says it is segment 1" || fail "no rotation_segment in the first file"

# 512K is below a file's fixed part here: the files come out larger, and the
# recorder says so once
"$FLYTRAP" record -q --rotate 512K --keep 3 -e syscalls:sys_enter_getppid -e raw_syscalls:sys_enter \
	-e raw_syscalls:sys_exit -o k.dat -- "$STORM" $N 1 $RATE >/dev/null 2>keep.err
rc=$?
[ $rc = 0 ] || { cat keep.err; fail "record --keep exited $rc"; }
fixed=$(grep -c "fixed part" keep.err)
if [ "$(stat -c %s "$(ls k-*.dat | head -1)")" -gt $((512 * 1024 * 7 / 8)) ]; then
	[ "$fixed" = 1 ] && ok "--rotate 512K: the recorder says once that files will be larger" ||
		fail "--rotate 512K: $fixed warnings about the fixed part"
else
	[ "$fixed" = 0 ] && ok "--rotate 512K: files small enough, no warning" || fail "a warning for files within 512K"
fi
nk=$(ls k-*.dat | wc -l)
[ "$nk" -le 3 ] && [ "$nk" -ge 1 ] && ok "--keep 3 leaves $nk files" || fail "--keep 3 left $nk files"
for f in k-*.dat; do
	trace-cmd report -i "$f" >/dev/null 2>&1 || fail "trace-cmd cannot read $f"
done
ls -a | grep -q '\.flight-' && fail "store files left behind" || ok "no store files left"
finish
