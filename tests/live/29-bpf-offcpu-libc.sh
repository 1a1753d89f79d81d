#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 15's program, recorded with --bpf offcpu: a loop calling wait_long()
# (70 ms nanosleep) and wait_short() (30 ms).  The libc frame the blocked
# time passes through is named as perf names it (clock_nanosleep@GLIBC_2.2.5
# from .dynsym or libc6-dbg's symtab, not "[libc.so.6]"), under main, and
# --json says which source named libc.
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
int main(void) { for (int i = 0; i < 5; i++) { wait_long(); wait_short(); } return 0; }
C
gcc -O1 -g -fno-omit-frame-pointer -o w w.c || { fail "gcc"; finish; }
"$FLYTRAP" record -q --bpf offcpu -o o.dat -- ./w > w.out 2> rec.err
rc=$?
[ $rc = 0 ] && ! grep -q "not loaded" rec.err || { cat rec.err; fail "record exited $rc"; finish; }
"$FLYTRAP" callgraph --source offcpu --folded o.dat > o.fold 2> e || fail "callgraph: $(cat e)"
line=$(grep '^[^;]*;*main;clock_nanosleep@' o.fold | head -1)
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
finish
