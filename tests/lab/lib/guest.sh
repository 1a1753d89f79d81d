#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs inside the lab kernel (busybox sh), started by /init of the initramfs
# that tests/lab/10-kernel-lab.sh builds.  Every check prints "ok: …" or
# "FAIL: …" to the console and to /out/results.txt; files for the host
# checks go to /out, which /init sends out over the second serial port.
#
#   /tc/flytrap   tracer-check (named "flytrap" so a live one is a live
#                 recorder for rec_tracer_reset_stale)
#   /bin/flytrap  the real flytrap, when it has `record`
T=/sys/kernel/tracing
OUT=/out
TC=/tc/flytrap
RES=$OUT/results.txt
KX_OPEN='p:kx_open do_sys_openat2 filename=+0($arg2):ustring'
KX_RET='r:kx_ret do_sys_openat2 ret=$retval'
# Hooking every kernel function costs 15-20 s each way under TCG (ftrace
# patches ~50000 call sites); -l narrows the hooked set to a few hundred,
# so the graph checks of tracer.c stay fast.  The one unfiltered graph is
# the `flytrap record` check of the issue.  No file-name globbing here, so
# the patterns reach the programs as written.
set -f
NARROW="-l *open* -l getname* -l *alloc_fd* -l fd_install -l putname"

ok() { echo "ok: $* [$(cut -d" " -f1 /proc/uptime)]"; echo "ok: $* [$(cut -d' ' -f1 /proc/uptime)]" >>"$RES"; }
fail() { echo "FAIL: $*"; echo "FAIL: $*" >>"$RES"; }
note() { echo "note: $*"; echo "note: $*" >>"$RES"; }

# Everything a recorder may change, as text (one process: forks are slow
# under TCG).  trace_options covers the top level's options/ directory.
snap() {
	echo "instances: $(ls $T/instances | tr '\n' ' ')"
	echo "event systems: $(ls $T/events | grep flytrap | tr '\n' ' ')"
	echo "saved state: $(ls /run/flytrap 2>/dev/null | tr '\n' ' ')"
	cd $T && head -n 1000 current_tracer set_ftrace_filter set_ftrace_notrace set_graph_function \
		set_graph_notrace max_graph_depth kprobe_events dynamic_events trace_options \
		trace_clock tracing_on set_event buffer_size_kb tracing_cpumask enabled_functions 2>&1
	cd /
}

# same_state NAME: compare with the snapshot taken at the start
same_state() {
	snap >/tmp/after
	if cmp -s /tmp/before /tmp/after; then
		ok "$1: tracefs state identical afterwards"
	else
		fail "$1: tracefs state changed"
		diff /tmp/before /tmp/after | head -20
		diff /tmp/before /tmp/after | head -40 >>"$RES"
	fi
}

