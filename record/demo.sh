#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make demo`: record a few seconds of this machine (scheduler, syscalls,
# IRQs, plus BPF syscall latency, off-CPU and CPU-profile samples) and show
# what the analyzers make of it.  Where recording is impossible (not root,
# no tracefs, a kernel that refuses), analyze the shipped sample instead.
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
ft=$PWD/$O/flytrap
out=${FLYTRAP_DEMO_OUT:-/tmp/flytrap-demo}
mkdir -p "$out"
file=$out/demo.dat
secs=${FLYTRAP_DEMO_SECONDS:-5}

banner() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

recorded=0
if [ "$(id -u)" = 0 ]; then
	T=/sys/kernel/tracing
	[ -e $T/instances ] || mount -t tracefs nodev $T 2>/dev/null
	if [ -e $T/instances ]; then
		banner "recording $secs s of this machine: flytrap record -d $secs --bpf syscalls,offcpu,profile"
		# a little work to look at, besides whatever the machine is doing
		( end=$((SECONDS + secs)); while [ $SECONDS -lt $end ]; do
			ls -R /usr/share/doc > /dev/null 2>&1; sleep 0.05; done ) &
		work=$!
		if "$ft" record -d "$secs" -o "$file" --bpf syscalls,offcpu,profile \
			-e sched:sched_switch -e sched:sched_wakeup -e 'sched:sched_process_*' \
			-e raw_syscalls -e irq -e timer:hrtimer_expire_entry; then
			recorded=1
		elif "$ft" record -d "$secs" -o "$file"; then
			recorded=1	# without BPF (kernel or permissions refuse it)
		fi
		wait $work 2>/dev/null
	fi
fi
if [ $recorded = 0 ]; then
	file=$PWD/tests/data/sample.dat
	banner "cannot record here (needs root and tracefs): analyzing the shipped sample $file"
fi

# the exit status says whether every analysis worked (tests/fresh checks it)
rc=0
banner "flytrap info"
"$ft" info "$file" || rc=1
banner "flytrap analyze: overhead, drops and callgraph in one pass over the file"
# where the time went and what tracing cost, every lost event, and the call
# graph (CPU profile and off-CPU stacks) with its flame graph, from one read
if "$ft" analyze --top 8 --depth 6 --min-percent 2 --svg "$out/flame.svg" "$file" &&
	[ -e "$out/flame.svg" ]; then echo "flame graph: $out/flame.svg"; else rc=1; fi
if "$ft" export --html -o "$out/report.html" "$file"; then echo "HTML report: $out/report.html"; else rc=1; fi
if "$ft" export -o "$out/trace.json" "$file"; then
	echo "Perfetto/chrome://tracing JSON: $out/trace.json"
else
	rc=1
fi
banner "flytrap report (first 15 events; trace-cmd report prints the same lines)"
"$ft" report "$file" | head -16
r=${PIPESTATUS[0]}
[ "$r" = 0 ] || [ "$r" = 141 ] || rc=1	# 141: SIGPIPE once head has its lines
echo
echo "the trace: $file"
exit $rc
