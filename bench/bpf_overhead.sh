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
# every variant alike.  The table shows medians per call of the loop's wall
# time and of the workload's own CPU time (user + system: the tracepoint and
# BPF program time is charged to it, while waiting for a CPU is not, so this
# is the figure that survives a shared machine), their ratios to the
# untraced run, the tracer's own CPU time per call (flytrap: the recorder's
# RECSTATS; bpftrace: its process minus the workload, start-up included),
# and what each recording lost.
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
# private copies: a rebuild of the shared build directory must not hit a run
cp "$F" "$W" "$D" "$T/" && F=$T/flytrap W=$T/bpf_workload D=$T/bpf_dump

variants="base bpf-events bpf-agg ftrace"
command -v bpftrace >/dev/null && variants="$variants bpftrace-cnt bpftrace-hist"

run() {	# VARIANT -> prints "wall_ns cpu_ns"; appends losses and tracer CPU to $T/VARIANT.*
	local v=$1 out=$T/$1.out
	case $v in
	base) "$W" storm "$N" >"$out" ;;
	bpf-events | bpf-agg)
		local spec=syscalls
		[ "$v" = bpf-agg ] && spec=syscalls=agg
		"$F" record -q --bpf "$spec" -o "$T/x.dat" -- "$W" storm "$N" >"$out" 2>"$T/err" || return 1
		"$D" "$T/x.dat" --no-events >"$T/meta"
		awk -F= '/^meta bpf_syscalls_(drops|mapfull)=/{s += $2} END {print s + 0}' "$T/meta" >>"$T/$v.lost"
		awk -F= '/^recstat cpu_(user|sys)_us=/{s += $2} END {print s * 1000}' "$T/meta" >>"$T/$v.tracer"
		;;
	ftrace)
		"$F" record -q -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o "$T/x.dat" -- \
			"$W" storm "$N" >"$out" 2>"$T/err" || return 1
		"$F" drops "$T/x.dat" 2>/dev/null | awk '/total lost:/{print $3; exit}' >>"$T/$v.lost"
		"$D" "$T/x.dat" --no-events |
			awk -F= '/^recstat cpu_(user|sys)_us=/{s += $2} END {print s * 1000}' >>"$T/$v.tracer"
		;;
	bpftrace-cnt | bpftrace-hist)
		local prog='tracepoint:raw_syscalls:sys_exit { @[comm] = count(); }'
		[ "$v" = bpftrace-hist ] && prog='tracepoint:raw_syscalls:sys_enter { @s[tid] = nsecs; }
			tracepoint:raw_syscalls:sys_exit /@s[tid]/ {
				@h[comm, args->id] = hist(nsecs - @s[tid]); delete(@s[tid]); }'
		/usr/bin/time -f "tcpu %U %S" -o "$T/time" bpftrace -e "$prog" -c "$W storm $N" >"$out" 2>"$T/err" ||
			return 1
		echo 0 >>"$T/$v.lost"
		# bpftrace and its child together, minus the child's loop
		awk '/^tcpu/{t = ($2 + $3) * 1e9} END {print t}' "$T/time" >"$T/tt"
		awk -v t="$(cat "$T/tt")" '/^elapsed_ns/{print t - $4}' "$out" >>"$T/$v.tracer"
		;;
	esac
	awk '/^elapsed_ns/{print $2, $4}' "$out"
}

command -v /usr/bin/time >/dev/null || variants=${variants//bpftrace-cnt bpftrace-hist/}
for ((r = 0; r < ROUNDS; r++)); do
	for v in $variants; do
		ns=$(run "$v") || { echo "$v failed: $(head -2 "$T/err")" >&2; exit 1; }
		echo "${ns% *}" >>"$T/$v.ns"
		echo "${ns#* }" >>"$T/$v.cpu"
	done
done

median() { sort -n "$1" | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
base=$(median "$T/base.ns")
basecpu=$(median "$T/base.cpu")
echo "syscall tracing overhead: $N getppid() per run, $ROUNDS rounds, $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1 /proc/loadavg)"
printf "%-14s %9s %8s %9s %8s %11s %10s\n" variant "wall/call" "wall x" "cpu/call" "cpu x" "tracer/call" "lost"
for v in $variants; do
	m=$(median "$T/$v.ns")
	c=$(median "$T/$v.cpu")
	tr=$( [ -f "$T/$v.tracer" ] && median "$T/$v.tracer" || echo 0)
	lost=$( [ -f "$T/$v.lost" ] && awk '{s += $1} END {print s + 0}' "$T/$v.lost" || echo -)
	awk -v v="$v" -v m="$m" -v b="$base" -v c="$c" -v bc="$basecpu" -v n="$N" -v t="$tr" -v l="$lost" 'BEGIN {
		printf "%-14s %7.0fns %7.2fx %7.0fns %7.2fx %9.0fns %10s\n", v, m / n, m / b, c / n, c / bc,
			t / n, (v == "base" ? "-" : l) }'
done
