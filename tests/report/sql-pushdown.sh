#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# sql's aggregate pushdown (issue 37): the COUNT(*) ... GROUP BY queries it
# rewrites onto event_counts (one pass, or the time index's counts) answer
# byte for byte what the same query gives run as written (--no-pushdown),
# in text (and CSV and JSON for one), on every shipped file and fixture and
# on a cut file; queries it must not rewrite (a WHERE on ts, a key it does
# not hold) give the same answer too.  FLYTRAP_TEST_LIGHT=1: every query on
# sample.dat, two (the index's count and the scan's GROUP BY) elsewhere.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"

queries=(
	"SELECT count(*) FROM ftrace_event"
	"select name, count(*) from ftrace_event group by name"
	"SELECT cpu, COUNT(*) AS n FROM ftrace_event GROUP BY cpu ORDER BY n DESC"
	"select name, system, cpu, count(*) from ftrace_event group by cpu, name, system order by count(*) desc, name limit 7;"
	"select tid, count(*) from ftrace_event group by tid order by 2 desc, 1 limit 5"
	"select buffer, count(*) as c from ftrace_event group by buffer"
	"SELECT count(*) FROM ftrace_event WHERE ts > 0"
	"select utid, count(*) from ftrace_event group by utid order by 2 desc limit 3"
)
same() {	# same FILE: every query with and without pushdown (text; CSV and JSON for one)
	local q form i=0 nq=${#queries[@]} n=0 forms=1
	# light (the sanitizer run): every query and form on sample.dat, two queries elsewhere
	[ "${FLYTRAP_TEST_LIGHT:-0}" = 1 ] && [ "$(basename "$1")" != sample.dat ] && nq=2 forms=0
	for q in "${queries[@]:0:$nq}"; do
		for form in "" --csv --json; do
			[ -n "$form" ] && { [ $i != 1 ] || [ $forms = 0 ]; } && continue
			"$FLYTRAP" sql $form -c "$q" "$1" >"$TMP/p" 2>"$TMP/pe"; rp=$?
			"$FLYTRAP" sql $form --no-pushdown -c "$q" "$1" >"$TMP/q" 2>"$TMP/qe"; rq=$?
			if [ "$rp" = "$rq" ] && cmp -s "$TMP/p" "$TMP/q" && cmp -s "$TMP/pe" "$TMP/qe"; then
				n=$((n + 1))
			else
				fail "$1 '$q' $form: exit $rp/$rq, $(diff "$TMP/p" "$TMP/q" | head -3)"
			fi
		done
		i=$((i + 1))
	done
	ok "$(basename "$1"): $n answers the same"
}

for f in tests/data/*.dat "$FIXTURES"/*.dat; do
	[ -r "$f" ] || continue
	same "$f"
done

# a cut file (damaged: both read what is left, and warn alike)
size=$(stat -c %s tests/data/sample.dat)
head -c $((size * 2 / 3)) tests/data/sample.dat >"$TMP/cut.dat"
same "$TMP/cut.dat"

# event_counts itself: its sum is ftrace_event's count
src=tests/data/sample.dat
a=$("$FLYTRAP" sql --csv -c "SELECT sum(count) FROM event_counts" "$src" | tail -1)
b=$("$FLYTRAP" sql --csv --no-pushdown -c "SELECT count(*) FROM ftrace_event" "$src" | tail -1)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "event_counts sums to ftrace_event's $b" ||
	fail "event_counts $a, ftrace_event $b"
"$FLYTRAP" sql --bogus "$src" >/dev/null 2>"$TMP/e"; rc=$?
[ "$rc" = 2 ] && ok "a wrong flag: exit 2" || fail "a wrong flag: exit $rc"
finish
