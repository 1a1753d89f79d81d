#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Inlined functions in user stacks (issue 35, item 7), as perf --inline shows
# them: a program built with -O2 -g whose hot loop (hot_loop) runs step(),
# inlined, which runs mix(), inlined too, is profiled with --bpf profile.
#  - folded, text and JSON put "step (inlined)" under hot_loop and
#    "mix (inlined)" under it; JSON names them "step" and "mix" with
#    "inlined": true; the SVG and the HTML report's flame graphs name them;
#  - --no-inline gives no inlined frame; the same binary stripped of its
#    debug info (objcopy --strip-debug) gives none under hot_loop;
#  - perf (when it records here): the addresses perf samples in hot_loop,
#    through addr2line -i (what perf --inline reads), give the same chain
#    as the heaviest one flytrap shows.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
for c in gcc readelf objcopy python3; do need_cmd "$c"; done
cd "$TMP" || exit 1

cp "$TOP/tests/data/inline-hot.c" prog.c
gcc -O2 -g -o prog prog.c || skip "gcc cannot build the test program"
# the compiler decides what it inlines: without both instances there is nothing to check
readelf --debug-dump=info prog >info.txt 2>/dev/null
n_inl=$(grep -c 'DW_TAG_inlined_subroutine' info.txt)
[ "$n_inl" -ge 2 ] || skip "gcc inlined nothing into hot_loop (no DW_TAG_inlined_subroutine)"
objdump -d prog 2>/dev/null | grep -q '<hot_loop>:' || skip "hot_loop itself was inlined"
objdump -d prog 2>/dev/null | grep -Eq 'call.*<(step|mix)' && skip "step or mix not inlined"
objcopy --strip-debug prog prog.nodebug || fail "objcopy --strip-debug"
ok "prog built with $n_inl inlined instances"

secs=1.5
light && secs=1
record() {
	"$FLYTRAP" record -q --bpf profile=997 -o "$1.dat" -- "./$2" "$secs" >"$1.out" 2>&1 ||
		{ fail "record $2 exited $?: $(tail -2 "$1.out")"; return 1; }
}
record p prog || finish
record s prog.nodebug || finish

# ---- folded --------------------------------------------------------------------
"$FLYTRAP" callgraph --folded p.dat >f.txt 2>f.err || fail "callgraph --folded: $(head -2 f.err)"
tot=$(awk '/;hot_loop(;| [0-9])/ { s += $NF } END { print s + 0 }' f.txt)
inl=$(awk '/;main;hot_loop;step \(inlined\);mix \(inlined\)[; ]/ { s += $NF } END { print s + 0 }' f.txt)
[ "$tot" -ge 50 ] && ok "$tot samples in hot_loop" || fail "only $tot samples in hot_loop"
[ "$tot" -gt 0 ] && [ $((inl * 100 / tot)) -ge 50 ] &&
	ok "folded: $inl of $tot under main;hot_loop;step (inlined);mix (inlined)" ||
	fail "folded: $inl of $tot under hot_loop;step (inlined);mix (inlined): $(grep hot_loop f.txt | head -3)"
grep -Eq '(^|;)(step|mix)(;| [0-9])' f.txt && fail "step or mix as a frame not marked inlined" ||
	ok "folded: step and mix only as inlined frames"

# ---- text ------------------------------------------------------------------------
"$FLYTRAP" callgraph p.dat >t.txt 2>t.err || fail "callgraph: $(head -2 t.err)"
# hot_loop, then its heaviest child step (inlined), then mix (inlined): three lines in a row
awk '/ hot_loop$/ { h = NR } h && !s && / step \(inlined\)$/ { s = NR }
	s && !m && / mix \(inlined\)$/ { m = NR } END { exit !(h && s == h + 1 && m == s + 1) }' t.txt &&
	ok "text: hot_loop, step (inlined), mix (inlined) in that order" ||
	fail "text: no hot_loop > step (inlined) > mix (inlined): $(grep -E 'hot_loop|inlined' t.txt |
		head -4)"

# ---- JSON ------------------------------------------------------------------------
"$FLYTRAP" callgraph --json p.dat >j.json 2>j.err || fail "callgraph --json: $(head -2 j.err)"
if python3 - j.json >j.out 2>&1 <<'PY'
import json, sys
root = json.load(open(sys.argv[1]))
tree = root.get("tree", root)
found = []
def walk(n, path):
    if "(inlined)" in n["name"]:
        sys.exit("a JSON name keeps the (inlined) suffix: " + n["name"])
    if n["name"] == "mix" and n.get("inlined") is True and path[-2:] == [("hot_loop", False), ("step", True)]:
        found.append(n["total"])
    for c in n.get("children", []):
        walk(c, path + [(n["name"], bool(n.get("inlined")))])
