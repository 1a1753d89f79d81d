#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# verify and the chunk checksums: an intact flytrap file is whole (exit 0);
# one byte flipped inside a chunk (compressed) or block (uncompressed) is
# named by its byte range (exit 1), and report prints the events before and
# after it, names the skipped window and exits 1; a file without checksums
# (trace-cmd's) passes the other checks, says what it could not check, and
# --strict makes that exit 3.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd trace-cmd
F=$FLYTRAP

flip() { python3 -c "import sys
f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); b = f.read(1)
f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0x40]))" "$1" "$2"; }

for comp in zstd none; do
	"$F" convert -c $comp tests/data/sample.dat -o "$TMP/w.dat" || fail "convert -c $comp"
	"$F" verify "$TMP/w.dat" > "$TMP/v.txt"; rc=$?
	[ $rc = 0 ] && grep -q "^$TMP/w.dat: whole" "$TMP/v.txt" && grep -q "whole-file digest" "$TMP/v.txt" &&
		ok "$comp: an intact file is whole (exit 0)" || fail "$comp: intact file: rc=$rc $(cat "$TMP/v.txt")"
	"$F" verify --strict "$TMP/w.dat" > /dev/null || fail "$comp: --strict on a file with checksums: $?"
	# the middle chunk of CPU 1 (verify -v lists the chunks)
	line=$("$F" verify -v "$TMP/w.dat" 2>&1 >/dev/null | grep '^flytrap: CPU 1: ' | sed -n 5p)
	range=${line##* bytes }
	a=${range%-*} b=${range#*-}
	[ -n "$a" ] && [ "$a" -lt "$b" ] || { fail "$comp: no chunk list from verify -v: $line"; continue; }
	cp "$TMP/w.dat" "$TMP/d.dat"
	flip "$TMP/d.dat" $(( (a + b) / 2 ))
	"$F" verify "$TMP/d.dat" > "$TMP/v.txt"; rc=$?
	[ $rc = 1 ] && grep -q "^  bytes $a-$b ([0-9]* bytes): CPU 1: .* 5 of [0-9]* fails its checksum" "$TMP/v.txt" &&
		ok "$comp: one flipped byte: verify names bytes $a-$b and exits 1" ||
		fail "$comp: flipped byte at $(( (a + b) / 2 )): rc=$rc $(cat "$TMP/v.txt")"
	"$F" verify --json "$TMP/d.dat" | python3 -c "
import json, sys
v = json.load(sys.stdin)
assert not v['whole'] and any(d['from'] == $a and d['to'] == $b + 1 for d in v['damaged']), v" &&
		ok "$comp: --json gives the same range" || fail "$comp: verify --json"
	# report: the events of every other chunk, the window named, exit 1
	"$F" report "$TMP/w.dat" > "$TMP/all.txt"
	"$F" report "$TMP/d.dat" > "$TMP/d.txt" 2> "$TMP/d.err"; rc=$?
	grep -q "CPU 1: bytes $a-$b fail their checksum (1 .*); skipped, events lost between [0-9.]* and [0-9.]*" "$TMP/d.err" &&
		[ $rc = 1 ] && ok "$comp: report names the skipped window and exits 1" ||
		fail "$comp: report rc=$rc: $(cat "$TMP/d.err")"
	# every line of the damaged listing but the loss marker is a line of the whole one
	# (spaces squeezed: report pads the task column to the widest name seen so far)
	missing=$(grep -v 'EVENTS DROPPED' "$TMP/d.txt" | tr -s ' ' | sort |
		comm -23 - <(tr -s ' ' < "$TMP/all.txt" | sort) | wc -l)
	n_all=$(wc -l < "$TMP/all.txt") n_d=$(wc -l < "$TMP/d.txt")
	last_all=$(tail -1 "$TMP/all.txt" | tr -s ' ') last_d=$(tail -1 "$TMP/d.txt" | tr -s ' ')
	[ "$missing" = 0 ] && [ "$n_d" -lt "$n_all" ] && [ "$n_d" -gt $((n_all / 2)) ] && [ "$last_all" = "$last_d" ] &&
		grep -q "CPU:1 \[EVENTS DROPPED\]" "$TMP/d.txt" &&
		ok "$comp: report prints the events before and after the chunk ($n_d of $n_all lines) and a loss marker" ||
		fail "$comp: report of the damaged file: $missing foreign lines, $n_d of $n_all"
	"$F" drops --json "$TMP/d.dat" > "$TMP/dr.json" 2>/dev/null
	python3 -c "
import json, sys
d = json.load(open('$TMP/dr.json'))
s = json.dumps(d)
assert d.get('partial') is True, s[:300]" && ok "$comp: drops says partial" || fail "$comp: drops: $(head -c 300 "$TMP/dr.json")"
done

# flipped in metadata (outside any chunk): the digest catches it
"$F" convert tests/data/sample.dat -o "$TMP/w.dat"
cp "$TMP/w.dat" "$TMP/m.dat"
flip "$TMP/m.dat" 200
"$F" verify "$TMP/m.dat" > "$TMP/v.txt" 2>&1; rc=$?
[ $rc = 1 ] && grep -q "digest does not match" "$TMP/v.txt" && ok "a byte flipped in the metadata fails the digest" ||
	fail "metadata flip: rc=$rc $(cat "$TMP/v.txt")"
# a cut file
head -c $(( $(stat -c %s "$TMP/w.dat") - 5000 )) "$TMP/w.dat" > "$TMP/c.dat"
"$F" verify "$TMP/c.dat" > "$TMP/v.txt" 2>&1; rc=$?
[ $rc = 1 ] && grep -q DAMAGED "$TMP/v.txt" && ok "a cut file is damaged" || fail "cut: rc=$rc $(cat "$TMP/v.txt")"

# trace-cmd's files: no checksums; whole for the other checks, --strict exits 3
for f in tests/data/sample.dat ${FIXTURES:+"$FIXTURES"/*.dat}; do
	[ -f "$f" ] || continue
	"$F" verify "$f" > "$TMP/v.txt" 2>&1; rc=$?
	"$F" verify --strict "$f" > /dev/null 2>&1; src=$?
	[ $rc = 0 ] && [ $src = 3 ] && grep -q "^not checked: whole-file digest (the file has none)" "$TMP/v.txt" ||
		fail "$(basename "$f"): rc=$rc strict=$src $(cat "$TMP/v.txt")"
done
ok "files without checksums: exit 0, 'not checked' listed, --strict exits 3"

# usage
"$F" verify > /dev/null 2>&1; [ $? = 2 ] || fail "no file: not exit 2"
"$F" verify --bogus x.dat 2> "$TMP/e"; rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && ok "a wrong flag: one line, exit 2" || fail "bad flag: rc=$rc"
"$F" verify "$TMP/none.dat" 2> "$TMP/e"; [ $? = 1 ] && grep -q "cannot open" "$TMP/e" || fail "missing file"
finish
