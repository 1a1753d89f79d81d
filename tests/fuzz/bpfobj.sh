#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Damaged record --bpf-object data (tests/data/bpfobj/user-objects.dat:
# two objects, a hash map, a per-CPU array and a ring buffer of dd's
# writes): a BTF with a wrong magic, BTF sections past the data, a BTF type
# of an unknown kind, an object text with a NUL, a map entry that is not
# JSON, a wrong entry count, a name past the option.  Every reader of that
# data (info, info --json, report --bpf-maps, sql's bpf_map, callgraph
# --source bpf-stacks) exits 1 with one line that names the damage; the
# event listing, which does not read it, still works.  The whole file
# first reads right.
. "$TOP/tests/lib.sh"
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
src=$TOP/tests/data/bpfobj/user-objects.dat
cd "$TMP" || exit 1
"$FLYTRAP" convert -c none "$src" -o plain.dat || { fail "convert -c none"; exit 1; }

"$FLYTRAP" report --bpf-maps plain.dat >maps.txt || fail "report --bpf-maps on the whole file"
grep -q '^wbytes/bytes at .* (end): 1 entry' maps.txt && grep -q '"value":10240}' maps.txt &&
	ok "whole file: dd's 20 writes of 512 bytes in wbytes/bytes" || fail "whole file: $(head -3 maps.txt)"
[ "$("$FLYTRAP" sql -c "select value_int from bpf_map where map = 'wbytes/calls'" --csv plain.dat | tail -1)" = 20 ] &&
	ok "whole file: sql sums the per-CPU calls to 20" || fail "whole file: sql bpf_map"
"$FLYTRAP" info plain.dat | grep -q 'events of events ring_events events_event records=20 raw=0' &&
	ok "whole file: info lists the objects" || fail "whole file: info"

python3 - <<'PY'
import struct
d = open('plain.dat', 'rb').read()
o = d.find(b'FTBPFO1\0')
tl, bl = struct.unpack('<II', d[o + 8:o + 16])
btf = o + 16 + tl
m = d.find(b'FTBPFM1\0')
nl, ne = struct.unpack('<II', d[m + 16:m + 24])
tab = d.find(b'\t', m + 32 + nl)
hdr_len, = struct.unpack('<I', d[btf + 4:btf + 8])
type_off, = struct.unpack('<I', d[btf + 8:btf + 12])
first_type = btf + hdr_len + type_off
def put(name, off, new):
    b = bytearray(d)
    b[off:off + len(new)] = new
    open(name + '.dat', 'wb').write(b)
put('btf-magic', btf, b'\0\0')
put('btf-bounds', btf + 12, struct.pack('<I', 0x7ffffff0))
put('btf-kind', first_type + 4, struct.pack('<I', 31 << 24))
put('obj-nul', o + 16 + 2, b'\0')
put('obj-size', o + 8, struct.pack('<I', 0x7fffffff))
put('map-json', tab + 1, b'x')
put('map-count', m + 20, struct.pack('<I', ne + 1))
put('map-name', m + 16, struct.pack('<I', 0x7fffffff))
PY

# FLYTRAP_TEST_LIGHT=1 (the sanitizer run): info --json and the listing on the first file only
first=1
check() {	# NAME WHAT
	local f=$1.dat what=$2 rc cmds=("info" "report --bpf-maps" "sql -c 'select count(*) from bpf_map'"
		"callgraph --source bpf-stacks")
	[ "${FLYTRAP_TEST_LIGHT:-0}" = 1 ] && [ $first = 0 ] || cmds+=("info --json")
	for cmd in "${cmds[@]}"; do
		eval "\"\$FLYTRAP\" $cmd \"\$f\"" >out.txt 2>err.txt
		rc=$?
		# nothing on stdout: a damaged file prints nothing that looks complete
		if [ $rc = 1 ] && [ "$(wc -l <err.txt)" = 1 ] && [ ! -s out.txt ] &&
			grep -q "damaged --bpf-object data: $what" err.txt; then
			ok "$1: $cmd: $(cat err.txt)"
		else
			fail "$1: $cmd: exit $rc, stdout $(wc -c <out.txt) bytes: $(head -2 err.txt)"
		fi
	done
	if [ "${FLYTRAP_TEST_LIGHT:-0}" != 1 ] || [ $first = 1 ]; then
		"$FLYTRAP" report "$f" >/dev/null 2>err.txt && ok "$1: the event listing still reads" ||
			fail "$1: report: $(head -2 err.txt)"
	fi
	first=0
}
check btf-magic "BTF magic wrong"
check btf-bounds "BTF sections outside the data"
check btf-kind "BTF type of an unknown kind"
check obj-nul "object option text holds a NUL"
check obj-size "object option sizes exceed the option"
check map-json "map entry that is not JSON"
check map-count "map option entry count wrong"
check map-name "map option sizes exceed the option"
finish
