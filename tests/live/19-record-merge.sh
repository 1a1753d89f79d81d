#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap merge on recordings of this machine:
#  - a rotation's segments become one file holding every event once (the
#    known number of getppid calls), in the recording's own buffers;
#  - two flight-recorder dumps whose windows overlap become one file with
#    the union of their events, none twice;
#  - two recordings made one after another become one buffer each, every
#    source's events printing in trace-cmd as they did alone, the per-source
#    counts equal to the inputs';
#  - mixing the segments of a rotation with another recording is refused
#    (exit 2); one segment and another recording are two recordings.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
[ -e "$TRACEFS/events/syscalls/sys_enter_getppid" ] || skip "no syscalls:sys_enter_getppid event"
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$STORM" ] || skip "syscall_storm not built"
cd "$TMP"
rp=0
trap '[ "$rp" != 0 ] && kill -INT $rp 2>/dev/null && wait $rp; rm -rf "$TMP"' EXIT

# trace-cmd's lines (ns time stamps: at 60k calls/s two calls can share a printed
# microsecond) without the header and with runs of blanks squeezed
lines() { trace-cmd report -t -i "$1" 2>/dev/null | tail -n +2 | sed -e 's/^ *//' -e 's/  */ /g'; }

# ---- a rotation ------------------------------------------------------------------------
N=300000 RATE=60000	# 5 s
"$FLYTRAP" record -q --rotate 1s -e syscalls:sys_enter_getppid -e raw_syscalls:sys_enter \
	-o r.dat -- "$STORM" $N 1 $RATE >/dev/null 2>rec.err || { cat rec.err; fail "record --rotate failed"; }
