# SPDX-License-Identifier: GPL-2.0-only
# Sourced by 10-kernel-lab.sh: the host's trace-cmd reads the file that
# flytrap-static recorded in the lab's busybox initramfs (guest-static.sh):
# cat's raw_syscalls, sched events, and BPF syscall records of cat.
if [ ! -f "$G/static.dat" ]; then
	fail "static.dat: not brought out of the guest"
elif ! trace-cmd report "$G/static.dat" >"$TMP/static.txt" 2>"$TMP/static.tc.err"; then
	fail "static.dat: trace-cmd report failed: $(head -c 200 "$TMP/static.tc.err")"
else
	nsys=$(grep -c '^ *cat-[0-9]* .* sys_enter: ' "$TMP/static.txt")
	nsched=$(grep -c ' sched_[a-z_]*: ' "$TMP/static.txt")
	nbpf=$(grep -c '^flytrap-bpf: *cat-[0-9]* .* syscall: ' "$TMP/static.txt")
	[ "$nsys" -gt 0 ] && [ "$nsched" -gt 0 ] && [ "$nbpf" -gt 0 ] &&
		ok "static.dat (6.1 guest): trace-cmd reads $nsys sys_enter of cat, $nsched sched events, $nbpf BPF syscall records of cat" ||
		fail "static.dat: sys_enter of cat $nsys, sched $nsched, BPF syscall records of cat $nbpf"
	grep -q 'UNKNOWN EVENT' "$TMP/static.txt" && fail "static.dat: trace-cmd prints [UNKNOWN EVENT]"
fi
