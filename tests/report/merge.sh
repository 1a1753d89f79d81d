#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap merge, offline: two slices of one recording (the same kernel, the
# same boot) merge into one buffer each, every source's events printing in
# trace-cmd as they did alone and in the same number; --name and --offset
# act; files of other kernels, machines and word sizes are refused with one
# line naming report -i and load, and no output is left; usage errors exit
# 2 with one line; a damaged input fails the merge without an output.  The
# rotation and flight-dump cases need a recorder: tests/live/19-record-merge.sh.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd trace-cmd
F=$FLYTRAP
S=tests/data/sample.dat
X=${FIXTURES:-../shared/fixtures}
cd "$TMP" || exit 1
S=$TOP/$S
[ -d "$X" ] || X=$TOP/$X

lines() { trace-cmd report -i "$1" 2>/dev/null | tail -n +2 | sed -e 's/^ *//' -e 's/  */ /g'; }
# the lines of buffer B of a merged listing, as its source printed them alone
# (its top buffer's lines carry no prefix there, its instances' theirs)
of_buffer() { grep -E "^$2:" "$1" | sed -E "s/^$2://; s/^ *//"; }
alone() { lines "$1" | sed -E 's/^([^ ]*-[0-9]+ \[)/ \1/; s/^ //'; }

read -r t0 t1 < <(trace-cmd report -i "$S" 2>/dev/null | awk '/: /{ for (i = 1; i <= NF; i++)
	if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); t[n++] = $i; break } }
	END { print t[int(n / 2)], t[int(n / 2) + 1] }')
"$F" slice "$S" --to "$t0" -o a.dat 2>err.txt && "$F" slice "$S" --from "$t1" -o b.dat 2>>err.txt ||
	{ fail "cannot slice the sample: $(cat err.txt)"; finish; }

"$F" merge a.dat b.dat -o m.dat >m.out 2>m.err
rc=$?
[ $rc = 0 ] && ok "merge of two recordings of one kernel exits 0" || { fail "merge exited $rc: $(cat m.err)"; finish; }
lines m.dat >m.txt
for x in a b; do
	alone $x.dat | sort >$x.alone
	of_buffer m.txt $x | sort >$x.in
	n=$(wc -l <$x.in)
	if [ "$n" -gt 0 ] && cmp -s $x.alone $x.in; then
		ok "$x.dat: its $n events print in buffer '$x' as they did alone"
	else
		fail "$x.dat: buffer '$x' ($n lines) differs from the file alone ($(wc -l <$x.alone))"
		diff $x.alone $x.in | head -4
	fi
done
total=$(($(lines a.dat | wc -l) + $(lines b.dat | wc -l)))
[ "$(wc -l <m.txt)" = "$total" ] && ok "the merged file has the inputs' $total events" ||
	fail "merged: $(wc -l <m.txt) events, inputs $total"
grep -q "^  a.dat .* $(lines a.dat | wc -l) " m.out && ok "the summary counts a.dat's events" ||
	{ fail "summary: $(cat m.out)"; }
"$F" report m.dat 2>/dev/null | tail -n +2 | sed -e 's/^ *//' -e 's/  */ /g' | cmp -s - m.txt &&
	ok "flytrap report prints the merged file as trace-cmd does" || fail "flytrap report differs on m.dat"
"$F" verify m.dat >/dev/null 2>&1 && ok "verify: the merged file is whole" || fail "verify failed on m.dat"
"$F" info --json m.dat >info.json 2>/dev/null
python3 - info.json <<'EOF' && ok "info --json names both sources and their buffers" || fail "info --json: no merge sources"
import json, sys
m = json.load(open(sys.argv[1]))["merge"]
assert m["merge_kind"] == "buffers" and m["sources"] == "2", m
assert m["source.0.file"] == "a.dat" and m["source.1.buffer"] == "b", m
EOF

# --name, --offset (times move by exactly that much), --json
"$F" merge a.dat b.dat --name b.dat=later --offset b.dat=2000000000 --json -o n.dat >n.json 2>n.err ||
	fail "merge --name --offset failed: $(cat n.err)"
