#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test-timeout: 1500
# Ranged analysis (issue 37 item 3): overhead and drops cut the file into K
# time ranges, replay each in its own thread from the time index's state,
# and merge; analyze runs callgraph on one whole replay beside them.  The
# output must be byte for byte what one replay prints (FLYTRAP_RANGES=1):
#  - stdout, stderr and the exit status of overhead, drops and analyze, text
#    and JSON, with --cpu, --comm, --window and --syscalls, at K = 2, 3 and 8
#    (light: 3), on the shipped files and fixtures converted to one page per
#    chunk (so that they have chunks to cut at), on a file whose tasks change
#    names and pids with losses on both CPUs (mkrpt names), a big-endian
#    copy, and a 300,000-event bench file;
#  - the ranges did run (FLYTRAP_WINDOW_READ=say prints one line per range):
#    on every file with more than one chunk per CPU, K of them;
#  - --threads 3 cuts a 1.2M-event file in two by itself (analyze: two
#    ranges and callgraph's whole replay), and prints what --threads 1
#    prints; so does analyze --threads 2 (callgraph beside one replay of
#    the others);
#  - with no --threads, a 2M-event file (above the 4 MiB a default thread
#    needs) runs overhead and drops on as many ranges as the process has
#    usable cores (the affinity mask, fewer under a CPU quota: what
#    tests/test_threads reports), up to one per 500,000 events, whatever
#    the pipeline's measure says; under `taskset` to one CPU, on one; both
#    print what --threads 1 prints;
#  - a file the ranges cannot read as windows (a chunk that fails its
#    checksum, a truncated file) is replayed once: the same damage message
#    and exit status as one replay.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
MK=$TOP/$O/tests/tools/mkrpt
[ -x "$MK" ] || skip "mkrpt not built"

nconv=$(window_files "$TMP/w" "$MK")
[ $nconv -gt 10 ] && ok "$nconv shipped files and fixtures converted to one page per chunk" ||
	fail "only $nconv files converted"

# run K FILE ARGS...: output, messages and status of one command on K ranges
run() {
	local k=$1 f=$2
	shift 2
	FLYTRAP_RANGES=$k "$FLYTRAP" "$@" "$f" >"$TMP/out.$k" 2>"$TMP/err.$k"
	echo "status $?" >>"$TMP/err.$k"
}

