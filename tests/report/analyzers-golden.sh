#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# callgraph, overhead and drops on the synthetic files of tests/data/ (made
# by tests/tools/mkrpt.c, where every expected number is worked out) must
# print exactly the checked-in outputs in tests/report/golden/.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
G=tests/report/golden

check() {	# golden-file command...
	local want=$1; shift
	if "$FLYTRAP" "$@" > "$TMP/out" 2> "$TMP/err"; then
		if diff -u "$G/$want" "$TMP/out" > "$TMP/diff"; then
			ok "$want"
		else
			fail "$want differs:"; cat "$TMP/diff"
		fi
	else
		fail "$want: flytrap $* failed: $(cat "$TMP/err")"
	fi
}

check callgraph-graph.txt callgraph tests/data/rpt-graph.dat
check callgraph-graph.folded callgraph --folded tests/data/rpt-graph.dat
check callgraph-graph-pertask-depth2.txt callgraph --per-task --depth 2 tests/data/rpt-graph.dat
check callgraph-graph-min20.txt callgraph --min-percent 20 tests/data/rpt-graph.dat
check callgraph-stacks.txt callgraph tests/data/rpt-stacks.dat
check callgraph-stacks-pertask.folded callgraph --folded --per-task tests/data/rpt-stacks.dat
check overhead-sched.txt overhead tests/data/rpt-sched.dat
check overhead-sched-window.txt overhead --from 10.020 --to 10.040 tests/data/rpt-sched.dat
check overhead-sched-pid100.txt overhead --pid 100 tests/data/rpt-sched.dat
check overhead-sched-cpu1.txt overhead --cpu 1 tests/data/rpt-sched.dat
check drops-drops-cpu1.txt drops --cpu 1 tests/data/rpt-drops.dat
check drops-drops.txt drops tests/data/rpt-drops.dat
check drops-drops-100ms.txt drops --window 100ms tests/data/rpt-drops.dat
check callgraph-bpf.txt callgraph tests/data/rpt-bpf.dat
check callgraph-bpf-samples.folded callgraph --source samples --folded tests/data/rpt-bpf.dat
check callgraph-bpf-offcpu.folded callgraph --source offcpu --folded tests/data/rpt-bpf.dat
check overhead-bpf.txt overhead tests/data/rpt-bpf.dat
# a real `record --bpf syscalls,kfunc=do_sys_openat2 -- cat /proc/version` of
# the kernel lab (tests/lab/10-kernel-lab.sh, fentry): one do_sys_openat2
# call of 574540 ns (trace-cmd prints duration=574540 on its kfunc_exit)
check callgraph-kfunc.txt callgraph tests/data/lab-kfunc.dat
check callgraph-kfunc.folded callgraph --folded tests/data/lab-kfunc.dat

# the checked-in files are what tests/tools/mkrpt.c makes today (the
# generator documents the expected numbers, so the two must not drift)
MK=$TOP/$O/tests/tools/mkrpt
if [ -x "$MK" ]; then
	for k in graph sched drops stacks bpf; do
		"$MK" $k "$TMP/$k.dat" || { fail "mkrpt $k"; continue; }
		for c in callgraph overhead drops; do
			"$FLYTRAP" $c --json "$TMP/$k.dat" | sed 's|"file":"[^"]*"||' > "$TMP/new"
			"$FLYTRAP" $c --json "tests/data/rpt-$k.dat" | sed 's|"file":"[^"]*"||' > "$TMP/old"
			cmp -s "$TMP/new" "$TMP/old" || fail "tests/data/rpt-$k.dat is stale for $c (regenerate with mkrpt $k)"
		done
	done
fi

# every text line of every golden output fits 80 columns
for f in "$G"/*.txt; do
	w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$f")
	[ "$w" -le 80 ] || fail "$f has a line of $w columns"
done
finish
