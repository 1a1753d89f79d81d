#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Inlined functions in user frames (issue 35, item 7), offline: profiles
# made by tests/tools/mksynth of a program built here with -O2 -g, in which
# step() is inlined into hot_loop() and mix() into step().  Addresses are
# picked with binutils' addr2line -i (the oracle perf --inline reads):
#  - one in mix's code: hot_loop;step (inlined);mix (inlined), in folded,
#    text and JSON ("inlined": true, the plain name);
#  - one in step's own code: hot_loop;step (inlined); one outside both:
#    hot_loop alone;
#  - the binary stripped with its debug file in a --debug-dir (by build-id):
#    the same chains; stripped of its debug info (objcopy --strip-debug):
#    none; --no-inline: none;
#  - the flame graph draws inlined frames aqua; the static build (when
#    built) prints the same folded stacks.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
for c in python3 readelf nm objcopy objdump addr2line gcc strip; do need_cmd "$c"; done
MK="$PWD/$O/tests/tools/mksynth"
[ -x "$MK" ] || skip "no $MK (make builds it)"
unset DEBUGINFOD_URLS
D=$TMP/inl
mkdir -p "$D"
cp "$TOP/tests/data/inline-hot.c" "$D/prog.c"
gcc -O2 -g -o "$D/prog" "$D/prog.c" || skip "gcc cannot build the test program"
P=$D/prog
[ "$(readelf --debug-dump=info "$P" 2>/dev/null | grep -c DW_TAG_inlined_subroutine)" -ge 2 ] ||
	skip "gcc inlined nothing (no DW_TAG_inlined_subroutine)"

