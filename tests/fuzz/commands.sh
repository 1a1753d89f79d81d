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
. "$TOP/tests/lib.sh"
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
cd "$TMP" || exit 1
# the sanitizers' own exit codes, told apart from a command's refusal
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}:exitcode=111
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=112
nmut=${FUZZ_MUTANTS:-2}
seed=${FUZZ_SEED:-20261202}

inputs=()
for f in "$TOP"/tests/data/*.dat; do
	[ "$(stat -c %s "$f")" -lt 200000 ] && inputs+=("$f")
done
for f in TGVM+tutorial3LabSisop__trace.dat wsdias+LabSisOp__trace.dat \
	 ARM-software+lisa__external_trappy_tests_trace_idle.dat hebel23+driver__trace.dat; do
	[ -f "$FIXTURES/$f" ] && inputs+=("$FIXTURES/$f")
done
# a file with record --bpf-object's objects (BTF) and map snapshots (tests/data/bpfobj/)
inputs+=("$TOP/tests/data/bpfobj/user-objects.dat")
[ ${#inputs[@]} -gt 0 ] || skip "no input files"

mkdir -p plain mut
for f in "${inputs[@]}"; do
	b=$(basename "$f" .dat)
	"$FLYTRAP" convert -c none "$f" -o "plain/$b.dat" 2>/dev/null || cp "$f" "plain/$b.dat"
done
# two compressed copies with one page per chunk: windows that skip chunks (the index's facts)
n2=0
for f in "${inputs[@]}"; do
	[ $n2 -lt 2 ] && [ "$(stat -c %s "$f")" -gt 20000 ] || continue
	"$FLYTRAP" convert --chunk 1 "$f" -o "plain/$(basename "$f" .dat)-c1.dat" 2>/dev/null && n2=$((n2 + 1))
done
mkdir -p span
for f in plain/*.dat; do
	"$FLYTRAP" info --json "$f" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
if d.get("events") and d.get("first_ts") is not None:
    a, z = d["first_ts"], d["last_ts"]
    print("%.9f %.9f" % ((a + (z - a) * 0.4) / 1e9, (a + (z - a) * 0.6) / 1e9))' > "span/$(basename "$f" .dat)" 2>/dev/null
done
python3 "$TOP/tests/fuzz/mutate.py" plain mut "$nmut" "$seed"
head -c 32 /dev/urandom > key

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
