#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Recorder benchmark (root, tracefs, perf): prints a markdown section for
# docs/benchmarks.md.
#
#   bench/record-bench.sh [ROUNDS]        (O=build by default)
#
# 1. Slowdown of a syscall-heavy workload (getppid in a loop) while the same
#    two tracepoints, raw_syscalls:sys_enter and raw_syscalls:sys_exit, are
#    recorded by `flytrap record -e` and by `perf record -e`, against the
#    untraced workload.  The rounds are interleaved (base, flytrap, perf,
#    base, ...) and medians reported, so load that drifts during the run hits
#    all three alike.  The workload's own CPU time per call is the primary
#    measure (wall time is printed too; on a loaded machine it mostly shows
#    the load).
# 2. The recorders' own CPU time per million events.
# 3. The highest event rate flytrap sustains with no loss at the default
#    buffer size: paced workloads at rising rates, 3 s each.
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
FLYTRAP=$PWD/$O/flytrap
STORM=$PWD/$O/tests/tools/syscall_storm
ROUNDS=${1:-5}
N=${N:-1000000}
TMP=$(mktemp -d /tmp/flytrap-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 1; }
[ -x "$FLYTRAP" ] && [ -x "$STORM" ] || { echo "build first: make O=$O" >&2; exit 1; }
have_perf=1
perf record -q -e raw_syscalls:sys_enter -o "$TMP/probe.data" -- true >/dev/null 2>&1 || have_perf=0

# run CMD..., print "<workload line> self_cpu_s=<CPU of everything but the workload's processes>"
measure() {
	python3 - "$@" <<'PY'
import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
line = [l for l in p.stdout.splitlines() if l.startswith("calls ")]
if not line:
    sys.stderr.write(p.stderr)
    sys.exit(1)
f = line[0].split()
d = dict(zip(f[0::2], f[1::2]))
work_cpu = float(d["cpu_ns_per_call"]) * float(d["calls"]) / 1e9
total = ru.ru_utime + ru.ru_stime
print(line[0], "self_cpu_s=%.3f" % max(total - work_cpu, 0.0))
sys.stderr.write(p.stderr)
PY
}

med() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { sed -nE "s/.*$1[ =]([0-9.]+).*/\\1/p"; }

: >"$TMP/base" >"$TMP/ft" >"$TMP/perf"
for r in $(seq "$ROUNDS"); do
	measure "$STORM" "$N" >>"$TMP/base" 2>/dev/null
	measure "$FLYTRAP" record -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o "$TMP/f.dat" -- \
		"$STORM" "$N" >>"$TMP/ft" 2>"$TMP/ft.err.$r"
	if [ $have_perf = 1 ]; then
		measure perf record -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -o "$TMP/p.data" -- \
			"$STORM" "$N" >>"$TMP/perf" 2>"$TMP/perf.err.$r"
	fi
done

b_cpu=$(field cpu_ns_per_call <"$TMP/base" | med)
b_wall=$(field ' ns_per_call' <"$TMP/base" | med)
f_cpu=$(field cpu_ns_per_call <"$TMP/ft" | med)
f_wall=$(field ' ns_per_call' <"$TMP/ft" | med)
f_self=$(field self_cpu_s <"$TMP/ft" | med)
f_rec=$(cat "$TMP"/ft.err.* | sed -nE 's/.*recorder cost: ([0-9.]+) s CPU.*\(([0-9.]+) s per million.*/\2/p' | med)
f_events=$(cat "$TMP"/ft.err.* | sed -nE "s/.*wrote .*, ([0-9]+) events in.*/\\1/p" | med)
f_lost=$(cat "$TMP"/ft.err.* | sed -nE "s/.* ([0-9]+) lost.*/\\1/p" | med)
load=$(cut -d' ' -f1-3 /proc/loadavg)

echo "## record"
echo
echo "Measured $(date -u +%Y-%m-%d) on $(uname -r), $(nproc) CPUs, load average $load during the run"
echo "(other jobs were running; medians of $ROUNDS interleaved rounds)."
echo "Command: \`O=$O bench/record-bench.sh $ROUNDS\` (N=$N getppid calls per run)."
echo
echo "### Workload slowdown, same tracepoints (raw_syscalls:sys_enter + sys_exit)"
echo
echo "| run | workload CPU ns/call | ratio | wall ns/call | ratio | recorder CPU s (whole run) | events | lost |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
printf '| untraced | %s | 1.00 | %s | 1.00 | – | – | – |\n' "$b_cpu" "$b_wall"
printf '| flytrap record -e | %s | %.2f | %s | %.2f | %s | %s | %s |\n' "$f_cpu" \
	"$(echo "$f_cpu / $b_cpu" | bc -l)" "$f_wall" "$(echo "$f_wall / $b_wall" | bc -l)" "$f_self" "$f_events" "$f_lost"
