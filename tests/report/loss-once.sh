#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# One loss figure (issue 31): a BPF ring buffer overflow is marked on the
# BPF buffer's pages (for trace-cmd) and stored as the recorder's failure
# records; both stand for the same 9 lost records (tests/tools/mkrpt.c,
# bpfloss).  info, drops (text and JSON), sql's drops table, the HTML report
# and diff each count them once, under the BPF ring buffer, on the files the
# recorder writes (marks and records) and on a file with the marks only.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
MK=$TOP/$O/tests/tools/mkrpt
[ -x "$MK" ] || skip "mkrpt not built"
F=$FLYTRAP

"$MK" bpfloss "$TMP/both.dat" || fail "mkrpt bpfloss"
MKRPT_NO_BPF_RECORDS=1 "$MK" bpfloss "$TMP/marks.dat" || fail "mkrpt bpfloss (marks only)"
for k in both marks; do
	f=$TMP/$k.dat
	"$F" info "$f" > "$TMP/i.txt" 2>&1
	grep -q '^lost: *9 events (BPF ring buffer 9)$' "$TMP/i.txt" &&
		ok "$k: info says 9 lost, BPF" || fail "$k: info: $(grep -A1 '^lost' "$TMP/i.txt")"
	"$F" info --json "$f" | python3 -c "
import json, sys
l = json.load(sys.stdin)['lost']
assert l == {'total': 9, 'kernel': 0, 'bpf': 9, 'recorder': 0}, l" &&
		ok "$k: info --json: lost 9, all BPF" || fail "$k: info --json"
	"$F" drops "$f" > "$TMP/d.txt" 2>&1
	grep -q '^  total lost: *9$' "$TMP/d.txt" && grep -q '^  kernel ring buffer: *0 ' "$TMP/d.txt" &&
		grep -q '^  BPF ring buffer: *9\b' "$TMP/d.txt" &&
		ok "$k: drops: total 9 = kernel 0 + BPF 9" ||
		fail "$k: drops: $(sed -n 3,8p "$TMP/d.txt")"
	grep -q 'raise the per-CPU ring buffer' "$TMP/d.txt" &&
		fail "$k: drops advises a larger kernel buffer for a BPF loss" ||
		ok "$k: drops gives no kernel-buffer advice for a BPF loss"
	"$F" drops --json "$f" | python3 -c "
import json, sys
t = json.load(sys.stdin)['total']
assert t['lost'] == 9 and t['kernel_lost'] == 0 and t['bpf_drops'] == 9 and t['lost_marked'] == 0, t" &&
		ok "$k: drops --json: lost 9, bpf_drops 9, kernel 0" || fail "$k: drops --json: $("$F" drops --json "$f" | head -c 400)"
	"$F" drops --window 100ms --json "$f" | python3 -c "
import json, sys
w = json.load(sys.stdin)['windows']
assert sum(x['bpf_drops'] for x in w) == 9 and sum(x['lost_marked'] for x in w) == 0, w" &&
		ok "$k: drops' windows count the 9 once, as BPF" || fail "$k: drops windows"
	n=$("$F" sql --csv -c "select count(*), sum(count) from drops" "$f" | tail -1)
	[ "$n" = "1,9" ] && ok "$k: sql: one drops row of 9" ||
		fail "$k: sql drops rows,sum = '$n': $("$F" sql -c 'select * from drops' "$f")"
	"$F" export --html -o "$TMP/$k.html" "$f" 2>/dev/null
	grep -q 'LOSSES: 9 events (BPF ring buffer 9)' "$TMP/$k.html" &&
		ok "$k: the HTML report's loss line says 9" ||
		fail "$k: html: $(grep -o 'LOSSES[^<]*' "$TMP/$k.html")"
	"$F" diff "$f" "$f" > "$TMP/df.txt" 2>&1
	[ "$(grep -c '^     lost: 9 events (BPF ring buffer 9)$' "$TMP/df.txt")" = 2 ] &&
		ok "$k: diff gives each side's loss, 9" || fail "$k: diff: $(head -6 "$TMP/df.txt")"
done
finish
