#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap redact as users chain it (issue 30): a redacted file redacted
# again keeps its kernel names (callgraph unchanged); every reader works on
# the output and its figures are the original's; a comm kept by a rule loses
# the bytes after its NUL (another task's name); files redacted with other
# keys are refused by merge and flagged by diff with one line saying how to
# redo it, and files redacted in one call (one key) merge; kallsyms keep
# only the symbols the events use unless --keep-kallsyms, also when kernel
# addresses are kept.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd trace-cmd
F=$FLYTRAP
S=tests/data/sample.dat
head -c 32 /dev/urandom > "$TMP/key"

events() { "$F" info --json "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])"; }
# an analyzer's JSON with its names and record sizes left out: the numbers, lists sorted
nums() {
	python3 -c '
import json, sys
def num(v):
    if isinstance(v, dict):
        # record sizes change with the token lengths; counts and times do not
        return {k: num(x) for k, x in v.items()
                if not isinstance(x, str) and "bytes" not in k and k not in ("share", "pages")}
    if isinstance(v, list):
        return sorted((num(x) for x in v if not isinstance(x, str)),
                      key=lambda x: json.dumps(x, sort_keys=True))
    return v
print(json.dumps(num(json.load(sys.stdin)), sort_keys=True))'
}
ksyms() { "$F" redact "$@" --json | python3 -c "import json,sys; k=json.load(sys.stdin)['kernel_symbols']; print(k['in'], k['out'])"; }

# ---- a redacted file redacted again (item 3) ----------------------------------------
"$F" redact $S -o "$TMP/r.dat" --key "$TMP/key" > /dev/null || fail "redact $S"
"$F" redact "$TMP/r.dat" -o "$TMP/rr.dat" --key "$TMP/key" --json > "$TMP/rr.json" 2> "$TMP/rr.err" ||
	fail "redact of the redacted copy: $(cat "$TMP/rr.err")"
norm() { "$F" callgraph "$1" | sed 1d; }
python3 -c "
import json, sys
j = json.load(open('$TMP/rr.json'))
k = j['kernel_symbols']
assert j['kernel_address_mode'] == 'relative' and k['out'] > 10 and k['out'] == k['in'], j" &&
	! grep -q "no kernel text symbol" "$TMP/rr.err" && ok "redacted again: addresses stay relative, every kept symbol kept" ||
	fail "redacted again: $(cat "$TMP/rr.err") $(cat "$TMP/rr.json")"
norm "$TMP/r.dat" > "$TMP/c1.txt"; norm "$TMP/rr.dat" > "$TMP/c2.txt"
grep -q do_syscall_64 "$TMP/c2.txt" && cmp -s "$TMP/c1.txt" "$TMP/c2.txt" &&
	ok "callgraph of the twice-redacted copy = the redacted one's ($(wc -l < "$TMP/c2.txt") lines, kernel names)" ||
	fail "callgraph after a second redact: $(diff "$TMP/c1.txt" "$TMP/c2.txt" | head -4)"
# kallsyms cut without _text (the base is the 2 MiB boundary below the lowest symbol)
g=tests/data/lab-kfunc.dat
"$F" redact $g -o "$TMP/g1.dat" > /dev/null && "$F" redact "$TMP/g1.dat" -o "$TMP/g2.dat" > "$TMP/g2.txt" 2>&1 ||
	fail "redact twice $g: $(cat "$TMP/g2.txt")"
"$F" callgraph $g | sed 1d > "$TMP/g0.txt"; norm "$TMP/g2.dat" > "$TMP/g2c.txt"
cmp -s "$TMP/g0.txt" "$TMP/g2c.txt" && grep -q "2 MiB below" "$TMP/g2.txt" &&
	ok "$(basename $g) redacted twice: callgraph = the original's" ||
	fail "$(basename $g) twice: $(diff "$TMP/g0.txt" "$TMP/g2c.txt" | head -4)"
"$F" info "$TMP/rr.dat" | grep -c "redacted_by=" | grep -qx 1 &&
	ok "one redact record in the metadata (this run's)" || fail "redact lines: $("$F" info "$TMP/rr.dat" | grep redact)"

