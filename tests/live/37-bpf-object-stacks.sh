#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# callgraph --source bpf-stacks (docs/bpf.md, "Your own program"): a
# profile-like program of tests/live/bpfobj/wstacks.bpf.c on
# sock:sock_send_length puts kernel and user stack ids from
# bpf_get_stackid() into a STACK_TRACE map, counts them per key in a hash
# map and sends a ring buffer record per send.  A copy of dd under its own
# name writes 200 blocks of 4096 bytes into a socket, then 50 of 512 bytes
# whose user stack the program asks past its 255th frame (the kernel's
# -EFAULT).  callgraph, with no other stack data in the file, picks
# bpf-stacks by itself: ksys_write -> vfs_write -> sock_write_iter carry
# all 250 writes, 50 of them under [user stack not collected: EFAULT];
# the same from the ring buffer's records (--bpf-map events), in --json,
# --folded, --svg, export --html and --group comm.  Recorded without a command
# (the whole machine), the writers' maps are stored from the records, so the
# user frames have names.  Nothing stays loaded.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf_object
need_cmd trace-cmd
need_cmd python3
[ -d "$TRACEFS/events/sock/sock_send_length" ] ||
	skip "no sock:sock_send_length tracepoint (kernel 6.4+) to stop inside the write path"
cd "$TMP" || exit 1
export TMPDIR=$TMP
bpfobj_cc wstacks wstacks.bpf.o 2>cc.err ||
	{ fail "clang cannot build wstacks.bpf.c: $(head -3 cc.err)"; exit 1; }

# a name no other test's process has: the program counts only this one
cp "$(command -v dd)" ftt37dd
cat >send.py <<'EOF'
import socket, subprocess, sys, time
# ftt37dd writes COUNT blocks of BS bytes into one end of a socket pair; this drains the other,
# from 0.3 s on: a small send buffer keeps dd blocked (alive) that long after its first writes,
# so that a recording of the whole machine reads its maps while it runs, even on a busy machine
def run(bs, count):
    a, b = socket.socketpair()
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    p = subprocess.Popen(["./ftt37dd", "if=/dev/zero", "bs=%d" % bs, "count=%d" % count,
                          "status=none"], stdout=a)
    a.close()
    time.sleep(0.3)
    n = 0
    while True:
        d = b.recv(65536)
        if not d:
            break
        n += len(d)
    if p.wait() or n != bs * count:
        sys.exit("dd: exit %d, %d bytes" % (p.returncode, n))
run(4096, 200)
run(512, 50)
EOF
"$FLYTRAP" record -q -o s.dat --bpf-object wstacks.bpf.o --bpf-set target_comm=ftt37dd \
	--bpf-set fail_len=512 -- python3 send.py >rec.out 2>rec.err ||
	{ fail "record: $(head -3 rec.err)"; exit 1; }
ok "recorded 250 writes to a socket"
[ -z "$(ours)" ] && ok "nothing loaded after the recording" || fail "left loaded: $(ours)"

total() { cg_json_total "$@"; }
"$FLYTRAP" callgraph --json s.dat >auto.json 2>auto.err || fail "callgraph --json: $(head -3 auto.err)"
src=$(jq -r .source auto.json)
[ "$src" = bpf-stacks ] && ok "the automatic choice: bpf-stacks (the file has no other stack data)" ||
	fail "automatic source: $src"
jq -e '.bpf_stacks.map == "wstacks/counts" and .bpf_stacks.from == "snapshot" and .bpf_stacks.why == "end"' \
	auto.json >/dev/null && ok "from the counts map's last snapshot (the end)" ||
	fail "bpf_stacks: $(jq -c .bpf_stacks auto.json)"
jq -e '.bpf_stacks.others == ["wstacks/events"]' auto.json >/dev/null &&
	ok "the ring buffer is named as the other source" || fail "others: $(jq -c .bpf_stacks.others auto.json)"
for fn in ksys_write vfs_write sock_write_iter; do
	n=$(total auto.json $fn)
	[ "$n" = 250 ] && ok "$fn: 250 (every write)" || fail "$fn: $n, want 250"
done
n=$(total auto.json "[user stack not collected: EFAULT]")
[ "$n" = 50 ] && ok "[user stack not collected: EFAULT]: 50 (the 512-byte writes)" ||
	fail "[user stack not collected: EFAULT]: $n, want 50"
n=$(total auto.json ksys_write "[user stack not collected: EFAULT]")
[ "$n" = 50 ] && ok "their kernel stacks are kept under the mark" || fail "ksys_write under the mark: $n"
[ "$(jq .bpf_stacks.not_collected auto.json)" = 50 ] && [ "$(jq .bpf_stacks.missing auto.json)" = 0 ] &&
	ok "not_collected 50, missing 0" || fail "counts: $(jq -c .bpf_stacks auto.json)"
[ "$(jq .total auto.json)" = 250 ] && [ "$(jq .unit auto.json)" = '"samples"' ] &&
	ok "total 250 samples" || fail "total $(jq .total auto.json) $(jq .unit auto.json)"

"$FLYTRAP" callgraph s.dat >auto.txt 2>&1 || fail "callgraph: $(head -3 auto.txt)"
grep -q "^  from the counts of wstacks/counts, its last snapshot (end, " auto.txt &&
	grep -q "^  50 of them with a stack not collected" auto.txt &&
	grep -q "^ *20.0% *50 .*\[user stack not collected: EFAULT\]$" auto.txt &&
	ok "text: the source, the 50 not collected, their node" || fail "text: $(head -12 auto.txt)"