if [ $have_perf = 1 ]; then
	p_cpu=$(field cpu_ns_per_call <"$TMP/perf" | med)
	p_wall=$(field ' ns_per_call' <"$TMP/perf" | med)
	p_self=$(field self_cpu_s <"$TMP/perf" | med)
	p_events=$(cat "$TMP"/perf.err.* | sed -nE 's/.*\(([0-9]+) samples\).*/\1/p' | med)
	# perf prints "lost N%" only when it lost samples
	p_lost=$(for f in "$TMP"/perf.err.*; do v=$(sed -nE 's/.*lost ([0-9.]+)%.*/\1/p' "$f"); echo "${v:-0}"; done | med)
	printf '| perf record -e | %s | %.2f | %s | %.2f | %s | %s | %s%% of samples |\n' "$p_cpu" \
		"$(echo "$p_cpu / $b_cpu" | bc -l)" "$p_wall" "$(echo "$p_wall / $b_wall" | bc -l)" "$p_self" \
		"${p_events:-?}" "${p_lost:-0}"
	echo
	printf 'flytrap / perf slowdown (workload CPU): %.2f\n' "$(echo "($f_cpu / $b_cpu) / ($p_cpu / $b_cpu)" | bc -l)"
else
	echo
	echo "perf could not record tracepoints here; no perf row."
fi
echo
echo "### Recorder CPU per million events"
echo
echo "flytrap, while recording (getrusage of the recorder between tracing on and the final drain,"
f_rss=$(cat "$TMP"/ft.err.* | sed -nE 's/.* ([0-9.]+) MB memory at most.*/\1/p' | med)
echo "as printed in its summary): **$f_rec s per million events** (median); peak memory of the"
echo "recorder $f_rss MB (getrusage maxrss; it does not grow with the recording)."
if [ $have_perf = 1 ]; then
	printf 'Whole-process CPU per million events: flytrap %.3f s, perf %.3f s (includes start-up:\n' \
		"$(echo "$f_self / $f_events * 1000000" | bc -l)" "$(echo "$p_self / ${p_events:-1} * 1000000" | bc -l)"
	echo "flytrap reads kallsyms and formats, perf reads its own metadata)."
fi
echo

echo "### Highest lossless rate at the default buffer size"
echo
echo "Two paced processes (one per CPU), 3 s per step; the step stops when the workload cannot"
echo "reach the target any more."
echo
echo "| target events/s | achieved events/s | lost | recorder CPU (share of one core) | wakeups |"
echo "|---:|---:|---:|---:|---:|"
best=0
rt_best=
for rate in 100000 200000 400000 600000 800000 1000000 1500000 2000000 3000000; do
	calls=$((rate / 4))			# two events per syscall, two processes
	n=$((calls * 3))			# three seconds
	"$FLYTRAP" record -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o "$TMP/r.dat" -- \
		"$STORM" "$n" 2 "$calls" >"$TMP/r.out" 2>"$TMP/r.err"
	ev=$(sed -nE "s/.*wrote .*, ([0-9]+) events in ([0-9.]+) s.*/\\1 \\2/p" "$TMP/r.err")
	lost=$(sed -nE "s/.*wrote .* ([0-9]+) lost.*/\\1/p" "$TMP/r.err")
	cpu=$(sed -nE 's/.*recorder cost: ([0-9.]+) s CPU.*/\1/p' "$TMP/r.err")
	wake=$(sed -nE 's/.* ([0-9]+) wakeups.*/\1/p' "$TMP/r.err")
	set -- $ev
	achieved=$(echo "$1 / $2" | bc)
	share=$(echo "$cpu / $2" | bc -l)
	printf '| %d | %d | %s | %.3f | %s |\n' "$rate" "$achieved" "$lost" "$share" "$wake"
	if [ "$lost" = 0 ]; then [ "$achieved" -gt "$best" ] && best=$achieved; else break; fi
	# the workload could not go faster: more rate targets would not mean more
	[ "$achieved" -lt $((rate * 8 / 10)) ] && break
done
# and flat out: the workload as fast as it goes, one process per CPU, then
# the same with the recorder as a real-time task
for mode in "" --realtime; do
	"$FLYTRAP" record $mode -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o "$TMP/r.dat" -- \
		"$STORM" 3000000 2 >"$TMP/r.out" 2>"$TMP/r.err"	# ~3 s: the summary gives 0.1 s
	ev=$(sed -nE "s/.*wrote .*, ([0-9]+) events in ([0-9.]+) s.*/\\1 \\2/p" "$TMP/r.err")
	lost=$(sed -nE "s/.*wrote .* ([0-9]+) lost.*/\\1/p" "$TMP/r.err")
	cpu=$(sed -nE 's/.*recorder cost: ([0-9.]+) s CPU.*/\1/p' "$TMP/r.err")
	wake=$(sed -nE 's/.* ([0-9]+) wakeups.*/\1/p' "$TMP/r.err")
	set -- $ev
	achieved=$(echo "$1 / $2" | bc)
	printf '| unpaced %s | %d | %s | %.3f | %s |\n' "$mode" "$achieved" "$lost" "$(echo "$cpu / $2" | bc -l)" "$wake"
	[ -z "$mode" ] && [ "$lost" = 0 ] && [ "$achieved" -gt "$best" ] && best=$achieved
	[ -n "$mode" ] && [ "$lost" = 0 ] && rt_best=$achieved
done
echo
kb=$(sed -nE 's/.*\(([0-9]+) KiB buffer per CPU\).*/\1/p' "$TMP/r.err")
echo "Highest rate with no loss: **$best events/s** (default buffer: $kb KiB per CPU)${rt_best:+; with --realtime: $rt_best events/s}."