ks="2 3 8"
light && ks=3
nsame=0 nranged=0 nfiles=0
for f in "$TMP"/w/*.dat; do
	b=$(basename "$f")
	nfiles=$((nfiles + 1))
	# the comm filter of this file: its busiest task's name
	comm=$("$FLYTRAP" overhead --json "$f" 2>/dev/null | python3 -c '
import json, sys
try:
    t = json.load(sys.stdin).get("tasks") or []
    print(t[0]["comm"] if t else "none")
except Exception:
    print("none")')
	for args in "overhead" "overhead --json" "overhead --cpu 1" "overhead --comm $comm --json" \
		"overhead --syscalls tracepoints" "drops" "drops --json" "drops --window 1000000" \
		"drops --cpu 0 --json" "analyze" "analyze --json --comm $comm"; do
		# shellcheck disable=SC2086
		run 1 "$f" $args
		for k in $ks; do
			# shellcheck disable=SC2086
			FLYTRAP_WINDOW_READ=say run "$k" "$f" $args
			said=$(grep -c '^window read:' "$TMP/err.$k")
			grep -v '^window read:' "$TMP/err.$k" >"$TMP/err.k"
			if cmp -s "$TMP/out.1" "$TMP/out.$k" && cmp -s "$TMP/err.1" "$TMP/err.k"; then
				nsame=$((nsame + 1))
			else
				fail "$b: '$args' on $k ranges differs from one replay"
				diff "$TMP/out.1" "$TMP/out.$k" | head -5
				diff "$TMP/err.1" "$TMP/err.k" | head -5
			fi
			# fewer lines: fewer chunk starts than ranges, or a range that could not be
			# a window (the file was then replayed once: the output above still holds)
			[ "$said" = "$k" ] && nranged=$((nranged + 1))
		done
	done
done
[ $nsame -gt 200 ] && ok "$nsame outputs on K ranges are one replay's, byte for byte ($nfiles files)" ||
	fail "only $nsame outputs compared"
[ $nranged -gt 100 ] && ok "$nranged of them ran on K ranges (FLYTRAP_WINDOW_READ=say)" ||
	fail "only $nranged ran on K ranges"
for b in names.dat bench.dat names-be-c1.dat; do
	FLYTRAP_WINDOW_READ=say FLYTRAP_RANGES=3 "$FLYTRAP" overhead "$TMP/w/$b" 2>&1 >/dev/null |
		grep -c '^window read:' | grep -qx 3 && ok "$b: overhead ran on 3 ranges" ||
		fail "$b: overhead did not run on 3 ranges"
done

# --threads alone: a file of 1.2M events is cut in two (at least 500,000 events a range)
"$MK" bench "$TMP/big.dat" 1200000 >/dev/null || fail "mkrpt bench 1.2M"
for args in "overhead" "drops --json" "analyze"; do
	# shellcheck disable=SC2086
	"$FLYTRAP" $args --threads 1 "$TMP/big.dat" >"$TMP/t1" 2>&1
	# shellcheck disable=SC2086
	FLYTRAP_WINDOW_READ=say "$FLYTRAP" $args --threads 3 "$TMP/big.dat" >"$TMP/t2" 2>"$TMP/t2.err"
	said=$(grep -c '^window read:' "$TMP/t2.err")
	grep -v '^window read:' "$TMP/t2.err" >>"$TMP/t2"
	cmp -s "$TMP/t1" "$TMP/t2" && [ "$said" = 2 ] &&
		ok "$args --threads 3: 2 ranges, the output of --threads 1" ||
		fail "$args --threads 3: $said ranges, or another output"
done

# --threads 2 and a command with callgraph: no ranges (one thread goes to callgraph), but
# callgraph's replay beside the others': the same output
"$FLYTRAP" analyze --json --threads 1 "$TMP/big.dat" >"$TMP/t1" 2>&1
FLYTRAP_WINDOW_READ=say "$FLYTRAP" analyze --json --threads 2 "$TMP/big.dat" >"$TMP/t2" 2>&1
cmp -s "$TMP/t1" "$TMP/t2" && ok "analyze --json --threads 2: callgraph beside the others, the same output" ||
	fail "analyze --json --threads 2 prints another output"

# the default: ranges on the usable cores, none on one CPU
"$MK" bench "$TMP/big2.dat" 2000000 >/dev/null || fail "mkrpt bench 2M"
usable=$("$TOP/$O/tests/test_threads" | sed -n 's/.* \([0-9]*\) for ranges.*/\1/p')
want=$usable
[ "${want:-0}" -gt 4 ] && want=4
for args in "overhead" "drops --json"; do
	# shellcheck disable=SC2086
	"$FLYTRAP" $args --threads 1 "$TMP/big2.dat" >"$TMP/t1" 2>&1
	# shellcheck disable=SC2086
	FLYTRAP_WINDOW_READ=say "$FLYTRAP" $args "$TMP/big2.dat" >"$TMP/t2" 2>"$TMP/t2.err"
	said=$(grep -c '^window read:' "$TMP/t2.err")
	[ "$said" = 0 ] && said=1
	grep -v '^window read:' "$TMP/t2.err" >>"$TMP/t2"
	cmp -s "$TMP/t1" "$TMP/t2" && [ "$said" = "$want" ] &&
		ok "$args, default threads: $said ranges on $usable usable cores, the output of --threads 1" ||
		fail "$args, default threads: $said ranges on ${usable:-?} usable cores (want $want), or another output"
	# shellcheck disable=SC2086
	FLYTRAP_WINDOW_READ=say taskset -c 0 "$FLYTRAP" $args "$TMP/big2.dat" >"$TMP/t2" 2>"$TMP/t2.err"
	said=$(grep -c '^window read:' "$TMP/t2.err")
	grep -v '^window read:' "$TMP/t2.err" >>"$TMP/t2"
	cmp -s "$TMP/t1" "$TMP/t2" && [ "$said" = 0 ] &&
		ok "$args, default threads on one CPU: one replay, the same output" ||
		fail "$args, default threads on one CPU: $said ranges, or another output"
done
"$FLYTRAP" analyze --threads 1 "$TMP/big2.dat" >"$TMP/t1" 2>&1
"$FLYTRAP" analyze "$TMP/big2.dat" >"$TMP/t2" 2>&1
cmp -s "$TMP/t1" "$TMP/t2" && ok "analyze, default threads: the output of --threads 1" ||
	fail "analyze, default threads: another output"

# damage: a chunk that fails its checksum, a truncated file: one replay, its message and status
size=$(stat -c %s "$TMP/w/bench.dat")
cp "$TMP/w/bench.dat" "$TMP/damaged.dat"
printf '\xa5' | dd of="$TMP/damaged.dat" bs=1 seek=$((size / 2)) conv=notrunc status=none
head -c $((size * 2 / 3)) "$TMP/w/bench.dat" >"$TMP/cut.dat"
for f in "$TMP/damaged.dat" "$TMP/cut.dat"; do
	for args in "overhead" "drops --json" "analyze"; do
		# shellcheck disable=SC2086
		run 1 "$f" $args
		# shellcheck disable=SC2086
		run 4 "$f" $args
		cmp -s "$TMP/out.1" "$TMP/out.4" && cmp -s "$TMP/err.1" "$TMP/err.4" &&
			! grep -q '^status 0$' "$TMP/err.4" &&
			ok "$(basename "$f"): $args on 4 ranges: one replay's output, message and failure" ||
			fail "$(basename "$f"): $args on 4 ranges differs, or did not fail"
	done
done
finish
