#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# slice --from on a recording of this machine (scheduler events with
# wakeups, syscalls, irqs, and BPF syscall records when BPF loads): the
# slices that skip the chunks before the cut are byte for byte those of a
# read from the start (FLYTRAP_WINDOW_READ=full), over eight windows, and
# most of them did skip.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_tracefs
"$FLYTRAP" record --help >/dev/null 2>&1 || skip "flytrap was built without record (NO_RECORD=1)"
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$STORM" ] || skip "syscall_storm not built"
cd "$TMP"

bpf=()
[ -r /sys/kernel/btf/vmlinux ] && "$FLYTRAP" record --help 2>&1 | grep -q -- '--bpf' &&
	bpf=(--bpf syscalls)
# a small chunk (2 pages) makes many chunks of a short recording
"$FLYTRAP" record -q "${bpf[@]}" -e sched:sched_switch -e sched:sched_wakeup \
	-e sched:sched_wakeup_new -e sched:sched_process_exit -e raw_syscalls -e irq -o l.dat -- \
	sh -c "for i in 1 2 3 4 5 6; do $STORM 20000 2 >/dev/null; sleep 0.1; done" 2>rec.err
rc=$?
[ $rc = 0 ] || { cat rec.err; fail "record exited $rc"; finish; }
"$FLYTRAP" convert --chunk 2 l.dat -o c.dat 2>conv.err || { cat conv.err; fail "convert"; finish; }
read -r a z < <("$FLYTRAP" info --json c.dat | python3 -c 'import json, sys
d = json.load(sys.stdin); print(d["first_ts"], d["last_ts"])')
[ -n "$a" ] || { fail "no span in the recording"; finish; }
n=0 same=0 skipped=0
while read -r from to; do
	for args in "" "--json" "--cpu 0"; do
		n=$((n + 1))
		rm -f o.dat full.dat
		# shellcheck disable=SC2086
		FLYTRAP_WINDOW_READ=full "$FLYTRAP" slice $args --from "$from" --to "$to" c.dat -o o.dat \
			>full.out 2>full.err
		frc=$?
		[ -e o.dat ] && mv o.dat full.dat
		# shellcheck disable=SC2086
		FLYTRAP_WINDOW_READ=say "$FLYTRAP" slice $args --from "$from" --to "$to" c.dat -o o.dat \
			>skip.out 2>skip.err
		src=$?
		grep -q '^slice: [0-9]* of [0-9]* chunks skipped$' skip.err && skipped=$((skipped + 1))
		grep -v '^slice: ' skip.err >skip.err2
		# a window with no event of the CPU: both refuse alike (exit 1, no file)
		if [ "$frc" = 1 ] && [ "$src" = 1 ] && [ ! -e full.dat ] && [ ! -e o.dat ] &&
			cmp -s full.err skip.err2 && grep -q 'no event passes the filters' full.err; then
			same=$((same + 1))
		elif [ "$frc" = 0 ] && [ "$src" = 0 ] && [ -e full.dat ] && cmp -s full.dat o.dat &&
			cmp -s full.out skip.out && cmp -s full.err skip.err2; then
			same=$((same + 1))
		else
			fail "slice $args --from $from --to $to: $(cmp full.dat o.dat 2>&1 | head -1)" \
				"$(diff full.out skip.out | head -2 | tr '\n' ' ')"
		fi
	done
done < <(python3 -c "import sys
a, z = int(sys.argv[1]), int(sys.argv[2])
for p, q in ((0.1, 0.2), (0.3, 0.31), (0.5, 0.6), (0.55, 0.9), (0.7, 0.7001), (0.8, 1),
             (0.95, 0.96), (0.999, 1.5)):
    print('%.9f %.9f' % ((a + (z - a) * p) / 1e9, (a + (z - a) * q) / 1e9))" "$a" "$z")
[ $same = $n ] && ok "$n slices of the recording are the same skipping and reading from the start" ||
	fail "$((n - same)) of $n slices differ"
[ $skipped -ge $((n * 3 / 4)) ] && ok "$skipped of $n slices skipped chunks" ||
	fail "only $skipped of $n slices skipped chunks: $(grep '^slice:' skip.err)"
finish
