#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# callgraph, overhead and drops on a file of N events (default 2M, made by
# tests/tools/mkrpt: sched_switch, raw_syscalls and function_graph on two
# CPUs), each against the nearest peer doing the same job in one run:
# `trace-cmd report` piped into an awk script that computes the same
# figures (folded call stacks, per-syscall latency and CPU busy time,
# lost-event counts).  Also checks that peak memory stays flat when the
# file grows 4x (bounded by tasks and stacks, not events).  Last, the three
# analyzers in one pass (`flytrap analyze`) against the same three run one
# after another (three passes over the file).
#
#   bench/analyzers.sh [N]       O=build by default
#
# Times are CPU seconds (user + sys of every process of the pipeline, best
# of 3) so other load on the machine does not distort the ratios; wall
# times are shown too.  Prints a markdown table for docs/benchmarks.md.
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
ft=$PWD/$O/flytrap
mk=$PWD/$O/tests/tools/mkrpt
n=${1:-2000000}
work=$(mktemp -d /tmp/flytrap-abench.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$ft" ] && [ -x "$mk" ] || { echo "bench/analyzers.sh: build first (make O=$O)" >&2; exit 2; }

"$mk" bench "$work/small.dat" "$n"
"$mk" bench "$work/big.dat" $((n * 4))
file=$work/small.dat

cpu_time() {	# "user+sys wall maxrss" best of 3 runs of the shell command $1
	local best=999999 bestw=0 rss=0 i t
	for i in 1 2 3; do
		/usr/bin/time -f '%U %S %e %M' -o "$work/t" bash -c "$1" > /dev/null 2>&1 || true
		t=$(awk '{ printf "%.3f %.3f %d", $1 + $2, $3, $4 }' "$work/t")
		set -- "$1" $t
		if awk -v a="$2" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$2; bestw=$3; rss=$4; fi
	done
	echo "$best $bestw $rss"
}

# peers: trace-cmd report + awk, one per job
awk_callgraph='
/funcgraph_entry/ { pid = $1; sub(/.*-/, "", pid); n = split($0, a, "|"); f = a[n]; gsub(/[ {();]/, "", f)
	if ($0 ~ /\{ *$/) { d[pid]++; st[pid, d[pid]] = f } else { p = ""; for (i = 1; i <= d[pid]; i++) p = p st[pid, i] ";"; w[p f] += 1 } next }
/funcgraph_exit/ { pid = $1; sub(/.*-/, "", pid); for (i = 1; i <= NF; i++) if ($i == "us") dur = $(i-1); gsub(/[^0-9.]/, "", dur)
	p = ""; for (i = 1; i <= d[pid]; i++) p = p (i > 1 ? ";" : "") st[pid, i]; w[p] += dur; d[pid]-- }
END { for (k in w) print k, w[k] }'
awk_overhead='
function ts(s) { sub(/:$/, "", s); return s * 1e9 }
/ sys_enter:/ { pid = $1; sub(/.*-/, "", pid); t0[pid] = ts($3); nr[pid] = $6 }
/ sys_exit:/ { pid = $1; sub(/.*-/, "", pid); if (pid in t0) { d = ts($3) - t0[pid]; c[nr[pid]]++; s[nr[pid]] += d; if (d > mx[nr[pid]]) mx[nr[pid]] = d; delete t0[pid] } }
/ sched_switch:/ { cpu = $2; t = ts($3); if (cpu in last && prevpid[cpu] != 0) busy[cpu] += t - last[cpu]; last[cpu] = t; x = $0; sub(/.*next_pid=/, "", x); split(x, y, " "); prevpid[cpu] = y[1] + 0 }
END { for (k in c) print "sys", k, c[k], s[k], mx[k]; for (k in busy) print "cpu", k, busy[k] }'
awk_drops='/EVENTS DROPPED/ { n++; if ($2 ~ /^\[[0-9]+$/) { sub(/\[/, "", $2); lost += $2 } } END { print n + 0, lost + 0 }'

echo "| job | flytrap CPU s | events/s (one core) | wall s | peak RSS ${n} / $((n * 4)) events | peer | peer CPU s | peer wall s | speed-up |"
echo "|---|---|---|---|---|---|---|---|---|"
for job in callgraph overhead drops all analyze; do
	case $job in
	callgraph) cmd="'$ft' callgraph --folded '$file'"; big="'$ft' callgraph --folded '$work/big.dat'"
		   peer="trace-cmd report -i '$file' 2>/dev/null | awk '$awk_callgraph'"; pname="trace-cmd report \\| awk (folded stacks)" ;;
	overhead)  cmd="'$ft' overhead '$file'"; big="'$ft' overhead '$work/big.dat'"
		   peer="trace-cmd report -i '$file' 2>/dev/null | awk '$awk_overhead'"; pname="trace-cmd report \\| awk (syscall latency, CPU busy)" ;;
	drops)     cmd="'$ft' drops '$file'"; big="'$ft' drops '$work/big.dat'"
		   peer="trace-cmd report --stat -i '$file' > /dev/null 2>&1; trace-cmd report -i '$file' 2>/dev/null | awk '$awk_drops'"; pname="trace-cmd report --stat + report \\| awk (markers)" ;;
	all)       cmd="'$ft' callgraph '$file'; '$ft' overhead '$file'; '$ft' drops '$file'"; big=""
		   peer=""; pname="" ;;
	analyze)   cmd="'$ft' analyze --callgraph --overhead --drops '$file'"
		   big="'$ft' analyze --callgraph --overhead --drops '$work/big.dat'"
		   peer="'$ft' callgraph '$file'; '$ft' overhead '$file'; '$ft' drops '$file'"
		   pname="the same three commands, three passes" ;;
	esac
	read -r c w r <<< "$(cpu_time "$cmd")"
	rb=-
	[ -n "$big" ] && read -r _ _ rb <<< "$(cpu_time "$big")"
	# all, analyze: events handed to an analyzer (3 per event of the file)
	eps=$(awk -v n="$n" -v c="$c" -v j="$job" 'BEGIN { if (j == "all" || j == "analyze") n *= 3; printf "%.1fM", (c > 0 ? n / c / 1e6 : 0) }')
	if [ -n "$peer" ]; then
		read -r pc pw _ <<< "$(cpu_time "$peer")"
		sp=$(awk -v a="$pc" -v b="$c" 'BEGIN { r = (b > 0 ? a / b : 0); printf (r < 10 ? "%.1fx" : "%.0fx"), r }')
	else
		pc=-; pw=-; sp=-
	fi
	echo "| $job | $c | $eps | $w | ${r} KB / ${rb} KB | $pname | $pc | $pw | $sp |"
done
