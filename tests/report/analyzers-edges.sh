#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Edges of the analyzer commands a user runs into: filters that match
# nothing, CPUs the file does not have, raw counter clocks (x86-tsc) where
# times are ticks, long paths in titles, export's --json, and the recorder
# block of overhead.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3
jget() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# ---- a filter that matches nothing: said plainly, exit 0 like every analyzer, no empty SVG
g=tests/data/rpt-graph.dat
"$FLYTRAP" callgraph --pid 99999 --svg "$TMP/none.svg" $g > "$TMP/o" 2> "$TMP/e"; rc=$?
[ $rc = 0 ] || fail "callgraph matching nothing: exit $rc"
grep -q "no events match the filters" "$TMP/o" && grep -q "pid 99999" "$TMP/o" && ok "callgraph says nothing matched" \
	|| fail "callgraph matching nothing: $(cat "$TMP/o")"
grep -q "0\.000000\.\.0\.000000\|calls (time in calls)" "$TMP/o" && fail "callgraph still labels an empty result: $(cat "$TMP/o")"
[ -e "$TMP/none.svg" ] && fail "an empty SVG was written"
grep -q "^flytrap: warning: .*none.svg' not written" "$TMP/e" && ok "no SVG, and a warning says so" \
	|| fail "no warning about the SVG: $(cat "$TMP/e")"
"$FLYTRAP" callgraph --json --pid 99999 $g > "$TMP/j" || fail "callgraph --json matching nothing"
[ "$(jget "$TMP/j" '(j["events"], j["source"], j["total"])')" = "(0, None, 0)" ] && ok "callgraph --json: events 0, source null" \
	|| fail "callgraph --json matching nothing: $(head -c 200 "$TMP/j")"
# a file without call data, no filter: what was looked for, not a 0-call "calls" tree
"$FLYTRAP" callgraph tests/data/rpt-sched.dat > "$TMP/o"
grep -q "no call or stack data in the [0-9]* selected events" "$TMP/o" && ! grep -q "calls (time in calls)" "$TMP/o" \
	&& ok "callgraph without call data" || fail "callgraph without call data: $(cat "$TMP/o")"
"$FLYTRAP" overhead --comm nosuchtask tests/data/rpt-sched.dat > "$TMP/o"
grep -q "no events match the filters (comm nosuchtask)" "$TMP/o" && ok "overhead says nothing matched" \
	|| fail "overhead matching nothing: $(head -5 "$TMP/o")"

# drops cannot narrow by task: it says so instead of looking filtered
"$FLYTRAP" drops --pid 4 tests/data/rpt-drops.dat | grep -q "do not narrow this report" && ok "drops --pid says it does not apply" \
	|| fail "drops --pid is silent"

# ---- --cpu N for a CPU the file does not have: one warning, whatever the command
for c in callgraph overhead drops export analyze; do
	"$FLYTRAP" $c --cpu 7 tests/data/rpt-sched.dat > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc = 0 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && grep -q "^flytrap: warning: --cpu 7: .*recorded on CPUs 0-1" "$TMP/e" \
		&& ok "$c --cpu 7 warns once" || fail "$c --cpu 7: rc $rc, stderr: $(cat "$TMP/e")"
	"$FLYTRAP" $c --cpu 1 tests/data/rpt-sched.dat > /dev/null 2> "$TMP/e"
	[ -s "$TMP/e" ] && fail "$c --cpu 1 (present) warns: $(cat "$TMP/e")"
done
"$FLYTRAP" overhead --cpu 0-3 tests/data/rpt-sched.dat > /dev/null 2> "$TMP/e"
grep -q -- "--cpu 2-3:" "$TMP/e" && ok "only the missing CPUs are named" || fail "--cpu 0-3: $(cat "$TMP/e")"

# ---- long paths: titles fit 80 columns, the file name stays whole
d=$TMP/$(printf 'a_rather_long_directory_name_%.0s' 1 2 3)
mkdir -p "$d"
cp tests/data/rpt-graph.dat "$d/some-trace-file.dat"
for c in callgraph overhead drops analyze; do
	"$FLYTRAP" $c "$d/some-trace-file.dat" > "$TMP/o" || fail "$c on a long path"
	w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/o")
	[ "$w" -le 80 ] && grep -q "\.\.\./some-trace-file.dat$" "$TMP/o" && ok "$c title within 80 columns" \
		|| fail "$c: $w columns: $(head -1 "$TMP/o")"
