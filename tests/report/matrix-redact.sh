#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The interoperability matrix, offline, part 2 (tests/report/_matrix.sh): redact of the
# shipped BPF recording with the default policy and with --key, and the chains users make:
# redact after slice, slice after redact, redact of a redacted file; the generated file of
# changing names redacted.  The planted secrets are the recording's workload's names and
# paths; every count and duration stays.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/report/_matrix.sh"
mx_source record-bpf

mk redact "$F" redact "$S" -o "$D/redact.dat" &&
	mx_writer redact "$D/redact.dat" parent record-bpf same
mx_secrets redact "${secrets[@]}"
mk redact-key "$F" redact "$S" --key "$D/key" -o "$D/redact-key.dat" &&
	mx_writer redact-key "$D/redact-key.dat" parent record-bpf same
mx_secrets redact-key "${secrets[@]}"
mk slice-window "$F" slice "$S" --from "$t1" --to "$t2" -o "$D/slice-window.dat" &&
	mx_writer slice-window "$D/slice-window.dat" parent record-bpf window --from "$t1" --to "$t2"
mx_source slice-window
mk redact.slice "$F" redact "$D/slice-window.dat" -o "$D/redact.slice.dat" &&
	mx_writer redact.slice "$D/redact.slice.dat" parent slice-window same
mx_secrets redact.slice "${secrets[@]}"
mk slice.redact "$F" slice "$D/redact-key.dat" --from "$t1" --to "$t2" -o "$D/slice.redact.dat" &&
	mx_writer slice.redact "$D/slice.redact.dat" parent redact-key window --from "$t1" --to "$t2"
mx_secrets slice.redact "${secrets[@]}"
mk redact.redact "$F" redact "$D/redact-key.dat" --key "$D/key2" -o "$D/redact.redact.dat" &&
	mx_writer redact.redact "$D/redact.redact.dat" parent redact-key same
mx_secrets redact.redact "${secrets[@]}"

if mk gen-names "$MK" names "$D/names.dat" 20000; then
	mx_writer gen-names "$D/names.dat" self
	mx_source gen-names
	mk names.redact "$F" redact "$D/names.dat" --key "$D/key" -o "$D/names.redact.dat" &&
		mx_writer names.redact "$D/names.redact.dat" parent gen-names same
fi

mx_run
mx_finish
