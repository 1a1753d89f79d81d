#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Broken user stacks are cut, not drawn (issue 9, point 6): a frame-pointer
# walk through code built without frame pointers gives 127 frames of
# [ld-linux-x86-64.so.2], or addresses in no mapping.  callgraph cuts a user
# stack at the first address outside the process's executable mappings or
# at an unnamed address repeating, puts one "[unwind: REASON]" frame where
# it cut, and counts the cut stacks; a 200-deep recursion of a named
# function is not cut.  BPF profile samples from tests/tools/mksynth, with
# maps naming mksynth itself (an ELF with symbols) and a library that is
# not on this machine (no symbols: its frames are "[ld-linux-x86-64.so.2]").
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3
need_cmd readelf
need_cmd nm
MK="$PWD/$O/tests/tools/mksynth"
[ -x "$MK" ] || skip "no $MK (make builds it)"
jget() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# where mksynth's code would be in a process: its executable LOAD segment at base + vaddr
read -r toff tva tsz < <(readelf -lW "$MK" | awk '$1 == "LOAD" && / E +0x/ { print $2, $3, $5; exit }')
[ -n "$tsz" ] || skip "cannot read the LOAD segments of $MK"
base=$((0x555555554000))
sym() { local v; v=$(nm "$MK" | awk -v s="$1" '$3 == s { print $1; exit }'); [ -n "$v" ] || skip "no symbol $1 in $MK"; printf '%x' $((base + 0x$v + $2)); }
MAIN=$(sym main 0x10) STACKS=$(sym stacks 0x20) REC=$(sym stacks 0x40) LEAF=$(sym slurp 0x4)
LD=7f0000001234 LD2=7f0000005678 VDSO=7ffd00000800 WILD=deadbeef000
cat > "$TMP/maps" <<M
== 800 app
$(printf '%x-%x' $((base + tva)) $((base + tva + tsz))) r-xp $(printf '%08x' $((toff))) 08:01 1 $MK
7f0000001000-7f0000020000 r-xp 00001000 08:01 2 /nonexistent/lib/ld-linux-x86-64.so.2
7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]
M
{
	# 1: the demo's broken walk: two real frames, then one ld.so address 125 times
	printf '800 %s %s' $LEAF $STACKS; for i in $(seq 125); do printf ' %s' $LD; done; echo
	# 2: a walk that leaves the mappings
	echo "800 $LEAF $STACKS $WILD $MAIN"
	# 3: genuine recursion, 200 deep, in a function with a name
	printf '800 %s' $LEAF; for i in $(seq 200); do printf ' %s' $REC; done; echo " $MAIN"
	# 4: the vdso and unnamed library frames that do not repeat: kept
	echo "800 $VDSO $LD $LD2 $MAIN"
	# 5: a loop of two unnamed frames
	echo "800 $LEAF $LD $LD2 $LD $LD2 $LD $LD2 $MAIN"
} > "$TMP/stacks"
"$MK" "$TMP/u.dat" stacks "$TMP/maps" "$TMP/stacks" > /dev/null || fail "mksynth stacks"

"$FLYTRAP" callgraph --folded "$TMP/u.dat" > "$TMP/fold" 2> "$TMP/e" || fail "callgraph --folded: $(cat "$TMP/e")"
want() { grep -qxF "$1" "$TMP/fold" && ok "$2" || fail "$2: no line '$1' in: $(cut -c1-200 "$TMP/fold")"; }
want "[unwind: repeated frame];[ld-linux-x86-64.so.2];stacks;slurp 1" "the looping ld.so walk is cut after its first ld.so frame"
want "[unwind: outside executable mappings];stacks;slurp 1" "the walk leaving the mappings is cut there"
want "main;[ld-linux-x86-64.so.2];[ld-linux-x86-64.so.2];[unknown] 1" "vdso and non-repeating unnamed frames are kept"
want "[unwind: repeated frame];[ld-linux-x86-64.so.2];[ld-linux-x86-64.so.2];slurp 1" "a two-frame loop is cut where it repeats"
rec=$(awk -F';' 'NF > 100 { print NF }' "$TMP/fold")
[ "$rec" = 202 ] && grep -q "^main;stacks;stacks;.*;stacks;slurp 1$" "$TMP/fold" \
	&& ok "200-deep recursion kept whole (202 frames)" || fail "recursion: $rec frames"
[ "$(awk -F';' '{ if (NF > m) m = NF } END { print m }' "$TMP/fold")" = 202 ] || fail "a stack deeper than the recursion"

"$FLYTRAP" callgraph --json "$TMP/u.dat" > "$TMP/j" || fail "callgraph --json"
[ "$(jget "$TMP/j" '(j["user_stacks"], j["stacks_cut"], j["cut"])')" = \
  "(5, 3, {'outside_mappings': 1, 'repeated_frame': 2})" ] && ok "JSON counts 3 of 5 stacks cut, by reason" \
	|| fail "JSON cut counts: $(jget "$TMP/j" '(j.get("user_stacks"), j.get("stacks_cut"), j.get("cut"))')"
"$FLYTRAP" callgraph "$TMP/u.dat" > "$TMP/t" || fail "callgraph text"
grep -q "3 of 5 user stacks cut where the unwind broke" "$TMP/t" \
	&& grep -q "\[unwind: REASON\]: 1 outside executable mappings, 2 repeated frame" "$TMP/t" \
	&& ok "text says 3 of 5 stacks were cut and why" || fail "text: $(head -12 "$TMP/t")"
awk 'length > 80 { print; exit 1 }' "$TMP/t" > "$TMP/long" && ok "text within 80 columns" || fail "over 80 columns: $(cat "$TMP/long")"

# the flame graphs are drawn from the cut stacks: SVG and the HTML report
"$FLYTRAP" callgraph --svg "$TMP/f.svg" "$TMP/u.dat" > /dev/null || fail "callgraph --svg"
grep -q "unwind: repeated frame" "$TMP/f.svg" && ok "SVG shows the cut" || fail "SVG has no cut frame"
"$FLYTRAP" export --html -o "$TMP/r.html" "$TMP/u.dat" 2> "$TMP/e" || fail "export --html: $(cat "$TMP/e")"
grep -q "unwind: repeated frame" "$TMP/r.html" && ok "HTML report's flame graph shows the cut" || fail "HTML has no cut frame"
python3 - "$TMP/r.html" <<'PY' && ok "HTML flame graph: no 127-frame tower" || fail "HTML still holds the looping stack"
import sys
h = open(sys.argv[1]).read()
sys.exit(1 if h.count("ld-linux-x86-64.so.2") > 50 else 0)
PY
finish
