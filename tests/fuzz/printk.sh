#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A damaged printk format text (the "ADDR : \"FORMAT\"" lines bprint events
# name): libtraceevent reads those lines with no bounds of its own, one byte
# past a last line with nothing after its ':' and two before a format
# shorter than 3 bytes.  The reader hands it only the lines it can take
# (format/reader.c, printk_lines_safe), so every command reads such a file
# as the undamaged one, less the damaged lines.  Under the sanitizer build
# (CI) the old reader failed here with a heap-buffer-overflow.
. "$TOP/tests/lib.sh"
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}:exitcode=111
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=112
src=$TOP/tests/data/sample.dat
"$FLYTRAP" convert -c none "$src" -o "$TMP/plain.dat" 2>/dev/null || fail "convert -c none sample.dat"
python3 - "$TMP" <<'PY' || fail "cannot damage the printk text"
import sys
t = sys.argv[1]
d = bytearray(open(t + '/plain.dat', 'rb').read())
# the last line of the printk text (uncompressed: plain bytes in the file)
old = b'0xffffffff82522908 : "mas_rebalance"\n'
i = d.find(old)
assert i > 0
n = len(old)
for name, new in (('nocolon-end', b'\n' * (n - 2) + b'x:'),
                  ('short-fmt', b'0xffffffff82522908 : "a"'),
                  ('empty-fmt', b'0xffffffff82522908 :'),
                  ('colon-first', b': "mas_rebalance"'),
                  ('nuls', b'0xffffffff82522908 : "' + b'\0' * 4)):
    m = bytearray(d)
    m[i:i + n] = (new + b'\n' * n)[:n]
    open('%s/%s.dat' % (t, name), 'wb').write(bytes(m))
PY
"$FLYTRAP" report "$TMP/plain.dat" >"$TMP/plain.txt" 2>/dev/null || fail "report of the undamaged copy"
for f in nocolon-end short-fmt empty-fmt colon-first nuls; do
	for k in 1 2 3 4 5; do
		case $k in
		1) set -- info ;;
		2) set -- report ;;
		3) set -- callgraph ;;
		4) set -- export -o "$TMP/o.json" ;;
		5) set -- sql -c "select count(*) from ftrace_event" ;;
		esac
		"$FLYTRAP" "$@" "$TMP/$f.dat" >"$TMP/out.txt" 2>"$TMP/err.txt"
		rc=$?
		if [ $rc -ge 111 ]; then
			fail "$* $f: exit $rc: $(grep -m1 -E 'ERROR|runtime error|SUMMARY' "$TMP/err.txt")"
		elif [ $rc != 0 ]; then
			fail "$* $f: exit $rc (the damage is in a line flytrap leaves out): $(head -1 "$TMP/err.txt")"
		fi
	done
	# the listing is the undamaged one's: no event of sample.dat uses the last format
	"$FLYTRAP" report "$TMP/$f.dat" 2>/dev/null | cmp -s - "$TMP/plain.txt" &&
		ok "$f: every command reads it; the listing is the undamaged file's" ||
		fail "$f: the listing differs from the undamaged file's"
done
finish
