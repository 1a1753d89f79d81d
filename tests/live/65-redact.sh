#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap redact on a recording with planted names: under a planted host
# name (unshare -u), a command whose task name, binary path, command-line
# argument and a file it opens (its path also written to the instance's
# trace_marker: a print event) are unique strings.  The recording holds
# each of them; the redacted copy holds none (its bytes searched with the
# compressed chunks decompressed, and trace-cmd's and flytrap's output),
# trace-cmd reads it, the event count is unchanged, and two runs with the
# same key give identical tokens (another key other ones).
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
need_cmd unshare
cd "$TMP" || exit 1
chmod 755 "$TMP"
u=$$$RANDOM
D=$TMP/zqdir-$u
mkdir -p "$D"
task=zqt$u
task=${task:0:15}
cp "$(command -v sh)" "$D/$task"
file=$D/zqfile-$u.txt
echo data > "$file"
host=zqhost-$u
arg=zqarg-$u-planted
head -c 32 /dev/urandom > key
head -c 32 /dev/urandom > key2

# the command: the planted binary opens the planted file and names it in a print event
cat > cmd.sh <<EOF
m=$TRACEFS/instances/flytrap-\$PPID/trace_marker
(cd "$D" && "./$task" -c true)
exec "$D/$task" -c 'cat "$file" > /dev/null; [ -w "\$0" ] && echo "opened $file" > "\$0"; sleep 0.3' "\$m" "\$1"
EOF
bpf=(--bpf offcpu)
# kernels from 6.10 also name the binary in sched_prepare_exec's interp and filename
# (the relative path of the first exec in cmd.sh, which only those fields hold)
pe=
[ -e "$TRACEFS/events/sched/sched_prepare_exec" ] && pe="-e sched:sched_prepare_exec"
rec() {
	unshare -u sh -c "hostname '$host' && exec \"$FLYTRAP\" record -q -e sched:sched_switch \
		-e sched:sched_process_exec -e sched:sched_process_fork -e sched:sched_wakeup $pe $* \
		-o r.dat -- sh cmd.sh '$arg'" 2> rec.err
}
rec "${bpf[*]}" || { bpf=(); rec || { fail "record failed: $(cat rec.err)"; finish; }; }
[ ${#bpf[@]} = 0 ] && echo "note: recorded without BPF ($(tail -1 rec.err))"

"$FLYTRAP" convert -c none r.dat -o plain0.dat || fail "convert -c none of the recording"
planted=("$task" "$D/$task" "$file" "$host" "$arg")
for v in "${planted[@]}"; do
	grep -aqF -- "$v" plain0.dat || fail "the recording does not hold '$v': the search proves nothing"
done
ok "the recording holds the task name, binary path, file path, host name and argument"
grep -aqF "opened $file" plain0.dat && ok "the print event holds the file's path" ||
	echo "note: no print event from the instance's trace_marker"

"$FLYTRAP" redact r.dat -o red.dat --key key --json > red.json 2> red.err ||
	{ fail "redact failed: $(cat red.err)"; finish; }
"$FLYTRAP" convert -c none red.dat -o plain1.dat || fail "convert -c none of the redacted copy"
trace-cmd report -i red.dat > red.txt 2> tc.err || fail "trace-cmd cannot read the redacted copy: $(head -2 tc.err)"
"$FLYTRAP" report red.dat > fr.txt 2>&1 || fail "flytrap report cannot read it"
"$FLYTRAP" info red.dat > info.txt || fail "flytrap info"
left=
for v in "${planted[@]}"; do
	grep -aqF -- "$v" plain1.dat red.txt fr.txt info.txt && left="$left '$v'"
done
[ -z "$left" ] && ok "the redacted copy holds none of them (bytes, trace-cmd, report, info)" ||
	fail "left in the redacted copy:$left"

events() { "$FLYTRAP" info --json "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])"; }
e0=$(events r.dat); e1=$(events red.dat)
[ "$e0" = "$e1" ] && [ "$e0" -gt 10 ] && ok "event count unchanged ($e0)" || fail "events: $e0, redacted $e1"
trace-cmd report -i r.dat > orig.txt 2>/dev/null
[ "$(wc -l < orig.txt)" = "$(wc -l < red.txt)" ] && ok "trace-cmd prints as many lines ($(wc -l < red.txt))" ||
	fail "trace-cmd: $(wc -l < orig.txt) lines, redacted $(wc -l < red.txt)"
# the task's token stands where its name stood in sched_switch's comms (the
# name at the head of its own lines comes from the kernel's saved_cmdlines,
# which may still hold the pre-exec "sh": the kernel saves a comm only on
# some switches), and at the head of its lines wherever trace-cmd had it
pid=$(grep -F -- "filename=$D/$task " orig.txt | head -1 | sed 's/.* pid=\([0-9]*\) .*/\1/')
tok=$(grep -oE -- "[^ ]+:$pid \[" orig.txt | tail -1 | sed 's/:[0-9]* \[$//')
ntok=$(grep -oE -- "[^ ]+:$pid \[" red.txt | tail -1 | sed 's/:[0-9]* \[$//')
head_ok=yes
if grep -qE -- "^ *$task-$pid " orig.txt; then
	grep -qE -- "^ *$ntok-$pid " red.txt || head_ok=no
fi
[ -n "$pid" ] && [ "$tok" = "$task" ] && [[ "$ntok" == "~"* ]] && [ $head_ok = yes ] &&
	ok "the task is '$ntok' in sched_switch's comms and its lines" ||
	fail "task token: '$tok' -> '$ntok' (pid '$pid', head of lines $head_ok)"

"$FLYTRAP" redact r.dat -o red2.dat --key key > /dev/null || fail "second run"
"$FLYTRAP" redact r.dat -o red3.dat --key key2 > /dev/null || fail "run with another key"
trace-cmd report -i red2.dat > red2.txt 2>/dev/null
trace-cmd report -i red3.dat > red3.txt 2>/dev/null
cmp -s red.txt red2.txt && ok "the same key twice: identical tokens (trace-cmd's output equal)" ||
	fail "the same key gave other tokens: $(diff red.txt red2.txt | head -3)"
n3=$(grep -oE -- "[^ ]+:$pid \[" red3.txt | tail -1 | sed 's/:[0-9]* \[$//')
[ -n "$n3" ] && [ "$n3" != "$ntok" ] && ! cmp -s red.txt red3.txt && ok "another key: another token ($n3)" ||
	fail "another key gave the same token '$n3'"
python3 -c "
import json
j = json.load(open('red.json'))
assert j['replaced']['comm'] > 0 and j['replaced']['path'] > 0 and j['replaced']['host'] >= 1, j
assert j['replaced']['text'] >= 1 and j['key'] == 'given', j" && ok "--json counts names, paths, hosts, texts" ||
	fail "json: $(cat red.json)"

# pointers: kmalloc's and kfree's ptr become keyed tokens (below every kernel address), so an
# allocation still pairs with its free; call_site too
"$FLYTRAP" record -q -e kmem:kmalloc -e kmem:kfree -o k.dat -- sleep 0.2 2> krec.err ||
	{ fail "kmem record: $(cat krec.err)"; finish; }
"$FLYTRAP" redact k.dat -o kr.dat --key key --json > kr.json 2> kr.err || fail "redact kmem: $(cat kr.err)"
pairs() { trace-cmd report -i "$1" 2>/dev/null | python3 -c "
import re, sys
a, f, big = set(), set(), 0
for l in sys.stdin:
    m = re.search(r' (kmalloc|kfree):.*?ptr=(0x[0-9a-f]+)', l)
    if not m: continue
    v = int(m.group(2), 16)
    big += v >= 0xffff800000000000
    (a if m.group(1) == 'kmalloc' else f).add(v)
print(len(a), len(a & f), big)"; }
read -r na np nb <<< "$(pairs k.dat)"; read -r ra rp rb <<< "$(pairs kr.dat)"
[ "$na" -gt 0 ] && [ "$na" = "$ra" ] && [ "$np" = "$rp" ] && [ "$nb" -gt 0 ] && [ "$rb" = 0 ] &&
	ok "kmem ptr hashed: $ra allocations, $rp paired with their free as before, no kernel address left" ||
	fail "kmem pointers: original $na/$np/$nb, redacted $ra/$rp/$rb (allocs/paired/kernel addresses)"
finish
