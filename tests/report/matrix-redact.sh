#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The interoperability matrix, offline, part 2 (tests/report/_matrix.sh): redact of the
# shipped BPF recording with the default policy and with --key; the generated file whose
# tasks come, go and change names, its slice and its redaction.  The planted secrets are the recording's workload's
# names and paths; every count and duration stays.  The chains are matrix-chain.sh.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/report/_matrix.sh"
mx_source record-bpf

mk redact "$F" redact "$S" -o "$D/redact.dat" &&
	mx_writer redact "$D/redact.dat" parent record-bpf same
mx_secrets redact "${secrets[@]}"
mk redact-key "$F" redact "$S" --key "$D/key" -o "$D/redact-key.dat" &&
	mx_writer redact-key "$D/redact-key.dat" parent record-bpf same
mx_secrets redact-key "${secrets[@]}"

# a generated file whose tasks come, go and change names, with losses: its slice and redaction
if mk gen-names "$MK" names "$D/names.dat" 20000; then
	mx_writer gen-names "$D/names.dat" self
	read -r n1 n2 < <(thirds "$D/names.dat")
	mk names.slice "$F" slice "$D/names.dat" --from "$n1" --to "$n2" -o "$D/names.slice.dat" &&
		mx_writer names.slice "$D/names.slice.dat" parent gen-names window --from "$n1" --to "$n2"
	mk names.redact "$F" redact "$D/names.dat" --key "$D/key" -o "$D/names.redact.dat" &&
		mx_writer names.redact "$D/names.redact.dat" parent gen-names same
fi

mx_run
mx_finish
