# SPDX-License-Identifier: GPL-2.0-only
# Sourced by guest.sh (same helpers, globbing off) when /bin/flytrap has
# `record --kprobe`: the checks of issue 6 with the real recorder.  The
# files go to /out for tests/lab/host-record.sh (trace-cmd report and
# flytrap on the host).
FT=/bin/flytrap

# wait_recording ERRFILE: the recorder prints "flytrap: recording ..." once
# tracing is on
wait_recording() { wait_for "$1" 'flytrap: recording' 30; }

# The command, unfiltered: every kernel function hooked, roots at
# do_sys_openat2 (the golden file for the call-graph analyzer).
$FT record -o $OUT/graph.dat -p function_graph -g do_sys_openat2 -- cat /proc/version >/dev/null 2>$OUT/rec-graph.err
rc=$?
if [ $rc = 0 ] && [ -s $OUT/graph.dat ]; then
	ok "record: -p function_graph -g do_sys_openat2 -- cat /proc/version ($(wc -c <$OUT/graph.dat) bytes)"
else
	fail "record: function_graph (exit $rc): $(head -c 300 $OUT/rec-graph.err)"
fi
same_state "record function_graph"

# function tracer in the instance, with stacks
$FT record -q -o $OUT/func.dat -p function -l 'do_sys_openat*' --func-stack -- cat /etc/lab-file >/dev/null 2>$OUT/rec-func.err
rc=$?
[ $rc = 0 ] && [ -s $OUT/func.dat ] && ok "record: -p function -l 'do_sys_openat*' --func-stack" ||
	fail "record: function (exit $rc): $(head -c 300 $OUT/rec-func.err)"
same_state "record function"

# kprobe with the opened file names, plus its return probe
$FT record -q -o $OUT/kprobe.dat --kprobe "$KX_OPEN" --kprobe "$KX_RET" -- cat /etc/lab-file >/dev/null 2>$OUT/rec-kprobe.err
rc=$?
[ $rc = 0 ] && [ -s $OUT/kprobe.dat ] && ok "record: --kprobe kx_open + kx_ret" ||
	fail "record: kprobe (exit $rc): $(head -c 300 $OUT/rec-kprobe.err)"
same_state "record kprobe"

# refusals are one line each; the rest is recorded
$FT record -q -o $OUT/partial.dat -p function_graph -g no_such_function_xyz --kprobe "$KX_OPEN" \
	--kprobe 'p:kx_bad no_such_symbol_xyz' -- cat /etc/lab-file >/dev/null 2>$OUT/rec-partial.err
rc=$?
if [ $rc = 0 ] && grep -q "no kernel function matches 'no_such_function_xyz'" $OUT/rec-partial.err &&
	grep -q "kx_bad.*refused by the kernel" $OUT/rec-partial.err && [ -s $OUT/partial.dat ]; then
	ok "record: refused tracer and kprobe are one line each, kx_open still recorded"
else
	fail "record: partial refusal (exit $rc): $(head -c 400 $OUT/rec-partial.err)"
fi
same_state "record partial refusal"

# SIGINT and SIGTERM end a recording cleanly; the graph runs in the top
# level here, narrowed (see NARROW in guest.sh)
for sig in INT TERM; do
	$FT record -o $OUT/sig$sig.dat -p function_graph -g do_sys_openat2 $NARROW --kprobe "$KX_OPEN" 2>/tmp/rsig.err &
	pid=$!
	if wait_recording /tmp/rsig.err; then
		cat /etc/lab-file >/dev/null
		kill -$sig $pid
		wait $pid
		rc=$?
		[ $rc = 0 ] && [ -s $OUT/sig$sig.dat ] && ok "record: SIG$sig ends the recording with exit 0" ||
			fail "record: SIG$sig: exit $rc: $(head -c 300 /tmp/rsig.err)"
	else
		kill -9 $pid
		wait $pid
		fail "record: SIG$sig: never started: $(head -c 300 /tmp/rsig.err)"
	fi
	same_state "record SIG$sig"
done

# SIGKILL leaves the instance, the kprobe and the top-level tracer; reset
# puts everything back
$FT record -o /tmp/kill.dat -p function_graph -g do_sys_openat2 $NARROW --kprobe "$KX_OPEN" 2>/tmp/rkill.err &
pid=$!
if wait_recording /tmp/rkill.err; then
	kill -9 $pid
	wait $pid
	snap >/tmp/killed
	if ! cmp -s /tmp/before /tmp/killed; then
		ok "record: SIGKILL leaves state behind (as expected)"
	else
		fail "record: SIGKILL left nothing behind? (top level: $(grep -c 'top level' /tmp/rkill.err))"
	fi
	$FT reset >$OUT/rec-reset.txt 2>&1
	rc=$?
	note "flytrap reset (exit $rc): $(tr '\n' ';' <$OUT/rec-reset.txt | head -c 600)"
	same_state "record SIGKILL + flytrap reset"
else
	kill -9 $pid
	wait $pid
	fail "record: SIGKILL: never started: $(head -c 300 /tmp/rkill.err)"
fi
