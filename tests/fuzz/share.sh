#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The commands that read files to write or compare them (slice, merge with
# the mutant as either input, redact, convert, diff on either side, verify,
# sql, load --dry-run) on damaged files, made as commands.sh makes them (cuts, flipped bytes
# in the metadata, flipped bytes anywhere, of the shipped files and a few
# fixtures, uncompressed first).  Each command may refuse a mutant (exit 1,
# or 2 where merge and diff find the two files do not go together);
# a crash, a sanitizer report, a hang, another exit status, or a hidden
# temporary file (.NAME.XXXX) left beside the output fails the test, with the
# seed, the command and the mutant named so that it reproduces.  (load reads
# and encodes every row with --dry-run, which needs no ClickHouse server.)
#
#   FUZZ_MUTANTS=N  mutants per input (default 8: 120 or more in all)
#   FUZZ_SEED=N (default 20261202)
FUZZ_MUTANTS_DEFAULT=8
. "$TOP/tests/fuzz/_fuzz.sh"

# one command on one mutant: a crash (signal, sanitizer, hang) is a failure,
# and so is an exit above 2 (merge and diff refuse inputs that do not go
# together with 2), an output left by a refusal, and a hidden temporary
# file left beside the output
runs=0 bad=0
try() {
	local m=$1 left; shift
	rm -f o.dat o.json
	timeout 60 "$@" > /dev/null 2> err.txt
	local rc=$?
	runs=$((runs + 1))
	left=$(find . -maxdepth 1 -name '.o.dat.*' | head -n 1)
	if [ -n "$left" ]; then
		rm -f ./.o.dat.*
		fail "exit $rc left $left: ${*/#$FLYTRAP/flytrap} (mutant $(basename "$m"), seed $seed)"
	fi
	# (convert keeps what it could read of a damaged input, and says so)
	if [ $rc -ne 0 ] && [ -e o.dat ] && [ "$2" != convert ]; then
		fail "exit $rc but o.dat was left: ${*/#$FLYTRAP/flytrap} ($(basename "$m"))"
	fi
	# a writer that says it failed fails (issue 30: slice and merge said "truncated", exit 0)
	case $2 in slice | merge | redact | convert | load)
		[ $rc = 0 ] && grep -q '^flytrap: error' err.txt &&
			fail "exit 0 after an error: ${*/#$FLYTRAP/flytrap} ($(basename "$m")): $(head -1 err.txt)" ;;
	esac
	if [ $rc -gt 2 ]; then
		bad=$((bad + 1))
		fail "exit $rc: ${*/#$FLYTRAP/flytrap} (mutant $(basename "$m"), seed $seed): $(grep -m1 -E 'ERROR|runtime error|SUMMARY|error' err.txt)"
	fi
}
# a budget below the runner's per-test limit: a slow (sanitizer) build runs fewer mutants;
# the light (sanitizer) run, beside CI's fresh-root step, 300 s of them
budget=${FUZZ_SECONDS:-$(light && echo 300 || echo 540)} done_m=0
for m in mut/*; do
	[ $SECONDS -lt $budget ] || { echo "note: time budget of ${budget}s reached after $done_m mutants"; break; }
	done_m=$((done_m + 1))
	orig="plain/$(basename "${m%.m*}").dat"
	try "$m" "$FLYTRAP" slice --cpu 0 "$m" -o o.dat
	try "$m" "$FLYTRAP" merge "$m" "$orig" -o o.dat
	try "$m" "$FLYTRAP" merge "$orig" "$m" -o o.dat
	try "$m" "$FLYTRAP" redact --key key "$m" -o o.dat
	try "$m" "$FLYTRAP" convert "$m" -o o.dat
	try "$m" "$FLYTRAP" diff "$orig" "$m"
	try "$m" "$FLYTRAP" diff "$m" "$orig"
	try "$m" "$FLYTRAP" verify "$m"
	try "$m" "$FLYTRAP" sql -c "select count(*) from ftrace_event; select * from meta" "$m"
	try "$m" "$FLYTRAP" load --dry-run "$m"
done
ok "$runs command runs on $done_m of $(find mut -type f | wc -l) mutants of ${#inputs[@]} files in ${SECONDS}s: $bad crashed"
[ "$done_m" -ge 120 ] || echo "note: fewer than 120 mutants ($done_m): raise FUZZ_SECONDS"
finish
