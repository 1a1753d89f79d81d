#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Events per second through the BPF path (syscalls program -> ring buffer ->
# recorder -> pages) before loss.  A paced generator makes getppid() calls at
# a given rate for a fixed time while `flytrap record --bpf syscalls -- gen`
# records them; for each rate the table shows the rate achieved, the records
# that reached the file per second, and the records the program could not
# reserve (drops).  calls/s is what the generators achieved (recording
# slows them), events/s what the program saw (calls + other syscalls of the
# generators), recorded/s what reached the file.  The highest rate with 0
# drops is "before loss".  rec-us/ev is the recorder's whole CPU time (user +
# system, from the file's RECSTATS) per record: its drain capacity on one
# CPU is 1e6 / rec-us/ev records per second.
#
#   bench/bpf_throughput.sh [RINGBUF] [MS]     (root; default 8M, 2000 ms)
#
# Runs with one generator and with two (one per CPU on a 2-CPU machine, where
# the recorder then competes with both for CPU time).
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
F=$PWD/$O/flytrap
W=$PWD/$O/tests/tools/bpf_workload
D=$PWD/$O/tests/tools/bpf_dump
RB=${1:-8M}
MS=${2:-2000}
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 1; }
[ -x "$F" ] && [ -x "$W" ] && [ -x "$D" ] || { echo "build first (make)" >&2; exit 1; }
T=$(mktemp -d /tmp/flytrap-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
# private copies: a rebuild of the shared build directory must not hit a run
cp "$F" "$W" "$D" "$T/" && F=$T/flytrap W=$T/bpf_workload D=$T/bpf_dump

run() {	# GENERATORS RATE_EACH
	local g=$1 r=$2 cmd i
	cmd=""
	for ((i = 1; i < g; i++)); do cmd="$cmd $W rate $r $MS >/dev/null &"; done
	cmd="$cmd $W rate $r $MS; wait"
	"$F" record -q --bpf "syscalls,ringbuf=$RB" -o "$T/t.dat" -- sh -c "$cmd" >"$T/gen.out" 2>"$T/rec.err" ||
		{ echo "record failed: $(head -2 "$T/rec.err")" >&2; return 1; }
	"$D" "$T/t.dat" --no-events >"$T/meta.txt"
	local calls secs emitted drops cpu_us
	calls=$(awk '/^calls/{print $2}' "$T/gen.out")
	secs=$(awk '/^calls/{print $4 / 1e9}' "$T/gen.out")
	emitted=$(awk -F= '/^meta bpf_syscalls_emitted=/{print $2}' "$T/meta.txt")
	drops=$(awk -F= '/^meta bpf_syscalls_drops=/{print $2}' "$T/meta.txt")
	cpu_us=$(awk -F= '/^recstat cpu_(user|sys)_us=/{s += $2} END {print s + 0}' "$T/meta.txt")
	awk -v g="$g" -v r="$r" -v c="$calls" -v s="$secs" -v e="$emitted" -v d="$drops" -v u="$cpu_us" 'BEGIN {
		# every generator runs the same pace; the last one reports its calls and time
		printf "%10s %3d %12.0f %12.0f %12.0f %10d %7.3f%% %10.2f\n", (r >= 1e9 ? "max" : r), g,
			c * g / s, (e + d) / s, e / s, d, (e + d) ? 100 * d / (e + d) : 0, e ? u / e : 0 }'
}

echo "BPF path throughput: ring buffer $RB, $MS ms per run, $(nproc) CPUs, $(uname -r)"
printf "%10s %3s %12s %12s %12s %10s %8s %10s\n" "rate/gen" "gen" "calls/s" "events/s" "recorded/s" "drops" "lost" "rec-us/ev"
for r in 100000 200000 400000 800000 1000000000; do run 1 $r; done
for r in 100000 200000 400000 1000000000; do run 2 $r; done
