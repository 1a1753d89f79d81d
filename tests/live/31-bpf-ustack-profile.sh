#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# CPU profiles whose user stacks the frame-pointer walk gets wrong (issue
# 15), recorded with --bpf profile and --user-stack:
#  1. a hot libc leaf: strlen of a 64 KiB string, called 3 times by
#     scan_three() for every call by scan_one() (-O1 -fno-omit-frame-pointer;
#     strlen keeps no frame pointer, so the walk alone skips its caller).
#     With the default --user-stack (dwarf) the samples in libc split 75/25
#     between the two callers, within 3 points.
#  2. a -O2 program without frame pointers (Debian's default), main ->
#     chain_a1 -> leaf and main -> chain_b1 -> chain_b2 -> leaf, main with a
#     6000-byte local array (so its copy is larger than one event and goes in
#     flytrap:ucopy_more parts): --user-stack dwarf names the same call
#     chains (those of 5% of the samples or more) as
#     `perf record -e cpu-clock --call-graph dwarf` of the same program.
#  3. the same program with a 12000-byte frame in main, recorded with no
#     --user-stack at all: the default copies 16384 bytes for a profile
#     sample, so its samples reach _start; --user-stack dwarf:8192 (the
#     offcpu default, perf's) cuts them at '[unwind: stack copy too small]'.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
need_cmd gcc
need_cmd python3
cd "$TMP"
cat > s.c <<'C'
#include <stdlib.h>
#include <string.h>
#include <time.h>
static char *buf;
volatile size_t sink;
__attribute__((noinline)) void touch(void) { buf[0] = 'a'; }
__attribute__((noinline)) void scan_three(void) { for (int i = 0; i < 3; i++) { touch(); sink += strlen(buf); } }
__attribute__((noinline)) void scan_one(void) { touch(); sink += strlen(buf); }
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	struct timespec a, b;
	buf = malloc((1 << 16) + 1);
	memset(buf, 'a', 1 << 16);
	buf[1 << 16] = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 50; i++) { scan_three(); scan_one(); }
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return 0;
}
C
gcc -O1 -g -fno-omit-frame-pointer -o s s.c || { fail "gcc s.c"; finish; }
"$FLYTRAP" record -q --bpf profile=997 -o s.dat -- ./s 3 > /dev/null 2> rec.err || { cat rec.err; fail "record s"; finish; }
"$FLYTRAP" callgraph --folded s.dat > s.fold 2> e || fail "callgraph: $(cat e)"
# samples whose leaf is in libc, by caller
read -r three one < <(awk '{ w = $NF; n = split($1, f, ";"); leaf = f[n]
	if (leaf !~ /strlen|libc\.so/) next
	if (f[n - 1] == "scan_three") a += w; else if (f[n - 1] == "scan_one") b += w }
	END { print a + 0, b + 0 }' s.fold)
pct=$(awk -v a="$three" -v b="$one" 'BEGIN { if (a + b) printf "%.1f", 100 * a / (a + b) }')
if [ $((three + one)) -ge 300 ] && awk -v p="${pct:-0}" 'BEGIN { exit !(p >= 72 && p <= 78) }'; then
	ok "libc strlen samples: ${pct}% under scan_three, the rest under scan_one (75 +-3; $three/$one)"
else
	fail "strlen split ${pct:-none}% ($three/$one samples), want 75 +-3: $(sort -t' ' -k2 -n s.fold | tail -3 | cut -c1-160)"
fi
grep -q ';main;scan_three;[^;]*strlen' s.fold && ok "the libc leaf named under its caller: $(grep -o 'scan_three;[^;]*strlen[^; ]*' s.fold | head -1)" \
	|| fail "no strlen frame under scan_three: $(grep -m1 scan_three s.fold | cut -c1-160)"

need_cmd perf
cat > p.c <<'C'
#include <stdlib.h>
#include <time.h>
#ifndef PAD
#define PAD 6000
#endif
volatile double sink;
volatile long step = 1;
__attribute__((noinline)) double leaf(long n) { double s = 0; for (long i = 1; i < n; i += step) s += 1.0 / (double)i; return s; }
__attribute__((noinline)) double chain_b2(long n) { return leaf(n) * 2; }
__attribute__((noinline)) double chain_b1(long n) { return chain_b2(n) + 1; }
__attribute__((noinline)) double chain_a1(long n) { return leaf(n) + 3; }
int main(int argc, char **argv)
{
	volatile char pad[PAD];
	double secs = argc > 1 ? atof(argv[1]) : 2;
	long n = argc > 2 ? atol(argv[2]) : 100000;
	struct timespec a, b;
	/* every page of the frame touched: a page never written is not in memory, and the
	 * sample's copy stops there ('stack page not readable'), whatever its size */
	for (int i = 0; i < PAD; i += 256)
		pad[i] = 0;
	pad[0] = pad[PAD - 1] = 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		sink += chain_a1(n);
		sink += chain_b1(2 * n);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return pad[PAD - 1] - 1;
}
C
gcc -O2 -o p p.c || { fail "gcc p.c"; finish; }
objdump -d p 2>/dev/null | awk '/<leaf>:/,/ret/' | grep -q 'push.*%rbp' && skip "gcc kept a frame pointer in leaf"
"$FLYTRAP" record -q --bpf profile=997 --user-stack dwarf -o p.dat -- ./p 3 > /dev/null 2> rec.err \
	|| { cat rec.err; fail "record --user-stack dwarf"; finish; }
