#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# record --bpf-object with a perf_event program (cpu-clock on every CPU at
# --bpf-perf-hz, samples through a PERF_EVENT_ARRAY, typed from BTF even
# though perf pads them) and a uprobe program whose bare section gets its
# target from --bpf-attach: uprobe_target 50 calls ut_leaf 100 times, so
# its pid counts exactly 100.  Without --bpf-attach the uprobe program is a
# usage error naming the option.  A STACK_TRACE map's stacks come out of
# report --bpf-maps with their kernel functions.  A 4 KiB ring overflowed
# on purpose: the records plus the losses the program counted (MAP_drops)
# are what it tried, and drops counts them.  Nothing stays loaded.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf_object
need_cmd trace-cmd
TARGET=$TOP/$O/tests/tools/uprobe_target
[ -x "$TARGET" ] || skip "uprobe_target not built"
cd "$TMP" || exit 1
bpfobj_cc attach attach.bpf.o ||
	{ fail "clang cannot build attach.bpf.c"; exit 1; }

"$FLYTRAP" record -q -o u.dat --bpf-object attach.bpf.o -d 1 >u.out 2>u.err
rc=$?
[ $rc = 2 ] && grep -q "needs a target: --bpf-attach ftt_uprobe=BINARY:FUNCTION" u.err &&
	ok "a bare uprobe section without --bpf-attach: $(cat u.err)" || fail "bare uprobe: exit $rc: $(cat u.err)"
[ -z "$(ours)" ] || fail "left loaded: $(ours)"

"$FLYTRAP" record -q -o a.dat --bpf-object attach.bpf.o --bpf-attach "ftt_uprobe=$TARGET:ut_leaf" \
	--bpf-perf-hz 499 -- "$TARGET" 50 >a.out 2>a.err || { fail "record: $(head -3 a.err)"; exit 1; }
[ -z "$(ours)" ] && ok "nothing loaded after the recording" || fail "left loaded: $(ours)"
n=$("$FLYTRAP" sql -c "select max(value_int) from bpf_map where map = 'attach/calls' and why = 'end'" --csv a.dat | tail -1)
[ "$n" = 100 ] && ok "uprobe via --bpf-attach: 100 calls of ut_leaf counted" || fail "uprobe: $n calls"
trace-cmd report -i a.dat >tc.out 2>/dev/null || fail "trace-cmd report"
s=$(grep -c ' attach_samples: *pid=[0-9]* cpu=[0-9]* ip=[0-9]* comm=' tc.out)
[ "$s" -gt 0 ] && ok "perf_event: $s cpu-clock samples printed by field name" ||
	fail "perf_event: no typed samples: $(grep -m2 attach_samples tc.out)"
grep -q 'attach_samples_raw' tc.out && fail "perf buffer samples stored raw"
"$FLYTRAP" info a.dat | grep -q "events of samples attach_samples samples_event records=$s raw=0" &&
	ok "info: the perf buffer's records" || fail "info: $("$FLYTRAP" info a.dat | grep 'events of')"

# a stack trace map: its stacks printed with the kernel functions of the file's kallsyms
bpfobj_cc stacks stacks.bpf.o ||
	{ fail "clang cannot build stacks.bpf.c"; exit 1; }
"$FLYTRAP" record -q -o s.dat --bpf-object stacks.bpf.o -d 1 >s.out 2>s.err || fail "record stacks: $(head -3 s.err)"
"$FLYTRAP" report --bpf-maps s.dat >s.txt 2>&1 || fail "report --bpf-maps: $(head -3 s.txt)"
grep -q '^      #[0-9]* 0xffff[0-9a-f]* __schedule+0x[0-9a-f]*$' s.txt &&
	ok "stack trace map: frames symbolized ($(grep -c '__schedule+' s.txt) stacks through __schedule)" ||
	fail "stack trace map: $(sed -n '/stacks at/,+4p' s.txt)"
[ -z "$(ours)" ] || fail "left loaded: $(ours)"

# losses of a ring buffer: records + the program's MAP_drops = what it tried, in the one figure
bpfobj_cc overflow overflow.bpf.o ||
	{ fail "clang cannot build overflow.bpf.c"; exit 1; }
"$FLYTRAP" record -q -o o.dat --bpf-object overflow.bpf.o --bpf-set target_comm=dd \
	-- dd if=/dev/zero of=/dev/null bs=512 count=50 status=none 2>o.err || fail "record overflow: $(head -3 o.err)"
recs=$("$FLYTRAP" report o.dat 2>/dev/null | grep -c ' overflow_events: ')
lost=$("$FLYTRAP" sql -c "select sum(count) from drops where source = 'bpf:overflow/events'" --csv o.dat | tail -1)
[ "$lost" -gt 0 ] && [ $((recs + lost)) = $((50 * 201)) ] &&
	ok "ring buffer losses: $recs records + $lost counted lost = 50 x 201" ||
	fail "ring buffer losses: $recs records, $lost lost (want a sum of $((50 * 201)))"
"$FLYTRAP" drops o.dat | grep -q "^  BPF ring buffer: *$lost" && ok "drops: the one loss figure counts them" ||
	fail "drops: $("$FLYTRAP" drops o.dat | grep -i 'bpf ring')"
[ -z "$(ours)" ] || fail "left loaded: $(ours)"
finish
