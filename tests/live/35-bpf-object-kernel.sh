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
need_root
need_tracefs
need_cmd clang
need_cmd bpftool
need_cmd jq
[ -x "$FLYTRAP" ] || skip "flytrap not built"
[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF"
case $(uname -m) in x86_64) barch=x86 ;; aarch64) barch=arm64 ;; *) skip "no vmlinux.h for $(uname -m)" ;; esac
VMH=$TOP/bpf/vmlinux/$barch
SRC=$(cd "$(dirname "$0")/bpfobj" && pwd)
cd "$TMP" || exit 1
export TMPDIR=$TMP
ours() { bpftool -j prog show 2>/dev/null | jq -r '.[] | select((.name // "") | startswith("ftt_")) | "\(.id) \(.name)"'; }

clang -g -O2 -target bpf -D__TARGET_ARCH_$barch -I"$VMH" -c "$SRC/kfunc.bpf.c" -o kprobe.bpf.o &&
	clang -g -O2 -target bpf -DUSE_FENTRY -D__TARGET_ARCH_$barch -I"$VMH" -c "$SRC/kfunc.bpf.c" \
		-o fentry.bpf.o || { fail "clang cannot build kfunc.bpf.c"; exit 1; }

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