perf record -q -e cpu-clock -F 997 --call-graph dwarf -o perf.data -- ./p 3 > /dev/null 2> perf.err \
	|| { cat perf.err; skip "perf record --call-graph dwarf failed"; }
"$FLYTRAP" callgraph --folded p.dat > p.fold 2> e || fail "callgraph: $(cat e)"
perf script -i perf.data -F ip,sym > perf.txt 2> /dev/null || fail "perf script"
trace-cmd report p.dat 2> /dev/null | grep -q ucopy_more && ok "copies larger than an event came in ucopy_more parts" \
	|| fail "no flytrap:ucopy_more event: main's frame should not fit one event"
python3 - p.fold perf.txt > cmp.txt <<'PY'
import re, sys
keep = re.compile(r"^(main|chain_a1|chain_b1|chain_b2|leaf)$")
def chains(pairs):
    tot = sum(w for _, w in pairs)
    acc = {}
    for c, w in pairs:
        c = ";".join(f for f in c if keep.match(f))
        if c:
            acc[c] = acc.get(c, 0) + w
    return {c for c, w in acc.items() if w >= 0.05 * tot}, tot
ft = []
for line in open(sys.argv[1]):
    s, w = line.rsplit(" ", 1)
    ft.append((s.split(";"), int(w)))
pf, cur = [], []
for line in open(sys.argv[2]):
    line = line.strip()
    if not line:
        if cur:
            pf.append((cur[::-1], 1))
        cur = []
        continue
    parts = line.split(None, 1)
    cur.append(parts[1].split("+")[0] if len(parts) > 1 else "?")
if cur:
    pf.append((cur[::-1], 1))
a, ta = chains(ft)
b, tb = chains(pf)
print("flytrap", ta, sorted(a))
print("perf", tb, sorted(b))
sys.exit(0 if a == b and "main;chain_b1;chain_b2;leaf" in a and "main;chain_a1;leaf" in a else 1)
PY
rc=$?
[ $rc = 0 ] && ok "--user-stack dwarf names perf's call chains: $(sed -n 1p cmp.txt | cut -d' ' -f3-)" \
	|| fail "call chains differ: $(cat cmp.txt)"
grep -q '_start;__libc_start_main[^;]*;__libc_start_call_main;main;chain_b1;chain_b2;leaf ' p.fold \
	&& ok "the dwarf unwind goes through main's 6000-byte frame to _start" \
	|| fail "no full stack to _start: $(sort -t' ' -k2 -n p.fold | tail -2 | cut -c1-200)"

gcc -O2 -DPAD=12000 -o p12 p.c || { fail "gcc -DPAD=12000 p.c"; finish; }
for b in default 8192; do
	a=()
	[ $b = default ] || a=(--user-stack "dwarf:$b")
	"$FLYTRAP" record -q --bpf profile=997 "${a[@]}" -o p12-$b.dat -- ./p12 1.5 > /dev/null 2> rec.err \
		|| { cat rec.err; fail "record ${a[*]}"; finish; }
	"$FLYTRAP" callgraph --folded p12-$b.dat > p12-$b.fold 2> e || fail "callgraph: $(cat e)"
done
share() {	# FOLD PATTERN: percent of the samples of ./p12's leaf whose stack matches PATTERN
	awk -v re="$2" '/;leaf( |;)/ { t += $NF; if ($0 ~ re) m += $NF }
		END { printf "%d", t ? 100 * m / t : -1 }' "$1"
}
full=$(share p12-default.fold '_start;__libc_start_main[^;]*;__libc_start_call_main;main;')
cut8=$(share p12-8192.fold 'unwind: stack copy too small')
[ "$full" -ge 95 ] && ok "main's 12000-byte frame: ${full}% of the leaf's samples reach _start by default" \
	|| fail "default copy: ${full}% of the leaf's samples reach _start (want 95+): $(head -c 300 p12-default.fold)"
[ "$cut8" -ge 95 ] && ok "with dwarf:8192 ${cut8}% are cut at 'stack copy too small'" \
	|| fail "dwarf:8192: ${cut8}% cut (the 12000-byte frame should not fit): $(head -c 300 p12-8192.fold)"
"$FLYTRAP" info p12-default.dat | grep -q "bpf_user_stack_profile_bytes=16384" \
	&& ok "info: bpf_user_stack_profile_bytes=16384" || fail "no bpf_user_stack_profile_bytes=16384 in info"
finish
