#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A shipped `flytrap recover --last-boot` file (tests/data/lab-lastboot.dat:
# Linux 6.12 under qemu, tests/lab/30-last-boot.sh with
# FLYTRAP_LAB_UPDATE_GOLDEN=1) through the readers and the sharing chain,
# without the lab: kernel functions named as the previous boot had them by
# trace-cmd and flytrap, the LAST_BOOT_INFO option shown by info and kept by
# slice and convert, dropped by redact (a KASLR address) with the names kept.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd trace-cmd
F=tests/data/lab-lastboot.dat
named() {	# named FILE LABEL: rcu_preempt's timer is process_timeout; no function left as hex
	trace-cmd report "$1" >"$TMP/tc.txt" 2>/dev/null
	grep -qE '^ *(rcu_preempt|~[0-9a-f]+)-[0-9]+ .*timer_start:.*function=process_timeout' "$TMP/tc.txt" &&
		! grep -E 'timer_start:|workqueue_execute_start:' "$TMP/tc.txt" | grep -qE 'function[= ]0x' &&
		ok "$2: trace-cmd names the previous boot's functions" ||
		fail "$2: $(grep -m 2 -E 'timer_start|workqueue_execute_start' "$TMP/tc.txt")"
}
named "$F" "the shipped file"
"$FLYTRAP" report --compat 3.1 "$F" >"$TMP/ft.txt" 2>&1
cmp -s "$TMP/tc.txt" "$TMP/ft.txt" && ok "flytrap report --compat 3.1 = trace-cmd 3.1.6" ||
	fail "the listings differ: $(diff "$TMP/tc.txt" "$TMP/ft.txt" | head -4)"
"$FLYTRAP" info "$F" >"$TMP/info.txt"
grep -q '^last boot: *instance "flytrap_boot": text delta:' "$TMP/info.txt" &&
	grep -q 'last_boot_kallsyms=previous-boot' "$TMP/info.txt" &&
	ok "info: the instance, the kernel's last_boot_info, kallsyms moved" ||
	fail "info: $(grep -i boot "$TMP/info.txt")"
"$FLYTRAP" slice "$F" --from 0 -o "$TMP/s.dat" >/dev/null 2>"$TMP/e" && "$FLYTRAP" convert "$TMP/s.dat" -o "$TMP/c.dat" >/dev/null 2>>"$TMP/e" &&
	"$FLYTRAP" info "$TMP/c.dat" | grep -q '^last boot: *instance "flytrap_boot"' &&
	ok "slice, then convert: LAST_BOOT_INFO kept" || fail "slice/convert: $(head -c 200 "$TMP/e")"
named "$TMP/c.dat" "sliced and converted"
"$FLYTRAP" redact "$F" -o "$TMP/r.dat" >/dev/null 2>"$TMP/e" || fail "redact: $(head -c 200 "$TMP/e")"
! "$FLYTRAP" info "$TMP/r.dat" | grep -q '^last boot:' && ok "redact drops LAST_BOOT_INFO" ||
	fail "redact kept LAST_BOOT_INFO"
named "$TMP/r.dat" "redacted"
finish
