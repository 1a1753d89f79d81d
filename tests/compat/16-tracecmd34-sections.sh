#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# trace-cmd 3.4's v7 sections (trace-cmd.dat.v7(5), trace-cmd 3.4,
# February 2026): BTF_FILE (option and section 23, the host's
# /sys/kernel/btf/vmlinux), LAST_BOOT_INFO (option 24, "instance:" and a
# persistent buffer's last_boot_info) and MODULES_FILE (option and section
# 25, /proc/modules).  No distribution ships 3.4 yet, so the files are built
# to the document by the writer's test emitter (a section: u64 size, then
# the bytes), in both byte orders, zstd and uncompressed.  flytrap reads
# them (report lists every event as both trace-cmd versions do), info shows
# them (text and JSON), and convert, slice and merge keep them.  An option
# that points at no section is shown as damaged, never followed.
. "$TOP/tests/lib.sh"
. "$TOP/tests/tc33.sh"
TW=$TOP/$O/tests/test_writer
[ -x "$TW" ] || skip "$TW is not built"
have_tc33=1
(tc33_need) >/dev/null 2>&1 || have_tc33=0
[ $have_tc33 = 1 ] && tc33_need >/dev/null

mods=$'bfq 86016 1 - Live 0xffffffffc0a00000\nusbserial 57344 2 usb_serial_simple, Live 0xffffffffc0100000\nusb_serial_simple 16384 0 - Live 0xffffffffc00ca000\n'
boot=$'boot_mapped:10c00000\t[kernel]\nffffffffc00ca000\tusb_serial_simple\n'
btf='BTF-BYTES-OF-THE-RECORDING-HOST'

# shows LABEL FILE: info prints the three, as written
shows() {
	local label=$1 f=$2
	"$FLYTRAP" info "$f" >"$TMP/info.txt" 2>&1 || { fail "$label: info exit $?"; return; }
	grep -qx "btf:         ${#btf} B" "$TMP/info.txt" &&
		grep -qx 'modules:     3 loaded (bfq, ...)' "$TMP/info.txt" &&
		grep -q '^last boot:   instance "boot_mapped": 10c00000' "$TMP/info.txt" &&
		ok "$label: info shows BTF (${#btf} B), 3 modules and the last boot" ||
		fail "$label: info shows $(grep -E '^(btf|modules|last boot):' "$TMP/info.txt" |
			tr '\n' '|')"
	"$FLYTRAP" info --json "$f" | python3 -c '
import json, sys
d = json.load(sys.stdin)
want = (int(sys.argv[1]), 3, sys.argv[2])
got = (d["btf_size"], d["modules"], d["last_boot_info"])
sys.exit(0 if got == want else print(got) or 1)' "${#btf}" "$boot" ||
		fail "$label: info --json does not carry btf_size, modules, last_boot_info"
}

# lists LABEL FILE: flytrap's listing is trace-cmd's, 3.1.6 and 3.3.1
lists() {
	local label=$1 f=$2 n
	FLYTRAP_REPORT_COMPAT=3.1 "$FLYTRAP" report "$f" >"$TMP/ft31.txt" 2>"$TMP/ft.err" ||
		{ fail "$label: flytrap report exit $?: $(head -c 200 "$TMP/ft.err")"; return; }
	n=$(grep -vc '^cpus=' "$TMP/ft31.txt")
	[ "$n" -gt 0 ] || fail "$label: no events listed"
	if command -v trace-cmd >/dev/null; then
		tc_stable "$TMP/tc31.txt" -i "$f"
		cmp -s "$TMP/tc31.txt" "$TMP/ft31.txt" &&
			ok "$label: trace-cmd 3.1.6 lists the same $n events" ||
			fail "$label: trace-cmd 3.1.6's listing differs"
	fi
	if [ $have_tc33 = 1 ]; then
		FLYTRAP_REPORT_COMPAT=3.3 "$FLYTRAP" report "$f" >"$TMP/ft33.txt" 2>/dev/null
		tc33_stable "$TMP/tc33.txt" -i "$f"
		cmp -s "$TMP/tc33.txt" "$TMP/ft33.txt" &&
			ok "$label: trace-cmd 3.3.1 lists the same $n events" ||
			fail "$label: trace-cmd 3.3.1's listing differs"
	fi
}

for v in "" --be --none "--be --none"; do
	name=tc34${v// /}
	f=$TMP/$name.dat
	# shellcheck disable=SC2086
	"$TW" --emit "$f" $v --events 60 --section 23="$btf" --section 25="$mods" \
		--opt 24="$boot" >/dev/null 2>&1 || { fail "emit $v failed"; continue; }
	label="3.4 sections${v:+ ($v)}"
	shows "$label" "$f"
	lists "$label" "$f"
	[ -n "$v" ] && [ "${FLYTRAP_TEST_LIGHT:-0}" = 1 ] && continue
	# kept by the commands that rewrite a file
	"$FLYTRAP" convert "$f" -o "$TMP/c.dat" >/dev/null 2>&1 && shows "$label, converted" "$TMP/c.dat" ||
		fail "$label: convert failed"
	"$FLYTRAP" slice --to 1.0001 "$f" -o "$TMP/s1.dat" >/dev/null 2>&1 &&
		shows "$label, sliced" "$TMP/s1.dat" || fail "$label: slice failed"
	"$FLYTRAP" slice --from 1.00015 "$f" -o "$TMP/s2.dat" >/dev/null 2>&1 &&
		"$FLYTRAP" merge "$TMP/s1.dat" "$TMP/s2.dat" -o "$TMP/m.dat" >/dev/null 2>&1 &&
		shows "$label, sliced and merged" "$TMP/m.dat" || fail "$label: slice + merge failed"
	[ -z "$v" ] && lists "$label, sliced and merged" "$TMP/m.dat"
	rm -f "$TMP/c.dat" "$TMP/s1.dat" "$TMP/s2.dat" "$TMP/m.dat"
done

# an option that points nowhere: shown as damaged, the file still listed
f=$TMP/bad.dat
"$TW" --emit "$f" --events 20 --opt 23=ABCDEFGH --opt 25=ZZZZZZZZ >/dev/null 2>&1 ||
	fail "emit of the damaged file failed"
"$FLYTRAP" info "$f" >"$TMP/info.txt" 2>&1
rc=$?
[ $rc = 0 ] && grep -q '^btf: .*points at no BTF section' "$TMP/info.txt" &&
	grep -q '^modules: .*points at no modules section' "$TMP/info.txt" &&
	ok "options pointing at no section: info says so (exit 0)" ||
	fail "damaged options: info exit $rc: $(grep -E '^(btf|modules)' "$TMP/info.txt" | tr '\n' '|')"
"$FLYTRAP" report "$f" >/dev/null 2>&1 && ok "and report still lists the file" ||
	fail "report refuses a file whose 3.4 options point nowhere"
finish
