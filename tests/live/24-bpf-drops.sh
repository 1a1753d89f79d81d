#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Overflow a deliberately small BPF ring buffer with a syscall storm: the
# drop counts stored in the file equal the reservations the program failed
# (its own per-CPU counter), the records in the file equal the ones it
# committed, records + drops account for every syscall of the workload,
# and the losses are visible per CPU and time window (and to flytrap drops).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
case $(uname -m) in
x86_64) NR=110 ;;
aarch64) NR=173 ;;
*) skip "getppid syscall number unknown for $(uname -m)" ;;
esac
N=1500000	# long enough (about 1 s) for the losses to span several sampling windows
cd "$TMP"
"$FLYTRAP" record -q --bpf syscalls,ringbuf=4K -o o.dat -- "$WORKLOAD" storm $N >w.out 2>rec.err
rc=$?
[ $rc = 0 ] && ! grep -q "not loaded" rec.err || { cat rec.err; fail "record exited $rc"; finish; }
pid=$(awk '/^pid/{print $2}' w.out)
"$DUMP" o.dat >d.txt || fail "bpf_dump reports damage"

drops=$(meta d.txt bpf_syscalls_drops)
emitted=$(meta d.txt bpf_syscalls_emitted)
windows=$(awk '$1=="drop" && $4==0 {s += $5; n++} END {print n+0, s+0}' d.txt)
read -r nwin wsum <<<"$windows"
records=$(grep -c '^ev syscall ' d.txt)
mine=$(awk -v p="$pid" -v nr="$NR" '$1=="ev" && $2=="syscall" && $5==p && $7=="nr=" nr' d.txt | wc -l)
echo "drops=$drops emitted=$emitted windows=$nwin sum=$wsum records=$records getppid=$mine"
[ "${drops:-0}" -gt 0 ] && ok "the small ring buffer overflowed ($drops failed reservations)" ||
	fail "no drops counted (drops='$drops')"
[ "$wsum" = "$drops" ] && ok "stored drop windows sum to the program's failure count ($wsum)" ||
	fail "drop windows sum $wsum, program counted $drops"
[ "$records" = "$emitted" ] && ok "records in the file = records the program committed ($records)" ||
	fail "$records records in the file, program committed $emitted"
# (the workload's other syscalls, start-up included, are the slack: a few
# dozen, a few hundred under ASan)
total=$((records + drops))
[ $((mine + drops)) -ge $N ] && [ $total -le $((N + 2000)) ] &&
	ok "records + drops = $total account for the $N syscalls of the workload" ||
	fail "records + drops = $total (getppid records $mine) for $N syscalls"
[ "$nwin" -ge 2 ] && ok "losses stored in $nwin windows" || fail "only $nwin drop windows"
ncpu=$(nproc --all)
awk -v c="$ncpu" '$1=="drop" && ($3 >= c || $5 <= 0) {bad++} END {exit bad > 0}' d.txt &&
	ok "every window names a valid CPU and a positive count" || fail "bad drop window"
first=$(awk '$1=="ev"{print $3; exit}' d.txt)
awk -v f="$first" '$1=="drop" && $2 < f {bad++} END {exit bad > 0}' d.txt &&
	ok "drop windows lie on the trace's time line" || fail "a drop window before the first record"
# every program's losses (the exit-time mapping records can overflow too)
all=$(awk '$1=="drop" {s += $5} END {print s + 0}' d.txt)
if "$FLYTRAP" drops o.dat >dr.txt 2>&1; then
	grep -qE "BPF ring buffer: +$all\b" dr.txt && ok "flytrap drops shows the $all BPF drops" ||
		fail "flytrap drops: $(grep -i bpf dr.txt | head -2), stored $all"
else
	fail "flytrap drops failed: $(head -2 dr.txt)"
fi
finish
