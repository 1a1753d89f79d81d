#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 15's program, recorded with --bpf offcpu: a loop calling wait_long()
# (70 ms nanosleep) and wait_short() (30 ms), 20 times.  The libc frame the
# blocked time passes through is named as perf names it
# (clock_nanosleep@GLIBC_2.2.5 from .dynsym or libc6-dbg's symtab, not
# "[libc.so.6]"), under main, and --json says which source named libc.
# The default --user-stack dwarf unwinds the libc wrapper the frame-pointer
# walk skips: wait_long has about 70% and wait_short about 30% of the
# blocked time (within 3 points), each under main.  With --user-stack fp
# the callers are lost again (the walk as it always was).  The binary
# gone, the unwind says so: "[unwind: no binary for w]".
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
need_cmd gcc
cd "$TMP"
cat > w.c <<'C'
#include <time.h>
static void nap(long ms) { struct timespec t = { 0, ms * 1000000L }; nanosleep(&t, 0); }
__attribute__((noinline)) void wait_long(void) { nap(70); }
__attribute__((noinline)) void wait_short(void) { nap(30); }
int main(void) { for (int i = 0; i < 20; i++) { wait_long(); wait_short(); } return 0; }
C
gcc -O1 -g -fno-omit-frame-pointer -o w w.c || { fail "gcc"; finish; }
"$FLYTRAP" record -q --bpf offcpu -o o.dat -- ./w > w.out 2> rec.err
rc=$?
[ $rc = 0 ] && ! grep -q "not loaded" rec.err || { cat rec.err; fail "record exited $rc"; finish; }
"$FLYTRAP" callgraph --source offcpu --folded o.dat > o.fold 2> e || fail "callgraph: $(cat e)"
line=$(grep -E '(^|;)main;([^;]+;)*clock_nanosleep@' o.fold | head -1)
[ -n "$line" ] && ok "libc frame under main named: $(echo "$line" | cut -d';' -f1-3)" \
	|| fail "no named libc frame under main: $(head -5 o.fold)"
grep -q '\[libc\.so\.6\]' o.fold && fail "a libc frame is still [libc.so.6]: $(grep -m1 'libc\.so' o.fold)"
"$FLYTRAP" callgraph --source offcpu --json o.dat > o.json || fail "callgraph --json"
src=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
print([b["symbols"] for b in j["binaries"] if b["path"].endswith("/libc.so.6")][0])' o.json 2>&1)
case $src in
dynsym|"debug file"|debuginfod|symtab) ok "JSON: libc named by its $src" ;;
*) fail "JSON source of libc: $src" ;;
esac

# the callers the wrapper hides, from the stack copies: shares of the process's blocked time
share() { awk -v f="$2" '{ w = $NF; t += w } index($0, f) { s += w } END { if (t) printf "%.1f", 100 * s / t }' "$1"; }
near() { awk -v v="$1" -v e="$2" 'BEGIN { d = v - e; exit !(d <= 3 && d >= -3) }'; }
long=$(share o.fold ";main;wait_long;") short=$(share o.fold ";main;wait_short;")
near "${long:-0}" 70 && ok "wait_long under main: ${long}% of the blocked time (70 +-3)" 	|| fail "wait_long: ${long:-none}% (want 70 +-3): $(sort -t' ' -k2 -n o.fold | tail -3 | cut -c1-160)"
near "${short:-0}" 30 && ok "wait_short under main: ${short}% (30 +-3)" || fail "wait_short: ${short:-none}%"
grep -Eq ';main;wait_long;([^;]*;){0,3}clock_nanosleep@' o.fold && ok "libc frame named under wait_long" 	|| fail "no named libc frame under wait_long: $(grep -m1 wait_long o.fold | cut -c1-160)"
uw=$(python3 -c 'import json,sys; u=json.load(open(sys.argv[1]))["unwind"]; print(u["mode"], u["stacks"] > 0)' o.json)
[ "$uw" = "dwarf True" ] && ok "JSON: stacks unwound from their copies (dwarf, the default)" || fail "JSON unwind: $uw"

"$FLYTRAP" record -q --bpf offcpu --user-stack fp -o f.dat -- ./w > w.out 2> rec.err || fail "record --user-stack fp: $(cat rec.err)"
"$FLYTRAP" callgraph --source offcpu --folded f.dat > f.fold 2> e || fail "callgraph fp: $(cat e)"
! grep -q wait_long f.fold && grep -q ';main;clock_nanosleep@' f.fold \
	&& ok "--user-stack fp: the frame-pointer walk alone, callers lost as before" \
	|| fail "--user-stack fp: $(grep -m1 main f.fold | cut -c1-160)"

# the binary gone: its frames cannot be unwound, and the stack says so
mv w w.gone
"$FLYTRAP" callgraph --source offcpu --folded o.dat > g.fold 2> e || fail "callgraph without the binary: $(cat e)"
grep -q '\[unwind: no binary for w\]' g.fold && ok "binary gone: [unwind: no binary for w]" \
	|| fail "binary gone: $(sort -t' ' -k2 -n g.fold | tail -2 | cut -c1-200)"
finish
