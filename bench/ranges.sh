#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Ranged analysis (issue 37 item 3): overhead, drops, callgraph and analyze
# on one CPU (taskset -c 0, --threads 1: one replay) against two CPUs
# (taskset -c 0,1, --threads 2: two ranges), alternating, medians of
# ROUNDS.  Then the cost of a range: CPU time at FLYTRAP_RANGES=1, 2, 4, 8
# and 16 on the same file, for overhead and for callgraph, from which the
# model of docs/benchmarks.md predicts the wall time on P cores:
# T(P) = T1 / P + c, c the CPU time one more range adds (its plan, the
# state records of the chunks it skips, callgraph's symbol tables and its
# merge).
#
#   bench/ranges.sh [FILE] [ROUNDS]     O=build by default
#
# Without FILE: a 10,000,000-event file from tests/tools/mkrpt bench.
# Checks first that every command prints the same on 1 and 2 threads.
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
ft=$PWD/$O/flytrap
mk=$PWD/$O/tests/tools/mkrpt
rounds=${2:-5}
[ -x "$ft" ] && [ -x "$mk" ] || { echo "bench/ranges.sh: build $ft and $mk first" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "bench/ranges.sh: needs 2 CPUs" >&2; exit 2; }
work=$(mktemp -d /tmp/flytrap-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
. bench/_time.sh
f=${1:-}
if [ -z "$f" ]; then
	f=$work/b.dat
	"$mk" bench "$f" 10000000 >/dev/null
fi
cmds="overhead drops callgraph analyze"
for cmd in $cmds; do
	"$ft" "$cmd" --threads 1 "$f" >"$work/o1" 2>&1 || true
	"$ft" "$cmd" --threads 2 "$f" >"$work/o2" 2>&1 || true
	cmp -s "$work/o1" "$work/o2" || { echo "bench/ranges.sh: $cmd prints another output on 2 threads" >&2; exit 1; }
done
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq "$rounds"); do
	for cmd in $cmds; do
		run "$cmd.1" -- taskset -c 0 "$ft" "$cmd" --threads 1 "$f"
		run "$cmd.2" -- taskset -c 0,1 "$ft" "$cmd" --threads 2 "$f"
	done
	for k in 1 2 4 8 16; do
		run "ovh.k$k" FLYTRAP_RANGES=$k -- "$ft" overhead "$f"
		run "cg.k$k" FLYTRAP_RANGES=$k -- "$ft" callgraph "$f"
	done
done
nev=$("$ft" info "$f" 2>/dev/null | awk '/^events:/ { print $2 }')
echo "$(basename "$f") ($nev events, $(du -h "$f" | cut -f1)): $rounds alternating rounds, medians;" \
	"load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after; $(nproc) CPUs"
echo
echo "| command | 1 CPU, --threads 1: wall / CPU s | 2 CPUs, --threads 2: wall / CPU s | wall speed-up | CPU ratio |"
echo "|---|---:|---:|---:|---:|"
for cmd in $cmds; do
	w1=$(w "$cmd.1"); c1=$(c "$cmd.1")
	w2=$(w "$cmd.2"); c2=$(c "$cmd.2")
	awk -v n="$cmd" -v w1="$w1" -v c1="$c1" -v w2="$w2" -v c2="$c2" 'BEGIN {
		printf "| %s | %.3f / %.3f | %.3f / %.3f | %.2fx | %.2fx |\n", n, w1, c1, w2, c2, w1 / w2, c2 / c1 }'
done
for a in ovh:overhead cg:callgraph; do
	p=${a%%:*} name=${a#*:}
	echo
	echo "| $name, FLYTRAP_RANGES=K | wall s | CPU s | CPU added per range |"
	echo "|---|---:|---:|---:|"
	c1=$(c "$p.k1")
	for k in 1 2 4 8 16; do
		awk -v k="$k" -v w="$(w "$p.k$k")" -v c="$(c "$p.k$k")" -v c1="$c1" 'BEGIN {
			printf "| %d | %.3f | %.3f | %s |\n", k, w, c, (k > 1 ? sprintf("%.4f", (c - c1) / (k - 1)) : "-") }'
	done
	c16=$(c "$p.k16")
	echo
	awk -v c1="$c1" -v c16="$c16" -v nev="${nev:-0}" -v name="$name" 'BEGIN {
		c = (c16 - c1) / 15; if (c < 0) c = 0
		printf "Model (%s): T(P) = T1 / P + c, T1 = %.3f s, c = %.4f s per range;", name, c1, c
		printf " ranges hold at least 500,000 events, so this file takes at most %d.\n", nev / 500000
		printf "\n| cores P | ranges | predicted wall s | predicted speed-up |\n|---:|---:|---:|---:|\n"
		for (p = 2; p <= 64; p *= 2) {
			k = p; if (nev && k > int(nev / 500000)) k = int(nev / 500000); if (k < 1) k = 1
			t = c1 / k + ((k > 1) ? c : 0)
			printf "| %d | %d | %.3f | %.1fx |\n", p, k, t, c1 / t
		}
	}'
done
