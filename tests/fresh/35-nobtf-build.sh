#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A build machine without BTF (a container, a build server) still gives a
# recorder whose BPF programs load: flytrap is built in a mount namespace
# where /sys/kernel/btf is hidden (so only the checked-in
# bpf/vmlinux/ARCH/vmlinux.h can give the kernel types), then that binary
# records with --bpf syscalls on this kernel.  And a target without BTF
# still records the ftrace events, saying in one line what it could not do.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
[ -e /sys/kernel/btf/vmlinux ] || skip "this kernel has no BTF: the BPF programs cannot load here"
arch=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
[ -f "$TOP/bpf/vmlinux/$arch/vmlinux.h" ] || skip "no checked-in bpf/vmlinux/$arch/vmlinux.h"

hide_btf() { mount -t tmpfs -o size=1m,mode=0755 nobtf /sys/kernel/btf; }
B=$TMP/build
t0=$(date +%s)
unshare -m --propagation private bash -c "$(declare -f hide_btf); hide_btf || exit 9
	[ ! -e /sys/kernel/btf/vmlinux ] || exit 8
	bpftool btf dump file /sys/kernel/btf/vmlinux format c >/dev/null 2>&1 && exit 7
	make -C '$TOP' --no-print-directory -j2 O='$B' '$B/flytrap'" >"$TMP/make.log" 2>&1
rc=$?
case $rc in
0) ok "built with /sys/kernel/btf hidden ($(($(date +%s) - t0)) s)" ;;
9|8|7) skip "cannot hide /sys/kernel/btf in a mount namespace (exit $rc)" ;;
*) tail -n 20 "$TMP/make.log"; echo "FAIL: the build without BTF failed"; exit 1 ;;
esac
grep -q ' BTF ' "$TMP/make.log" && fail "the build dumped the machine's BTF"

cd "$TMP"
"$B/flytrap" record -e raw_syscalls:sys_enter --bpf syscalls -o bpf.dat -- ls -R /usr/share/doc \
	>/dev/null 2>rec.err
rc=$?
[ $rc = 0 ] && ok "its recorder runs (exit 0)" || fail "record exited $rc: $(head -c 300 rec.err)"
grep -q 'BPF programs not loaded' rec.err && fail "BPF did not load: $(grep -m1 'BPF' rec.err)"
n=$(trace-cmd report bpf.dat 2>/dev/null | grep -c '^flytrap-bpf: .* syscall: ')
[ "$n" -gt 0 ] && ok "its BPF programs load and record: $n syscall records (trace-cmd)" ||
	fail "no BPF syscall records"

# the target side: no BTF there
unshare -m --propagation private bash -c "$(declare -f hide_btf); hide_btf || exit 9
	'$B/flytrap' record -e raw_syscalls:sys_enter --bpf syscalls -o nobtf.dat -- ls -R /usr/share/doc" \
	>/dev/null 2>nobtf.err
rc=$?
sed 's/^/  | /' nobtf.err
[ $rc = 0 ] && ok "without BTF, record still exits 0" || fail "without BTF, record exited $rc"
# flytrap's own word is one warning; libbpf prints its own lines before it
# (record/ does not silence them yet: reported, not fixed here)
[ "$(grep -c '^flytrap: warning: BPF programs not loaded' nobtf.err)" = 1 ] &&
	ok "and flytrap says so in one warning ($(grep -c '^libbpf: ' nobtf.err) lines from libbpf besides)" ||
	fail "no one-line warning that BPF was not loaded"
n=$(trace-cmd report nobtf.dat 2>/dev/null | grep -c ' sys_enter: ')
[ "$n" -gt 0 ] && ok "and records the ftrace events ($n sys_enter)" || fail "no ftrace events without BTF"
finish