walk(tree, [])
if not found:
    sys.exit("no hot_loop > step (inlined) > mix (inlined) in the JSON")
print(sum(found))
PY
then
	ok "JSON: hot_loop > step > mix, inlined: true ($(cat j.out) samples)"
else
	fail "JSON: $(tail -1 j.out)"
fi

# ---- flame graphs: callgraph --svg and export --html (which draws callgraph's tree) ----
"$FLYTRAP" callgraph --svg f.svg p.dat >/dev/null 2>svg.err || fail "callgraph --svg: $(head -2 svg.err)"
grep -q '<title>mix (inlined) (' f.svg && ok "SVG: a mix (inlined) frame" ||
	fail "SVG: no mix (inlined) frame: $(grep -o '<title>[^<]*</title>' f.svg | head -3)"
"$FLYTRAP" export --html -o r.html p.dat 2>html.err || fail "export --html: $(head -2 html.err)"
grep -q 'mix (inlined)' r.html && ok "HTML report: mix (inlined) in its flame graph" ||
	fail "HTML report: no mix (inlined)"

# ---- no inline frames: --no-inline, no debug info --------------------------------------
"$FLYTRAP" callgraph --folded --no-inline p.dat >n.txt 2>n.err || fail "--no-inline: $(head -2 n.err)"
grep -q '(inlined)' n.txt &&
	fail "--no-inline still shows $(grep -o '[^;]* (inlined)' n.txt | sort -u | head -3)" ||
	ok "--no-inline: no inlined frame"
grep -q ';main;hot_loop [0-9]' n.txt && ok "--no-inline: the samples stay in hot_loop" ||
	fail "--no-inline: no main;hot_loop stack"
if ! "$FLYTRAP" callgraph --json --no-inline p.dat >nj.json 2>nj.err; then
	fail "--json --no-inline: $(head -2 nj.err)"
elif grep -q '"inlined"' nj.json; then
	fail "--no-inline: JSON marks a frame inlined"
else
	ok "--no-inline: no JSON node marked inlined"
fi
"$FLYTRAP" callgraph --folded s.dat >sf.txt 2>sf.err || fail "callgraph of prog.nodebug: $(head -2 sf.err)"
grep -q ';main;hot_loop [0-9]' sf.txt && ok "stripped of debug info: samples in hot_loop" ||
	fail "stripped of debug info: no main;hot_loop stack: $(head -2 sf.txt)"
grep -q 'hot_loop;[^;]*(inlined)' sf.txt && fail "stripped of debug info: inlined frames under hot_loop" ||
	ok "stripped of debug info: no inlined frame"

# ---- perf, through addr2line -i (what perf --inline reads) ---------------------------
if command -v perf >/dev/null && command -v addr2line >/dev/null &&
	perf record -q -F 997 -o perf.data ./prog "$secs" >perf.out 2>&1; then
	# hot_loop+0xOFF: the run-time address of a PIE is no address in the file
	base=$(nm prog | awk '$3 == "hot_loop" { print $1 }')
	perf script -i perf.data -F ip,sym,symoff 2>/dev/null |
		awk '$2 ~ /^hot_loop\+0x/ { sub(/^hot_loop\+/, "", $2); print $2 }' | sort | uniq -c >offs.txt
	: >chains.txt
	while read -r cnt off; do
		# addr2line -f -i: innermost function first, a source line after each name
		ch=$(addr2line -f -i -e prog "$(printf '0x%x' $((0x$base + off)))" | awk 'NR % 2' | tac |
			paste -sd';')
		echo "$cnt $ch" >>chains.txt
	done <offs.txt
	pch=$(awk '{ w[$2] += $1 } END { for (c in w) print w[c], c }' chains.txt | sort -rn |
		awk 'NR == 1 { print $2 }')
	fch=$(awk '/;hot_loop[; ]/ { l = $0; sub(/ [0-9]+$/, "", l); sub(/^.*;hot_loop/, "hot_loop", l)
		gsub(/ \(inlined\)/, "", l); w[l] += $NF } END { for (c in w) print w[c], c }' f.txt |
		sort -rn | awk 'NR == 1 { $1 = ""; sub(/^ /, ""); print }')
	[ -n "$pch" ] && [ "$pch" = "$fch" ] && ok "perf + addr2line -i: heaviest chain $pch, as flytrap's" ||
		fail "perf + addr2line -i: heaviest chain '$pch', flytrap's '$fch'"
else
	echo "note: perf could not record here: $(tail -1 perf.out 2>/dev/null); no comparison"
fi
finish
