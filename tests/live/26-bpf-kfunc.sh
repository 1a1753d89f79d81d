#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --bpf kfunc=FUNC[+FUNC...]: kernel function entry/return through BPF
# fentry/fexit, else kprobes.  Usage errors are one line with exit 2 (an
# unknown function included).  Then, depending on what this kernel allows:
#  - neither fentry nor kprobes (the build machines' kernel): the recording
#    still succeeds with its other sources, one warning line names what the
#    kernel lacks, -v shows the fentry -> kprobe attempt, nothing else does;
#  - fentry or kprobes: the events are real (entries = returns = the open
#    syscalls of the command, each call inside its syscall with its return
#    value), the metadata names the attach mode, and with
#    FLYTRAP_BPF_NO_FENTRY=1 the kprobe path is taken (or refused cleanly).
# Either way nothing is left behind: BPF programs, links and maps, tracefs.
# (The kernel lab, tests/lab/10-kernel-lab.sh, checks both paths on a kernel
# that has them.)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
need_cmd trace-cmd
need_cmd jq
cd "$TMP"
before=$(bpf_orphans)
tracefs_snapshot >state.before

# ---- usage errors: exit 2, one line naming the problem ----------------------------
usage() {	# SPEC TEXT-EXPECTED-IN-THE-LINE
	"$FLYTRAP" record --bpf "$1" -o bad.dat -d 1 >/dev/null 2>usage.err
	local rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <usage.err)" = 1 ] && grep -qF -- "$2" usage.err; then
		ok "--bpf '$1': usage error: $(cat usage.err)"
	else
		fail "--bpf '$1': exit $rc, $(wc -l <usage.err) lines: $(head -2 usage.err)"
	fi
	[ -e bad.dat ] && fail "--bpf '$1': a file was written"
	rm -f bad.dat
}
usage "kfunc=" "kfunc needs kernel function names"
usage "kfunc=no_such_function_xyz" "no kernel function 'no_such_function_xyz'"
usage "kfunc=do_sys_openat2+no_such_function_xyz" "no_such_function_xyz"
usage "kfunc=no_such_*_xyz" "no kernel function matches 'no_such_*_xyz'"
usage "kfunc=do_sys_openat2+" "empty function name"
usage "kfunc=do_sys open" "is not a kernel function name"
usage "kfunc=a+b+c+d+e+f+g+h+i" "at most 8"
usage "kfunc=vfs_*" "at most 8 can be traced"

# ---- a recording: events where the kernel allows a hook, a clear refusal where not ----
# The command's open syscalls are the reference (syscalls program, tp_btf,
# which this kernel allows); -e adds an ftrace event so the recording has a
# source even when the BPF programs are refused.
"$FLYTRAP" record -v -e sched:sched_process_exec --bpf syscalls,kfunc=do_sys_openat2 -o k.dat -- \
	cat /proc/version >k.out 2>k.err
rc=$?
grep -q '^Linux version' k.out || fail "the command's output is missing"
if [ $rc != 0 ] || [ ! -s k.dat ]; then
	fail "record exited $rc: $(head -3 k.err)"
	finish
fi
trace-cmd report -i k.dat >k.tc 2>k.tce || fail "trace-cmd report failed: $(head -2 k.tce)"
grep -q 'UNKNOWN EVENT' k.tc && fail "[UNKNOWN EVENT] in trace-cmd's listing"
grep -q 'sched_process_exec:' k.tc && ok "the ftrace side recorded (sched_process_exec)" ||
	fail "no sched_process_exec event in the file"
"$DUMP" k.dat >k.dump || fail "bpf_dump found damage"

