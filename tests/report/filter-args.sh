#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The filters' values mean the same to report and to the analyzers (one
# parser): --pid takes decimal ids only, everywhere; --from/--to are exact
# to the nanosecond on a wall-clock time line (19 digits of ns, more than a
# double holds), so 1 ns after an event leaves that event out,
# for report and for the analyzers.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
F=$FLYTRAP
S=tests/data/sample.dat

for cmd in report overhead callgraph drops slice; do
	for bad in +42 " 42" 0x2a 42x -1; do
		extra=
		[ $cmd = slice ] && extra="-o $TMP/bad.dat"
		# shellcheck disable=SC2086
		"$F" $cmd "$S" --pid "$bad" $extra > "$TMP/out" 2> "$TMP/err"; rc=$?
		if [ $rc != 2 ] || [ "$(wc -l < "$TMP/err")" != 1 ] || ! grep -q -- "--pid" "$TMP/err"; then
			fail "$cmd --pid '$bad': exit $rc, $(head -c 200 "$TMP/err")"
		fi
	done
done
[ -e "$TMP/bad.dat" ] && fail "slice left an output after a usage error"
ok "--pid +42, ' 42', 0x2a, 42x, -1: one line naming --pid, exit 2, for report and every analyzer"

MK=$TOP/$O/tests/tools/mkexport
[ -x "$MK" ] || skip "no $MK"
"$MK" "$TMP/ep.dat" --epoch > /dev/null || fail "mkexport --epoch"
# on a wall-clock time line the analyzers select what report selects:
# alpha's read enters at 1795000000.000002000 (the base plus 2000 ns)
for from in 1795000000.000002000 1795000000.000002001; do
	want=$("$F" report --from $from "$TMP/ep.dat" | grep -c 'sys_enter:')
	got=$("$F" overhead --json --from $from "$TMP/ep.dat" | python3 -c '
import json, sys
print(sum(t["count"] for t in json.load(sys.stdin)["event_types"] if t["event"].endswith(":sys_enter")))')
	[ "$want" = "$got" ] || fail "--from $from: report lists $want sys_enter, overhead counts $got"
	echo "$got" >> "$TMP/cmp.txt"
done
[ "$(sort -u "$TMP/cmp.txt" | wc -l)" = 2 ] && ok "--from exact to the ns: report and overhead count $(tr '\n' ' ' < "$TMP/cmp.txt")sys_enter from .000002000 and .000002001" ||
	fail "--from .000002000 and .000002001 select the same: $(tr '\n' ' ' < "$TMP/cmp.txt")"
for bad in 1795000000.0000020001 1e9 .; do
	"$F" overhead "$TMP/ep.dat" --from "$bad" > /dev/null 2> "$TMP/err"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$TMP/err")" = 1 ] || fail "overhead --from '$bad': exit $rc, $(cat "$TMP/err")"
	"$F" report "$TMP/ep.dat" --from "$bad" > /dev/null 2> "$TMP/err"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$TMP/err")" = 1 ] || fail "report --from '$bad': exit $rc, $(cat "$TMP/err")"
done
ok "10 decimals, an exponent, a lone dot: a usage error from report and the analyzers"
finish
