#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Every command on damaged files: mutants (cuts, flipped bytes in the
# metadata, flipped bytes anywhere) of the shipped files and a few fixtures,
# uncompressed first so that flips reach the options, formats and flytrap's
# own sections rather than only failing a zstd frame.  Each command may
# refuse a mutant (any exit status below 124 but the sanitizers'); a crash,
# a sanitizer report or a hang fails the test, with the seed, the command
# and the mutant named so that it reproduces.  Under SAN=1 (CI) any memory
# error aborts.
#
#   FUZZ_MUTANTS=N  mutants per input (default 2); FUZZ_SEED=N (default 20261202)
FUZZ_MUTANTS_DEFAULT=2
. "$TOP/tests/fuzz/_fuzz.sh"
mkdir -p span
for f in plain/*.dat; do
	"$FLYTRAP" info --json "$f" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
if d.get("events") and d.get("first_ts") is not None:
    a, z = d["first_ts"], d["last_ts"]
    print("%.9f %.9f" % ((a + (z - a) * 0.4) / 1e9, (a + (z - a) * 0.6) / 1e9))' > "span/$(basename "$f" .dat)" 2>/dev/null
done

# one command on one mutant: a crash (signal, sanitizer, hang) is a failure
runs=0 bad=0
try() {
	local m=$1; shift
	rm -f o.dat o.json o.html
	timeout 60 "$@" > /dev/null 2> err.txt
	local rc=$?
	runs=$((runs + 1))
	if [ $rc -ge 111 ] && [ $rc -ne 255 ]; then
		bad=$((bad + 1))
		fail "exit $rc: ${*/#$FLYTRAP/flytrap} (mutant $(basename "$m"), seed $seed): $(grep -m1 -E 'ERROR|runtime error|SUMMARY' err.txt)"
		return
	fi
	# a refusal that left an output file behind looks complete when it is not
	if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
		for o in o.dat o.json o.html; do
			[ -e "$o" ] && fail "exit $rc but $o was left: ${*/#$FLYTRAP/flytrap} ($(basename "$m"))"
		done
	fi
}
# a budget below the runner's per-test limit: a slow (sanitizer) build runs fewer mutants
budget=${FUZZ_SECONDS:-420} done_m=0
for m in mut/*; do
	[ $SECONDS -lt $budget ] || { echo "note: time budget of ${budget}s reached after $done_m mutants"; break; }
	done_m=$((done_m + 1))
	try "$m" "$FLYTRAP" report "$m"
	try "$m" "$FLYTRAP" info --json "$m"
	try "$m" "$FLYTRAP" verify "$m"
	try "$m" "$FLYTRAP" analyze --json "$m"
	try "$m" "$FLYTRAP" callgraph "$m"
	try "$m" "$FLYTRAP" overhead "$m"
	try "$m" "$FLYTRAP" drops "$m"
	try "$m" "$FLYTRAP" export -o o.json "$m"
	try "$m" "$FLYTRAP" export --html -o o.html "$m"
	try "$m" "$FLYTRAP" slice --cpu 0 "$m" -o o.dat
	try "$m" "$FLYTRAP" redact --key key "$m" -o o.dat
	try "$m" "$FLYTRAP" convert "$m" -o o.dat
	try "$m" "$FLYTRAP" sql -c "select count(*) from ftrace_event; select * from meta; select count(*) from drops; select count(*) from bpf_map" "$m"
	try "$m" "$FLYTRAP" report --bpf-maps "$m"
	try "$m" "$FLYTRAP" diff "${m%.m*}.m00" "$m"
	w=$(cat "span/$(basename "${m%.m*}")" 2>/dev/null)
	if [ -n "$w" ]; then
		try "$m" "$FLYTRAP" callgraph --from "${w% *}" --to "${w#* }" "$m"
		try "$m" "$FLYTRAP" export --from "${w% *}" --to "${w#* }" -o o.json "$m"
		try "$m" "$FLYTRAP" drops --from "${w% *}" --to "${w#* }" "$m"
	fi
done
ok "$runs command runs on $done_m of $(find mut -type f | wc -l) mutants of ${#inputs[@]} files: $bad crashed"
finish
