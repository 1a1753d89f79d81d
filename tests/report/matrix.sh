#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The interoperability matrix, offline: the files users make from a recording without a
# recorder (convert; slice by window, --comm and --pid; redact with the default policy and
# with --key; merge; and the chains: redact after slice, slice after redact, redact of a
# redacted file, merge of separately redacted slices, slice of a merge), made from the
# shipped BPF recording (sample.dat), a generated file whose tasks come, go and change
# names (mkrpt names) and one with every kind of loss (rpt-drops.dat); each read by every
# reader of tests/matrix-lib.sh.  Runs under the sanitizer build too.  The live writers
# (record, flight dumps, rotation, recover) are tests/live/67-share-matrix.sh.
#   MATRIX_TABLE=1 O=build tests/report/matrix.sh   prints only the table (docs/sharing.md)
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
. "$TOP/tests/matrix-lib.sh"
F=$FLYTRAP
MK=$TOP/$O/tests/tools/mkrpt
S=$TOP/tests/data/sample.dat
D=$MX/files
mkdir -p "$D"
head -c 32 /dev/urandom > "$D/key"
head -c 32 /dev/urandom > "$D/key2"

# mk NAME CMD...: runs a writer, NAME's file is made or NAME fails with the writer's message
mk() {
	local name=$1 rc
	shift
	"$@" > "$D/$name.log" 2>&1
	rc=$?
	[ $rc = 0 ] && return 0
	# the first error (a chain's summaries before it are not the news), else the last line
	mx_writer_fail "$name" "exit $rc: $( (grep -m1 'error' "$D/$name.log" || grep -v '^$' "$D/$name.log" |
		tail -1) | cut -c1-200)"
	return 1
}
# the middle third of FILE's span, as slice and the analyzers take it: "FROM TO"
thirds() {
	"$F" info --json "$1" | python3 -c "import json, sys
j = json.load(sys.stdin); a, b = j['first_ts'], j['last_ts']
print('%.6f %.6f' % ((a + (b - a) / 3) / 1e9, (a + 2 * (b - a) / 3) / 1e9))"
}

# ---- the shipped recording: record -e sched -e irq -e raw_syscalls --bpf syscalls,offcpu,profile
# its workload's names and paths are the planted secrets (none is in the kernel's own texts).
# Its kernel symbols cut to those its stacks name (convert --keep-symbols, as users do to
# attach a file): reading 122k symbols is most of what each of the ~250 commands costs
secrets=(fastprint_bench qemu-system-x86 /usr/share/man)
{ "$F" callgraph --folded --source samples "$S"; "$F" callgraph --folded --source offcpu "$S"; } |
	sed 's/ [0-9]*$//' | tr ';' '\n' | sort -u > "$D/names"
"$F" convert "$S" --keep-symbols "$D/names" -o "$D/record-bpf.dat" > "$D/keep.log" 2>&1 ||
	{ fail "convert --keep-symbols: $(tail -1 "$D/keep.log")"; finish; }
S=$D/record-bpf.dat
mx_writer record-bpf "$S" self
read -r t1 t2 < <(thirds "$S")
mk convert "$F" convert -c none "$S" -o "$D/convert.dat" &&
	mx_writer convert "$D/convert.dat" parent record-bpf same
mk slice-window "$F" slice "$S" --from "$t1" --to "$t2" -o "$D/slice-window.dat" &&
	mx_writer slice-window "$D/slice-window.dat" parent record-bpf window --from "$t1" --to "$t2"
mk slice-comm "$F" slice "$S" --comm ls -o "$D/slice-comm.dat" &&
	mx_writer slice-comm "$D/slice-comm.dat" parent record-bpf tasks --comm ls
mk slice-pid "$F" slice "$S" --pid 12525 -o "$D/slice-pid.dat" &&
	mx_writer slice-pid "$D/slice-pid.dat" parent record-bpf tasks --pid 12525
mk redact "$F" redact "$S" -o "$D/redact.dat" &&
	mx_writer redact "$D/redact.dat" parent record-bpf same
