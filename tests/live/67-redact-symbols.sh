#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap redact on a recording made the way users make them (issue 30):
# `record -d 3 --bpf syscalls,offcpu,profile --symbols` while python3,
# sort and ls loops run.  redact with its default policy succeeds (the maps
# and symbol tables hold [vdso], memfd: names and task names that are also
# symbols); every reader works on the output with the original's counts;
# callgraph names the kernel frames, and a second redact keeps them; no
# BPF record carries bytes after the NUL of a comm (another task's name).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_root
need_bpf
cd "$TMP" || exit 1

# the workload: each loop ends by itself, or when this test is gone
work() {
	local end=$((SECONDS + 8))
	while [ $SECONDS -lt $end ] && kill -0 "$1" 2> /dev/null; do
		"$2" > /dev/null 2>&1
	done
}
py() { python3 -c 'sum(range(300000))'; }
so() { seq 1 20000 | sort -r; }
lsl() { ls -l /usr/bin; }
work $$ py & W="$!"
work $$ so & W="$W $!"
work $$ lsl & W="$W $!"
"$FLYTRAP" record -d 3 --bpf syscalls,offcpu,profile --symbols -o a.dat > rec.out 2> rec.err
rc=$?
# shellcheck disable=SC2086
kill $W 2> /dev/null; wait $W 2> /dev/null
[ $rc = 0 ] || { fail "record exited $rc: $(tail -2 rec.err)"; finish; }
"$DUMP" a.dat > d.txt || fail "bpf_dump of the recording reports damage"
grep -q '^symtab ' d.txt || { fail "no stored symbol table in the recording"; finish; }
n=$(grep -c '^ev offcpu' d.txt)
st=$(grep -c '_stale=1' d.txt)
[ "$n" -gt 0 ] && [ "$st" = 0 ] && ok "no comm of $n offcpu records (nor profile's) has bytes after its NUL" ||
	fail "$st BPF records carry bytes after a comm's NUL ($(grep -m1 -o 'comm=[^ ]* comm_stale=1' d.txt))"

"$FLYTRAP" redact a.dat -o r.dat > r.txt 2> r.err ||
	{ fail "redact with the default policy: $(cat r.err)"; finish; }
ok "redact with the default policy: $(grep -o 'kernel symbols kept.*' r.txt)"

events() { "$FLYTRAP" info --json "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])"; }
[ "$(events a.dat)" = "$(events r.dat)" ] && ok "events unchanged ($(events r.dat))" ||
	fail "events: $(events a.dat), redacted $(events r.dat)"
for c in info report callgraph overhead drops verify; do
	"$FLYTRAP" $c r.dat > /dev/null 2> e.txt || fail "$c on the redacted copy: $(head -2 e.txt)"
done
q="select count(*) from bpf_offcpu; select count(*) from bpf_profile; select count(*) from bpf_syscall"
"$FLYTRAP" sql -c "$q" a.dat > q0.txt 2> /dev/null; "$FLYTRAP" sql -c "$q" r.dat > q1.txt 2> e.txt ||
	fail "sql on the redacted copy: $(head -2 e.txt)"
cmp -s q0.txt q1.txt && ok "info, report, callgraph, overhead, drops, verify, sql read it; sql counts equal" ||
	fail "sql counts: $(tr '\n' ' ' < q0.txt) vs $(tr '\n' ' ' < q1.txt)"
# the figures without names and record sizes (tokens change the lengths), and without
# the user stack copies (redact drops them by default)
nums() {
	python3 -c '
import json, sys
def num(v):
    if isinstance(v, dict):
        return {k: num(x) for k, x in v.items()
                if not isinstance(x, str) and "bytes" not in k and
                k not in ("share", "pages", "compression_ratio", "user_stack_copies")}
    if isinstance(v, list):
        return sorted((num(x) for x in v if not isinstance(x, str)),
                      key=lambda x: json.dumps(x, sort_keys=True))
    return v
print(json.dumps(num(json.load(sys.stdin)), sort_keys=True))'
}
"$FLYTRAP" overhead --json a.dat | nums > o0; "$FLYTRAP" overhead --json r.dat | nums > o1
cmp -s o0 o1 && ok "overhead: every count and duration unchanged" || fail "overhead figures differ"

"$FLYTRAP" callgraph r.dat > c1.txt 2> /dev/null
grep -q 'do_syscall_64\|entry_SYSCALL_64' c1.txt && ok "callgraph of the redacted copy names kernel frames" ||
	fail "no kernel names in the redacted callgraph: $(sed -n 6,8p c1.txt)"
"$FLYTRAP" redact r.dat -o rr.dat > rr.txt 2> rr.err || fail "redact of the redacted copy: $(cat rr.err)"
"$FLYTRAP" callgraph rr.dat > c2.txt 2> /dev/null
# (a binary's path is a token of a token the second time)
norm() { sed -e 1d -e 's/\[[^]]*\]$/[BINARY]/' -e '/^note:/,$d' "$1"; }
! grep -q "no kernel text symbol" rr.err && diff <(norm c1.txt) <(norm c2.txt) > /dev/null &&
	ok "redacted again: callgraph unchanged, kernel names kept" ||
	fail "redacted again: $(cat rr.err) $(diff <(norm c1.txt) <(norm c2.txt) | head -3)"
finish
