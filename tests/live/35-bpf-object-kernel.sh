#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# record --bpf-object with kprobe and fentry programs (tests/live/bpfobj/
# kfunc.bpf.c, compiled twice): where the kernel allows them, the object's
# map counts the opens of a command that opens a file 100 times; where it
# refuses them (the build machines: no kprobes, fentry EPERM), the
# recording fails with exit 1 and one line naming the program, its section
# and the kernel's reason, nothing stays loaded, and the test SKIPs with
# that reason.  The qemu lab (docs/kernel-lab.md) has both.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf_object
cd "$TMP" || exit 1
export TMPDIR=$TMP

bpfobj_cc kfunc kprobe.bpf.o && bpfobj_cc kfunc fentry.bpf.o -DUSE_FENTRY || { fail "clang cannot build kfunc.bpf.c"; exit 1; }

refused=
for kind in kprobe fentry; do
	"$FLYTRAP" record -q -o $kind.dat --bpf-object $kind.bpf.o -- \
		sh -c 'i=0; while [ $i -lt 100 ]; do : < /etc/hostname; i=$((i + 1)); done' \
		>$kind.out 2>$kind.err
	rc=$?
	if [ $rc = 0 ]; then
		n=$("$FLYTRAP" sql -c "select max(value_int) from bpf_map where map = 'kprobe/opens' or map = 'fentry/opens'" --csv $kind.dat | tail -1)
		[ "${n:-0}" -ge 100 ] && ok "$kind: the command's opens counted ($n)" || fail "$kind: opens $n"
	elif [ $rc = 1 ] && [ "$(wc -l <$kind.err)" = 1 ] &&
		grep -q "program 'ftt_${kind}_open' (section $kind/do_sys_openat2): " $kind.err; then
		ok "$kind refused in one line: $(cat $kind.err)"
		refused="$refused $kind: $(sed 's/.*(section [^)]*): //' $kind.err);"
		[ -e $kind.dat ] && fail "$kind: a refused recording left its output"
	else
		fail "$kind: exit $rc: $(head -3 $kind.err)"
	fi
	[ -z "$(ours)" ] || fail "$kind: left loaded: $(ours)"
done
[ "$fails" = 0 ] && [ -n "$refused" ] && skip "this kernel refuses$refused (the qemu lab allows them)"
finish
