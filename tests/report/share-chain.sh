#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Sharing as users chain it (issue 30, items 5-7): a slice that selects
# nothing fails with no file; a slice carries only the kernel symbols its
# records need; merge survives a NUL byte in kallsyms and slice and merge
# exit 1 on damaged input, leaving no hidden temporary file; callgraph's
# no-symbols note on a redacted file and with data-file mappings; diff's
# shortened call paths.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
F=$FLYTRAP
S=$TOP/tests/data
cd "$TMP" || exit 1
hidden() { find . -maxdepth 2 -name '.*.dat.*' | head -3; }

# ---- 5: nothing selected: one line, exit 1, no file -------------------------------
"$F" slice --comm nosuchtask "$S/sample.dat" -o e.dat 2> e.txt
rc=$?
[ $rc = 1 ] && [ ! -e e.dat ] && [ "$(wc -l < e.txt)" = 1 ] &&
	grep -q "no event passes the filters (--comm nosuchtask)" e.txt &&
	ok "slice --comm nosuchtask: one line, exit 1, no file" ||
	fail "slice --comm nosuchtask: exit $rc, $(ls e.dat 2>/dev/null) $(cat e.txt)"

# ---- 5: the kernel symbols the kept records need, or all with --keep-kallsyms ------
"$F" slice --json --cpu 0 "$S/sample.dat" -o t.dat > t.json &&
	"$F" slice --keep-kallsyms --cpu 0 "$S/sample.dat" -o k.dat ||
	fail "slice --cpu 0 of sample.dat"
st=$(stat -c %s t.dat) sk=$(stat -c %s k.dat)
[ "$st" -lt 100000 ] && [ "$sk" -gt 1000000 ] &&
	ok "slice --cpu 0: $st bytes, with --keep-kallsyms $sk ($(grep -o '"kallsyms_kept":[0-9]*' t.json))" ||
	fail "slice sizes: trimmed $st, whole kallsyms $sk"
for c in report "callgraph --source offcpu" "callgraph --source samples" analyze; do
	$F $c t.dat 2>&1 | sed 's/[tk]\.dat//g' > a.txt
	$F $c k.dat 2>&1 | sed 's/[tk]\.dat//g' > b.txt
	cmp -s a.txt b.txt && ok "$c: the same with the kept symbols as with all" ||
		fail "$c differs: $(diff a.txt b.txt | head -4)"
done
# a stack's first frame and the function after it (libtraceevent skips 'A' symbols)
"$F" slice "$S/rpt-stacks.dat" -o t.dat && "$F" report t.dat > a.txt &&
	grep -q '=> do_idle (ffffffff81200808)' a.txt &&
	ok "rpt-stacks: every frame still named" || fail "rpt-stacks slice: $(grep '=>' a.txt | head -4)"

# ---- 6: merge and a NUL byte inside kallsyms; damaged inputs exit 1 ------------------
"$F" convert -c none "$S/sample.dat" -o plain.dat || fail "convert"
python3 - <<'EOF'
import re
d = bytearray(open('plain.dat', 'rb').read())
m = re.search(rb'[0-9a-f]{16} [TtDdBbRrWw] [a-z_]+\n', bytes(d))
d[m.end() - 1] = 0
open('nul.dat', 'wb').write(d)
EOF
mkdir -p o
"$F" merge nul.dat plain.dat -o o/m.dat > /dev/null 2> e.txt
rc=$?
[ $rc -le 1 ] && [ -z "$(cd o && hidden)" ] &&
	ok "merge with a NUL byte in kallsyms: exit $rc, no hidden file" ||
	fail "merge with a NUL in kallsyms: exit $rc, left $(ls -A o)"
# a flipped byte in a page: the checksum fails, the data is lost
"$F" convert -c none "$S/rpt-stacks.dat" -o p2.dat || fail "convert"
python3 - <<'EOF'
d = bytearray(open('p2.dat', 'rb').read())
d[20600] ^= 0xff	# inside CPU 1's page at 20480
open('flip.dat', 'wb').write(d)
EOF
rm -rf o && mkdir o
"$F" slice --cpu 0,1 flip.dat -o o/s.dat 2> e.txt
rc=$?
[ $rc = 1 ] && [ -z "$(ls -A o)" ] && grep -q 'error:' e.txt &&
	ok "slice of a damaged file: exit 1, no file" ||
	fail "slice of a damaged file: exit $rc, left $(ls -A o): $(head -2 e.txt)"
"$F" merge flip.dat "$S/rpt-stacks.dat" -o o/m.dat > /dev/null 2> e.txt
rc=$?
[ $rc = 1 ] && [ -z "$(ls -A o)" ] && grep -q 'error:' e.txt &&
	ok "merge of a damaged file: exit 1, no file" ||
	fail "merge of a damaged file: exit $rc, left $(ls -A o): $(head -2 e.txt)"

# ---- 7: callgraph's note on redacted paths and data files ------------------------------
MK="$TOP/$O/tests/tools/mksynth"
if [ -x "$MK" ]; then
	cat > maps <<'EOF'
== 700 app
00400000-00401000 r--p 00000000 08:01 100 /usr/bin/fakeapp
00401000-00402000 r-xp 00001000 08:01 100 /usr/bin/fakeapp
7f0000000000-7f0000100000 r--p 00000000 08:01 200 /usr/lib/locale/C.utf8/LC_CTYPE
EOF
	printf '700 401010 7f0000000100\n700 401020\n' > stacks
	MKSYNTH_PROCMAPS=1 "$MK" st.dat stacks maps stacks || fail "mksynth"
	"$F" callgraph --source samples st.dat > a.txt
	grep -q 'no symbols for 1 binary (/usr/bin/fakeapp);' a.txt && ! grep -q LC_CTYPE a.txt &&
		ok "callgraph: a data file's mapping is no binary without symbols" ||
		fail "callgraph note: $(grep -A1 'no symbols' a.txt)"
	head -c 32 /dev/urandom > key
	printf 'user-stacks keep\n' > pol
	"$F" redact --key key --policy pol st.dat -o red.dat > /dev/null 2>&1 || fail "redact"
	"$F" callgraph --source samples red.dat > a.txt
	grep -q 'the path was redacted' a.txt && grep -q -- '--symbols' a.txt &&
		! grep -q -- '--symfs DIR' a.txt &&
		ok "callgraph on a redacted file: says the path was redacted and what names it" ||
		fail "callgraph note on a redacted file: $(grep -A3 'no symbols' a.txt)"
else
	echo "note: mksynth not built: callgraph notes not checked"
fi

# ---- 7: diff shortens call paths with "...", not "~" (a redaction token's mark) --------
G=$S/lab-function-graph.dat
"$F" diff "$G" "$G" > a.txt || fail "diff"
! grep -q '^  ~' a.txt && grep -q '^  \.\.\.' a.txt &&
	ok "diff: long call paths start with '...'" ||
	fail "diff call paths: $(grep -m2 '^  [~.]' a.txt)"
finish
