#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 35, item 1: the stack copy size of the default user stacks, on the
# README demo's workload (`make demo`: 5 s of --bpf syscalls,offcpu,profile
# while a shell loop runs `ls -R /usr/share/doc`, whose bash stacks are deep).
# For each copy size, ROUNDS recordings, alternating sizes: samples of the
# profile, the share under an [unwind: ...] marker and the share reaching
# __libc_start_main (callgraph --folded), the BPF programs' own run time per
# run (kernel.bpf_stats_enabled: ft_profile and ft_sched_switch together), file
# bytes per profile sample, and the recorder's CPU.
#
#   bench/ustack-depth.sh [ROUNDS] [BYTES...]   (root; default 3 rounds, 8192 and
#   "default": no --user-stack, 16384 bytes for a profile sample, 8192 for offcpu)
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
F=$PWD/$O/flytrap
ROUNDS=${1:-3}
shift || true
SIZES=${*:-8192 default}
[ "$(id -u)" = 0 ] || { echo "bench/ustack-depth.sh: needs root" >&2; exit 1; }
[ -x "$F" ] || { echo "bench/ustack-depth.sh: build first (make)" >&2; exit 1; }
T=$(mktemp -d /tmp/flytrap-ustackd.XXXXXX)
stats0=$(sysctl -n kernel.bpf_stats_enabled 2> /dev/null || echo 0)
trap 'sysctl -q -w kernel.bpf_stats_enabled="$stats0" 2> /dev/null; rm -rf "$T"' EXIT
sysctl -q -w kernel.bpf_stats_enabled=1 || echo "(no bpf_stats: program run time unknown)" >&2

progs_ns() {	# "run_time_ns run_cnt" of flytrap's offcpu and profile programs loaded now
	bpftool -j prog show 2> /dev/null | python3 -c '
import json, sys
t = c = 0
for p in json.load(sys.stdin):
    n = p.get("name", "")
    if n in ("ft_profile", "ft_sched_switch"):
        t += p.get("run_time_ns", 0); c += p.get("run_cnt", 0)
print(t, c)'
}

for r in $(seq "$ROUNDS"); do
	for b in $SIZES; do
		( end=$((SECONDS + 5)); while [ $SECONDS -lt $end ]; do
			ls -R /usr/share/doc > /dev/null 2>&1; sleep 0.05; done ) &
		work=$!
		( sleep 4.5; progs_ns > "$T/ns.$b.$r" ) &
		/usr/bin/time -f '%U %S' -o "$T/cpu.$b.$r" "$F" record -q -d 5 -o "$T/d.$b.$r.dat" \
			$([ "$b" = default ] || echo --user-stack dwarf:$b) --bpf syscalls,offcpu,profile -e sched:sched_switch \
			-e sched:sched_wakeup -e 'sched:sched_process_*' -e raw_syscalls -e irq \
			-e timer:hrtimer_expire_entry > /dev/null 2>&1 || echo "record $b failed" >&2
		wait
		"$F" callgraph --source samples --folded "$T/d.$b.$r.dat" > "$T/f.$b.$r" 2> /dev/null
	done
done
printf '| copy bytes | samples | under [unwind:] | reach __libc_start_main | BPF run / call | file bytes / sample | recorder CPU |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|\n'
for b in $SIZES; do
	cat "$T"/f.$b.* | awk '{ n = $NF; t += n; if ($0 ~ /\[unwind:/) u += n; if ($0 ~ /__libc_start_main/) m += n }
		END { printf "%d %.1f %.1f\n", t, t ? 100 * u / t : 0, t ? 100 * m / t : 0 }' > "$T/s"
	read -r n u m < "$T/s"
	ns=$(cat "$T"/ns.$b.* | awk '{ t += $1; c += $2 } END { if (c) printf "%.2f us", t / c / 1000; else print "?" }')
	by=$(stat -c %s "$T"/d.$b.*.dat | awk -v n="$n" '{ s += $1 } END { printf "%.0f", n ? s / n : 0 }')
	cpu=$(cat "$T"/cpu.$b.* | awk '{ s += $1 + $2; k++ } END { printf "%.2f s", s / k }')
	printf '| %s | %d | %s%% | %s%% | %s | %s | %s |\n' "$b" "$n" "$u" "$m" "$ns" "$by" "$cpu"
done
echo
for b in $SIZES; do
	echo "markers, copy $b bytes (samples):"
	cat "$T"/f.$b.* | awk '{ n = $NF; if (match($0, /\[unwind: [^];]*\]/)) c[substr($0, RSTART, RLENGTH)] += n }
		END { for (k in c) printf "  %5d %s\n", c[k], k }' | sort -rn | head -6
done
echo "$ROUNDS rounds of 5 s per size, alternating; $(nproc) CPUs; $(uname -r)"