# ---- every reader, the same figures --------------------------------------------------
for f in "$TMP/r.dat" "$TMP/rr.dat"; do
	b=$(basename "$f")
	for c in info report callgraph overhead drops verify; do
		"$F" $c "$f" > /dev/null 2> "$TMP/e" || fail "$b: $c fails: $(head -2 "$TMP/e")"
	done
	"$F" sql -c "select count(*) from ftrace_event" "$f" > "$TMP/q.txt" 2> "$TMP/e" ||
		fail "$b: sql fails: $(head -2 "$TMP/e")"
	"$F" sql -c "select count(*) from ftrace_event" $S > "$TMP/q0.txt" 2> /dev/null
	cmp -s "$TMP/q0.txt" "$TMP/q.txt" || fail "$b: sql counts $(cat "$TMP/q0.txt") vs $(cat "$TMP/q.txt")"
	[ "$(events $S)" = "$(events "$f")" ] || fail "$b: events $(events $S) vs $(events "$f")"
	for a in overhead drops; do
		"$F" $a --json $S | nums > "$TMP/n0"; "$F" $a --json "$f" | nums > "$TMP/n1"
		cmp -s "$TMP/n0" "$TMP/n1" || fail "$b: $a figures differ from the original's"
	done
done
ok "info, report, callgraph, overhead, drops, verify, sql read both copies; counts and durations unchanged"

# ---- callgraph picks its source by the records, not by the frames redact left them --------
# (pid 12662's 4 samples all ran in user space: redacted, they keep no frame; the automatic
# choice went to the off-CPU tree, and the matrix's redact x callgraph cell failed by chance)
src() {
	"$F" "$@" | python3 -c '
import json, sys
j = json.load(sys.stdin)
c = j.get("callgraph", j)
print(c["source"], c["total"])'
}
for c in callgraph analyze; do
	a=$(src $c --json --pid 12662 $S); b=$(src $c --json --pid 12662 "$TMP/r.dat")
	[ "$a" = "samples 4" ] && [ "$a" = "$b" ] &&
		ok "$c of user-space samples, redacted: source and total kept ($b)" ||
		fail "$c --pid 12662: '$a' in the original, '$b' redacted"
done
"$F" callgraph --pid 12662 "$TMP/r.dat" | grep -q "4 of them without a frame" ||
	fail "callgraph does not say the redacted samples have no frame"

# ---- a kept comm loses the bytes after its NUL (item 2) ------------------------------
"$F" convert -c none tests/data/rpt-bpf.dat -o "$TMP/bp.dat" > /dev/null || fail "convert"
python3 - "$TMP/bp.dat" "$TMP/stale.dat" <<'EOF' || fail "cannot plant the stale bytes"
import re, sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(b'app' + b'\0' * 13)          # a profile record's comm[16]
assert i > 0
d[i + 4:i + 10] = b'lk5\0zz'             # "app\0lk5\0zz": names under 6 bytes escape the raw search
for oid in (b'\x20\x46', b'\x21\x46'):   # CHECKSUMS, DIGEST: the reader takes the page as it is
    for m in re.finditer(re.escape(oid) + b'....\x01\x00\x00\x00', bytes(d), re.S):
        d[m.start() + 1] = 0x47
open(sys.argv[2], 'wb').write(d)
EOF
printf 'comm * keep\n' > "$TMP/keep"
printf 'comm * keep\nfield flytrap:profile.comm keep\n' > "$TMP/fkeep"
for p in keep fkeep; do
	"$F" redact "$TMP/stale.dat" -o "$TMP/st.dat" --policy "$TMP/$p" > /dev/null 2> "$TMP/e" ||
		{ fail "$p: redact: $(cat "$TMP/e")"; continue; }
	"$F" convert -c none "$TMP/st.dat" -o "$TMP/stp.dat" > /dev/null
	grep -aq 'app' "$TMP/stp.dat" && ! grep -aq 'lk5' "$TMP/stp.dat" &&
		ok "policy '$(tr '\n' ' ' < "$TMP/$p")': the comm is kept, the bytes after its NUL are gone" ||
		fail "policy '$(tr '\n' ' ' < "$TMP/$p")': stale comm bytes left ($(grep -ac lk5 "$TMP/stp.dat"))"
	rm -f "$TMP/st.dat" "$TMP/stp.dat"
done