done

# ---- export --json: the default output, said so; not with --html
"$FLYTRAP" export tests/data/rpt-sched.dat > "$TMP/a.json" && "$FLYTRAP" export --json tests/data/rpt-sched.dat > "$TMP/b.json" \
	&& cmp -s "$TMP/a.json" "$TMP/b.json" && ok "export --json = export" || fail "export --json differs"
"$FLYTRAP" export --json --html tests/data/rpt-sched.dat > /dev/null 2> "$TMP/e"; rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && ok "export --json --html refused" || fail "export --json --html: rc $rc"
"$FLYTRAP" export --help > "$TMP/h"
grep -q "machine-readable output" "$TMP/h" && fail "export --help offers --json as a change of output"
grep -q -- "--json .*default" "$TMP/h" && ok "export --help: --json is the default" || fail "export --help on --json"

# ---- overhead's recorder block: per-CPU stats as table rows, none wrapped alone
"$FLYTRAP" overhead tests/data/sample.dat > "$TMP/o"
sed -n '/^Recorder/,/^Advice/p' "$TMP/o" > "$TMP/rec"
rows=$(grep -cE '^  cpu[0-9]+ ' "$TMP/rec")
alone=$(grep -cE '^  cpu[0-9]+ *$' "$TMP/rec")
nf=$(grep -E '^  cpu[0-9]+ ' "$TMP/rec" | awk '{ print NF }' | sort -u | wc -l)
[ "$rows" = 2 ] && [ "$alone" = 0 ] && [ "$nf" = 1 ] && ok "recorder per-CPU rows even" \
	|| { fail "recorder block uneven (rows $rows, alone $alone, shapes $nf)"; cat "$TMP/rec"; }
grep -q "pages  *bytes_read  *max_drain" "$TMP/rec" || fail "no per-CPU header row"

# ---- raw counter clock (x86-tsc): times printed and taken as ticks, as report prints them
f=$FIXTURES/HIP24+Masterarbeit__LTS_trace-cmd-v3.2_trace.dat
if [ -r "$f" ]; then
	"$FLYTRAP" report "$f" 2>/dev/null | sed -n 's/^.*\] *\([0-9][0-9]*\): .*/\1/p' > "$TMP/ts"
	t=$(sed -n 3000p "$TMP/ts")
	want=$(awk -v t="$t" '$1 >= t' "$TMP/ts" | wc -l)
	"$FLYTRAP" overhead --json --from "$t" "$f" > "$TMP/j" || fail "overhead --from TICKS"
	[ "$(jget "$TMP/j" 'j["events"]')" = "$want" ] && ok "--from $t (ticks) selects the $want events report lists from there" \
		|| fail "--from ticks: $(jget "$TMP/j" 'j["events"]') events, report lists $want"
	"$FLYTRAP" overhead --from 303280.5 "$f" > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc = 2 ] && grep -q "raw counter" "$TMP/e" && ok "seconds on a tick clock: usage error saying why" \
		|| fail "--from seconds on a raw clock: rc $rc: $(cat "$TMP/e")"
	"$FLYTRAP" overhead "$f" > "$TMP/o"
	first=$(head -1 "$TMP/ts")
	grep -q "^  $first\.\." "$TMP/o" && grep -q "raw counter: times are clock ticks" "$TMP/o" \
		&& ok "overhead prints ticks on a raw clock" || fail "overhead span on a raw clock: $(sed -n 2,3p "$TMP/o")"
	"$FLYTRAP" drops "$f" | grep -q "events read, $first\.\." && ok "drops prints ticks" || fail "drops span not in ticks"
	# on a nanosecond clock, an integer is still seconds
	"$FLYTRAP" overhead --json --from 10 tests/data/rpt-sched.dat > "$TMP/j"
	[ "$(jget "$TMP/j" 'j["events"]')" -gt 0 ] && ok "--from 10 on a ns clock is 10 s" || fail "--from 10 on a ns clock"
fi
finish
