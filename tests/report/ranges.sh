#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test-timeout: 1500
# Ranged analysis (issue 37 item 3): overhead, drops and callgraph cut the
# file into K time ranges, replay each in its own thread from the time
# index's state, and merge; callgraph settles what each range met of the
# calls, stacks and forks before it, or hands the file to one replay.  The
# output must be byte for byte what one replay prints (FLYTRAP_RANGES=1):
#  - stdout, stderr and the exit status of overhead, drops, callgraph and
#    analyze, text and JSON, with --cpu, --comm, --window, --syscalls,
#    --group and --source, at K = 2, 3 and 8 (light: 3), on the shipped
#    files and fixtures converted to one page per chunk (so that they have
#    chunks to cut at), on a file whose tasks change names and pids with
#    losses on both CPUs (mkrpt names), a big-endian copy, and a
#    300,000-event bench file;
#  - the same for callgraph on random mixes of every call and stack kind
#    it pairs (mkrpt cgmix: lost exits, unpaired returns, kernel and user
#    stacks apart, forks and execs, 3 CPUs, migrating tasks), six seeds,
#    at K = 2, 5 and 9: without lost uprobe and ufunc exits (most ranges
#    merge) and with them (most replay once);
#  - the ranges did run (FLYTRAP_WINDOW_READ=say prints one line per range,
#    and one when a merge hands the file to one replay): on every file with
#    more than one chunk per CPU, K of them; callgraph merged on most;
#  - --threads 3 cuts a 1.2M-event file in two by itself and prints what
#    --threads 1 prints; so does export --html, with and without
#    --instants;
#  - with no --threads, a 2M-event file (above the 4 MiB a default thread
#    needs) runs overhead, drops and callgraph on as many ranges as the
#    process has usable cores (the affinity mask, fewer under a CPU quota:
#    what tests/test_threads reports), up to one per 500,000 events,
#    whatever the pipeline's measure says; under `taskset` to one CPU, on
#    one; both print what --threads 1 prints;
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
		"drops --cpu 0 --json" "callgraph" "callgraph --json --group process" \
		"callgraph --source samples --folded" "callgraph --group comm" \
		"analyze" "analyze --json --comm $comm"; do
		# shellcheck disable=SC2086
		run 1 "$f" $args
		for k in $ks; do
			# shellcheck disable=SC2086
			FLYTRAP_WINDOW_READ=say run "$k" "$f" $args
			said=$(grep -c '^window read:' "$TMP/err.$k")
			# a merge that handed the file to one replay: not ranged
			grep -q '^ranges: ' "$TMP/err.$k" && said=0
			grep -v -e '^window read:' -e '^ranges: ' "$TMP/err.$k" >"$TMP/err.k"
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

# callgraph on random mixes of what it pairs and joins: K ranges against one replay
seeds="1 2 3 4 5 6"
light && seeds="1 2"
nmix=0 nmerged=0 nonce=0
for clean in 1 0; do
	for seed in $seeds; do
		MKRPT_SEED=$seed MKRPT_MIX_CLEAN=$clean "$MK" cgmix "$TMP/mix.dat" 20000 >/dev/null ||
			fail "mkrpt cgmix $seed"
		"$FLYTRAP" convert --chunk 1 "$TMP/mix.dat" -o "$TMP/mixc.dat" 2>/dev/null ||
			fail "convert --chunk 1 cgmix $seed"
		for args in "callgraph" "callgraph --json" "callgraph --source samples --json" \
			"callgraph --source offcpu" "callgraph --group thread --json" \
			"callgraph --group comm" "callgraph --source samples --pid 501,502 --folded" \
			"callgraph --cpu 1" "analyze --json"; do
			# shellcheck disable=SC2086
			run 1 "$TMP/mixc.dat" $args
			for k in 2 5 9; do
				# shellcheck disable=SC2086
				FLYTRAP_WINDOW_READ=say run "$k" "$TMP/mixc.dat" $args
				grep -v -e '^window read:' -e '^ranges: ' "$TMP/err.$k" >"$TMP/err.k"
				nmix=$((nmix + 1))
				if grep -q '^ranges: ' "$TMP/err.$k"; then
					nonce=$((nonce + 1))
				elif [ "$(grep -c '^window read:' "$TMP/err.$k")" = "$k" ]; then
					nmerged=$((nmerged + 1))
				fi
				cmp -s "$TMP/out.1" "$TMP/out.$k" && cmp -s "$TMP/err.1" "$TMP/err.k" ||
					{ fail "cgmix seed $seed (clean $clean): '$args' on $k ranges differs"
					  diff "$TMP/out.1" "$TMP/out.$k" | head -5; }
			done
		done
	done