mx_secrets redact "${secrets[@]}"
mk redact-key "$F" redact "$S" --key "$D/key" -o "$D/redact-key.dat" &&
	mx_writer redact-key "$D/redact-key.dat" parent record-bpf same
mx_secrets redact-key "${secrets[@]}"
mk redact.slice "$F" redact "$D/slice-window.dat" -o "$D/redact.slice.dat" &&
	mx_writer redact.slice "$D/redact.slice.dat" parent slice-window same
mx_secrets redact.slice "${secrets[@]}"
mk slice.redact "$F" slice "$D/redact-key.dat" --from "$t1" --to "$t2" -o "$D/slice.redact.dat" &&
	mx_writer slice.redact "$D/slice.redact.dat" parent redact-key window --from "$t1" --to "$t2"
mx_secrets slice.redact "${secrets[@]}"
mk redact.redact "$F" redact "$D/redact-key.dat" --key "$D/key2" -o "$D/redact.redact.dat" &&
	mx_writer redact.redact "$D/redact.redact.dat" parent redact-key same
mx_secrets redact.redact "${secrets[@]}"

# two halves of the recording, merged as two recordings of one kernel (a buffer each); the
# same halves redacted one by one (each with its own random key, as users do) and merged
read -r h1 h2 < <("$F" info --json "$S" | python3 -c "import json, sys
j = json.load(sys.stdin); m = (j['first_ts'] + j['last_ts']) // 2
print('%.6f %.6f' % (m / 1e9, m / 1e9 + 1e-6))")
if mk half-a "$F" slice "$S" --to "$h1" -o "$D/a.dat" && mk half-b "$F" slice "$S" --from "$h2" -o "$D/b.dat"; then
	na=$("$F" info --json "$D/a.dat" | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])")
	nb=$("$F" info --json "$D/b.dat" | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])")
	mk merge "$F" merge "$D/a.dat" "$D/b.dat" -o "$D/merge.dat" &&
		mx_writer merge "$D/merge.dat" $((na + nb))
	mkdir -p "$D/r"
	mk merge.redacted sh -c '"$1" redact "$2/a.dat" -o "$2/r/a.dat" && "$1" redact "$2/b.dat" -o "$2/r/b.dat" &&
		"$1" merge "$2/r/a.dat" "$2/r/b.dat" -o "$2/merge.redacted.dat"' _ "$F" "$D" &&
		mx_writer merge.redacted "$D/merge.redacted.dat" parent merge same
	mx_secrets merge.redacted "${secrets[@]}"
	read -r m1 m2 < <(thirds "$D/merge.dat")
	mk slice.merge "$F" slice "$D/merge.dat" --from "$m1" --to "$m2" -o "$D/slice.merge.dat" &&
		mx_writer slice.merge "$D/slice.merge.dat" parent merge window --from "$m1" --to "$m2"
fi

# ---- a generated file whose tasks come, go and change names, with losses
if mk gen-names "$MK" names "$D/names.dat" 20000; then
	mx_writer gen-names "$D/names.dat" self
	read -r n1 n2 < <(thirds "$D/names.dat")
	mk names.slice "$F" slice "$D/names.dat" --from "$n1" --to "$n2" -o "$D/names.slice.dat" &&
		mx_writer names.slice "$D/names.slice.dat" parent gen-names window --from "$n1" --to "$n2"
	mk names.redact "$F" redact "$D/names.dat" --key "$D/key" -o "$D/names.redact.dat" &&
		mx_writer names.redact "$D/names.redact.dat" parent gen-names same
fi

# ---- every kind of loss: page markers, kernel counters, BPF drops, the recorder's backlog (its
# generator names itself recorder and task: a policy keeps that name)
Dr=$TOP/tests/data/rpt-drops.dat
mx_writer gen-drops "$Dr" self
printf 'comm mkrpt keep\nmeta *hostname keep\n' > "$D/drops.policy"
mk drops.redact "$F" redact "$Dr" --policy "$D/drops.policy" -o "$D/drops.redact.dat" &&
	mx_writer drops.redact "$D/drops.redact.dat" parent gen-drops same

mx_run
mx_finish
