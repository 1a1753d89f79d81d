#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# User stacks across fork and exec (issue 35, item 2), with record's default
# user stacks (--bpf profile, no --user-stack):
#  1. a process that execs late (`bash -c '(sleep 1.5; exec ./prog); true'`,
#     the issue's case): the recorder read the subshell's maps first (bash's
#     libc at one address), then prog's (libc at another); the file keeps
#     the mappings of the program the process runs now, so every sample of
#     prog reaches _start, in each of 3 runs (before: about every other run
#     cut all of them at "[unwind: no binary for libc.so.6]");
#  2. a child that works in its parent's code between fork and exec: with no
#     -e, record stores sched_process_fork and sched_process_exec, and
#     callgraph names those samples from the parent's program
#     (main;child_work, counted as pre_exec in --json), while the file's
#     maps of the child's pid are those of the program it exec'd;
#  3. a process that runs two programs (`bash -c 'exec ./mid'`: mid works,
#     then execs ./prog): the kernel reports mid's mappings before the exec
#     (sched_prepare_exec, META bpf_exec_images=on), the file keeps them as
#     an earlier image, and every sample of mid_work and of prog's leaf
#     reaches _start, in each of 3 runs (before: the file had one image, a
#     mix of both, and one program or the other was cut every run); with
#     --symbols and both binaries deleted, the same.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
need_cmd gcc
need_cmd python3
cd "$TMP"
cat > prog.c <<'C'
#include <stdlib.h>
#include <time.h>
volatile double sink;
volatile long step = 1;	/* so that leaf() is neither pure nor hoisted out of the loop */
__attribute__((noinline)) double leaf(long n) { double s = 0; for (long i = 1; i < n; i += step) s += 1.0 / (double)i; return s; }
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.5;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		sink += leaf(100000);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return 0;
}
C
# spawn: a child works in spawn's code, then execs ./prog; built -DMID, mid: the process
# itself works in mid's code, then execs ./prog
cat > spawn.c <<'C'
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef MID
#define WORK mid_work
#else
#define WORK child_work
#endif
volatile double sink;
/* the work before the exec, in this program's code */
__attribute__((noinline)) void WORK(double secs)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (long i = 1; i < 100000; i++)
			sink += 1.0 / (double)i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
}
int main(void)
{
#ifdef MID
	WORK(0.5);
	execl("./prog", "prog", "0.4", (char *)NULL);
	return 127;
#else
	pid_t p = fork();
	if (p == 0) {
		WORK(0.6);
		execl("./prog", "prog", "0.4", (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
#endif
}
C
gcc -O2 -o prog prog.c && gcc -O2 -o spawn spawn.c && gcc -O2 -DMID -o mid spawn.c || { fail "gcc"; finish; }

# 1. late exec
for run in 1 2 3; do
	"$FLYTRAP" record -q --bpf profile=997 -o late$run.dat -- bash -c '(sleep 1.5; exec ./prog 0.5); true' \
		>/dev/null 2>rec.err || { cat rec.err; fail "record (late exec, run $run)"; continue; }
	"$FLYTRAP" callgraph --folded late$run.dat > late$run.fold 2>e || fail "callgraph: $(cat e)"
	read -r t m < <(awk '/;leaf/ { t += $NF; if ($0 ~ /^_start;__libc_start_main[^;]*;__libc_start_call_main;main;leaf/) m += $NF }
		END { print t + 0, m + 0 }' late$run.fold)
	[ "$t" -gt 50 ] && [ "$m" = "$t" ] && ok "late exec, run $run: all $t samples of prog's leaf reach _start" ||
		fail "late exec, run $run: $m of $t samples of prog's leaf reach _start: $(grep ';leaf' late$run.fold | sort -t' ' -k2 -n | tail -2 | cut -c1-200)"
done

# 2. work between fork and exec
"$FLYTRAP" record -q --bpf profile=997 -o spawn.dat -- ./spawn >/dev/null 2>rec.err ||
	{ cat rec.err; fail "record ./spawn"; finish; }
"$FLYTRAP" info spawn.dat > info.txt
grep -q "sched:sched_process_fork" info.txt && grep -q "sched:sched_process_exec" info.txt &&
	ok "no -e: the file has sched_process_fork and sched_process_exec" ||
	fail "no fork/exec events in the file: $(grep -A5 'event type' info.txt)"
"$FLYTRAP" callgraph --folded spawn.dat > spawn.fold 2>e || fail "callgraph: $(cat e)"
read -r t m < <(awk '/child_work/ { t += $NF; if ($0 ~ /^_start;__libc_start_main[^;]*;__libc_start_call_main;main;child_work/) m += $NF }
	END { print t + 0, m + 0 }' spawn.fold)
[ "$t" -gt 100 ] && [ "$m" -ge $((t * 95 / 100)) ] &&
	ok "before its exec: $m of $t samples of the child named main;child_work from the parent's program" ||
	fail "before the exec: $m of $t child_work samples reach _start: $(sort -t' ' -k2 -n spawn.fold | tail -3 | cut -c1-200)"
grep -q ';main;leaf ' spawn.fold && ok "after its exec: prog's main;leaf" || fail "no main;leaf of prog after the exec"
pre=$("$FLYTRAP" callgraph --json spawn.dat | python3 -c 'import json,sys; print(json.load(sys.stdin)["unwind"]["pre_exec"])')
[ "${pre:-0}" -ge "$t" ] && ok "--json unwind.pre_exec: $pre" || fail "--json unwind.pre_exec is ${pre:-none} (want >= $t)"
"$FLYTRAP" callgraph spawn.dat 2>&1 | grep -q "sampled before their process's exec" &&
	ok "the text says so" || fail "no pre-exec line in the text"

# 3. two programs in one process
# FOLDED: "MID_WHOLE MID LEAF_WHOLE LEAF" (libc's frame between: __libc_start_call_main,
# or [libc.so.6] where the symbols --symbols stored, libc's dynamic ones, name it)
two() {
	awk '/;mid_work( |;)/ { m += $NF; if ($0 ~ /^_start;__libc_start_main[^;]*;[^;]*;main;mid_work/) mw += $NF }
	     /;leaf( |;)/ { l += $NF; if ($0 ~ /^_start;__libc_start_main[^;]*;[^;]*;main;leaf/) lw += $NF }
	     END { print mw + 0, m + 0, lw + 0, l + 0 }' "$1"
}
"$FLYTRAP" record -q --bpf profile=997 -o two0.dat -- bash -c 'exec ./mid' >/dev/null 2>rec.err ||
	{ cat rec.err; fail "record (two programs)"; finish; }
state=$("$FLYTRAP" info two0.dat | sed -n 's/^ *bpf_exec_images=//p')
if [ "$state" != on ]; then
	echo "SKIP (case 3): two programs in one process: bpf_exec_images=${state:-absent} (needs sched_prepare_exec, Linux 6.10+)"
	finish
fi
for run in 0 1 2; do
	[ $run = 0 ] || "$FLYTRAP" record -q --bpf profile=997 -o two$run.dat -- bash -c 'exec ./mid' \
		>/dev/null 2>rec.err || { cat rec.err; fail "record (two programs, run $run)"; continue; }
	"$FLYTRAP" callgraph --folded two$run.dat > two$run.fold 2>e || fail "callgraph: $(cat e)"
	read -r mw m lw l < <(two two$run.fold)
	[ "$m" -gt 100 ] && [ "$mw" = "$m" ] && [ "$l" -gt 100 ] && [ "$lw" = "$l" ] &&
		ok "two programs, run $run: all $m samples of mid_work and $l of leaf reach _start" ||
		fail "two programs, run $run: mid_work $mw of $m, leaf $lw of $l whole: $(sort -t' ' -k2 -n two$run.fold | tail -3 | cut -c1-200)"
done
"$FLYTRAP" record -q --bpf profile=997 --symbols -o twos.dat -- bash -c 'exec ./mid' >/dev/null 2>rec.err ||
	{ cat rec.err; fail "record --symbols (two programs)"; finish; }
mkdir -p gone && mv mid prog gone/
"$FLYTRAP" callgraph --folded twos.dat > twos.fold 2>e || fail "callgraph: $(cat e)"
mv gone/mid gone/prog .
read -r mw m lw l < <(two twos.fold)
[ "$m" -gt 100 ] && [ "$mw" = "$m" ] && [ "$l" -gt 100 ] && [ "$lw" = "$l" ] &&
	ok "--symbols, both binaries gone: all $m samples of mid_work and $l of leaf reach _start" ||
	fail "--symbols, binaries gone: mid_work $mw of $m, leaf $lw of $l whole: $(sort -t' ' -k2 -n twos.fold | tail -3 | cut -c1-200)"
finish
