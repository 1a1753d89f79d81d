#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# User stacks unwound from the registers and stack copy record --user-stack
# keeps (issue 15): BPF profile samples from tests/tools/mksynth whose maps
# name mksynth itself (an ELF with .eh_frame) and a library that is not on
# this machine.  A sample stopped at slurp's first instruction, whose copy
# holds the return address into stacks(): elfutils' unwinder gives
# slurp <- stacks, which meets the frame-pointer walk (IP, stacks, main),
# so the stack is main;stacks;slurp.  The same sample with an empty copy
# cannot get past slurp: one "[unwind: stack page not readable at the
# sample]" frame (the copy is shorter than the 512 bytes asked for: its
# first page could not be read, and a larger copy would not have helped;
# tests/live/31 has "stack copy too small", a copy of the full size that
# was not enough), then the walk's callers.  A sample in the missing library says so:
# "[unwind: no binary for libgone.so]"; one sampled in it keeps the
# frame-pointer walk, as without a copy.  A file without copies (mksynth
# stacks) is read as before.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
[ "$(uname -m)" = x86_64 ] || skip "the synthetic registers are x86_64's"
need_cmd python3
need_cmd readelf
need_cmd nm
MK="$PWD/$O/tests/tools/mksynth"
[ -x "$MK" ] || skip "no $MK (make builds it)"
readelf -SW "$MK" | grep -q ' \.eh_frame ' || skip "$MK has no .eh_frame"
jget() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

read -r toff tva tsz < <(readelf -lW "$MK" | awk '$1 == "LOAD" && / E +0x/ { print $2, $3, $5; exit }')
[ -n "$tsz" ] || skip "cannot read the LOAD segments of $MK"
base=$((0x555555554000))
sym() { local v; v=$(nm "$MK" | awk -v s="$1" '$3 == s { print $1; exit }'); [ -n "$v" ] || skip "no symbol $1 in $MK"; printf '%x' $((base + 0x$v + $2)); }
MAIN=$(sym main 0x10) STACKS=$(sym stacks 0x20) SLURP=$(sym slurp 0)
LIB=7f0000001234 SP=7ffc00001000 BP=7ffc00001100
cat > "$TMP/maps" <<M
== 800 app
$(printf '%x-%x' $((base + tva)) $((base + tva + tsz))) r-xp $(printf '%08x' $((toff))) 08:01 1 $MK
7f0000001000-7f0000020000 r-xp 00001000 08:01 2 /nonexistent/lib/libgone.so
M
{
	# 1: at slurp's entry the return address is the word at SP: the copy has it
	echo "800 $SLURP $STACKS $MAIN | $SLURP $SP $BP $STACKS"
	# 2: the same without a copy
	echo "800 $SLURP $MAIN | $SLURP $SP $BP"
	# 3: slurp called from a library that is not here, which main called
	echo "800 $SLURP $MAIN | $SLURP $SP $BP $LIB"
	# 5: sampled in that library: the frame-pointer walk, as without a copy
	echo "800 $LIB $MAIN | $LIB $SP $BP 0"
	# 4: no registers kept (a kernel thread): the walk as it was
	echo "800 $SLURP $STACKS $MAIN"
} > "$TMP/stacks"
"$MK" "$TMP/u.dat" ustacks "$TMP/maps" "$TMP/stacks" > /dev/null || fail "mksynth ustacks"

"$FLYTRAP" callgraph --folded "$TMP/u.dat" > "$TMP/fold" 2> "$TMP/e" || fail "callgraph --folded: $(cat "$TMP/e")"
want() { grep -qxF "$1" "$TMP/fold" && ok "$2" || fail "$2: no line '$1' in: $(cut -c1-200 "$TMP/fold")"; }
want "main;stacks;slurp 2" "the CFI unwind meets the frame-pointer walk: main;stacks;slurp (with the sample without registers)"
want "main;[unwind: stack page not readable at the sample];slurp 1" "an empty copy: [unwind: stack page not readable at the sample] below slurp, then main"
want "main;[unwind: no binary for libgone.so];[libgone.so];slurp 1" "a missing binary: [unwind: no binary for libgone.so]"
want "main;[libgone.so] 1" "sampled in the missing binary: the frame-pointer walk"
[ "$(wc -l < "$TMP/fold")" = 4 ] || fail "more stacks than expected: $(cat "$TMP/fold")"

"$FLYTRAP" callgraph --json "$TMP/u.dat" > "$TMP/j" || fail "callgraph --json"
[ "$(jget "$TMP/j" 'j["unwind"]')" = "{'mode': 'cfi', 'stacks': 4, 'spliced': 1, 'complete': 0, 'marked': 2, 'fp_only': 1, 'pre_exec': 0, 'earlier_image': 0}" ] \
	&& ok "JSON: 4 stacks unwound from copies, 1 spliced, 2 marked, 1 left to the walk" || fail "JSON unwind: $(jget "$TMP/j" 'j.get("unwind")')"
"$FLYTRAP" callgraph "$TMP/u.dat" > "$TMP/t" || fail "callgraph text"
grep -q "4 user stacks unwound from their stack copies (cfi): 1 met" "$TMP/t" \
	&& ok "text says how the stacks were unwound" || fail "text: $(head -8 "$TMP/t")"
awk 'length > 80 { print; exit 1 }' "$TMP/t" > "$TMP/long" && ok "text within 80 columns" || fail "over 80 columns: $(cat "$TMP/long")"

# redact drops the copies and registers with the user stacks
"$FLYTRAP" redact -o "$TMP/r.dat" "$TMP/u.dat" > "$TMP/rout" 2>&1 || fail "redact: $(cat "$TMP/rout")"
grep -q "user stack copies dropped *3$" "$TMP/rout" && ok "redact drops the 3 non-empty copies" \
	|| fail "redact: $(grep -i copies "$TMP/rout")"
"$FLYTRAP" callgraph --json "$TMP/r.dat" > "$TMP/rj" || fail "callgraph of the redacted file"
[ "$(jget "$TMP/rj" 'j["unwind"]["stacks"]')" = 0 ] && ok "nothing left to unwind after redact" \
	|| fail "redacted file still unwinds: $(jget "$TMP/rj" 'j["unwind"]')"

# a file without copies reads as before
"$MK" "$TMP/o.dat" stacks "$TMP/maps" "$TMP/stacks" > /dev/null || fail "mksynth stacks"
"$FLYTRAP" callgraph --folded "$TMP/o.dat" > "$TMP/ofold" || fail "callgraph of a file without copies"
grep -qxF "main;stacks;slurp 2" "$TMP/ofold" && [ "$(jget <("$FLYTRAP" callgraph --json "$TMP/o.dat") 'j["unwind"]["mode"]')" = None ] \
	&& ok "a file without copies: frame-pointer stacks, unwind mode null" || fail "old file: $(cat "$TMP/ofold")"
finish
