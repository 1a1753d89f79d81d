#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The analyzer commands as users meet them: --help, one-line usage errors
# with exit 2, open errors, valid --json and 80-column text on every real
# trace-cmd fixture, --svg output, and several analyzers agreeing on counts.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3

for c in callgraph overhead drops; do
	"$FLYTRAP" $c --help > "$TMP/h" 2>&1 && grep -q "^usage: flytrap $c" "$TMP/h" && grep -q -- "--json" "$TMP/h" \
		&& ok "$c --help" || fail "$c --help"
	"$FLYTRAP" $c --bogus tests/data/rpt-graph.dat > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && [ ! -s "$TMP/o" ] && ok "$c: bad flag exits 2 with one line" \
		|| fail "$c --bogus: rc $rc, stderr: $(cat "$TMP/e")"
	"$FLYTRAP" $c --cpu x tests/data/rpt-graph.dat 2> "$TMP/e"; rc=$?
	[ $rc = 2 ] || fail "$c --cpu x: rc $rc"
	"$FLYTRAP" $c "$TMP/missing.dat" > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc = 1 ] && grep -q "^flytrap: error: cannot open '$TMP/missing.dat'" "$TMP/e" && ok "$c: missing file" \
		|| fail "$c missing file: rc $rc: $(cat "$TMP/e")"
done
"$FLYTRAP" drops --window 0 tests/data/rpt-drops.dat 2>/dev/null; [ $? = 2 ] || fail "drops --window 0 accepted"
"$FLYTRAP" callgraph --source nope tests/data/rpt-graph.dat 2>/dev/null; [ $? = 2 ] || fail "--source nope accepted"

# SVG flame graph
if "$FLYTRAP" callgraph --svg "$TMP/fg.svg" tests/data/rpt-graph.dat > /dev/null; then
	grep -q "<svg" "$TMP/fg.svg" && grep -q "ext4_file_read_iter" "$TMP/fg.svg" && ok "--svg" || fail "--svg content"
	python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$TMP/fg.svg" || fail "SVG is not XML"
else
	fail "callgraph --svg"
fi

# every fixture: valid JSON, text within 80 columns (titles too: long paths are shortened)
need_fixtures
# (the sanitizer run: analyze alone, which runs the other three)
cs="callgraph overhead drops analyze"
light && cs=analyze
for f in "$FIXTURES"/*.dat "$TOP"/tests/data/*.dat; do
	b=$(basename "$f")
	for c in $cs; do
		"$FLYTRAP" $c --json "$f" > "$TMP/j" 2> "$TMP/e"; rc=$?
		if [ $rc != 0 ]; then
			# only a file the reader itself refuses may be refused, with an error line
			"$FLYTRAP" info "$f" > /dev/null 2>&1 && fail "$c $b: exit $rc on a file info reads: $(head -c 200 "$TMP/e")"
			grep -q "^flytrap: error:" "$TMP/e" || fail "$c $b: rc $rc without an error line"
			continue
		fi
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/j" || fail "$c --json $b is not JSON"
		"$FLYTRAP" $c "$f" > "$TMP/t" 2>/dev/null
		w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/t")
		[ "$w" -le 80 ] || fail "$c $b: text line of $w columns"
	done
done
[ "$fails" = 0 ] && ok "fixtures: JSON and text"

# overhead and drops count the same events
f=$FIXTURES/elainecole+kernel-monitor-framework__trace.dat
if [ -r "$f" ]; then
	a=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])' < <("$FLYTRAP" overhead --json "$f"))
	b=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])' < <("$FLYTRAP" drops --json "$f"))
	c=$(trace-cmd report -i "$f" 2>/dev/null | grep -c '^ *.*\[[0-9][0-9]*\] ')
	[ "$a" = "$b" ] && ok "overhead and drops agree on $a events" || fail "overhead $a events, drops $b"
	command -v trace-cmd >/dev/null && { [ "$a" = "$c" ] && ok "trace-cmd agrees" || fail "trace-cmd lists $c events, flytrap $a"; }
fi
# "--" ends the options, so a file named like an option can be read
cp "$TOP/tests/data/rpt-drops.dat" "$TMP/-odd.dat"
for c in callgraph overhead drops export analyze; do
	(cd "$TMP" && "$FLYTRAP" $c -- -odd.dat >/dev/null 2>"$TMP/dd.err") &&
		ok "$c -- -odd.dat: read as a file" || fail "$c -- FILE: $(cat "$TMP/dd.err")"
done
# several files are the segments of one rotation (design decision 8): two
# recordings are a usage error naming the way to read them together
cp "$TOP/tests/data/rpt-drops.dat" "$TMP/a.dat"
cp "$TOP/tests/data/rpt-sched.dat" "$TMP/b.dat"
(cd "$TMP" && "$FLYTRAP" drops -- a.dat b.dat >/dev/null 2>"$TMP/dd.err")
[ $? = 2 ] && [ "$(wc -l <"$TMP/dd.err")" = 1 ] && grep -q 'report -i' "$TMP/dd.err" &&
	ok "drops -- A B (two recordings): one usage line" || fail "drops -- A B: $(cat "$TMP/dd.err")"
finish
