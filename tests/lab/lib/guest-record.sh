# SPDX-License-Identifier: GPL-2.0-only
# Sourced by guest.sh (same helpers, globbing off) when /bin/flytrap has
# `record --kprobe`: the checks of issue 6 with the real recorder.  The
# files go to /out for tests/lab/host-record.sh (trace-cmd report and
# flytrap on the host).
FT=/bin/flytrap

# wait_recording ERRFILE: the recorder prints "flytrap: recording ..." once
# tracing is on
wait_recording() { wait_for "$1" 'flytrap: recording' 30; }

# The serial port moves about 100 KB/s and every file carries the kernel's
# kallsyms (about 900 KB), so: files only the guest checks stay in /tmp and
# are read here with flytrap report; the ones for the host are shipped with
# kallsyms cut to the names their report mentions (tests/tools/
# trim_kallsyms), once flytrap report prints the cut file exactly like the
# recorded one.
ship() {
	if [ -x /lab/trim_kallsyms ]; then
		$FT report /tmp/$1 >/tmp/ship-orig.txt 2>&1
		tr -cs 'A-Za-z0-9_.' '\n' </tmp/ship-orig.txt | sort -u >/tmp/ship-names.txt
		if /lab/trim_kallsyms /tmp/$1 $OUT/$1 /tmp/ship-names.txt 2>/tmp/ship.err &&
			$FT report $OUT/$1 >/tmp/ship-trim.txt 2>&1 && cmp -s /tmp/ship-orig.txt /tmp/ship-trim.txt; then
			note "$1: shipped with kallsyms cut, $(wc -c </tmp/$1) -> $(wc -c <$OUT/$1) bytes"
			return 0
		fi
		fail "$1: the kallsyms-cut copy does not print like the original: $(head -c 200 /tmp/ship.err)"
	fi
	cp /tmp/$1 $OUT/$1
}

# The command, unfiltered: every kernel function hooked, roots at
# do_sys_openat2 (the golden file for the call-graph analyzer).
$FT record -o /tmp/graph.dat -p function_graph -g do_sys_openat2 -- cat /proc/version >/dev/null 2>$OUT/rec-graph.err
rc=$?
if [ $rc = 0 ] && [ -s /tmp/graph.dat ]; then
	ok "record: -p function_graph -g do_sys_openat2 -- cat /proc/version ($(wc -c </tmp/graph.dat) bytes)"
	ship graph.dat
else
	fail "record: function_graph (exit $rc): $(head -c 300 $OUT/rec-graph.err)"
fi
same_state "record function_graph"

# function tracer in the instance with stacks, and kprobes with the opened
# file names and the return value, in one recording
$FT record -q -o /tmp/func.dat -p function -l 'do_sys_openat*' --func-stack \
	--kprobe "$KX_OPEN" --kprobe "$KX_RET" -- cat /etc/lab-file >/dev/null 2>$OUT/rec-func.err
rc=$?
if [ $rc = 0 ] && [ -s /tmp/func.dat ] && ! [ -s $OUT/rec-func.err ]; then
	ok "record: -p function -l 'do_sys_openat*' --func-stack --kprobe kx_open --kprobe kx_ret"
	ship func.dat
else
	fail "record: function + kprobes (exit $rc): $(head -c 300 $OUT/rec-func.err)"
fi
same_state "record function + kprobes"

# a uprobe and a kprobe live in the same event group flytrap_<pid>
$FT record -q -o /tmp/uk.dat --uprobe '/tc/flytrap:main' --kprobe "$KX_OPEN" -- /tc/flytrap -o /dev/null -- cat /etc/lab-file >/dev/null 2>$OUT/rec-uk.err
rc=$?
$FT report /tmp/uk.dat >/tmp/uk.txt 2>&1
if [ $rc = 0 ] && grep -q ' main: ' /tmp/uk.txt && grep -q ' main__return: ' /tmp/uk.txt &&
	grep -q 'kx_open: .*filename="/etc/lab-file"' /tmp/uk.txt; then
	ok "record: --uprobe and --kprobe together (one event group) both record"
else
	fail "record: uprobe + kprobe (exit $rc): $(head -c 300 $OUT/rec-uk.err) $(grep -c . /tmp/uk.txt) lines"
fi
same_state "record uprobe + kprobe"

# refusals are one line each; the rest is recorded
$FT record -q -o /tmp/partial.dat -p function_graph -g no_such_function_xyz --kprobe "$KX_OPEN" \
	--kprobe 'p:kx_bad no_such_symbol_xyz' -- cat /etc/lab-file >/dev/null 2>$OUT/rec-partial.err