done
ok "cgmix: $nmix outputs on K ranges compared with one replay ($nmerged merged, $nonce replayed once)"
[ $nmerged -gt $((nmix / 6)) ] && ok "callgraph merged its ranges in $nmerged of $nmix" ||
	fail "callgraph merged its ranges in only $nmerged of $nmix"
[ $nonce -gt 0 ] && ok "$nonce merges handed the file to one replay (lost exits, forks before a cut)" ||
	fail "no merge handed a file to one replay: the fallback went untested"

for b in names.dat bench.dat names-be-c1.dat; do
	for c in overhead callgraph; do
		FLYTRAP_WINDOW_READ=say FLYTRAP_RANGES=3 "$FLYTRAP" $c "$TMP/w/$b" 2>"$TMP/say" >/dev/null
		[ "$(grep -c '^window read:' "$TMP/say")" = 3 ] && ! grep -q '^ranges: ' "$TMP/say" &&
			ok "$b: $c ran on 3 ranges" || fail "$b: $c did not run on 3 ranges"
	done
done

# threads_same N WANT ARGS...: ARGS with --threads N on the 1.2M-event file print what
# --threads 1 prints, on WANT ranges (a merge that hands the file to one replay: none)
threads_same() {
	local n=$1 want=$2 said
	shift 2
	"$FLYTRAP" "$@" --threads 1 "$TMP/big.dat" >"$TMP/t1" 2>&1
	FLYTRAP_WINDOW_READ=say "$FLYTRAP" "$@" --threads "$n" "$TMP/big.dat" >"$TMP/t2" 2>"$TMP/t2.err"
	said=$(grep -c '^window read:' "$TMP/t2.err")
	grep -q '^ranges: ' "$TMP/t2.err" && said=0
	grep -v -e '^window read:' -e '^ranges: ' "$TMP/t2.err" >>"$TMP/t2"
	cmp -s "$TMP/t1" "$TMP/t2" && [ "$said" = "$want" ] &&
		ok "$* --threads $n: $want ranges, the output of --threads 1" ||
		fail "$* --threads $n: $said ranges, or another output"
}

# --threads alone: a file of 1.2M events is cut in two (at least 500,000 events a range)
"$MK" bench "$TMP/big.dat" 1200000 >/dev/null || fail "mkrpt bench 1.2M"
threads_same 3 2 overhead
threads_same 3 2 drops --json
threads_same 3 2 callgraph
threads_same 3 2 analyze
# --threads 2: analyze, callgraph included, on two ranges
threads_same 2 2 analyze --json
threads_same 2 2 callgraph --json
# export --html: the exporter's replay beside the others' ranges; with --instants (libtraceevent
# prints, and its plugins write task names) none beside it: the same page either way
for extra in "" "--instants"; do
	# shellcheck disable=SC2086
	"$FLYTRAP" export --html $extra --threads 1 -o "$TMP/e1.html" "$TMP/big.dat" 2>/dev/null
	# shellcheck disable=SC2086
	"$FLYTRAP" export --html $extra --threads 2 -o "$TMP/e2.html" "$TMP/big.dat" 2>/dev/null
	[ -s "$TMP/e1.html" ] && cmp -s "$TMP/e1.html" "$TMP/e2.html" &&
		ok "export --html $extra --threads 2: the page of --threads 1" ||
		fail "export --html $extra --threads 2: another page"
done

# the default: ranges on the usable cores, none on one CPU
"$MK" bench "$TMP/big2.dat" 2000000 >/dev/null || fail "mkrpt bench 2M"
usable=$("$TOP/$O/tests/test_threads" | sed -n 's/.* \([0-9]*\) for ranges.*/\1/p')
want=$usable
[ "${want:-0}" -gt 4 ] && want=4
for args in "overhead" "drops --json" "callgraph"; do
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
	for args in "overhead" "drops --json" "callgraph" "analyze"; do
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
