#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap redact on files: every shipped file and fixture is redacted, read
# by trace-cmd (where it reads the original) and by flytrap with its event
# count unchanged; the names of the original's tasks, its host name and the
# paths of its command line are gone from the uncompressed bytes; the same
# key gives the same tokens, another key others; kernel symbols still name
# the stacks; a value left over fails with no output; wrong flags exit 2,
# a bad policy file is one line.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd trace-cmd
F=$FLYTRAP
S=tests/data/sample.dat
head -c 32 /dev/urandom > "$TMP/key"
head -c 32 /dev/urandom > "$TMP/key2"

events() { "$F" info --json "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])"; }

n=0
for f in tests/data/*.dat ${FIXTURES:+"$FIXTURES"/*.dat}; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	pol=()
	# a synthetic file whose generator is both the recorder and a task: see the check below
	[ "$b" = rpt-drops.dat ] && { printf 'comm mkrpt keep\nmeta *hostname keep\n' > "$TMP/p"; pol=(--policy "$TMP/p"); }
	if ! "$F" redact "$f" -o "$TMP/r.dat" --key "$TMP/key" "${pol[@]}" > /dev/null 2> "$TMP/e"; then
		fail "$b: redact failed: $(cat "$TMP/e")"; continue
	fi
	e0=$(events "$f"); e1=$(events "$TMP/r.dat")
	[ "$e0" = "$e1" ] || { fail "$b: $e0 events, redacted $e1"; continue; }
	if trace-cmd report -i "$f" > "$TMP/o.txt" 2> /dev/null; then
		trace-cmd report -i "$TMP/r.dat" > "$TMP/t.txt" 2> /dev/null ||
			{ fail "$b: trace-cmd cannot read the redacted copy"; continue; }
		[ "$(wc -l < "$TMP/o.txt")" = "$(wc -l < "$TMP/t.txt")" ] ||
			{ fail "$b: trace-cmd prints $(wc -l < "$TMP/o.txt") lines, redacted $(wc -l < "$TMP/t.txt")"; continue; }
	fi
	"$F" report "$TMP/r.dat" > /dev/null 2>&1 || { fail "$b: flytrap report cannot read it"; continue; }
	"$F" verify "$TMP/r.dat" > /dev/null || { fail "$b: the redacted copy does not verify"; continue; }
	n=$((n + 1))
done
ok "$n files redacted: trace-cmd and flytrap read them, event counts unchanged"

# sample.dat: its task names, host name and the paths of its command line are gone
"$F" redact $S -o "$TMP/s.dat" --key "$TMP/key" --json > "$TMP/s.json" || fail "redact $S"
"$F" convert -c none "$TMP/s.dat" -o "$TMP/plain.dat" || fail "convert -c none"
python3 - "$S" "$TMP/plain.dat" <<'EOF' && ok "no task name (6+ bytes, not in the kernel's texts), host or command-line path is left in the bytes" || fail "a value is left"
import re, subprocess, sys
src, plain = sys.argv[1], open(sys.argv[2], 'rb').read()
cmdl = subprocess.run(['trace-cmd', 'report', '-i', src],
                      capture_output=True, text=True).stdout
names = set(re.findall(r'^\s*(\S.{4,14}?)-\d+\s+\[', cmdl, re.M))
public = {'flytrap', 'timeout', 'uptime', 'rcu_preempt', '<idle>'}
names = {n.strip() for n in names if len(n.strip()) >= 6 and not n.startswith('swapper')}
names -= public
values = names | {'/usr/share/man', 'flytrap record -q -d 2 -o /tmp/ft/sample.dat'}
left = [v for v in values if v.encode() in plain]
assert len(names) >= 3, names
if left:
    print('left:', left)
    sys.exit(1)
print(len(values), 'values checked')
EOF
grep -q '"hostname' "$TMP/s.json" && fail "the JSON summary names the host"
python3 -c "
import json, sys
j = json.load(open('$TMP/s.json'))
assert j['events'] == 20679 and j['replaced']['comm'] > 1000 and j['replaced']['host'] == 2, j
assert j['kernel_address_mode'] == 'relative' and j['user_stacks'] > 0 and j['key'] == 'given', j
assert 0 < j['kernel_symbols']['out'] < j['kernel_symbols']['in'], j" &&
	ok "--json: comms, the host (meta and uname), relative addresses, user stacks" || fail "--json: $(cat "$TMP/s.json")"
"$F" info "$TMP/s.dat" | grep -q "hostname=~" && ! "$F" info "$TMP/s.dat" | grep -q "hostname=vm" &&
	ok "info: the host name is a token" || fail "info shows the host name"
sha=$("$F" redact --show-policy | sha256sum | cut -d' ' -f1)
"$F" info "$TMP/s.dat" | tr -d ' \n' | grep -q "redact_policy_sha256=$sha" &&
	ok "info shows the policy's SHA-256 (that of --show-policy)" || fail "policy hash not in info"
"$F" info "$TMP/s.dat" | grep -q "redact_key=given" || fail "info: redact_key"
# the key is never stored
python3 -c "import sys; sys.exit(open('$TMP/key','rb').read() in open('$TMP/plain.dat','rb').read())" ||
	fail "the key is in the file"

# stacks still resolve: kallsyms relative to _text and cut to what is used, the binaries'
# symbols found under their paths' tokens (only binaries without symbols show a token)
echo "user-stacks keep" > "$TMP/uk"
"$F" redact $S -o "$TMP/su.dat" --policy "$TMP/uk" > /dev/null || fail "user-stacks keep"
norm() { sed -e 1d -e 's/\[[^]]*\]$/[BINARY]/' -e '/^note:/,$d' "$1"; }
"$F" callgraph $S > "$TMP/c0.txt"; "$F" callgraph "$TMP/su.dat" > "$TMP/c1.txt"
diff <(norm "$TMP/c0.txt") <(norm "$TMP/c1.txt") > /dev/null && grep -q ext4_readdir "$TMP/c1.txt" &&
	ok "callgraph of the redacted copy = the original's ($(grep -c . "$TMP/c1.txt") lines)" ||
	fail "callgraph differs: $(diff <(norm "$TMP/c0.txt") <(norm "$TMP/c1.txt") | head -4)"
"$F" callgraph "$TMP/s.dat" | grep -q do_syscall_64 && ! "$F" callgraph "$TMP/s.dat" | grep -q libc.so &&
	ok "by default user stacks are dropped, kernel frames named" || fail "default callgraph"

# function_graph and kfunc files (their kallsyms cut without _text: the 2 MiB boundary below
# the lowest symbol is the base): every function still named, with its times
for g in tests/data/lab-function-graph.dat tests/data/lab-kfunc.dat; do
	"$F" redact $g -o "$TMP/g.dat" > "$TMP/g.txt" || fail "redact $g"
	"$F" callgraph $g | sed 1d > "$TMP/g0.txt"; "$F" callgraph "$TMP/g.dat" | sed 1d > "$TMP/g1.txt"
	cmp -s "$TMP/g0.txt" "$TMP/g1.txt" && grep -q "2 MiB below" "$TMP/g.txt" &&
		ok "$(basename $g): callgraph of the redacted copy = the original's ($(wc -l < "$TMP/g1.txt") lines)" ||
		fail "$(basename $g): callgraph differs: $(diff "$TMP/g0.txt" "$TMP/g1.txt" | head -4)"
done

# the same key: the same tokens; another key: others
"$F" redact $S -o "$TMP/s2.dat" --key "$TMP/key" > /dev/null || fail "second run"
"$F" redact $S -o "$TMP/s3.dat" --key "$TMP/key2" > /dev/null || fail "other key"
trace-cmd report -i "$TMP/s.dat" > "$TMP/a.txt" 2>/dev/null
trace-cmd report -i "$TMP/s2.dat" > "$TMP/b.txt" 2>/dev/null
trace-cmd report -i "$TMP/s3.dat" > "$TMP/c.txt" 2>/dev/null
tok() { grep -o '~[0-9a-f]\{12\}' "$1" | sort -u; }
[ -s "$TMP/a.txt" ] && cmp -s "$TMP/a.txt" "$TMP/b.txt" && [ "$(tok "$TMP/a.txt" | wc -l)" -gt 3 ] &&
	ok "the same key twice: identical reports ($(tok "$TMP/a.txt" | wc -l) tokens)" || fail "same key, different output"
[ -z "$(comm -12 <(tok "$TMP/a.txt") <(tok "$TMP/c.txt"))" ] && [ "$(wc -l < "$TMP/a.txt")" = "$(wc -l < "$TMP/c.txt")" ] &&
	ok "another key: no token in common" || fail "another key gives the same tokens"
# one name, one token: a task's comm in sched_switch is the token its cmdline has
python3 - "$TMP/a.txt" <<'EOF' && ok "one name, one token: every prev_comm token is a task's token" || fail "tokens differ by place"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
tasks = {m.group(1) for l in lines for m in [re.match(r'\s*(~[0-9a-f]{12})-\d+', l)] if m}
prev = {m.group(1) for l in lines for m in [re.search(r'sched_switch:\s+(~[0-9a-f]{12}):', l)] if m}
assert prev and prev <= tasks | prev and len(prev & tasks) >= len(prev) // 2, (len(prev), len(prev & tasks))
EOF

# a merge: the files it joined and the buffers it named after them become tokens
"$F" merge tests/data/rpt-sched.dat tests/data/rpt-graph.dat -o "$TMP/m.dat" > /dev/null || fail "merge"
"$F" redact "$TMP/m.dat" -o "$TMP/mr.dat" > /dev/null || fail "redact of a merge"
trace-cmd report -i "$TMP/mr.dat" > "$TMP/mr.txt" 2>/dev/null || fail "trace-cmd cannot read the redacted merge"
"$F" info "$TMP/mr.dat" > "$TMP/mi.txt"
! grep -q "rpt-sched\|rpt-graph" "$TMP/mr.txt" "$TMP/mi.txt" && grep -q "source.0.buffer=~" "$TMP/mi.txt" &&
	[ "$(events "$TMP/m.dat")" = "$(events "$TMP/mr.dat")" ] &&
	ok "a merge: its sources' file and buffer names are tokens, events unchanged" ||
	fail "merge: $(grep -m2 'rpt-' "$TMP/mr.txt" "$TMP/mi.txt")"

# a value left over: the check fails and leaves nothing
"$F" redact tests/data/rpt-drops.dat -o "$TMP/x.dat" > /dev/null 2> "$TMP/e"; rc=$?
[ $rc = 1 ] && grep -q "'mkrpt'" "$TMP/e" && [ ! -e "$TMP/x.dat" ] && [ -z "$(ls -A "$TMP" | grep '^\.x\.dat')" ] &&
	ok "a replaced value left in the metadata (recorder=mkrpt): exit 1, named, no output" ||
	fail "left value: rc=$rc $(cat "$TMP/e")"

# policy rules
printf 'comm * keep\n# keep the names\nfield sched:sched_switch.next_comm drop\n' > "$TMP/p"
"$F" redact tests/data/rpt-sched.dat -o "$TMP/k.dat" --policy "$TMP/p" > /dev/null || fail "keep policy"
trace-cmd report -i tests/data/rpt-sched.dat 2>/dev/null | grep -m1 sched_switch > "$TMP/l0"
trace-cmd report -i "$TMP/k.dat" 2>/dev/null | grep -m1 sched_switch > "$TMP/l1"
grep -q '==> :' "$TMP/l1" && ! grep -q '~' "$TMP/l1" && ok "policy: comm * keep, a field dropped" ||
	fail "policy: $(cat "$TMP/l0" "$TMP/l1")"

# a damaged record: a 20-byte record with the id of ftrace:bprint, whose buf[] (dropped by
# default) starts at byte 24; the checksums are renamed so the reader takes the page as it is
"$F" convert -c none tests/data/lab-function-graph.dat -o "$TMP/gp.dat" > /dev/null || fail "convert"
python3 - "$TMP/gp.dat" "$TMP/gshort.dat" <<'EOF' || fail "cannot make the damaged copy"
import re, sys
d = bytearray(open(sys.argv[1], 'rb').read())
for m in re.finditer(rb'\x0b\x00', bytes(d)):       # funcgraph_entry (id 11), 20 bytes
    if 1 <= d[m.start() - 4] & 31 <= 5:
        d[m.start()] = 6                             # ftrace:bprint
        break
else:
    sys.exit(1)
for oid in (b'\x20\x46', b'\x21\x46'):               # CHECKSUMS, DIGEST
    for m in re.finditer(re.escape(oid) + b'....\x01\x00\x00\x00', bytes(d), re.S):
        d[m.start() + 1] = 0x47
open(sys.argv[2], 'wb').write(d)
EOF
"$F" redact "$TMP/gshort.dat" -o "$TMP/x.dat" > /dev/null 2> "$TMP/e"; rc=$?
[ $rc = 0 ] && trace-cmd report -i "$TMP/x.dat" > /dev/null 2>&1 &&
	ok "a bprint record shorter than its fixed part: redacted, no crash" ||
	fail "a short bprint record: rc=$rc $(head -2 "$TMP/e")"
rm -f "$TMP/x.dat"

# old kernels' ftrace:print has "char buf; size:0" (no []): its text is still a token
L=${FIXTURES:-}/ARM-software+lisa__external_trappy_tests_trace.dat
if [ -f "$L" ]; then
	python3 - "$L" "$TMP/op.dat" <<'EOF' || fail "cannot make the print record"
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(bytes.fromhex('06000102000000004c5044c0'))   # a bprint record (id 6)
assert i > 0
d[i] = 5                                                # ftrace:print, buf at byte 12
d[i + 12:i + 20] = b'secret12'
open(sys.argv[2], 'wb').write(d)
EOF
	trace-cmd report -i "$TMP/op.dat" 2>/dev/null | grep -q 'print: .*secret12' || fail "no planted print"
	"$F" redact "$TMP/op.dat" -o "$TMP/opr.dat" > /dev/null 2>&1 || fail "redact of an old print"
	trace-cmd report -i "$TMP/opr.dat" 2>/dev/null | grep -q 'print: .*~[0-9a-f]\{12\}' &&
		! trace-cmd report -i "$TMP/opr.dat" 2>/dev/null | grep -q secret12 &&
		ok "an old kernel's print text (char buf, size 0) is a token" ||
		fail "old print text kept: $(trace-cmd report -i "$TMP/opr.dat" 2>/dev/null | grep -m1 ' print:')"
else
	echo "SKIP: (one check) no $L"
fi

# a slice made with --comm: the name in its filters is the task's token
"$F" slice $S --comm fastprint_bench --cpu 0,1 -o "$TMP/sl.dat" > /dev/null || fail "slice --comm"
"$F" redact "$TMP/sl.dat" -o "$TMP/slr.dat" > /dev/null 2> "$TMP/e"; rc=$?
tk=$(trace-cmd report -i "$TMP/slr.dat" 2>/dev/null | grep -o -m1 '^ *~[0-9a-f]\{12\}-12433' | tr -d ' ' | cut -d- -f1)
[ $rc = 0 ] && [ -n "$tk" ] && "$F" info "$TMP/slr.dat" | grep -q "filters=--comm $tk --cpu 0,1" &&
	ok "a slice by --comm: redacted, its filter names the task's token" ||
	fail "slice --comm: rc=$rc $(head -1 "$TMP/e") $("$F" info "$TMP/slr.dat" 2>&1 | grep filters)"

# a task name with a newline in it (prctl allows one) splits its cmdline and maps lines:
# the part after the newline is a token too
"$F" convert -c none $S -o "$TMP/sp.dat" > /dev/null || fail "convert $S"
python3 - "$TMP/sp.dat" "$TMP/nl.dat" <<'EOF' || fail "cannot make the names with a newline"
import re, sys
d = open(sys.argv[1], 'rb').read()
d, n = re.subn(rb'\n(\d+) fastprint_bench\n', rb'\n\1 fastp\nint_bench\n', d)
assert n and d.count(b'== 12525 sh\n') == 1
d = bytearray(d.replace(b'== 12525 sh\n', b'== 1252 s\nh\n'))
for oid in (b'\x20\x46', b'\x21\x46'):               # CHECKSUMS, DIGEST
    for m in re.finditer(re.escape(oid) + b'....\x01\x00\x00\x00', bytes(d), re.S):
        d[m.start() + 1] = 0x47
open(sys.argv[2], 'wb').write(d)
EOF
"$F" redact "$TMP/nl.dat" -o "$TMP/nlr.dat" > /dev/null 2> "$TMP/e" || fail "redact: $(cat "$TMP/e")"
"$F" convert -c none "$TMP/nlr.dat" -o "$TMP/nlp.dat" > /dev/null || fail "convert"
python3 -c "import re, sys; d = open(sys.argv[1], 'rb').read()
sys.exit(b'int_bench' in d or not re.search(rb'== 1252 ~[0-9a-f]{12}\n~[0-9a-f]{12}\n', d))" "$TMP/nlp.dat" &&
	ok "a name with a newline: its second line is a token in the cmdlines and the maps" ||
	fail "a name's second line is left: $(grep -ac int_bench "$TMP/nlp.dat")"
rm -f "$TMP/sp.dat" "$TMP/nl.dat" "$TMP/nlp.dat"

# usage
"$F" redact $S > /dev/null 2>&1; [ $? = 2 ] || fail "no -o: not exit 2"
"$F" redact $S -o "$TMP/x.dat" --bogus 2> "$TMP/e"; rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && [ ! -e "$TMP/x.dat" ] && ok "a wrong flag: one line, exit 2, no output" ||
	fail "bad flag: rc=$rc"
"$F" redact $S -o "$TMP/x.dat" --policy 2> /dev/null; [ $? = 2 ] || fail "--policy without a value"
"$F" redact $S -o $S 2> /dev/null; [ $? = 2 ] || fail "output = input accepted"
for bad in "comm" "frobnicate * hash" "comm x scramble" "pointers relative" "path a b c d"; do
	echo "$bad" > "$TMP/bad"
	"$F" redact $S -o "$TMP/x.dat" --policy "$TMP/bad" 2> "$TMP/e"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && grep -q "line 1" "$TMP/e" && [ ! -e "$TMP/x.dat" ] ||
		fail "bad policy '$bad': rc=$rc $(cat "$TMP/e")"
done
ok "a bad policy file: one line naming the line, exit 2"
head -c 8 /dev/urandom > "$TMP/short"
"$F" redact $S -o "$TMP/x.dat" --key "$TMP/short" 2> "$TMP/e"; [ $? = 2 ] && grep -q "too short" "$TMP/e" ||
	fail "a short key accepted"
"$F" redact $S -o "$TMP/x.dat" --key "$TMP/none" 2> /dev/null; [ $? = 2 ] || fail "a missing key file"
"$F" redact $S -o "$TMP/x.dat" --policy "$TMP" 2> "$TMP/e"; rc=$?
[ $rc = 2 ] && grep -q "Is a directory" "$TMP/e" || fail "--policy DIR: rc=$rc $(cat "$TMP/e")"
ls -a "$TMP" | grep -q '^\.[sx]\.dat\.' && fail "a temporary file was left behind"
finish
