#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Syscall names by architecture: raw_syscalls events carry only the number,
# and the number means another call on each machine (getpid is 39 on x86_64,
# 172 on arm64 and riscv64, 20 on i386, arm, ppc64 and s390x).  A synthetic
# file per architecture (its uname names the machine) calls getpid, read and
# one call that exists on that machine only; overhead --json must name each,
# with each count.  A machine flytrap has no table for prints syscall_N.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
MK=$TOP/$O/tests/tools/mksynth
[ -x "$MK" ] || skip "no $MK"

# uname | getpid read third | the third's name
cases='
Linux h 6.1.0 #1 SMP PREEMPT_DYNAMIC x86_64|39 0 311|process_vm_writev
Linux h 4.19.0 #1 SMP i686|20 3 243|set_thread_area
Linux h 6.6.0 #1 SMP PREEMPT aarch64|172 63 98|futex
Linux h 5.10.0 #1 SMP armv7l|20 3 270|arm_fadvise64_64
Linux h 6.8.0 #1 SMP riscv64|172 63 259|riscv_flush_icache
Linux h 6.1.0 #1 SMP ppc64le|20 3 363|switch_endian
Linux h 6.1.0 #1 SMP s390x|20 3 7|restart_syscall
'
n=0
while IFS='|' read -r un nrs third; do
	[ -n "$un" ] || continue
	arch=${un##* }
	# shellcheck disable=SC2086
	"$MK" "$TMP/$arch.dat" syscalls "$un" $nrs || { fail "$arch: mksynth"; continue; }
	"$FLYTRAP" overhead --json "$TMP/$arch.dat" > "$TMP/$arch.json" || { fail "$arch: overhead"; continue; }
	got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s=%d" % (s["name"], s["count"]) for s in sorted(d["syscalls"], key=lambda s: s["count"])))' "$TMP/$arch.json")
	want="getpid=1 read=2 $third=3"
	if [ "$got" = "$want" ]; then n=$((n + 1)); else fail "$arch: '$got', want '$want'"; fi
done <<< "$cases"
ok "$n architectures name getpid, read and a call of their own"

# no table: the number, as syscall_N
"$MK" "$TMP/mips.dat" syscalls "Linux h 5.4.0 #1 SMP mips" 4020 || fail "mips: mksynth"
got=$("$FLYTRAP" overhead --json "$TMP/mips.dat" | python3 -c '
import json, sys
print(" ".join(str(s["name"]) for s in json.load(sys.stdin)["syscalls"]))')
case "$got" in
syscall_4020) ok "a machine without a table: syscall_4020" ;;
*) fail "mips: '$got', want syscall_4020" ;;
esac
finish
