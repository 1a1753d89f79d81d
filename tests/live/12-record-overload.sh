#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A deliberately overloaded recording (tiny buffer, two processes hammering
# syscalls): losses are reported, and per CPU the lost counts carried by the
# pages equal the kernel's overrun counter, and the events in the file equal
# its "read events" -- both taken from the CPU stats stored in the file.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$STORM" ] || skip "syscall_storm not built"
cd "$TMP"

"$FLYTRAP" record -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -b 8 -o o.dat -- \
	"$STORM" 150000 2 >/dev/null 2>rec.err
rc=$?
[ $rc = 0 ] && ok "record exits 0" || { fail "record exit $rc"; cat rec.err; finish; }
lost=$(awk '/^flytrap: wrote/ { for (i = 1; i <= NF; i++) if ($i ~ /^lost/) print $(i - 1) }' rec.err)
[ -n "$lost" ] && [ "$lost" -gt 0 ] && ok "summary reports $lost lost events" ||
	{ fail "no loss reported"; cat rec.err; }

trace-cmd report -i o.dat >tc.txt 2>/dev/null || fail "trace-cmd report failed"
trace-cmd report --stat -i o.dat >stat.txt 2>/dev/null
total_overrun=0
for cpu in $(awk '/^CPU: /{print $2}' stat.txt); do
	overrun=$(awk -v c="$cpu" '/^CPU: /{cur=$2} /^overrun:/ && cur==c {print $2}' stat.txt)
	read_ev=$(awk -v c="$cpu" '/^CPU: /{cur=$2} /^read events:/ && cur==c {print $3}' stat.txt)
	total_overrun=$((total_overrun + overrun))
	dropped=$(grep -E "^CPU:$cpu \[[0-9]* ?EVENTS DROPPED\]" tc.txt |
		sed -E 's/.*\[([0-9]*) ?EVENTS DROPPED\]/\1/' |
		awk '{ if ($1 == "") u++; else s += $1 } END { printf "%d %d", s, u }')
	known=${dropped% *}
	unknown=${dropped#* }
	if [ "$unknown" = 0 ]; then
		[ "$known" = "$overrun" ] && ok "CPU $cpu: $known lost in pages = kernel overrun" ||
			fail "CPU $cpu: pages say $known lost, kernel overrun $overrun"
	else
		[ "$known" -le "$overrun" ] && ok "CPU $cpu: $known counted + $unknown uncounted losses, overrun $overrun" ||
			fail "CPU $cpu: pages say $known lost, more than the kernel's overrun $overrun"
	fi
	got=$(grep -cE "^ *.+ \[0*$cpu\] +[0-9]+\.[0-9]+: " tc.txt)
	[ "$got" = "$read_ev" ] && ok "CPU $cpu: $got events = kernel read events" ||
		fail "CPU $cpu: $got events in the file, kernel read events $read_ev"
done
[ "$total_overrun" -gt 0 ] && ok "the kernel counted overruns" || fail "no overrun in the stored stats"
[ "$total_overrun" = "$lost" ] && ok "summary total = stored overruns" || fail "summary $lost, stats $total_overrun"
finish
