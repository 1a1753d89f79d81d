# SPDX-License-Identifier: GPL-2.0-only
# Sourced by 10-kernel-lab.sh for 30-last-boot.sh: the file the guest saved
# with `flytrap recover --last-boot`, read here by trace-cmd (Debian 12's,
# and Debian 13's when its root can be had) and by every flytrap reader.
# The oracles: the kernel's own text of the previous boot's buffer
# (kernel-trace.txt, read before the save), and what the workload did.
F=$G/lastboot.dat
KT=$G/kernel-trace.txt
echo "last_boot_info: $(tr '\n' ' ' <"$G/last_boot_info.txt")"
sed 's/^/  recover| /' "$G/recover.txt"
if [ ! -s "$F" ]; then
	fail "last boot: no file came out of the guest"
	return 0
fi

# the events: as many as the kernel held, the same time stamps
kn=$(sed -n 's/^# entries-in-buffer\/entries-written: \([0-9]*\)\/.*/\1/p' "$KT")
fn=$("$FLYTRAP" info --json "$F" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
[ -n "$kn" ] && [ "$kn" = "$fn" ] && ok "last boot: $fn events, as many as the kernel's buffer held" ||
	fail "last boot: the file has $fn events, the kernel's buffer $kn"
grep -v '^#' "$KT" | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { print $i; break }}' | sort >"$TMP/kt-ts"
trace-cmd report "$F" >"$TMP/tc.txt" 2>"$TMP/tc.err"
rc=$?
awk '{for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { print $i; break }}' "$TMP/tc.txt" | sort >"$TMP/tc-ts"
[ $rc = 0 ] && [ -s "$TMP/tc-ts" ] && cmp -s "$TMP/kt-ts" "$TMP/tc-ts" &&
	ok "last boot: trace-cmd report (Debian 12) lists the kernel's events, time stamps equal ($(wc -l <"$TMP/tc-ts"))" ||
	fail "last boot: trace-cmd report (exit $rc, $(head -c 200 "$TMP/tc.err")): $(diff "$TMP/kt-ts" "$TMP/tc-ts" | head -4)"

# the workload, from before the reboot
n_exec=$(grep -c 'sched_process_exec:.*filename=/bin/sleep' "$TMP/tc.txt")
grep -q 'flytrap-lab-lastboot-begin' "$TMP/tc.txt" && grep -q 'flytrap-lab-lastboot-end' "$TMP/tc.txt" &&
	[ "$n_exec" = 3 ] && ok "last boot: the workload's markers and its 3 execs of /bin/sleep" ||
	fail "last boot: markers or execs missing (execs of /bin/sleep: $n_exec)"

# kernel functions named as the previous kernel had them: every timer and
# work function has a name, and RCU's grace-period thread sleeps in
# schedule_timeout(), whose timer function is process_timeout
grep -E 'timer_start:|workqueue_execute_start:' "$TMP/tc.txt" >"$TMP/fn.txt"
nfn=$(grep -c . "$TMP/fn.txt")
nhex=$(grep -cE 'function[= ]0x[0-9a-f]+' "$TMP/fn.txt")
[ "$nfn" -gt 0 ] && [ "$nhex" = 0 ] &&
	grep -qE '^ *rcu_preempt-[0-9]+ .*timer_start:.*function=process_timeout' "$TMP/fn.txt" &&
	ok "last boot: $nfn timer and work functions named (rcu_preempt's timer: process_timeout)" ||
	fail "last boot: function names ($nhex of $nfn hex): $(grep -m 2 -E 'function[= ]0x|rcu_preempt' "$TMP/fn.txt")"
# the kernel's text has the raw values; the file's events carry the same ones
# (the timer's own address: a data pointer, printed as it is)
kt=$(grep -o 'timer_start: timer=0x[0-9a-f]*' "$KT" | sed 's/.*timer=//' | tr '\n' ' ')
tt=$(grep -o 'timer_start: *timer=0x[0-9a-f]*' "$TMP/tc.txt" | sed 's/.*timer=//' | tr '\n' ' ')
[ -n "$kt" ] && [ "$kt" = "$tt" ] &&
	ok "last boot: the timers' addresses are the kernel's ($(echo $kt | wc -w))" ||
	fail "last boot: timer addresses: kernel ${kt:0:80}, file ${tt:0:80}"
