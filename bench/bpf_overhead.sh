#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Workload slowdown of syscall tracing, as ratios in one run: a loop of N
# getppid() calls timed by itself (recorder start-up and file writing are
# outside the timed loop), untraced and under
#   bpf-events   flytrap record --bpf syscalls          (one record per syscall)
#   bpf-agg      flytrap record --bpf syscalls=agg      (in-kernel histograms)
#   ftrace       flytrap record -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit
#   bpftrace-cnt bpftrace, count per comm on sys_exit   (if installed)
#   bpftrace-hist bpftrace, enter/exit latency histogram per comm and syscall,
#                the same work as bpf-agg               (if installed)
# Rounds are interleaved (A B C ... A B C ...) so drifting machine load hits
# every variant alike; the table shows the median loop time per call and the
# ratio to the untraced median, plus what each recording lost.
#
#   bench/bpf_overhead.sh [N] [ROUNDS]     (root; default 500000, 5)
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
F=$PWD/$O/flytrap
W=$PWD/$O/tests/tools/bpf_workload
D=$PWD/$O/tests/tools/bpf_dump
N=${1:-500000}
ROUNDS=${2:-5}
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 1; }
[ -x "$F" ] && [ -x "$W" ] && [ -x "$D" ] || { echo "build first (make)" >&2; exit 1; }
T=$(mktemp -d /tmp/flytrap-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT

variants="base bpf-events bpf-agg ftrace"
command -v bpftrace >/dev/null && variants="$variants bpftrace-cnt bpftrace-hist"

run() {	# VARIANT -> prints loop ns; appends losses to $T/VARIANT.lost
	local v=$1 out=$T/$1.out
	case $v in
	base) "$W" storm "$N" >"$out" ;;
	bpf-events | bpf-agg)
		local spec=syscalls
		[ "$v" = bpf-agg ] && spec=syscalls=agg
		"$F" record -q --bpf "$spec" -o "$T/x.dat" -- "$W" storm "$N" >"$out" 2>"$T/err" || return 1
		"$D" "$T/x.dat" --no-events | awk -F= '/^meta bpf_syscalls_(drops|mapfull)=/{s += $2} END {print s + 0}' >>"$T/$v.lost"
		;;
	ftrace)
		"$F" record -q -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o "$T/x.dat" -- \
			"$W" storm "$N" >"$out" 2>"$T/err" || return 1
		"$F" drops "$T/x.dat" 2>/dev/null | awk '/total lost:/{print $3; exit}' >>"$T/$v.lost"
		;;
	bpftrace-cnt)
		bpftrace -e 'tracepoint:raw_syscalls:sys_exit { @[comm] = count(); }' \
			-c "$W storm $N" >"$out" 2>"$T/err" || return 1
		echo 0 >>"$T/$v.lost"
		;;
	bpftrace-hist)
		bpftrace -e 'tracepoint:raw_syscalls:sys_enter { @s[tid] = nsecs; }
			tracepoint:raw_syscalls:sys_exit /@s[tid]/ {
				@h[comm, args->id] = hist(nsecs - @s[tid]); delete(@s[tid]); }' \
			-c "$W storm $N" >"$out" 2>"$T/err" || return 1
		echo 0 >>"$T/$v.lost"
		;;
	esac
	awk '/^elapsed_ns/{print $2}' "$out"
}

for ((r = 0; r < ROUNDS; r++)); do
	for v in $variants; do
		ns=$(run "$v") || { echo "$v failed: $(head -2 "$T/err")" >&2; exit 1; }
		echo "$ns" >>"$T/$v.ns"
	done
done

median() { sort -n "$1" | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
base=$(median "$T/base.ns")
echo "syscall tracing overhead: $N getppid() per run, $ROUNDS rounds, $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1 /proc/loadavg)"
printf "%-14s %12s %10s %8s %12s\n" variant "ns/call" "slowdown" "spread" "lost"
for v in $variants; do
	m=$(median "$T/$v.ns")
	lo=$(sort -n "$T/$v.ns" | head -1)
	hi=$(sort -n "$T/$v.ns" | tail -1)
	lost=$( [ -f "$T/$v.lost" ] && awk '{s += $1} END {print s + 0}' "$T/$v.lost" || echo -)
	awk -v v="$v" -v m="$m" -v b="$base" -v lo="$lo" -v hi="$hi" -v n="$N" -v l="$lost" 'BEGIN {
		printf "%-14s %12.0f %9.2fx %7.0f%% %12s\n", v, m / n, m / b, 100 * (hi - lo) / m, l }'
done