# the ring buffer's records: one sample each, the same tree
"$FLYTRAP" callgraph --json --bpf-map events s.dat >ring.json 2>ring.err || fail "--bpf-map events: $(head -3 ring.err)"
jq -e '.bpf_stacks.map == "wstacks/events" and .bpf_stacks.from == "records"' ring.json >/dev/null &&
	[ "$(total ring.json vfs_write)" = 250 ] &&
	[ "$(total ring.json "[user stack not collected: EFAULT]")" = 50 ] &&
	ok "--bpf-map events: 250 records through vfs_write, 50 not collected" ||
	fail "--bpf-map events: $(jq -c '{total, bpf_stacks}' ring.json)"
"$FLYTRAP" callgraph --bpf-map wstacks/counts --source bpf-stacks s.dat >/dev/null 2>&1 &&
	ok "--bpf-map OBJECT/MAP" || fail "--bpf-map wstacks/counts"

# usage: a map that is not there (exit 1 naming what is), --bpf-map with another source (exit 2)
"$FLYTRAP" callgraph --bpf-map nope s.dat >o.txt 2>e.txt
rc=$?
[ $rc = 1 ] && [ ! -s o.txt ] && [ "$(wc -l <e.txt)" = 1 ] && grep -q "wstacks/counts, wstacks/events" e.txt &&
	ok "--bpf-map nope: $(cat e.txt)" || fail "--bpf-map nope: exit $rc: $(cat e.txt)"
"$FLYTRAP" callgraph --source samples --bpf-map counts s.dat >o.txt 2>e.txt
rc=$?
[ $rc = 2 ] && [ "$(wc -l <e.txt)" = 1 ] && ok "--source samples --bpf-map: $(cat e.txt)" ||
	fail "--source samples --bpf-map: exit $rc: $(cat e.txt)"

# the other outputs of the same tree
n=$("$FLYTRAP" callgraph --folded s.dat | awk '/;ksys_write;/ { s += $NF } END { print s + 0 }')
[ "$n" = 250 ] && ok "--folded: 250 through ksys_write" || fail "--folded: $n"
"$FLYTRAP" callgraph --svg s.svg s.dat >/dev/null 2>svg.err && grep -q "vfs_write" s.svg &&
	grep -q "stack not collected" s.svg && ok "--svg: the flame graph has the write path and the mark" ||
	fail "--svg: $(head -3 svg.err)"
"$FLYTRAP" export --html -o s.html s.dat 2>html.err && grep -q "sock_write_iter" s.html &&
	ok "export --html: its flame graph has them" || fail "export --html: $(head -3 html.err)"
"$FLYTRAP" callgraph --json --group comm s.dat >comm.json 2>/dev/null
jq -e '[.tree.children[] | select(.name == "ftt37dd" and .comm == true and .total == 250)] | length == 1' \
	comm.json >/dev/null && ok "--group comm: one ftt37dd tower of 250 (the key's comm)" ||
	fail "--group comm: $(jq -c '[.tree.children[] | {name, total}]' comm.json)"

# the records print by field name in trace-cmd (a long print fmt line was cut before)
trace-cmd report -i s.dat >tc.out 2>/dev/null || fail "trace-cmd report"
n=$(grep -c ' wstacks_events: *ts=[0-9]* pid=[0-9]* tgid=[0-9]* kern_stack_id=[0-9]* user_stack_id=-\?[0-9]* len=[0-9]* comm=ftt37dd$' tc.out)
[ "$n" = 250 ] && ok "trace-cmd prints the 250 records by field name" ||
	fail "trace-cmd: $n records printed whole: $(grep -m1 wstacks_events tc.out)"
[ -z "$(ours)" ] || fail "left loaded: $(ours)"

# the whole machine, no command: the processes whose user stacks the ring
# buffer's records and the counts map name get their maps stored (read when
# the first record comes, while they run), so the user frames have names
"$FLYTRAP" record -o w.dat --bpf-object wstacks.bpf.o --bpf-set target_comm=ftt37dd \
	-d 60 >recw.out 2>recw.err &
rp=$!
if wait_line recw.err 'recording' 300; then
	python3 send.py || fail "send.py"
	kill -INT $rp
fi
wait $rp || fail "record of the whole machine: $(head -3 recw.err)"
procs=$("$FLYTRAP" info w.dat | sed -n 's/^ *bpf_procs_captured=//p')
"$FLYTRAP" callgraph --folded w.dat >w.folded 2>w.err || fail "callgraph of w.dat: $(head -3 w.err)"
top=$(awk '{ sub(/;.*/, ""); print }' w.folded | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
n=$(awk '/;ksys_write;/ { s += $NF } END { print s + 0 }' w.folded)
[ "${procs:-0}" -ge 2 ] && [ "$n" = 250 ] && [[ "$top" == *write* ]] && ! grep -qE '(^|;)0x[0-9a-f]+;' w.folded &&
	ok "without a command: ${procs} processes' maps stored, the user frame $top over 250 writes" ||
	fail "without a command: procs_captured=${procs:-none}, $n writes, first frame '$top': $(head -2 w.folded)"
[ -z "$(ours)" ] || fail "left loaded: $(ours)"
finish
