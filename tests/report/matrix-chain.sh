#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The interoperability matrix, offline, part 3 (tests/report/_matrix.sh): the chains users
# make of the shipped BPF recording: redact after slice, slice after redact, redact of a
# redacted file (another key).  No planted secret may be left; redact keeps every count and
# duration, slice the window's counts.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/report/_matrix.sh"
mx_source record-bpf

mk slice-window "$F" slice "$S" --from "$t1" --to "$t2" -o "$D/slice-window.dat" &&
	mx_writer slice-window "$D/slice-window.dat" parent record-bpf window --from "$t1" --to "$t2"
mx_source slice-window
mk redact-key "$F" redact "$S" --key "$D/key" -o "$D/redact-key.dat" &&
	mx_writer redact-key "$D/redact-key.dat" parent record-bpf same
mx_source redact-key

mk redact.slice "$F" redact "$D/slice-window.dat" -o "$D/redact.slice.dat" &&
	mx_writer redact.slice "$D/redact.slice.dat" parent slice-window same
mx_secrets redact.slice "${secrets[@]}"
mk slice.redact "$F" slice "$D/redact-key.dat" --from "$t1" --to "$t2" -o "$D/slice.redact.dat" &&
	mx_writer slice.redact "$D/slice.redact.dat" parent redact-key window --from "$t1" --to "$t2"
mx_secrets slice.redact "${secrets[@]}"
mk redact.redact "$F" redact "$D/redact-key.dat" --key "$D/key2" -o "$D/redact.redact.dat" &&
	mx_writer redact.redact "$D/redact.redact.dat" parent redact-key same
mx_secrets redact.redact "${secrets[@]}"

mx_run
mx_finish