if grep -q 'BPF programs not loaded' k.err; then
	# ---- this kernel has no hook for kernel functions ----
	line=$(grep 'BPF programs not loaded' k.err)
	ok "refused: $line"
	echo "$line" | grep -q 'neither BPF fentry (.*) nor kprobes (.*)' ||
		fail "the warning does not name both hooks: $line"
	if [ ! -e /sys/bus/event_source/devices/kprobe ] && [ ! -e "$TRACEFS/kprobe_events" ]; then
		echo "$line" | grep -q 'CONFIG_KPROBE_EVENTS' && ok "the warning names the missing CONFIG_KPROBE_EVENTS" ||
			fail "no kprobes here but the warning does not say so: $line"
	fi
	n=$(grep -c 'bpf: kfunc: fentry refused (.*), using kprobes' k.err)
	[ "$n" = 1 ] && ok "-v: $(grep 'bpf: kfunc: fentry' k.err)" ||
		fail "-v shows $n fentry -> kprobe lines: $(grep 'kfunc' k.err | head -3)"
	grep -q '^libbpf:' k.err && fail "libbpf's own messages leak at -v: $(grep -m1 '^libbpf:' k.err)"
	grep -c 'kfunc_e[nx]' k.tc | grep -qx 0 || fail "kfunc events in a recording whose programs were refused"
	# without -v: the warning only, nothing about the attempt
	"$FLYTRAP" record -q -e sched:sched_process_exec --bpf kfunc=do_sys_openat2 -o q.dat -- true 2>q.err
	rc=$?
	[ $rc = 0 ] && [ "$(wc -l <q.err)" = 1 ] && grep -q 'BPF programs not loaded' q.err &&
		ok "without -v: exit 0 and one line" || fail "without -v: exit $rc: $(head -3 q.err)"
	# the testing knob skips fentry and says so at -v
	FLYTRAP_BPF_NO_FENTRY=1 "$FLYTRAP" record -v -e sched:sched_process_exec --bpf kfunc=do_sys_openat2 -o n.dat -- true 2>n.err
	grep -q 'bpf: kfunc: fentry off (disabled by FLYTRAP_BPF_NO_FENTRY), using kprobes' n.err &&
		ok "FLYTRAP_BPF_NO_FENTRY=1: fentry skipped, -v says so" ||
		fail "FLYTRAP_BPF_NO_FENTRY=1: $(grep kfunc n.err | head -2)"
	# SIGINT while the other programs run: the refusal leaves nothing either
	"$FLYTRAP" record -q -e sched:sched_process_exec --bpf syscalls,kfunc=do_sys_openat2 -o i.dat 2>i.err &
	pid=$!
	sleep 1
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc = 0 ] && ok "SIGINT after the refusal: exit 0" || fail "SIGINT after the refusal: exit $rc: $(head -2 i.err)"
else
	# ---- this kernel hooks kernel functions: check real events ----
	mode=$(meta k.dump bpf_kfunc_attach)
	case $mode in
	fentry) grep -q 'bpf: kfunc: 1 function hooked with fentry/fexit' k.err ;;
	kprobe) grep -q 'bpf: kfunc: fentry refused (.*), using kprobes' k.err ;;
	*) false ;;
	esac && ok "attach mode $mode, -v agrees: $(grep -m1 'bpf: kfunc' k.err)" ||
		fail "attach mode '$mode', -v: $(grep 'kfunc' k.err | head -2)"
	check_events() {	# DUMP NAME
		awk '$1 == "ev" {
			delete f
			# numbers: substr() gives strings, which would compare as text
			for (i = 6; i <= NF; i++) { p = index($i, "="); f[substr($i, 1, p - 1)] = substr($i, p + 1) + 0 }
			tid = $5
			if ($2 == "syscall" && (f["nr"] == 2 || f["nr"] == 257 || f["nr"] == 437)) {
				ns++; sn[tid]++; ss[tid, sn[tid]] = f["start"]; sd[tid, sn[tid]] = f["duration"]; sr[tid, sn[tid]] = f["ret"]
			} else if ($2 == "kfunc_entry") {
				ne++
				if (f["depth"] != 1 || f["func"] != 0) bad = bad " entry:" f["func"] "/" f["depth"]
			} else if ($2 == "kfunc_exit") {
				nx++; kn[tid]++
				if (f["depth"] != 1 || f["flags"] != 0 || f["duration"] <= 0 || f["duration"] >= 1e9)
					bad = bad " exit:" f["depth"] "/" f["flags"] "/" f["duration"]
				ks[tid, kn[tid]] = f["start"]; kd[tid, kn[tid]] = f["duration"]; kr[tid, kn[tid]] = f["ret"]
			}
		}
		END {
			if (!ne || ne != nx || nx != ns) bad = bad " entries=" ne " exits=" nx " open-syscalls=" ns
			for (t in kn) for (j = 1; j <= kn[t]; j++)
				if (ks[t, j] < ss[t, j] || ks[t, j] + kd[t, j] > ss[t, j] + sd[t, j] || kr[t, j] != sr[t, j])
					bad = bad " call" j "-not-in-its-syscall"
			if (bad != "") print "bad" bad; else print "ok " nx
		}' "$1"
	}
	res=$(check_events k.dump)
	case $res in
	ok*) ok "${res#ok } do_sys_openat2 calls, one per open syscall of cat, each inside it with its return value" ;;
	*) fail "kfunc events: ${res#bad }" ;;
	esac
	grep -q '^meta bpf_kfunc=0 \[kernel.kallsyms\] do_sys_openat2 0x' k.dump && ok "function table in the metadata" ||
		fail "no 'bpf_kfunc=0 [kernel.kallsyms] do_sys_openat2 0x...': $(grep -m1 'bpf_kfunc=' k.dump)"
	grep -q 'kfunc_exit: .*func=do_sys_openat2' k.tc && ok "trace-cmd prints kfunc_exit with the function name" ||
		fail "trace-cmd does not print kfunc_exit with func=do_sys_openat2"
	# the kprobe path
	FLYTRAP_BPF_NO_FENTRY=1 "$FLYTRAP" record -v -e sched:sched_process_exec --bpf syscalls,kfunc=do_sys_openat2 \
		-o n.dat -- cat /proc/version >/dev/null 2>n.err
	rc=$?
	if grep -q 'BPF programs not loaded' n.err; then
		grep -q 'nor kprobes' n.err && ok "FLYTRAP_BPF_NO_FENTRY=1: kprobes refused here: $(grep 'not loaded' n.err)" ||
			fail "FLYTRAP_BPF_NO_FENTRY=1: $(grep 'not loaded' n.err)"
	else
		"$DUMP" n.dat >n.dump || fail "bpf_dump found damage (kprobe file)"
		res=$(check_events n.dump)
		[ "$(meta n.dump bpf_kfunc_attach)" = kprobe ] && [ "${res%% *}" = ok ] &&
			ok "FLYTRAP_BPF_NO_FENTRY=1: kprobe mode, ${res#ok } calls, same checks" ||
			fail "FLYTRAP_BPF_NO_FENTRY=1: mode '$(meta n.dump bpf_kfunc_attach)', ${res#bad }"
	fi
	# SIGINT while hooked
	"$FLYTRAP" record -q --bpf kfunc=do_sys_openat2 -o i.dat 2>i.err &
	pid=$!
	sleep 1
	cat /proc/version >/dev/null
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc = 0 ] && ok "SIGINT while hooked: exit 0" || fail "SIGINT while hooked: exit $rc: $(head -2 i.err)"
fi

# ---- nothing left behind ------------------------------------------------------------
after=$(bpf_orphans)
[ "$before" = "$after" ] && ok "no flytrap BPF program, map or link left behind" ||
	fail "left behind: $(diff <(echo "$before") <(echo "$after") | grep '^>' | head -5 | tr '\n' ' ')"
bpftool -j prog show 2>/dev/null | jq -r '.[] | .name // ""' | grep -q '^ft_k' &&
	fail "a kfunc program is still loaded: $(bpftool prog show | grep -m1 ft_k)"
tracefs_snapshot >state.after
cmp -s state.before state.after && ok "tracefs state identical afterwards" ||
	fail "tracefs state changed: $(diff state.before state.after | head -5 | tr '\n' ' ')"
finish
