#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# -h and -v of every reading command, handled once (ft_opt_next_std, issue 36):
# -h prints the usage on stdout, nothing on stderr, exit 0, whatever follows it;
# a help that cannot be written (stdout on /dev/full) is the one error line and
# exit 1 (load and sql said nothing and exited 0); -v (report: -V) is taken
# anywhere and reads the file as without it; an option after -h is not parsed.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
F=$FLYTRAP
S=tests/data/sample.dat

cmds="report info convert callgraph overhead drops export analyze sql load slice redact merge
      diff verify"
for c in $cmds; do
	"$F" $c -h --no-such-option > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc = 0 ] && grep -q "usage" "$TMP/o" && [ ! -s "$TMP/e" ] ||
		fail "$c -h --no-such-option: rc=$rc $(head -2 "$TMP/e")"
	"$F" $c --help > "$TMP/o2" 2> /dev/null && cmp -s "$TMP/o" "$TMP/o2" ||
		fail "$c --help differs from -h"
	if [ -w /dev/full ]; then
		"$F" $c -h > /dev/full 2> "$TMP/e"; rc=$?
		[ $rc = 1 ] && [ "$(wc -l < "$TMP/e")" = 1 ] &&
			grep -q "^flytrap: error: cannot write to standard output" "$TMP/e" ||
			fail "$c -h > /dev/full: rc=$rc '$(cat "$TMP/e")'"
	fi
	"$F" $c --no-such-option -h > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc = 2 ] && [ ! -s "$TMP/o" ] && [ "$(wc -l < "$TMP/e")" = 1 ] ||
		fail "$c --no-such-option -h: rc=$rc $(cat "$TMP/e")"
done
ok "-h, --help, -h on a full disk and a wrong flag before -h: the same in every command"

# -v changes no output of the commands that read one file onto stdout
for c in info callgraph overhead drops analyze verify; do
	"$F" $c $S > "$TMP/a" 2> /dev/null
	"$F" $c -v $S > "$TMP/b" 2> /dev/null
	"$F" $c $S -v -v > "$TMP/c" 2> /dev/null
	cmp -s "$TMP/a" "$TMP/b" && cmp -s "$TMP/a" "$TMP/c" || fail "$c -v changes its output"
done
"$F" report -V $S > "$TMP/b" 2> /dev/null && "$F" report --verbose $S > "$TMP/c" 2> /dev/null &&
	"$F" report $S > "$TMP/a" 2> /dev/null && cmp -s "$TMP/a" "$TMP/b" && cmp -s "$TMP/a" "$TMP/c" ||
	fail "report -V / --verbose change the listing"
ok "-v (report: -V, --verbose) leaves the output as it is"
finish
