#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What the options promise: --cpus limits the CPUs, -P follows one running
# process, --duration and --max-size stop the recording, no -e records the
# announced default set, -T adds kernel stacks, and usage errors are one
# line with exit 2.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
. "$(dirname "$0")/_record.sh"
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$LOOP" ] && [ -x "$STORM" ] || skip "test tools not built"
read -r EXTRA _ < <(runtime_getpids)
cd "$TMP"
busy_start	# a quiet machine has no sched_switch in 0.5 s on some CPU

# usage errors: one line, exit 2; --help on stdout, exit 0
for args in "--bogus" "-e" "-f x" "-P 0" "--cpus 3-1" "-d 0" "--level 99" "-P 1 -- true"; do
	"$FLYTRAP" record $args >u.out 2>u.err
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <u.err)" = 1 ] && [ ! -s u.out ]; then ok "'$args': usage error"
	else fail "'$args': exit $rc, $(wc -l <u.err) lines"; cat u.err; fi
done
"$FLYTRAP" record --help >h.out 2>h.err && [ -s h.out ] && [ ! -s h.err ] && ok "--help on stdout" ||
	fail "--help"

# --cpus: only CPU 0 has data
if [ "$(nproc)" -ge 2 ]; then
	"$FLYTRAP" record --cpus 0 -e sched:sched_switch -d 0.5 -o c.dat 2>c.err
	trace-cmd report -i c.dat >c.txt 2>/dev/null
	n0=$(grep -cE '\[000\] +[0-9]+\.' c.txt)
	nx=$(grep -cE '\[0*[1-9][0-9]*\] +[0-9]+\.' c.txt)
	[ "$n0" -gt 0 ] && [ "$nx" = 0 ] && ok "--cpus 0: $n0 events, all on CPU 0" ||
		fail "--cpus 0: $n0 on CPU 0, $nx elsewhere: $(head -3 c.err)"
fi

# -P: a running process, only its events (it starts calling once we record)
mkfifo go
( read -r _ <go; exec "${TOOLENV[@]}" "$LOOP" 4000 ) >p.pids &
pp=$!
"$FLYTRAP" record -P $pp -e syscalls:sys_enter_getpid -o p.dat 2>p.err &
rec=$!
for i in $(seq 100); do grep -q '^flytrap: recording' p.err && break; sleep 0.1; done
echo go >go
wait $pp
sleep 0.2
kill -INT $rec
wait $rec
trace-cmd report -i p.dat >p.txt 2>/dev/null
mine=$(grep -cE -- "-$pp +\[" p.txt)
others=$(grep -E ': sys_enter_getpid:' p.txt | grep -cvE -- "-$pp +\[")
[ "$mine" = $((4000 + EXTRA)) ] && [ "$others" = 0 ] && ok "-P $pp: its 4000 calls and nothing else" ||
	fail "-P: $mine events of the pid, $others of others"

# -P of a multi-threaded process: its threads that exist already are followed too
if command -v python3 >/dev/null; then
	cat >thr.py <<'PY'
import os, sys, threading
ready = threading.Barrier(4)
go = threading.Event()
def work():
    ready.wait()
    go.wait()
    for _ in range(3000):
        os.getppid()
ts = [threading.Thread(target=work) for _ in range(3)]
for t in ts:
    t.start()
ready.wait()
print("ready", flush=True)
sys.stdin.readline()
go.set()
for t in ts:
    t.join()
PY
	mkfifo tgo
	python3 thr.py <tgo >thr.out &
	tp=$!
	exec 7>tgo
	for i in $(seq 100); do grep -q ready thr.out && break; sleep 0.1; done
	"$FLYTRAP" record -P $tp -e syscalls:sys_enter_getppid -o th.dat 2>th.err &
	rec=$!
	for i in $(seq 100); do grep -q '^flytrap: recording' th.err && break; sleep 0.1; done
	echo go >&7
	exec 7>&-
	wait $tp
	kill -INT $rec
	wait $rec
	trace-cmd report -i th.dat >th.txt 2>/dev/null
	n=$(grep -c ': sys_enter_getppid:' th.txt)
	threads=$(grep ': sys_enter_getppid:' th.txt | awk '{print $1}' | sort -u | wc -l)
	[ "$n" = 9000 ] && [ "$threads" = 3 ] && ok "-P of a process: its 3 threads, 9000 calls" ||
		fail "-P threads: $n calls from $threads threads, expected 9000 from 3"
fi

# --duration and --max-size
"$FLYTRAP" record -e sched:sched_switch -d 1 -o d.dat 2>d.err
grep -q "stopped: duration reached" d.err && ok "--duration stops" || fail "--duration"
"$FLYTRAP" record -e 'raw_syscalls:*' --max-size 64K -o m.dat -- "$STORM" 3000000 >/dev/null 2>m.err
grep -q "stopped: size limit reached" m.err && ok "--max-size stops" || { fail "--max-size"; cat m.err; }
left=$(sed -nE 's/.*\(pid ([0-9]+)\) is still running.*/\1/p' m.err)
if [ -n "$left" ]; then	# the recorder leaves it running: end it and see it gone
	kill "$left" 2>/dev/null
	for i in $(seq 100); do kill -0 "$left" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$left" 2>/dev/null
fi
trace-cmd report -i m.dat >/dev/null 2>&1 && ok "--max-size file readable" || fail "--max-size file"

# --compression none: raw pages, page-aligned, and the same events
"$FLYTRAP" record -q --compression none -e syscalls:sys_enter_getpid -o raw.dat -- "${TOOLENV[@]}" "$LOOP" 500 >/dev/null
n=$(trace-cmd report -i raw.dat 2>/dev/null | grep -c ': sys_enter_getpid:')
[ "$n" = $((500 + EXTRA)) ] && ok "--compression none: 500 events" || fail "--compression none: $n events"

# default set, announced
"$FLYTRAP" record -d 0.5 -o def.dat 2>def.err
grep -q "no -e given" def.err && ok "default set announced" || fail "no default note"
trace-cmd report -i def.dat 2>/dev/null | grep -qE ': (sched_switch|sys_enter):' && ok "default set recorded" ||
	fail "default set empty"

# the status line: on a terminal only
if command -v script >/dev/null; then
	script -qec "$FLYTRAP record -e sched:sched_switch -d 1.2 -o tty.dat" /dev/null >tty.out 2>&1
	grep -q 'events/s' tty.out && grep -q 'lost' tty.out && ok "status line on a terminal" ||
		fail "no status line on a terminal"
	grep -q 'events/s' d.err && fail "status line without a terminal" || ok "no status line without a terminal"
fi

# -T: kernel stacks after the events
"$FLYTRAP" record -T -e sched:sched_switch -d 0.5 -o t.dat 2>t.err
trace-cmd report -i t.dat 2>/dev/null | grep -q 'kernel_stack:' && ok "-T records kernel stacks" ||
	fail "-T: no kernel_stack events"
finish