lines n.dat >n.txt
first_b=$(of_buffer m.txt b | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { print $i; exit } }')
first_l=$(of_buffer n.txt later | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { print $i; exit } }')
awk -v a="${first_b%:}" -v b="${first_l%:}" 'BEGIN { d = b - a; exit !(d > 1.999999 && d < 2.000001) }' &&
	ok "--offset b.dat=2000000000 moves b's events 2 s later ($first_b -> $first_l)" ||
	fail "--offset: b's first event at $first_b, then $first_l"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["sources"][1]["buffer"]=="later" and j["sources"][1]["shift_ns"]==2000000000, j' n.json &&
	ok "--json summary: buffer 'later', shift 2000000000 ns" || fail "--json: $(cat n.json)"

# refused: another kernel, machine, word size; nothing written
refuse() {
	local what=$1; shift
	rm -f x.dat
	"$F" merge "$@" -o x.dat >/dev/null 2>x.err
	rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <x.err)" = 1 ] && grep -q "report -i A -i B" x.err &&
		grep -q "flytrap load" x.err && [ ! -e x.dat ] && [ -z "$(ls -A | grep '^\.x\.dat')" ]; then
		ok "refused ($what): $(cut -c1-60 x.err)..."
	else
		fail "$what: exit $rc, $(cat x.err), output $(ls x.dat .x.dat* 2>/dev/null)"
	fi
}
if [ -d "$X" ]; then
	refuse "another kernel and machine" a.dat "$X/AkshuDev+AOS-1.0__trace.7f25d3b.dat"
	refuse "4-byte longs" a.dat "$X/cilges+labsisop-buildroot-grp-01__trace.dat"
	refuse "another boot" "$X/cilges+labsisop-buildroot-grp-01__trace.dat" \
		"$X/kinmax+buildroot-kernel__trace_fifo_multicore.dat"
else
	echo "note: no fixtures at $X: the other-kernel refusals are not checked"
fi

# usage errors: exit 2, one line, no output
usage() {
	rm -f u.dat
	"$F" merge "$@" >/dev/null 2>u.err
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <u.err)" = 1 ] && [ ! -e u.dat ] && ok "usage error: merge $* ($(cut -c1-50 u.err))" ||
		{ fail "merge $*: exit $rc"; cat u.err; }
}
usage a.dat -o u.dat
usage a.dat a.dat -o u.dat
usage a.dat b.dat
usage a.dat b.dat -o a.dat
usage a.dat b.dat --bogus -o u.dat
usage a.dat b.dat --offset b.dat=x -o u.dat
usage a.dat b.dat --name nosuch.dat=x -o u.dat
usage a.dat b.dat -o
usage a.dat b.dat --name a.dat=same --name b.dat=same -o u.dat

# an analyzer given two recordings (not one rotation): exit 2, one line naming report -i
for cmd in overhead callgraph drops export analyze; do
	"$F" $cmd a.dat b.dat >/dev/null 2>an.err
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <an.err)" = 1 ] && grep -q 'report -i A -i B' an.err ||
		{ fail "$cmd a.dat b.dat: exit $rc: $(cat an.err)"; continue; }
done
ok "overhead, callgraph, drops, export, analyze on two recordings: exit 2 naming report -i"

# a damaged input: the merge fails and leaves no output
sz=$(stat -c %s b.dat)
head -c $((sz * 2 / 3)) b.dat >cut.dat
rm -f d.dat
"$F" merge a.dat cut.dat -o d.dat >/dev/null 2>d.err
rc=$?
[ $rc != 0 ] && [ ! -e d.dat ] && ok "a cut input: exit $rc, no output ($(head -c 60 d.err))" ||
	fail "a cut input: exit $rc, output $(ls d.dat 2>/dev/null)"
[ -z "$(ls -A | grep '^\.[a-z]*\.dat\.')" ] && ok "no temporary files left" || fail "left: $(ls -A | grep '^\.')"
finish
