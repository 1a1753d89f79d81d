#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap slice keeps the maps and user symbols of the kept processes only
# (issue 17: "maps and symbols of the kept processes"): a slice by --pid of a
# thread keeps its process's blocks of trace-cmd's PROCMAPS and flytrap's maps
# section, and the build-ids of the binaries they name; another process's
# maps, libraries and build-ids are gone from the bytes; callgraph names the
# kept task's frames as it does in the full file; info counts what was left
# out.  BPF profile samples from tests/tools/mksynth: process 800 (app, with
# a thread 802) maps mksynth itself (an ELF with symbols) and a library,
# process 900 (other) a library of its own.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd readelf
need_cmd nm
need_cmd trace-cmd
MK="$PWD/$O/tests/tools/mksynth"
[ -x "$MK" ] || skip "no $MK (make builds it)"
F=$FLYTRAP

read -r toff tva tsz < <(readelf -lW "$MK" | awk '$1 == "LOAD" && / E +0x/ { print $2, $3, $5; exit }')
[ -n "$tsz" ] || skip "cannot read the LOAD segments of $MK"
base=$((0x555555554000))
sym() { local v; v=$(nm "$MK" | awk -v s="$1" '$3 == s { print $1; exit }'); [ -n "$v" ] || skip "no symbol $1 in $MK"; printf '%x' $((base + 0x$v + $2)); }
MAIN=$(sym main 0x10) STACKS=$(sym stacks 0x20) LEAF=$(sym slurp 0x4)
cat > "$TMP/maps" <<M
== 800 app
$(printf '%x-%x' $((base + tva)) $((base + tva + tsz))) r-xp $(printf '%08x' $((toff))) 08:01 1 $MK
7f0000001000-7f0000020000 r-xp 00001000 08:01 2 /opt/app-only/libapp.so
== 900 other
7f0000001000-7f0000020000 r-xp 00001000 08:01 3 /opt/vendor-secret/libother.so
M
printf '/opt/app-only/libapp.so 0102030405\n/opt/vendor-secret/libother.so 0a0b0c0d0e\n' > "$TMP/bids"
for i in 1 2 3; do
	echo "800 $LEAF $STACKS $MAIN"
	echo "802/800 $LEAF $MAIN"
	echo "900 7f0000001234 7f0000005678"
done > "$TMP/stacks"
MKSYNTH_PROCMAPS=1 "$MK" "$TMP/u.dat" stacks "$TMP/maps" "$TMP/stacks" "$TMP/bids" > /dev/null ||
	fail "mksynth stacks"

# the bytes of a file, its compressed sections and chunks decompressed
plain() { "$F" convert -c none "$1" -o "$2" 2> /dev/null || fail "convert -c none $1"; }
plain "$TMP/u.dat" "$TMP/u-plain.dat"
grep -q vendor-secret "$TMP/u-plain.dat" || fail "the full file does not hold the other process's maps"

"$F" slice "$TMP/u.dat" --pid 802 -o "$TMP/s.dat" 2> "$TMP/e" || fail "slice --pid 802: $(cat "$TMP/e")"
plain "$TMP/s.dat" "$TMP/s-plain.dat"
grep -q vendor-secret "$TMP/s-plain.dat" && fail "the slice still holds process 900's maps or build-id" ||
	ok "slice --pid 802: no byte of process 900's maps or build-id left"
grep -q /opt/app-only/libapp.so "$TMP/s-plain.dat" && grep -q 0102030405 "$TMP/s-plain.dat" &&
	ok "the maps of 802's process (800) and its library's build-id are kept" ||
	fail "the kept process's maps or build-id are missing"

# trace-cmd's PROCMAPS of the slice: the block of 800 (hex 320) alone
trace-cmd dump --options -i "$TMP/s.dat" 2> /dev/null |
	awk '/Option PROCMAPS/ { on = 1; next } /Option|^$/ { on = 0 } on' > "$TMP/pm"
[ "$(awk 'NF == 3 && $3 !~ /^\// { print $1 }' "$TMP/pm")" = 320 ] && grep -q "$MK" "$TMP/pm" &&
	ok "trace-cmd reads the slice's PROCMAPS: process 800 only" ||
	fail "trace-cmd's PROCMAPS of the slice: $(cat "$TMP/pm")"

# symbolization of the kept task is unchanged
"$F" callgraph --folded --pid 802 "$TMP/u.dat" > "$TMP/cu" || fail "callgraph of the full file"
"$F" callgraph --folded "$TMP/s.dat" > "$TMP/cs" || fail "callgraph of the slice"
[ -s "$TMP/cs" ] && grep -q '^main;slurp 3$' "$TMP/cs" && cmp -s "$TMP/cu" "$TMP/cs" &&
	ok "callgraph of the slice names 802's frames as the full file does ($(cat "$TMP/cs"))" ||
	fail "callgraph differs: full '$(cat "$TMP/cu")', slice '$(cat "$TMP/cs")'"

"$F" info "$TMP/s.dat" > "$TMP/i" || fail "info of the slice"
grep -q 'maps_kept=1' "$TMP/i" && grep -q 'maps_dropped=1' "$TMP/i" && grep -q 'buildids_dropped=1' "$TMP/i" &&
	ok "info counts the maps kept and left out" || fail "info: $(grep -E 'maps|dropped' "$TMP/i")"

# a slice of the other process keeps its maps and drops app's
"$F" slice "$TMP/u.dat" --pid 900 -o "$TMP/o.dat" 2> "$TMP/e" || fail "slice --pid 900: $(cat "$TMP/e")"
plain "$TMP/o.dat" "$TMP/o-plain.dat"
grep -q vendor-secret "$TMP/o-plain.dat" && ! grep -q app-only "$TMP/o-plain.dat" &&
	ok "slice --pid 900: its maps kept, process 800's gone" || fail "slice --pid 900 maps"

# cmdlines: those of the tasks that appear
cl() { trace-cmd dump --cmd-lines -i "$1" 2> /dev/null | grep -E '^[0-9]+ ' | tr '\n' ' '; }
[ "$(cl "$TMP/o.dat")" = "900 other " ] && ! cl "$TMP/s.dat" | grep -q other &&
	ok "the cmdlines of a slice are those of its tasks ('$(cl "$TMP/o.dat")')" ||
	fail "cmdlines: --pid 900 '$(cl "$TMP/o.dat")', --pid 802 '$(cl "$TMP/s.dat")'"

# a time window keeps every process that appears in it
"$F" slice "$TMP/u.dat" -o "$TMP/w.dat" 2> "$TMP/e" || fail "slice: $(cat "$TMP/e")"
plain "$TMP/w.dat" "$TMP/w-plain.dat"
grep -q vendor-secret "$TMP/w-plain.dat" && grep -q app-only "$TMP/w-plain.dat" &&
	ok "a slice without task filters keeps the maps of both processes" || fail "unfiltered slice lost maps"
"$F" verify "$TMP/s.dat" > /dev/null && "$F" verify "$TMP/o.dat" > /dev/null || fail "a slice does not verify"
finish
