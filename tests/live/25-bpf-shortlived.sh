#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Short-lived processes: 30 runs of /bin/true under --bpf syscalls each
# leave their executable mappings in the file (reported by the kernel as
# they exit, because they are usually gone before the recorder drains
# their first record), so their user addresses stay resolvable; none is
# counted as missed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
TRUE=$(readlink -f "$(type -P true)")
cd "$TMP"
"$FLYTRAP" record -q --bpf syscalls -o s.dat -- sh -c 'i=0; while [ $i -lt 30 ]; do '"$TRUE"'; i=$((i + 1)); done' \
	>/dev/null 2>rec.err
rc=$?
[ $rc = 0 ] && ! grep -q "not loaded" rec.err || { cat rec.err; fail "record exited $rc"; finish; }
"$DUMP" s.dat >d.txt || fail "bpf_dump reports damage"
state=$(meta d.txt bpf_exitmaps)
[ "$state" = on ] || skip "exit-time maps not available on this kernel: $state"
# processes that ran $TRUE (their syscall records) vs. those with its mapping
ran=$(awk '$1=="ev" && $2=="syscall" && $7=="nr=59" && /ret=0/ {print $5}' d.txt | sort -u | wc -l)
mapped=$(awk -v t="$TRUE" '$1=="map" && $5==t {print $2}' d.txt | sort -u | wc -l)
withlibc=$(awk '$1=="map" && $5 ~ /\/libc\.so/ {print $2}' d.txt | sort -u | wc -l)
echo "execs=$ran mapped=$mapped with-libc=$withlibc"
[ "$mapped" -ge 30 ] && ok "$mapped processes with $TRUE mapped" || fail "only $mapped of 30 runs have $TRUE in their maps"
[ "$withlibc" -ge 30 ] && ok "their libc mappings too ($withlibc)" || fail "only $withlibc processes with libc mapped"
[ "$(meta d.txt bpf_procs_gone)" = 0 ] && ok "no process missed" ||
	fail "$(meta d.txt bpf_procs_gone) processes missed"
grep -q "^buildid $TRUE " d.txt && ok "build-id of $TRUE stored" || fail "no build-id for $TRUE"
finish
