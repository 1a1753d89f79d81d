#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Stacks unwound from the call-frame information record --symbols stores
# (issue 35, item 5), offline: tests/data/bpf-symbols-cfi.dat is
# `record --bpf profile --symbols -- ./cfi-demo` (tests/data/cfi-demo.c,
# -O2 -fomit-frame-pointer, deleted after the recording), sliced to its
# events.  No machine that reads it has that binary, so its frames unwind
# only from the stored .eh_frame:
#  - every stack reaches main and __libc_start_main, none is marked;
#  - light (n) and heavy (3n) split about 1:3 (the file's 19:42);
#  - a copy through slice, and a merge of the file with a copy of itself
#    (two buffers; the merge keeps the first input's maps and tables, and
#    now the metadata that says how to read the stack copies), the same;
#  - the table's CFI block damaged (an .eh_frame size past the entry):
#    callgraph still runs, the frames of cfi-demo are cut, nothing crashes.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3
F=$TOP/tests/data/bpf-symbols-cfi.dat
[ -f "$F" ] || skip "no $F"
cd "$TMP" || exit 1

# whole FOLDED: "PCT_WHOLE LIGHT HEAVY"
shape() {
	awk '{ w = $NF; t += w; if ($0 ~ /__libc_start_main;[^ ]*main;(light|heavy);leaf/) m += w
	       if ($0 ~ /;light;leaf/) l += w; if ($0 ~ /;heavy;leaf/) h += w }
	     END { printf "%.1f %d %d", t ? 100 * m / t : 0, l, h }' "$1"
}
check() {	# FILE WHAT
	local whole l h
	"$FLYTRAP" callgraph --folded "$1" > "$2.fold" 2> e || { fail "$2: callgraph: $(cat e)"; return; }
	read -r whole l h < <(shape "$2.fold")
	[ "$whole" = 100.0 ] && ok "$2: every stack main;light|heavy;leaf under __libc_start_main" ||
		fail "$2: ${whole}% whole: $(sort -k2 -n "$2.fold" | tail -2 | cut -c1-200)"
	if [ $((l + h)) -gt 0 ] && [ $((l * 100 / (l + h))) -ge 15 ] && [ $((l * 100 / (l + h))) -le 40 ]; then
		ok "$2: light $l, heavy $h (1:3 +-)"
	else
		fail "$2: light $l, heavy $h"
	fi
	if grep -q '\[unwind' "$2.fold"; then fail "$2: marked stacks: $(grep '\[unwind' "$2.fold" | head -1)"; fi
}

check "$F" "the file"
"$FLYTRAP" callgraph "$F" > text 2>&1
grep -q 'complete, 0 stopped short' text && ! grep -q 'not on this machine' text &&
	ok "text: $(grep -o '[0-9]* complete, 0 stopped short' text)" ||
	fail "text: $(sed -n 3,6p text)"

"$FLYTRAP" slice -o sliced.dat --from 0 "$F" 2> e || fail "slice: $(cat e)"
[ -f sliced.dat ] && check sliced.dat "sliced copy"
cp "$F" again.dat
if "$FLYTRAP" merge -o merged.dat "$F" again.dat > /dev/null 2> e; then
	check merged.dat "merged (two buffers)"
else
	fail "merge: $(cat e)"
fi

# the CFI block damaged: its .eh_frame size past the entry's end
"$FLYTRAP" convert -c none "$F" -o plain.dat 2> e || { fail "convert -c none: $(cat e)"; finish; }
python3 - plain.dat bad.dat <<'PY' || fail "could not damage the CFI block"
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(b'FTSYMS1\0')
assert i >= 0
n = struct.unpack_from('<I', d, i + 8)[0]
off, hit = i + 16, 0
for _ in range(n):
    rs, pl, bl, et, nl, ns, ss, fl = struct.unpack_from('<IHBBIIII', d, off)
    if fl & 1 and b'cfi-demo' in d[off + 24:off + 24 + pl]:
        c = (off + 24 + pl + bl + 7) // 8 * 8
        c += nl * 32 + ns * 24 + ss
        c = (c + 7) // 8 * 8
        struct.pack_into('<Q', d, c + 24, rs * 4)
        hit += 1
    off += rs
assert hit == 1
open(sys.argv[2], 'wb').write(d)
PY
if [ -f bad.dat ]; then
	"$FLYTRAP" callgraph --folded bad.dat > bad.fold 2> e
	rc=$?
	[ $rc = 0 ] && ok "damaged CFI block: callgraph still runs" || fail "damaged CFI block: exit $rc: $(cat e)"
	grep -q ';light;leaf' bad.fold && fail "damaged CFI block: cfi-demo still unwound from it" ||
		ok "damaged CFI block: ignored (cfi-demo's frames not unwound)"
fi
finish