# ---- a task named like a metadata key ("hostname" sets the host in a namespace) ----
"$F" convert -c none $S -o "$TMP/sp.dat" > /dev/null || fail "convert $S"
python3 - "$TMP/sp.dat" "$TMP/hn.dat" <<'EOF' || fail "cannot rename the task"
import re, sys
d = open(sys.argv[1], 'rb').read()
assert d.count(b'fastprint_bench') > 10
d = bytearray(d.replace(b'fastprint_bench', b'hostname' + b'\0' * 7))
for oid in (b'\x20\x46', b'\x21\x46'):   # CHECKSUMS, DIGEST
    for m in re.finditer(re.escape(oid) + b'....\x01\x00\x00\x00', bytes(d), re.S):
        d[m.start() + 1] = 0x47
open(sys.argv[2], 'wb').write(d)
EOF
"$F" redact "$TMP/hn.dat" -o "$TMP/hnr.dat" > /dev/null 2> "$TMP/e" && trace-cmd report -i "$TMP/hnr.dat" 2> /dev/null |
	grep -c ' hostname-' | grep -qx 0 && ok "a task named 'hostname' is a token; the metadata's key stays" ||
	fail "a task named hostname: $(cat "$TMP/e")"
rm -f "$TMP/sp.dat" "$TMP/hn.dat" "$TMP/hnr.dat"

# ---- other keys: merge refuses, diff says why; one call, one key (item 4) --------------
"$F" slice $S --to 1610.0 -o "$TMP/s1.dat" > /dev/null && "$F" slice $S --from 1610.000001 -o "$TMP/s2.dat" > /dev/null ||
	fail "slice $S in two"
"$F" redact "$TMP/s1.dat" -o "$TMP/r1.dat" > /dev/null && "$F" redact "$TMP/s2.dat" -o "$TMP/r2.dat" > /dev/null ||
	fail "redact the slices"
"$F" merge "$TMP/r1.dat" "$TMP/r2.dat" -o "$TMP/m.dat" > /dev/null 2> "$TMP/e"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && grep -q "another key" "$TMP/e" && grep -q -- "--key FILE" "$TMP/e" &&
	[ ! -e "$TMP/m.dat" ] && ok "merge of files redacted with other keys: one line, how to redo it, exit 1" ||
	fail "merge, other keys: rc=$rc $(cat "$TMP/e")"
"$F" diff "$TMP/r1.dat" "$TMP/r2.dat" > /dev/null 2> "$TMP/e"
grep -q "other keys" "$TMP/e" && grep -q -- "--key FILE" "$TMP/e" && [ "$(grep -c . "$TMP/e")" = 1 ] &&
	ok "diff of files redacted with other keys says so in one line" || fail "diff, other keys: $(cat "$TMP/e")"
"$F" diff "$TMP/r1.dat" "$TMP/s2.dat" > /dev/null 2> "$TMP/e"
grep -q "is redacted and" "$TMP/e" && ok "diff of a redacted file and a plain one says so" ||
	fail "diff, one redacted: $(cat "$TMP/e")"
mkdir "$TMP/set"
"$F" redact "$TMP/s1.dat" "$TMP/s2.dat" -o "$TMP/set" > /dev/null 2> "$TMP/e" || fail "redact of a set: $(cat "$TMP/e")"
id1=$("$F" info "$TMP/set/s1.dat" | grep -o 'redact_key_id=[0-9a-f]*'); id2=$("$F" info "$TMP/set/s2.dat" | grep -o 'redact_key_id=[0-9a-f]*')
[ -n "$id1" ] && [ "$id1" = "$id2" ] && "$F" merge "$TMP/set/s1.dat" "$TMP/set/s2.dat" -o "$TMP/m.dat" > /dev/null 2> "$TMP/e" &&
	[ "$(events "$TMP/m.dat")" = "$(events $S)" ] &&
	ok "one call, one random key ($id1): the set merges, every event" ||
	fail "a set redacted in one call: '$id1' '$id2' $(cat "$TMP/e")"
"$F" diff "$TMP/set/s1.dat" "$TMP/set/s2.dat" > /dev/null 2> "$TMP/e"
grep -q "redacted" "$TMP/e" && fail "diff of one set warns: $(cat "$TMP/e")"
"$F" redact "$TMP/s1.dat" -o "$TMP/k1.dat" --key "$TMP/key" > /dev/null && "$F" redact "$TMP/s2.dat" -o "$TMP/k2.dat" --key "$TMP/key" > /dev/null &&
	"$F" merge "$TMP/k1.dat" "$TMP/k2.dat" -o "$TMP/mk.dat" > /dev/null 2> "$TMP/e" &&
	ok "one --key in two calls: they merge" || fail "--key in two calls: $(cat "$TMP/e")"