mapfile -t segs < <(ls r-*.dat 2>/dev/null)
[ ${#segs[@]} -ge 3 ] && ok "${#segs[@]} rotation segments" || fail "only ${#segs[@]} segments"
sum=0 calls=0
for f in "${segs[@]}"; do
	lines "$f" >"$f.txt"
	sum=$((sum + $(wc -l <"$f.txt")))
	calls=$((calls + $(grep -c ': sys_enter_getppid:' "$f.txt")))
done
# what the segments hold is the reference (a loss while recording is 17-record-rotate's business)
[ "$calls" != "$N" ] && echo "note: the segments hold $calls of the $N getppid calls (lost while recording)"
# given in reverse: merge orders them by their segment numbers
rev=()
for ((i = ${#segs[@]} - 1; i >= 0; i--)); do rev+=("${segs[$i]}"); done
"$FLYTRAP" merge --json "${rev[@]}" -o rot.dat >rot.json 2>rot.err
rc=$?
[ $rc = 0 ] && ok "merge of the segments exits 0" || { fail "merge exited $rc"; cat rot.err; }
lines rot.dat >rot.txt
n=$(grep -c ': sys_enter_getppid:' rot.txt)
[ "$n" = "$calls" ] && ok "every getppid event of the segments once in the merged file: $n" ||
	fail "$n getppid events in the merged file, $calls in the segments"
[ "$(wc -l <rot.txt)" = "$sum" ] && ok "the merged file has the segments' $sum lines" ||
	fail "the merged file has $(wc -l <rot.txt) lines, the segments $sum"
grep -q '"kind":"one_recording"' rot.json && ok "the summary calls it one recording" || fail "summary: $(cat rot.json)"
"$FLYTRAP" info rot.dat >rot.info 2>&1
grep -q 'merge_kind=one_recording' rot.info && grep -q "sources=${#segs[@]}" rot.info &&
	ok "info shows what was merged" || { fail "info does not show the merge"; head -40 rot.info; }
"$FLYTRAP" verify rot.dat >/dev/null 2>&1 && ok "verify: the merged file is whole" || fail "verify failed on rot.dat"

# several files given to an analyzer are read as one recording (design decision 8)
"$FLYTRAP" drops --json rot.dat >drops-merged.json 2>/dev/null
"$FLYTRAP" drops --json "${rev[@]}" >drops-segs.json 2>drops-segs.err
rc=$?
if [ $rc = 0 ] && python3 - drops-merged.json drops-segs.json <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def strip(d):
    # the input's name differs: everything else must be the same
    if isinstance(d, dict):
        return {k: strip(v) for k, v in d.items() if k not in ("file", "path", "input")}
    if isinstance(d, list):
        return [strip(v) for v in d]
    return d
assert strip(a) == strip(b), "differ"
EOF
then ok "drops on the ${#segs[@]} segments gives what it gives on their merge"
else fail "drops on the segments (exit $rc) differs from drops on the merged file"; head -3 drops-segs.err; fi
"$FLYTRAP" report "${rev[@]}" >report-segs.txt 2>report-segs.err
"$FLYTRAP" report rot.dat >report-merged.txt 2>/dev/null
cmp -s report-segs.txt report-merged.txt && ok "report on the segments prints what it prints for their merge" ||
	{ fail "report on the segments differs from the merged file"; head -3 report-segs.err; }
"$FLYTRAP" overhead "${segs[0]}" "${segs[2]}" >/dev/null 2>gap.err
rc=$?
[ $rc = 2 ] && grep -q 'missing' gap.err && ok "a segment missing between two given: exit 2 ($(cut -c1-60 gap.err))" ||
	{ fail "segments with a gap: exit $rc"; cat gap.err; }

# ---- two flight dumps with overlapping windows -----------------------------------------
"$FLYTRAP" record -q --flight 30s --after 0.2s -e syscalls:sys_enter_getppid -o fl.dat \
	-- "$STORM" 240000 1 60000 >/dev/null 2>fl.err &
rp=$!
sleep 1.5
kill -USR1 $rp
sleep 1.5
kill -USR1 $rp
wait $rp
rp=0
mapfile -t dumps < <(ls fl-*.dat 2>/dev/null)
if [ ${#dumps[@]} = 2 ]; then
	ok "two flight dumps"
	lines "${dumps[0]}" >d1.txt
	lines "${dumps[1]}" >d2.txt
	both=$(sort d1.txt | comm -12 - <(sort d2.txt) | wc -l)
	[ "$both" -gt 0 ] && ok "the dumps overlap ($both lines in both)" || fail "the dumps do not overlap"
	"$FLYTRAP" merge "${dumps[@]}" -o fl-merged.dat >fl.out 2>fl.merr || { fail "merge of the dumps failed"; cat fl.merr; }
	lines fl-merged.dat >flm.txt
	if sort -u d1.txt d2.txt | cmp -s - <(sort flm.txt); then
		ok "the merged dumps hold their union, nothing twice ($(wc -l <flm.txt) lines)"
	else
		fail "merged dumps: $(wc -l <flm.txt) lines, union $(sort -u d1.txt d2.txt | wc -l)"
	fi
else
	fail "${#dumps[@]} flight dumps, 2 expected"; cat fl.err
fi

# ---- two recordings one after another -----------------------------------------------------
"$FLYTRAP" record -q -e syscalls:sys_enter_getppid -e sched:sched_switch -o one.dat \
	-- "$STORM" 20000 1 >/dev/null 2>one.err || { fail "record one.dat failed"; cat one.err; }
"$FLYTRAP" record -q -e syscalls:sys_enter_getppid -e sched:sched_switch -o two.dat \
	-- "$STORM" 30000 1 >/dev/null 2>two.err || { fail "record two.dat failed"; cat two.err; }
"$FLYTRAP" merge one.dat two.dat --name two.dat=second -o both.dat >both.out 2>both.err
rc=$?
[ $rc = 0 ] && ok "merge of two recordings exits 0" || { fail "merge exited $rc"; cat both.err; }
lines both.dat >both.txt
for f in one two; do lines "$f.dat" | sed -E 's/^([^ ]*-[0-9]+ \[)/: \1/' | sort >"$f.alone"; done
# a pid the machine reused between the two recordings (pid_max is often 32768) has two
# names, and the merged file one cmdline table: the later file's name wins (flytrap-merge(1))
reused=$(cat one.alone two.alone | sed -nE 's/^: *(.*)-([0-9]+) \[.*/\2 \1/p' | sort -u |
	awk '{ c[$1]++ } END { for (p in c) if (c[p] > 1) print p }' | paste -sd'|')
for pair in one:one second:two; do
	b=${pair%%:*} f=${pair#*:}
	grep -E "^$b:" both.txt | sed -E "s/^$b://" | sed -E 's/^ *([^ ]*-[0-9]+ \[)/: \1/' | sort >"$f.in"
	if [ -n "$reused" ]; then
		for x in alone in; do grep -vE -- "-($reused) \[" "$f.$x" >"$f.$x.k"; mv "$f.$x.k" "$f.$x"; done
	fi
	if cmp -s "$f.alone" "$f.in"; then
		ok "$f.dat's $(wc -l <"$f.in") events print in buffer '$b' as they did alone${reused:+ (pids reused between the recordings left out: $reused)}"
	else
		fail "buffer '$b' differs from $f.dat alone"
		diff "$f.alone" "$f.in" | head -4
	fi
done
n1=$(grep -c '^one: .*sys_enter_getppid' both.txt)
n2=$(grep -c '^second: .*sys_enter_getppid' both.txt)
[ "$n1" = 20000 ] && [ "$n2" = 30000 ] && ok "per-source getppid counts: $n1 and $n2" ||
	fail "per-source getppid counts: $n1 and $n2 (20000 and 30000 expected)"
"$FLYTRAP" report -t both.dat 2>/dev/null | tail -n +2 | sed -e 's/^ *//' -e 's/  */ /g' >both.ft
cmp -s both.txt both.ft && ok "flytrap report prints the merged file as trace-cmd does" ||
	{ fail "flytrap report differs from trace-cmd on the merged file"; diff both.txt both.ft | head -4; }

"$FLYTRAP" callgraph one.dat two.dat >/dev/null 2>two-an.err
rc=$?
[ $rc = 2 ] && [ "$(wc -l <two-an.err)" = 1 ] && grep -q 'report -i' two-an.err &&
	ok "two recordings given to an analyzer: exit 2 naming report -i" || { fail "callgraph one.dat two.dat: exit $rc"; cat two-an.err; }

# ---- refused ------------------------------------------------------------------------------
"$FLYTRAP" merge "${segs[0]}" "${segs[1]}" one.dat -o bad.dat >/dev/null 2>bad.err
rc=$?
[ $rc = 2 ] && [ "$(wc -l <bad.err)" = 1 ] && [ ! -e bad.dat ] &&
	ok "two segments of a rotation with another recording: exit 2, one line, no output" ||
	{ fail "segments + other recording: exit $rc"; cat bad.err; }
finish