# wait_for FILE TEXT SECS
wait_for() {
	i=0
	while [ $i -lt $(($3 * 10)) ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		usleep 100000
		i=$((i + 1))
	done
	return 1
}

have_record=0
if [ -x /bin/flytrap ] && /bin/flytrap record --help >/tmp/rh 2>&1 && grep -q -- '--kprobe' /tmp/rh; then
	have_record=1
fi
echo "lab-file contents" >/etc/lab-file
mkdir -p /run
# The first tracer or event anywhere expands the top-level buffer from its
# boot size ("7 (expanded: 1408)") for good; the kernel has no way back, so
# take that step before the first snapshot.
echo 1 >$T/events/sched/sched_process_exec/enable
echo 0 >$T/events/sched/sched_process_exec/enable
echo >$T/trace
snap >/tmp/before
cp /tmp/before $OUT/state-before.txt
uname -r >$OUT/uname.txt

# FLYTRAP_LAB_BENCH=1 on the host: this boot only measures (guest-bench.sh)
[ -f /lab/env ] && . /lab/env
if [ "${BENCH:-0}" = 1 ] && [ -f /lab/guest-bench.sh ]; then
	. /lab/guest-bench.sh
	echo "guest-done" >>"$RES"
	exit 0
fi

# ---- tracer.c through tracer-check ----------------------------------------------

# function_graph rooted at do_sys_openat2 (top level on 6.1: no graph in instances)
$TC -p function_graph -g do_sys_openat2 $NARROW -o $OUT/tc-graph.txt -- cat /proc/version >/dev/null 2>$OUT/tc-graph.err
rc=$?
if [ $rc = 0 ] && grep -q 'do_sys_openat2() {' $OUT/tc-graph.txt && grep -q '^ *[0-9]) .*[0-9.]* us *| *}' $OUT/tc-graph.txt; then
	ok "tracer: function_graph -g do_sys_openat2 prints a graph ($(grep -c 'do_sys_openat2() {' $OUT/tc-graph.txt) roots)"
else
	fail "tracer: function_graph -g do_sys_openat2 (rc $rc): $(head -c 300 $OUT/tc-graph.err)"
fi
grep -q 'tracer buffer: top level' $OUT/tc-graph.err && note "function_graph ran in the top-level buffer (kernel $(uname -r))"
same_state "tracer function_graph"

# --max-graph-depth 1: the root only, as a leaf
$TC -p function_graph -g do_sys_openat2 $NARROW -d 1 -o $OUT/tc-depth.txt -- cat /proc/version >/dev/null 2>$OUT/tc-depth.err
if grep -q 'do_sys_openat2();' $OUT/tc-depth.txt && ! grep -q 'do_sys_openat2() {' $OUT/tc-depth.txt; then
	ok "tracer: --max-graph-depth 1 leaves only the root"
else
	fail "tracer: --max-graph-depth 1: $(grep -m3 'do_sys_openat2' $OUT/tc-depth.txt) $(head -c 200 $OUT/tc-depth.err)"
fi
same_state "tracer max_graph_depth"

# -n: notrace hides a callee of the root
$TC -p function_graph -g do_sys_openat2 $NARROW -n getname -n 'getname_*' -o $OUT/tc-notrace.txt -- cat /proc/version >/dev/null 2>$OUT/tc-notrace.err
if grep -q 'do_sys_openat2() {' $OUT/tc-notrace.txt && ! grep -q 'getname' $OUT/tc-notrace.txt &&
	grep -q 'getname' $OUT/tc-graph.txt; then
	ok "tracer: -n getname removes getname from the graph"
else
	fail "tracer: -n getname: $(grep -c getname $OUT/tc-notrace.txt) getname lines; $(head -c 200 $OUT/tc-notrace.err)"
fi
same_state "tracer notrace"

# function tracer with a filter glob and the stack option, in the instance
$TC -p function -l 'do_sys_openat*' -s -o $OUT/tc-func.txt -- cat /proc/version >/dev/null 2>$OUT/tc-func.err
if grep -q 'tracer buffer: instance' $OUT/tc-func.err && grep -q 'do_sys_openat2 <-' $OUT/tc-func.txt &&
	grep -q '=> ' $OUT/tc-func.txt && ! grep -v 'do_sys_openat2' $OUT/tc-func.txt | grep -q ' <-'; then
	ok "tracer: function -l 'do_sys_openat*' --func-stack in the instance: only that function, with stacks"
else
	fail "tracer: function -l: $(head -c 300 $OUT/tc-func.err) $(grep -c ' <-' $OUT/tc-func.txt) calls"
fi
same_state "tracer function"

# kprobes: entry with the file name, return with the value (6.1 prints $retval as x64,
# 0x3; 6.12 takes its type from BTF, int: 3)
$TC -k "$KX_OPEN" -k "$KX_RET" -o $OUT/tc-kprobe.txt -- cat /etc/lab-file >/dev/null 2>$OUT/tc-kprobe.err
if grep -q 'kx_open: .*filename="/etc/lab-file"' $OUT/tc-kprobe.txt && grep -q 'kx_ret: .*ret=\(0x\)\?[0-9a-f]' $OUT/tc-kprobe.txt &&
	grep -q 'systems: flytrap_[0-9]*$' $OUT/tc-kprobe.err; then
	ok "tracer: kprobe kx_open records filename=\"/etc/lab-file\", kx_ret the return value"
else
	fail "tracer: kprobes: $(head -c 300 $OUT/tc-kprobe.err) $(grep -m2 kx_ $OUT/tc-kprobe.txt)"
fi
same_state "tracer kprobes"

# a kprobe without a name gets p_SYMBOL
$TC -k 'p do_sys_openat2' -o $OUT/tc-kname.txt -- cat /etc/lab-file >/dev/null 2>$OUT/tc-kname.err
if grep -q 'p_do_sys_openat2:' $OUT/tc-kname.txt; then
	ok "tracer: unnamed kprobe is called p_do_sys_openat2"
else
	fail "tracer: unnamed kprobe: $(head -c 300 $OUT/tc-kname.err)"
fi
same_state "tracer unnamed kprobe"

# refusals: one clear line each, the rest goes on, nothing left behind
$TC -p function_graph -g no_such_function_xyz $NARROW -k "$KX_OPEN" -o $OUT/tc-bad.txt -- cat /etc/lab-file >/dev/null 2>$OUT/tc-bad.err
if grep -q "no kernel function matches 'no_such_function_xyz' (set_graph_function)" $OUT/tc-bad.err &&
	grep -q 'kx_open: .*lab-file' $OUT/tc-bad.txt; then
	ok "tracer: unknown -g function is one clear line and the kprobe still records"
else
	fail "tracer: unknown -g function: $(head -c 300 $OUT/tc-bad.err)"
fi
same_state "tracer unknown function"

$TC -k 'p:kx_bad no_such_symbol_xyz' -k 'p:kx_arg do_sys_openat2 x=+0(%nosuchreg):u32' -o /dev/null -- true 2>$OUT/tc-kbad.err
if grep -q "kprobe 'p:kx_bad no_such_symbol_xyz' refused by the kernel: " $OUT/tc-kbad.err &&
	grep -q "kprobe 'p:kx_arg .*refused by the kernel: " $OUT/tc-kbad.err; then
	ok "tracer: bad kprobes give the kernel's complaint: $(grep -m1 kx_bad $OUT/tc-kbad.err | sed 's/.*kernel: //')"
else
	fail "tracer: bad kprobes: $(head -c 300 $OUT/tc-kbad.err)"
fi
same_state "tracer bad kprobes"

# top level in use: refuse function_graph there instead of taking it over
# (the cheap blk tracer stands for another user; the function tracer on
# every kernel function would crawl under TCG)
busy_check() {
	snap >/tmp/busy-before
	$TC -p function_graph -g do_sys_openat2 $NARROW -o /dev/null -- true 2>$OUT/tc-busy.err
	snap >/tmp/busy-after
	if grep -q "$1" $OUT/tc-busy.err && cmp -s /tmp/busy-before /tmp/busy-after; then
		ok "tracer: a busy top level ($2) is refused and left alone"
	else
		fail "tracer: busy top level ($2): $(head -c 300 $OUT/tc-busy.err)"
	fi
}
if grep -q 'tracer buffer: top level' $OUT/tc-graph.err; then
	echo blk >$T/current_tracer
	busy_check "in use by the 'blk' tracer" "blk tracer"
	echo nop >$T/current_tracer
	echo 1 >$T/events/sched/sched_process_exec/enable
	busy_check "in use (events enabled there)" "events enabled"
	echo 0 >$T/events/sched/sched_process_exec/enable
	echo >$T/trace
	same_state "tracer busy top level"
fi

# SIGKILL leaves state behind; reset removes it, but not a live recorder's.
# guest-record.sh does the same with flytrap record and flytrap reset, so
# this one runs only without them.
if [ $have_record = 0 ]; then
	$TC -W -k 'p:kx_live do_sys_openat2' -o /tmp/live.txt 2>/tmp/live.err &
	live=$!
	$TC -W -p function_graph -g do_sys_openat2 $NARROW -k "$KX_OPEN" -o /tmp/kill.txt 2>/tmp/kill.err &
	pid=$!
	if wait_for /tmp/kill.err 'ready' 20 && wait_for /tmp/live.err 'ready' 20; then
		kill -9 $pid
		wait $pid
		if grep -q "flytrap_$pid/kx_open" $T/kprobe_events; then
			ok "tracer: SIGKILL leaves kprobe flytrap_$pid/kx_open (as expected)"
		else
			fail "tracer: after SIGKILL no leftover kprobe? $(cat $T/kprobe_events)"
		fi
		$TC --reset >$OUT/tc-reset.txt 2>&1
		note "reset said: $(tr '\n' ';' <$OUT/tc-reset.txt)"
		if grep -q "flytrap_$live/kx_live" $T/kprobe_events && ! grep -q "flytrap_$pid/" $T/kprobe_events; then
			ok "tracer: reset removed the dead recorder's kprobe and kept the live one's"
		else
			fail "tracer: reset: $(cat $T/kprobe_events)"
		fi
		if grep -q 'top level' /tmp/kill.err; then
			if grep -q 'restored .*current_tracer' $OUT/tc-reset.txt; then
				ok "tracer: reset restored the top-level tracer state"
			else
				fail "tracer: reset did not restore the top level"
			fi
		fi
	else
		kill -9 $pid
		wait $pid
		fail "tracer: SIGKILL test: not ready"
	fi
	kill -INT $live
	wait $live
	same_state "tracer SIGKILL + reset"
fi

# ---- flytrap record --------------------------------------------------------------
if [ $have_record = 1 ]; then
	. /lab/guest-record.sh
	# BPF kernel-function tracing (fentry, and the kprobe fallback)
	if [ -f /lab/guest-bpf.sh ] && $FT record --bpf kfunc= -o /dev/null 2>&1 | grep -q 'kfunc needs'; then
		. /lab/guest-bpf.sh
	else
		note "flytrap record has no --bpf kfunc: BPF checks not run"
	fi
	# the static build (make static), when the host built it
	[ -x /bin/flytrap-static ] && [ -f /lab/guest-static.sh ] && . /lab/guest-static.sh
else
	note "flytrap record with --kprobe not available: flytrap record checks not run"
fi
# flytrap status and reset --all on what this machine's kernel refuses
if [ -f /lab/guest-status.sh ] && [ -x /bin/flytrap ] && /bin/flytrap status --help >/dev/null 2>&1; then
	. /lab/guest-status.sh
fi

echo "guest-done" >>"$RES"