# the file says where it comes from
"$FLYTRAP" info "$F" >"$TMP/info.txt" 2>&1
grep -q '^last boot: *instance "flytrap_boot": text delta' "$TMP/info.txt" &&
	ok "last boot: info shows LAST_BOOT_INFO ($(grep '^last boot' "$TMP/info.txt" | head -c 80))" ||
	fail "last boot: info: $(grep -i boot "$TMP/info.txt" | head -3)"
# every reader takes it
for c in verify drops overhead callgraph "sql -c 'select count(*) from ftrace_event'"; do
	eval "\"\$FLYTRAP\" $c \"\$F\"" >"$TMP/r.txt" 2>&1 || fail "last boot: flytrap $c: $(head -c 200 "$TMP/r.txt")"
done
ok "last boot: verify, drops, overhead, callgraph and sql read it"

"$FLYTRAP" drops "$F" >"$TMP/drops.txt" 2>&1
grep -qE 'total lost: +0' "$TMP/drops.txt" && ! grep -qE 'unread at the end: +[1-9]' "$TMP/drops.txt" &&
	ok "last boot: drops counts nothing unread (the buffer was read to its end)" ||
	fail "last boot: drops: $(grep -E 'unread|total' "$TMP/drops.txt")"

# shared as users share files: redacted (the old kernel's address goes), cut
"$FLYTRAP" redact "$F" -o "$TMP/lb-red.dat" >/dev/null 2>"$TMP/red.err" &&
	! "$FLYTRAP" info "$TMP/lb-red.dat" | grep -q '^last boot:' &&
	trace-cmd report "$TMP/lb-red.dat" 2>/dev/null | grep -qE 'rcu_preempt-[0-9]+ .*timer_start:.*function=process_timeout|~[0-9a-f]+-[0-9]+ .*timer_start:.*function=process_timeout' &&
	ok "last boot: redact drops LAST_BOOT_INFO and keeps the function names" ||
	fail "last boot: redact: $(head -c 200 "$TMP/red.err")"
mid=$(awk 'NR == 1 { a = $1 } { z = $1 } END { printf "%.6f", (a + z) / 2 }' "$TMP/tc-ts" | tr -d :)
"$FLYTRAP" slice "$F" --from "$mid" -o "$TMP/lb-cut.dat" >/dev/null 2>"$TMP/cut.err" &&
	trace-cmd report "$TMP/lb-cut.dat" 2>/dev/null | grep -q 'function=[a-z_]' &&
	ok "last boot: slice --from $mid keeps the kernel names" ||
	fail "last boot: slice: $(head -c 200 "$TMP/cut.err")"

# FLYTRAP_LAB_UPDATE_GOLDEN=1: the file becomes tests/data/lab-lastboot.dat (the offline tests')
if [ "${FLYTRAP_LAB_UPDATE_GOLDEN:-0}" = 1 ]; then
	cp "$F" "$TOP/tests/data/lab-lastboot.dat" && chmod 644 "$TOP/tests/data/lab-lastboot.dat" &&
		echo "note: tests/data/lab-lastboot.dat updated"
fi

# Debian 13's trace-cmd 3.3.1, where its root is cached (tests/tc33.sh)
if [ -f "$TOP/tests/tc33.sh" ]; then
	. "$TOP/tests/tc33.sh"
	if tc33_make >/dev/null 2>&1; then
		tc33 report "$F" >"$TMP/tc33.txt" 2>&1
		grep -qE '^ *rcu_preempt-[0-9]+ .*timer_start:.*function=process_timeout' "$TMP/tc33.txt" &&
			ok "last boot: trace-cmd 3.3.1 names the functions too" ||
			fail "last boot: trace-cmd 3.3.1: $(head -c 200 "$TMP/tc33.txt")"
	else
		echo "note: no Debian 13 root for trace-cmd 3.3.1: its check not run"
	fi
fi
