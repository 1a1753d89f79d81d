# SPDX-License-Identifier: GPL-2.0-only
# Sourced by guest.sh (after guest-record.sh: same helpers, globbing off)
# when /bin/flytrap knows `--bpf kfunc=`: kernel function tracing with BPF
# fentry/fexit, which this kernel allows, and with the kprobe fallback
# (forced with FLYTRAP_BPF_NO_FENTRY=1).  The two recordings go to /out
# for tests/lab/lib/host-bpf.sh; the kernel is checked for leftovers here
# (enabled_functions is in the snapshot: trampolines and kprobes on ftrace
# sites show there; debugfs kprobes/list has every kprobe, perf ones too).
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
KPL=/sys/kernel/debug/kprobes/list

if [ -r /sys/kernel/btf/vmlinux ]; then
	ok "bpf: the lab kernel has BTF ($(wc -c </sys/kernel/btf/vmlinux) bytes at /sys/kernel/btf/vmlinux)"
else
	fail "bpf: no /sys/kernel/btf/vmlinux in the lab kernel"
fi

# kprobes_clean NAME: no kprobe left (perf kprobes are not in kprobe_events)
kprobes_clean() {
	if [ ! -r $KPL ]; then
		note "$1: no $KPL to check"
	elif [ -s $KPL ]; then
		fail "$1: kprobes left: $(head -c 200 $KPL)"
	else
		ok "$1: no kprobe left ($KPL empty)"
	fi
}

# kf_record NAME ENV-ASSIGNMENT EXPECTED-STDERR-LINE
kf_record() {
	env $2 $FT record -v -o /tmp/$1.dat --bpf syscalls,kfunc=do_sys_openat2 -- cat /proc/version \
		>/tmp/$1.out 2>$OUT/$1.err
	rc=$?
	if [ $rc = 0 ] && grep -q "$3" $OUT/$1.err && ! grep -q 'warning' $OUT/$1.err &&
		grep -q '^Linux version' /tmp/$1.out; then
		ok "bpf: $1: --bpf syscalls,kfunc=do_sys_openat2 -- cat /proc/version: '$(grep -m1 'bpf: kfunc' $OUT/$1.err | sed 's/^flytrap: //')'"
		ship $1.dat
	else
		fail "bpf: $1 (exit $rc): $(grep -v '^flytrap:  ' $OUT/$1.err | head -c 400)"
	fi
	same_state "bpf $1"
	kprobes_clean "bpf $1"
}

kf_record kfunc-fentry FLYTRAP_BPF_NO_FENTRY= 'bpf: kfunc: 1 function hooked with fentry/fexit'
kf_record kfunc-kprobe FLYTRAP_BPF_NO_FENTRY=1 'bpf: kfunc: fentry off (disabled by FLYTRAP_BPF_NO_FENTRY), using kprobes'

# SIGKILL in the middle: the kernel drops the programs with the process;
# only the tracefs instance stays, for flytrap reset.  kprobe mode: the
# one with kernel objects (kprobes) besides the BPF ones.
FLYTRAP_BPF_NO_FENTRY=1 $FT record -o /tmp/kfkill.dat --bpf kfunc=do_sys_openat2+do_filp_open 2>/tmp/kfkill.err &
pid=$!
if wait_recording /tmp/kfkill.err; then
	hooked=$(grep -c 'do_sys_openat2\|do_filp_open' $T/enabled_functions)/$(grep -c 'do_sys_openat2\|do_filp_open' $KPL 2>/dev/null)
	kill -9 $pid
	wait $pid
	$FT reset >/tmp/kfreset.txt 2>&1
	note "bpf SIGKILL: hooked while recording (enabled_functions/kprobes): $hooked; reset: $(tr '\n' ';' </tmp/kfreset.txt | head -c 200)"
	case $hooked in
	0/*|*/0|*/) fail "bpf SIGKILL: the functions were not hooked while recording ($hooked)" ;;
	esac
else
	kill -9 $pid
	wait $pid
	fail "bpf SIGKILL: never started: $(head -c 300 /tmp/kfkill.err)"
	$FT reset >/dev/null 2>&1
fi
$FT recover /tmp/kfkill.dat >/tmp/kfrecover.txt 2>&1 && ok "bpf SIGKILL: flytrap recover of the killed recording" ||
	fail "bpf SIGKILL: flytrap recover /tmp/kfkill.dat: $(head -c 300 /tmp/kfrecover.txt)"
same_state "bpf kprobe SIGKILL + flytrap reset + recover"
kprobes_clean "bpf kprobe SIGKILL"

# A user's own kprobe and fentry objects (record --bpf-object; tests/live/bpfobj/kfunc.bpf.c,
# compiled on the host by 10-kernel-lab.sh): the build machines' kernel refuses both
# (tests/live/35 SKIPs there); here the object's map counts the opens of a command that
# opens a file 100 times, and nothing stays loaded or hooked afterwards.
for kind in kprobe fentry; do
	[ -f /lab/$kind.bpf.o ] || { note "bpf object: no /lab/$kind.bpf.o (no clang on the host)"; continue; }
	$FT record -q -o /tmp/obj-$kind.dat --bpf-object /lab/$kind.bpf.o -- \
		sh -c 'i=0; while [ $i -lt 100 ]; do : < /etc/hostname; i=$((i + 1)); done' \
		>/tmp/obj-$kind.out 2>/tmp/obj-$kind.err
	rc=$?
	n=$($FT sql --csv -c "select max(value_int) from bpf_map where map = '$kind/opens'" \
		/tmp/obj-$kind.dat 2>/tmp/obj-$kind.sql | tail -n 1)
	if [ $rc = 0 ] && [ "${n:-0}" -ge 100 ] 2>/dev/null; then
		ok "bpf object: record --bpf-object $kind.bpf.o: its map counted the command's $n opens"
	else
		fail "bpf object $kind: exit $rc, opens '${n}': $(head -c 300 /tmp/obj-$kind.err) $(head -c 200 /tmp/obj-$kind.sql)"
	fi
	same_state "bpf object $kind"
	kprobes_clean "bpf object $kind"
done
