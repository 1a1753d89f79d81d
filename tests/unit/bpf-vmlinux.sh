#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Every BPF program compiles against every checked-in vmlinux.h
# (bpf/vmlinux/ARCH/vmlinux.h) with that architecture's __TARGET_ARCH, so a
# build for x86 or arm64 needs no BTF on the build machine.
. "$(dirname "$0")/../lib.sh"
need_cmd clang
[ -d /usr/include/bpf ] || skip "libbpf headers are not installed (libbpf-dev)"
n=0
for h in "$TOP"/bpf/vmlinux/*/vmlinux.h; do
	arch=$(basename "$(dirname "$h")")
	for p in "$TOP"/bpf/*.bpf.c; do
		if clang -g -O2 -target bpf -D__TARGET_ARCH_"$arch" -I"$(dirname "$h")" -I"$TOP/bpf" \
			-Wall -Werror -c "$p" -o "$TMP/$arch-$(basename "$p" .c).o" 2>"$TMP/err"; then
			n=$((n + 1))
		else
			fail "$(basename "$p") does not compile against $arch/vmlinux.h: $(head -n 3 "$TMP/err")"
		fi
	done
	ok "$arch: $(ls "$TMP"/"$arch"-*.o 2>/dev/null | wc -l) programs compiled"
done
[ $n -gt 0 ] || fail "nothing compiled"
finish