# an address in function $3 (default hot_loop) of binary $2 (default $P) whose addr2line -i
# chain (outermost first, demangled) is $1
pick() {
	local a ch
	for a in $(objdump -d --no-show-raw-insn "${2:-$P}" | awk -v f="<${3:-hot_loop}>:" '
		$2 == f { on = 1; next } on && /^$/ { exit } on { sub(":", "", $1); print $1 }'); do
		ch=$(addr2line -C -f -i -e "${2:-$P}" "0x$a" | awk 'NR % 2' | tac | paste -sd';')
		[ "$ch" = "$1" ] && { echo "$a"; return; }
	done
}
A_MIX=$(pick 'hot_loop;step;mix')
A_STEP=$(pick 'hot_loop;step')
A_OWN=$(pick 'hot_loop')
[ -n "$A_MIX" ] && [ -n "$A_STEP" ] && [ -n "$A_OWN" ] ||
	skip "addr2line -i finds no address for each chain (mix '$A_MIX', step '$A_STEP', own '$A_OWN')"
ok "addresses from addr2line -i: mix 0x$A_MIX, step 0x$A_STEP, hot_loop's own 0x$A_OWN"

BASE=$((0x7f0000000000))
# profile $1.dat of pid 900 with binary $2 mapped at BASE: one sample at each address
profile() {
	local off va sz
	read -r off va sz < <(readelf -lW "$2" 2>/dev/null |
		awk '$1 == "LOAD" && / R?E +0x/ { print $2, $3, $5; exit }')
	[ -n "$sz" ] || { fail "cannot read the LOAD segments of $2"; return 1; }
	{
		echo "== 900 app"
		printf '%x-%x r-xp %08x 08:01 1 %s\n' $((BASE + va)) $((BASE + va + sz)) $((off)) "$2"
	} >"$1.maps"
	printf '900 %x\n900 %x\n900 %x\n900 %x\n' $((BASE + 0x$A_MIX)) $((BASE + 0x$A_MIX)) \
		$((BASE + 0x$A_STEP)) $((BASE + 0x$A_OWN)) >"$1.st"
	"$MK" "$1.dat" stacks "$1.maps" "$1.st" >/dev/null || { fail "mksynth $1"; return 1; }
}
# the folded output of $@ has exactly the three chains (2, 1 and 1 samples)
want_chains() {
	local f=$TMP/f.txt
	"$FLYTRAP" callgraph --folded "$@" >"$f" 2>"$TMP/e" ||
		{ fail "callgraph $*: $(head -2 "$TMP/e")"; return 1; }
	grep -qxF 'hot_loop;step (inlined);mix (inlined) 2' "$f" &&
		grep -qxF 'hot_loop;step (inlined) 1' "$f" && grep -qxF 'hot_loop 1' "$f"
}

profile "$D/p" "$P" || finish
want_chains "$D/p.dat" &&
	ok "folded: hot_loop;step (inlined);mix (inlined), hot_loop;step (inlined), hot_loop" ||
	fail "folded: $(tr '\n' '|' <"$TMP/f.txt")"
"$FLYTRAP" callgraph "$D/p.dat" >"$TMP/t.txt" 2>&1 || fail "callgraph text: $(head -2 "$TMP/t.txt")"
grep -Eq '^ +100\.0% .* hot_loop$' "$TMP/t.txt" &&
	grep -Eq '^ +75\.0% .*   step \(inlined\)$' "$TMP/t.txt" &&
	grep -Eq '^ +50\.0% .*     mix \(inlined\)$' "$TMP/t.txt" &&
	ok "text: hot_loop > step (inlined) > mix (inlined)" ||
	fail "text: $(grep -E 'hot_loop|inlined' "$TMP/t.txt" | tr '\n' '|')"
"$FLYTRAP" callgraph --json "$D/p.dat" >"$TMP/j.json" 2>"$TMP/e" || fail "callgraph --json: $(cat "$TMP/e")"
if python3 - "$TMP/j.json" >"$TMP/j.out" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["tree"]
h = [c for c in t["children"] if c["name"] == "hot_loop"]
assert h and "inlined" not in h[0], "hot_loop: %r" % h
s = [c for c in h[0]["children"] if c["name"] == "step"]
assert s and s[0].get("inlined") is True and s[0]["total"] == 3, "step: %r" % s
m = [c for c in s[0]["children"] if c["name"] == "mix"]
assert m and m[0].get("inlined") is True and m[0]["total"] == 2 and m[0]["self"] == 2, "mix: %r" % m
PY
then
	ok "JSON: step and mix with inlined: true, hot_loop without"
else
	fail "JSON: $(tail -1 "$TMP/j.out")"
fi

# the same binary stripped, its DWARF in a debug file found by build-id in a --debug-dir
bid=$(readelf -n "$P" 2>/dev/null | awk '/Build ID/ { print $3 }')
if [ -n "$bid" ]; then
	mkdir -p "$D/dbg/.build-id/${bid:0:2}" "$D/s"
	objcopy --only-keep-debug "$P" "$D/dbg/.build-id/${bid:0:2}/${bid:2}.debug" &&
		strip -o "$D/s/prog" "$P" || fail "strip prog"
	profile "$D/s" "$D/s/prog" || finish
	want_chains --debug-dir "$D/dbg" "$D/s.dat" && ok "stripped, debug file in a --debug-dir: the same chains" ||
		fail "stripped + --debug-dir: $(tr '\n' '|' <"$TMP/f.txt")"
else
	echo "note: gcc gave no build-id; the --debug-dir case is left out"
fi

# no DWARF, or --no-inline: the function alone
mkdir -p "$D/n"
objcopy --strip-debug "$P" "$D/n/prog" || fail "objcopy --strip-debug"
profile "$D/n" "$D/n/prog" || finish
"$FLYTRAP" callgraph --folded "$D/n.dat" >"$TMP/n.txt" 2>&1 || fail "callgraph: $(head -2 "$TMP/n.txt")"
[ "$(cat "$TMP/n.txt")" = "hot_loop 4" ] && ok "stripped of debug info: hot_loop 4, no inlined frame" ||
	fail "stripped of debug info: $(tr '\n' '|' <"$TMP/n.txt")"
"$FLYTRAP" callgraph --folded --no-inline "$D/p.dat" >"$TMP/n.txt" 2>&1 ||
	fail "--no-inline: $(head -2 "$TMP/n.txt")"
[ "$(cat "$TMP/n.txt")" = "hot_loop 4" ] && ok "--no-inline: hot_loop 4" ||
	fail "--no-inline: $(tr '\n' '|' <"$TMP/n.txt")"
if ! "$FLYTRAP" callgraph --json --no-inline "$D/p.dat" >"$TMP/nj.json" 2>"$TMP/e"; then
	fail "--json --no-inline: $(head -2 "$TMP/e")"
elif grep -q '"inlined"' "$TMP/nj.json"; then
	fail "--no-inline: a JSON node marked inlined"
else
	ok "--no-inline: no JSON node marked inlined"
fi

# C++: an inlined method's name is its linkage name demangled, as the symbol tables' names
if command -v g++ >/dev/null; then
	cat >"$D/cx.cc" <<'C'
#include <cstdlib>
namespace ns {
struct K {
	unsigned long v;
	unsigned long mix(unsigned long x)
	{
		x ^= x >> 13;
		x *= 0x9E3779B97F4A7C15UL;
		return x ^ (x >> 29);
	}
};
}
__attribute__((noinline)) unsigned long hot(unsigned long n)
{
	ns::K k{n};

	for (unsigned long i = 0; i < n; i++)
		k.v = k.mix(k.v + i);
	return k.v;
}
int main(int argc, char **argv) { return (int)(hot(strtoul(argv[argc - 1], 0, 0)) & 1); }
C
	g++ -O2 -g -o "$D/cx" "$D/cx.cc" || fail "g++"
	a=$(pick 'hot(unsigned long);ns::K::mix(unsigned long)' "$D/cx" _Z3hotm)
	if [ -n "$a" ]; then
		A_MIX=$a A_STEP=$a A_OWN=$a
		profile "$D/c" "$D/cx" || finish
		"$FLYTRAP" callgraph --folded "$D/c.dat" >"$TMP/c.txt" 2>&1 || fail "callgraph: $(head -2 "$TMP/c.txt")"
		grep -qxF 'hot(unsigned long);ns::K::mix(unsigned long) (inlined) 4' "$TMP/c.txt" &&
			ok "C++: hot(unsigned long);ns::K::mix(unsigned long) (inlined)" ||
			fail "C++: $(tr '\n' '|' <"$TMP/c.txt")"
	else
		echo "note: g++ inlined no ns::K::mix into hot; the C++ case is left out"
	fi
fi
# the flame graph: inlined frames in their own colour (aqua, flamegraph.pl's "_[i]"), others warm
"$FLYTRAP" callgraph --svg "$TMP/f.svg" "$D/p.dat" >/dev/null 2>"$TMP/e" || fail "callgraph --svg: $(cat "$TMP/e")"
python3 - "$TMP/f.svg" <<'EOF' && ok "SVG: every inlined frame aqua, no other frame aqua" || fail "SVG colours of inlined frames"
import re, sys
svg = open(sys.argv[1]).read()
frames = re.findall(r'<title>(.*?) \([^()]*\)</title><rect[^>]*fill="rgb\((\d+),(\d+),(\d+)\)"', svg)
inl = [(n, r, g, b) for n, r, g, b in frames if n.endswith(" (inlined)")]
other = [(n, r, g, b) for n, r, g, b in frames if not n.endswith(" (inlined)")]
aqua = lambda r, g, b: int(r) < 120 and int(g) >= 170 and int(b) >= 170
assert inl, "no inlined frame in the SVG"
assert all(aqua(r, g, b) for _, r, g, b in inl), inl
assert not any(aqua(r, g, b) for _, r, g, b in other), [f for f in other if aqua(*f[1:])]
EOF
# the static build (make static) names inlined frames too: the same folded output
ST=$TOP/$O/flytrap-static
if [ -x "$ST" ]; then
	"$FLYTRAP" callgraph --folded "$D/p.dat" >"$TMP/dyn.txt" 2>&1
	"$ST" callgraph --folded "$D/p.dat" >"$TMP/st.txt" 2>&1
	cmp -s "$TMP/dyn.txt" "$TMP/st.txt" && grep -q 'step (inlined);mix (inlined)' "$TMP/st.txt" &&
		ok "flytrap-static: the same folded stacks, inlined frames included" ||
		fail "flytrap-static: $(diff "$TMP/dyn.txt" "$TMP/st.txt" | head -4)"
else
	echo "note: no $ST (make static): the static build's inlined frames not checked"
fi
finish
