#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --uprobe BINARY:GLOB records entry and return of a user program's functions,
# properly nested, with the counts its call tree implies; the probes are gone
# afterwards.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
[ -e "$TRACEFS/uprobe_events" ] || skip "no uprobe_events in tracefs (CONFIG_UPROBE_EVENTS)"
UT=$TOP/$O/tests/tools/uprobe_target
[ -x "$UT" ] || skip "uprobe_target not built"
cd "$TMP"

N=200
before=$(cat "$TRACEFS/uprobe_events")
"$FLYTRAP" record --uprobe "$UT:ut_*" -o u.dat -- "$UT" $N >/dev/null 2>rec.err
rc=$?
[ $rc = 0 ] && ok "record exits 0" || { fail "record exit $rc"; cat rec.err; finish; }
[ "$(cat "$TRACEFS/uprobe_events")" = "$before" ] && ok "uprobes removed afterwards" ||
	fail "uprobe_events changed"

trace-cmd report -i u.dat >tc.txt 2>/dev/null || fail "trace-cmd report failed"
"$FLYTRAP" report u.dat >ft.txt 2>/dev/null || fail "flytrap report failed"
cmp -s tc.txt ft.txt && ok "trace-cmd and flytrap print the same lines" || fail "listings differ"

# names in time order, checked against a call stack
awk '$0 ~ /: ut_[a-z_]+:/ { for (i = 1; i <= NF; i++) if ($i ~ /^ut_[a-z_]+:$/) { sub(":", "", $i); print $i } }' \
	tc.txt >calls.txt
res=$(awk '
	{
		if ($1 ~ /__return$/) {
			f = $1; sub(/__return$/, "", f)
			if (d == 0 || st[d] != f) { print "bad return " $1 " at line " NR; bad = 1; exit }
			d--
		} else {
			st[++d] = $1; n[$1]++
			if (d > max) max = d
		}
	}
	END { if (!bad) printf "depth=%d open=%d outer=%d middle=%d leaf=%d\n", max, d, n["ut_outer"], n["ut_middle"], n["ut_leaf"] }' calls.txt)
want="depth=3 open=0 outer=$N middle=$((2 * N)) leaf=$((2 * N))"
[ "$res" = "$want" ] && ok "nesting and counts: $res" || fail "got '$res', expected '$want'"
[ "$(wc -l <calls.txt)" = $((10 * N)) ] && ok "$((10 * N)) probe hits" || fail "$(wc -l <calls.txt) probe hits, expected $((10 * N))"

# the maps of the (short-lived) command are in PROCMAPS, taken at its exit (a sanitizer
# build's tool is not run under ptrace, see flytrap-record(1), so it has no exit snapshot)
if ldd "$UT" 2>/dev/null | grep -q libasan; then
	echo "note: sanitized uprobe_target, PROCMAPS not checked"
else
	trace-cmd dump --options -i u.dat 2>/dev/null | grep -A40 'Option PROCMAPS' >maps.txt
	grep -q " $(readlink -f "$UT")\$" maps.txt && grep -q 'libc' maps.txt &&
		ok "PROCMAPS holds the command's binary and libc" || { fail "PROCMAPS"; cat maps.txt; }
fi

# a pattern that matches nothing is an error, and leaves nothing behind
"$FLYTRAP" record --uprobe "$UT:no_such_function_*" -o none.dat -- true 2>none.err
rc=$?
[ $rc = 2 ] && grep -q "no function of" none.err && ok "unmatched glob: one clear error" ||
	{ fail "unmatched glob: exit $rc"; cat none.err; }
[ "$(cat "$TRACEFS/uprobe_events")" = "$before" ] && ok "nothing left after the error" || fail "uprobe_events changed"
finish
