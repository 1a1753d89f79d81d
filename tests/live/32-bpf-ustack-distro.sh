#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 35: stacks that reach main on the binaries people run.  Debian's xz,
# gzip, sort and python3 (built without frame pointers, as distributions
# build) are each recorded with `record --bpf profile` and its default
# options while `perf record --call-graph dwarf` samples the same run.  Per
# program: at least 95% of flytrap's samples reach __libc_start_main, and
# perf's five most inclusive functions have the same share of samples in
# flytrap's profile within 10 points, among the samples that reach main in
# each (tests/live/_stackcmp.py; names as both print them, a function
# without a symbol as [BINARY]).  Before the default
# became --user-stack dwarf, 0-0.2% of the samples reached main.  Each
# workload runs long enough for the comparison's 50 samples at 99 Hz with
# a margin on a fast machine (sort of two copies gave 48 here once).  No
# stack is a PLT stub alone (libdwfl ended those walks as complete: 2-4% of
# sort's samples, its comparator's memcmp@plt and strcoll@plt).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
need_cmd perf
need_cmd python3
for b in /usr/bin/xz /usr/bin/gzip /usr/bin/sort /usr/bin/python3; do
	[ -x $b ] || skip "$b is not installed"
done
cd "$TMP"
perf record -q -o probe.data -- true > /dev/null 2>&1 || skip "perf record does not work here"
head -c 24000000 /dev/urandom | base64 > big.txt
head -c 2500000 big.txt > small.txt
cat > loop.py <<'P'
def work(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
for k in range(200):
    work(200000)
P
for w in xz gzip sort python3; do
	case $w in
	xz) cmd=(/usr/bin/xz -9 -T1 -c small.txt) ;;
	gzip) cmd=(/usr/bin/gzip -9 -c big.txt) ;;
	sort) cmd=(/usr/bin/sort --parallel=1 big.txt big.txt big.txt) ;;
	python3) cmd=(/usr/bin/python3 loop.py) ;;
	esac
	if ! perf record -q -F 99 --call-graph dwarf -o $w.data -- \
		"$FLYTRAP" record -q --bpf profile -o $w.dat -- "${cmd[@]}" > /dev/null 2> $w.err; then
		fail "$w: record: $(tail -3 $w.err)"
		continue
	fi
	"$FLYTRAP" callgraph --folded --comm $w $w.dat > $w.fold 2> e || fail "$w: callgraph: $(cat e)"
	perf script -i $w.data --comm $w -F ip,sym,dso > $w.perf 2> /dev/null ||
		fail "$w: perf script"
	# a sample in a PLT stub (memcmp@plt under sort's comparator) goes on to its caller
	if grep -Eq '^[^;]*@plt [0-9]+$' $w.fold; then
		fail "$w: $(grep -Ec '^[^;]*@plt [0-9]+$' $w.fold) stacks end in a PLT stub: $(grep -E '^[^;]*@plt [0-9]+$' $w.fold | head -2 | tr '\n' ' ')"
	fi
	if python3 "$TOP/tests/live/_stackcmp.py" $w.fold $w.perf 10 > $w.cmp; then
		ok "$w: $(grep -E ' main:|^note' $w.cmp | tr '\n' ' ')"
	else
		fail "$w: $(tr '\n' ';' < $w.cmp)"
	fi
	rm -f $w.data $w.dat
done
finish