rc=$?
if [ $rc = 0 ] && grep -q "no kernel function matches 'no_such_function_xyz'" $OUT/rec-partial.err &&
	grep -q "kx_bad.*refused by the kernel" $OUT/rec-partial.err &&
	$FT report /tmp/partial.dat | grep -q 'kx_open: .*filename="/etc/lab-file"'; then
	ok "record: refused tracer and kprobe are one line each, kx_open still recorded"
else
	fail "record: partial refusal (exit $rc): $(head -c 400 $OUT/rec-partial.err)"
fi
same_state "record partial refusal"

# SIGINT and SIGTERM end a recording cleanly; the graph runs in the top
# level here, narrowed (see NARROW in guest.sh)
# (a file of its own per signal: the shell may look at it before the new
# recorder's redirection has emptied it, and find the last one's line)
for sig in INT TERM; do
	$FT record -o /tmp/sig$sig.dat -p function_graph -g do_sys_openat2 $NARROW --kprobe "$KX_OPEN" 2>/tmp/rsig$sig.err &
	pid=$!
	if wait_recording /tmp/rsig$sig.err; then
		cat /etc/lab-file >/dev/null
		kill -$sig $pid
		wait $pid
		rc=$?
		# checked here with flytrap report: the serial port is slow
		$FT report /tmp/sig$sig.dat >/tmp/sig.txt 2>&1
		[ $rc = 0 ] && grep -q 'funcgraph_entry' /tmp/sig.txt && grep -q 'kx_open:' /tmp/sig.txt &&
			ok "record: SIG$sig ends the recording with exit 0, graph and kprobe records in the file" ||
			fail "record: SIG$sig: exit $rc: $(head -c 300 /tmp/rsig$sig.err)"
	else
		kill -9 $pid
		wait $pid
		fail "record: SIG$sig: never started: $(head -c 300 /tmp/rsig$sig.err)"
	fi
	same_state "record SIG$sig"
done

# SIGKILL leaves the instance, the kprobe and the top-level tracer; reset
# puts everything back but leaves a live recorder's kprobe alone
$TC -W -k 'p:kx_live do_sys_openat2' -o /tmp/live.txt 2>/tmp/live.err &
live=$!
$FT record -o /tmp/kill.dat -p function_graph -g do_sys_openat2 $NARROW --kprobe "$KX_OPEN" 2>/tmp/rkill.err &
pid=$!
if wait_recording /tmp/rkill.err && wait_for /tmp/live.err 'ready' 20; then
	kill -9 $pid
	wait $pid
	# the graph tracer at the top level (6.1) or in the instance (6.12 allows it there)
	if grep -q "flytrap_$pid/kx_open" $T/kprobe_events && [ -d $T/instances/flytrap-$pid ] &&
		cat $T/current_tracer $T/instances/flytrap-$pid/current_tracer | grep -q function_graph; then
		ok "record: SIGKILL leaves its instance, kprobe and top-level tracer (as expected)"
	else
		fail "record: SIGKILL left: $(ls $T/instances) / $(cat $T/kprobe_events) / $(cat $T/current_tracer $T/instances/flytrap-$pid/current_tracer 2>&1)"
	fi
	$FT reset >$OUT/rec-reset.txt 2>&1
	rc=$?
	note "flytrap reset (exit $rc): $(tr '\n' ';' <$OUT/rec-reset.txt | head -c 600)"
	if grep -q "flytrap_$live/kx_live" $T/kprobe_events && [ -d $T/instances/flytrap-$live ]; then
		ok "record: flytrap reset kept the live recorder's kprobe and instance"
	else
		fail "record: flytrap reset touched the live recorder: $(cat $T/kprobe_events)"
	fi
else
	kill -9 $pid
	wait $pid
	fail "record: SIGKILL: never started: $(head -c 300 /tmp/rkill.err) $(head -c 200 /tmp/live.err)"
fi
kill -INT $live
wait $live
# as reset says: recover the killed recording (which also ends its run note)
$FT recover /tmp/kill.dat >$OUT/rec-recover.txt 2>&1 && ok "record: flytrap recover of the killed recording" ||
	fail "record: flytrap recover /tmp/kill.dat: $(head -c 300 $OUT/rec-recover.txt)"
same_state "record SIGKILL + flytrap reset + recover"
