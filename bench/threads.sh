#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The default thread count against --threads 1 (issue 37: "threads that
# never hurt"), and --threads 2 forced, for analyze, overhead, callgraph,
# drops and report on a file of N1 events (default 1,000,000) and one of N2
# (default 5,000,000), both from tests/tools/mkrpt bench.  Every output is
# compared (cmp) with --threads 1's before anything is timed.  The commands
# of one file and command run alternately, ROUNDS times (default 3); each
# figure is the median wall and CPU (user + sys) time, and the ratio is
# --threads 1's wall over the other's (above 1: faster than one thread).
# Also the 1% window of the N2 file against its full listing, what the
# default measured (rpt_parallel_cores: FLYTRAP_PARALLEL unset) and the
# threads it gives ranges, and what ranges cost where they share one CPU:
# overhead and drops with --threads 2 against --threads 1, both under
# `taskset -c 0` (the default there is 1: this is the cost a machine whose
# other cores are taken would see).  The load
# average is printed: on the shared 2-core machine other jobs take cores
# from the second thread.
#
#   bench/threads.sh [N1 [N2]]
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
ft=$PWD/$O/flytrap
mk=$PWD/$O/tests/tools/mkrpt
n1=${1:-1000000}
n2=${2:-5000000}
rounds=${ROUNDS:-3}
work=$(mktemp -d /tmp/flytrap-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$ft" ] && [ -x "$mk" ] || { echo "bench/threads.sh: build $ft and $mk first" >&2; exit 2; }
. "$(dirname "$0")/_time.sh"

"$mk" bench "$work/a.dat" "$n1" >/dev/null
"$mk" bench "$work/b.dat" "$n2" >/dev/null
cmds="analyze overhead callgraph drops report"

same() {	# same FILE CMD: default and --threads 2 print what --threads 1 prints
	local f=$1 c=$2
	"$ft" "$c" --threads 1 "$f" >"$work/o1" 2>/dev/null || true
	"$ft" "$c" "$f" >"$work/o2" 2>/dev/null || true
	"$ft" "$c" --threads 2 "$f" >"$work/o3" 2>/dev/null || true
	cmp -s "$work/o1" "$work/o2" && cmp -s "$work/o1" "$work/o3" ||
		{ echo "bench/threads.sh: $c outputs differ on $f" >&2; exit 1; }
	rm -f "$work/o1" "$work/o2" "$work/o3"
}
for f in a b; do
	for c in $cmds; do
		same "$work/$f.dat" "$c"
	done
done

read -r t0 t1 < <("$ft" info --json "$work/b.dat" | python3 -c '
import json, sys
j = json.load(sys.stdin)
a, b = j["first_ts"], j["last_ts"]
lo = a + (b - a) * 0.50
print("%.6f %.6f" % (lo / 1e9, (lo + (b - a) * 0.01) / 1e9))')

load0=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq "$rounds"); do
	for f in a b; do
		for c in $cmds; do
			run "$f-$c-1" -- "$ft" "$c" --threads 1 "$work/$f.dat"
			run "$f-$c-d" -- "$ft" "$c" "$work/$f.dat"
			run "$f-$c-2" -- "$ft" "$c" --threads 2 "$work/$f.dat"
		done
	done
	run win -- "$ft" report --from "$t0" --to "$t1" "$work/b.dat"
	for c in overhead drops; do
		run "one-$c-1" -- taskset -c 0 "$ft" "$c" --threads 1 "$work/b.dat"
		run "one-$c-2" -- taskset -c 0 "$ft" "$c" --threads 2 "$work/b.dat"
	done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

echo "files: $n1 events ($(stat -c %s "$work/a.dat") bytes), $n2 events" \
	"($(stat -c %s "$work/b.dat") bytes); $rounds alternating rounds, medians; $(nproc) CPUs;" \
	"load average $load0 before, $load1 after"
echo
echo "| events | command | --threads 1 wall / CPU s | default wall / CPU s | default vs 1 (wall) |" \
	"--threads 2 wall / CPU s | 2 vs 1 (wall) |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for f in a b; do
	n=$n1
	[ "$f" = b ] && n=$n2
	for c in $cmds; do
		awk -v n="$n" -v c="$c" -v w1="$(w "$f-$c-1")" -v c1="$(c "$f-$c-1")" \
		    -v wd="$(w "$f-$c-d")" -v cd="$(c "$f-$c-d")" \
		    -v w2="$(w "$f-$c-2")" -v c2="$(c "$f-$c-2")" 'BEGIN {
			printf "| %d | %s | %.3f / %.3f | %.3f / %.3f | %.2fx | %.3f / %.3f | %.2fx |\n",
			       n, c, w1, c1, wd, cd, w1 / wd, w2, c2, w1 / w2 }'
	done
done
awk -v ww="$(w win)" -v wc="$(c win)" -v fw="$(w b-report-d)" -v fc="$(c b-report-d)" 'BEGIN {
	printf "\n1%% window of the %s file: %.3f s wall, %.3f s CPU: %.1f%% / %.1f%% of the full listing\n",
	       "second", ww, wc, 100 * ww / fw, 100 * wc / fc }'
for c in overhead drops; do
	awk -v c="$c" -v w1="$(w "one-$c-1")" -v c1="$(c "one-$c-1")" -v w2="$(w "one-$c-2")" \
	    -v c2="$(c "one-$c-2")" 'BEGIN {
		printf "%s on one CPU (taskset -c 0), second file: --threads 1 %.3f / %.3f s, " \
		       "--threads 2 (two ranges) %.3f / %.3f s: %.2fx wall\n", c, w1, c1, w2, c2, w1 / w2 }'
done
echo
echo "the default's measure on this machine now (rpt_parallel_cores, three runs):" \
	"$(for i in 1 2 3; do "$PWD/$O/tests/test_threads" | sed -n 's/.*cores, \([0-9.]*\) measured.*/\1/p'; done | tr '\n' ' ')"
"$PWD/$O/tests/test_threads" | sed -n 's/.*default \([0-9]*\) threads, \([0-9]*\) for ranges (\([0-9]*\) usable.*/default threads: \1 for a hand-over, \2 for ranges (\3 usable cores)/p'
