# SPDX-License-Identifier: GPL-2.0-only
# Sourced by guest.sh instead of its checks when the host runs
# FLYTRAP_LAB_BENCH=1 bash tests/lab/10-kernel-lab.sh: the per-call cost of
# BPF kfunc tracing through fentry/fexit and through kprobes.
#
# /lab/openloop opens and closes a file N times and prints its own CPU time
# (the BPF programs run in its context, as system time), alone and under
# `flytrap record --bpf kfunc=do_sys_openat2` in each mode, in rounds.
# This boot runs qemu with -icount shift=0: guest time is the instruction
# count (1 ns per instruction), so the numbers do not move with the host's
# load, but they are TCG instruction counts, not hardware time: compare
# them with each other only.
FT=/bin/flytrap
N=${BENCH_N:-5000}
bench() {	# ROUND MODE [FLYTRAP_BPF_NO_FENTRY value]
	if [ "$2" = none ]; then
		/lab/openloop $N /etc/lab-file >/tmp/bench.txt 2>&1
	else
		env FLYTRAP_BPF_NO_FENTRY=$3 $FT record -q -o /tmp/bench.dat --bpf kfunc=do_sys_openat2 -- \
			/lab/openloop $N /etc/lab-file >/tmp/bench.txt 2>/tmp/bench.err
		$FT info /tmp/bench.dat >/tmp/bench.info 2>&1
		em=$(sed -n 's/.*bpf_kfunc_emitted=\([0-9]*\).*/\1/p' /tmp/bench.info | head -n 1)
		drops=$(sed -n 's/.*bpf_kfunc_drops=\([0-9]*\).*/\1/p' /tmp/bench.info | head -n 1)
		mode=$(sed -n 's/.*bpf_kfunc_attach=\([a-z]*\).*/\1/p' /tmp/bench.info | head -n 1)
		if [ "$mode" = "$2" ] && [ "${em:-0}" -ge $((2 * N)) ] && [ "${drops:-1}" = 0 ]; then
			ok "bench $1 $2: $em records, none lost"
		else
			fail "bench $1 $2: attach '$mode', $em records ($drops lost) for $N calls: $(head -c 200 /tmp/bench.err)"
		fi
		rm -f /tmp/bench.dat
	fi
	echo "bench $1 $2 $(cat /tmp/bench.txt)" >>$OUT/bench.txt
}
if [ -x /lab/openloop ] && [ -x $FT ]; then
	for r in 1 2 3; do
		bench $r none
		bench $r fentry ""
		bench $r kprobe 1
	done
	note "bench: $(wc -l <$OUT/bench.txt) runs of $N open/close calls"
	same_state "bpf bench"
else
	fail "bench: /lab/openloop or $FT missing"
fi
