#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The interoperability matrix, offline, part 4 (tests/report/_matrix.sh): merge of two
# halves of the shipped BPF recording (two recordings of one kernel), the same halves redacted
# with one key and merged, a slice of the merge; a file with every kind of loss and its
# redaction (losses told alike by info, drops and sql).
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/report/_matrix.sh"
mx_source record-bpf

# two halves of the recording, merged as two recordings of one kernel (a buffer each); the
# same halves redacted with one key and merged (with a random key each, merge says why not)
read -r h1 h2 < <("$F" info --json "$S" | python3 -c "import json, sys
j = json.load(sys.stdin); m = (j['first_ts'] + j['last_ts']) // 2
print('%.6f %.6f' % (m / 1e9, m / 1e9 + 1e-6))")
if mk half-a "$F" slice "$S" --to "$h1" -o "$D/a.dat" && mk half-b "$F" slice "$S" --from "$h2" -o "$D/b.dat"; then
	na=$("$F" info --json "$D/a.dat" | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])")
	nb=$("$F" info --json "$D/b.dat" | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])")
	mk merge "$F" merge "$D/a.dat" "$D/b.dat" -o "$D/merge.dat" &&
		mx_writer merge "$D/merge.dat" $((na + nb))
	# one key for the set, given to each call (flytrap-redact(1): --key FILE for all segments)
	mkdir -p "$D/r" "$D/x"
	head -c 32 /dev/urandom > "$D/set.key"
	mk merge.redacted sh -c '"$1" redact --key "$2/set.key" "$2/a.dat" -o "$2/r/a.dat" &&
		"$1" redact --key "$2/set.key" "$2/b.dat" -o "$2/r/b.dat" &&
		"$1" merge "$2/r/a.dat" "$2/r/b.dat" -o "$2/merge.redacted.dat"' _ "$F" "$D" &&
		mx_writer merge.redacted "$D/merge.redacted.dat" parent merge same
	mx_secrets merge.redacted "${secrets[@]}"
	# each half with its own random key: merge refuses in one line that says how to redo it
	if "$F" redact "$D/a.dat" -o "$D/x/a.dat" 2> /dev/null && "$F" redact "$D/b.dat" -o "$D/x/b.dat" 2> /dev/null; then
		"$F" merge "$D/x/a.dat" "$D/x/b.dat" -o "$D/x/m.dat" > /dev/null 2> "$D/x/err"
		rc=$?
		if [ "$rc" = 1 ] && [ "$(wc -l < "$D/x/err")" = 1 ] && grep -q -- '--key' "$D/x/err" &&
		   [ ! -e "$D/x/m.dat" ] && [ -z "$(find "$D/x" -name '.*')" ]; then
			echo "ok: merge of halves redacted with other keys: exit 1, one line naming --key"
		else
			fail "merge of halves redacted with other keys: exit $rc, $(head -c 300 "$D/x/err")"
		fi
	else
		fail "redact of the halves failed"
	fi
	read -r m1 m2 < <(thirds "$D/merge.dat")
	mk slice.merge "$F" slice "$D/merge.dat" --from "$m1" --to "$m2" -o "$D/slice.merge.dat" &&
		mx_writer slice.merge "$D/slice.merge.dat" parent merge window --from "$m1" --to "$m2"
fi

# every kind of loss: page markers, kernel counters, BPF drops, the recorder's backlog (its
# generator names itself recorder and task: a policy keeps that name)
Dr=$TOP/tests/data/rpt-drops.dat
mx_writer gen-drops "$Dr" self
printf 'comm mkrpt keep\nmeta *hostname keep\n' > "$D/drops.policy"
mk drops.redact "$F" redact "$Dr" --policy "$D/drops.policy" -o "$D/drops.redact.dat" &&
	mx_writer drops.redact "$D/drops.redact.dat" parent gen-drops same

mx_run
mx_finish