"$F" convert -c none "$TMP/k1.dat" -o "$TMP/k1p.dat" > /dev/null
python3 -c "import sys; sys.exit(open('$TMP/key','rb').read() in open('$TMP/k1p.dat','rb').read())" ||
	fail "the key is in the file"
# several inputs: -o must be a directory, no two outputs the same
"$F" redact "$TMP/s1.dat" "$TMP/s2.dat" -o "$TMP/x.dat" 2> "$TMP/e"; rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && [ ! -e "$TMP/x.dat" ] || fail "two inputs, -o FILE: rc=$rc $(cat "$TMP/e")"
"$F" redact "$TMP/s1.dat" "$TMP/set/s1.dat" -o "$TMP/set" 2> "$TMP/e"; rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] || fail "two inputs of one name: rc=$rc $(cat "$TMP/e")"
ok "several inputs: -o a directory, one output a name (else exit 2)"

# ---- kallsyms: the symbols used, or all of them (item 5) ------------------------------
read -r in out <<< "$(ksyms $S -o "$TMP/a.dat" --key "$TMP/key")"
read -r kin kout <<< "$(ksyms $S -o "$TMP/b.dat" --keep-kallsyms --key "$TMP/key")"
[ "$out" -gt 0 ] && [ "$out" -lt "$in" ] && [ "$kout" = "$kin" ] && [ "$kin" = "$in" ] &&
	[ "$(stat -c %s "$TMP/a.dat")" -lt "$(stat -c %s "$TMP/b.dat")" ] &&
	ok "kallsyms: $out of $in symbols by default ($(stat -c %s "$TMP/a.dat") B), all with --keep-kallsyms ($(stat -c %s "$TMP/b.dat") B)" ||
	fail "kallsyms: $in/$out, --keep-kallsyms $kin/$kout"
norm "$TMP/b.dat" | cmp -s - "$TMP/c1.txt" || fail "--keep-kallsyms: callgraph differs"
printf 'kernel-addresses keep\n' > "$TMP/kk"
read -r in out <<< "$(ksyms $S -o "$TMP/k.dat" --policy "$TMP/kk" --key "$TMP/key")"
[ "$out" -gt 0 ] && [ "$out" -lt "$in" ] && norm "$TMP/k.dat" | cmp -s - "$TMP/c1.txt" &&
	ok "kernel-addresses keep: $out of $in symbols, callgraph = that of the default's" ||
	fail "kernel-addresses keep: $in/$out $(norm "$TMP/k.dat" | diff - "$TMP/c1.txt" | head -3)"
# slice's choice of symbols (the function after one that ends at an absolute symbol, which
# libtraceevent skips): redacted, rpt-stacks.dat still names do_idle (not '=> 200808')
"$F" redact tests/data/rpt-stacks.dat -o "$TMP/st.dat" --key "$TMP/key" > /dev/null 2>&1
a=$("$F" report tests/data/rpt-stacks.dat 2> /dev/null | grep -c '=> do_idle')
b=$("$F" report "$TMP/st.dat" 2> /dev/null | grep -c '=> do_idle')
[ "$a" -gt 0 ] && [ "$a" = "$b" ] && ok "redacted rpt-stacks.dat names do_idle as the original does ($b)" ||
	fail "redacted rpt-stacks.dat: do_idle $b times, $a in the original"
[ -z "$(ls -A "$TMP" "$TMP/set" | grep '^\.')" ] || fail "a temporary file was left behind"

# the man page's example as a reader sees it (an unescaped \n rendered "keep0omm")
if command -v groff > /dev/null; then
	groff -man -Tutf8 docs/man/flytrap-redact.1 2> /dev/null | sed 's/\x1b\[[0-9;]*m//g; s/.\x08//g' > "$TMP/man.txt"
	grep -qF "keep\ncomm kworker* keep\n'" "$TMP/man.txt" && grep -q -- "--keep-kallsyms" "$TMP/man.txt" &&
		ok "flytrap-redact(1) renders its example and names --keep-kallsyms" ||
		fail "flytrap-redact(1): $(grep 'keep-system' "$TMP/man.txt" | head -1)"
fi
finish
