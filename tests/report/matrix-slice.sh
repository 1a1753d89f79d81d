#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The interoperability matrix, offline, part 1 (tests/report/_matrix.sh): the shipped BPF
# recording, its convert -c none, its slices by window, --comm and --pid; each read by every
# reader.  (The generated file of changing names and its slice: matrix-redact.sh.)
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/report/_matrix.sh"

mk convert "$F" convert -c none "$S" -o "$D/convert.dat" &&
	mx_writer convert "$D/convert.dat" parent record-bpf same
mk slice-window "$F" slice "$S" --from "$t1" --to "$t2" -o "$D/slice-window.dat" &&
	mx_writer slice-window "$D/slice-window.dat" parent record-bpf window --from "$t1" --to "$t2"
mk slice-comm "$F" slice "$S" --comm ls -o "$D/slice-comm.dat" &&
	mx_writer slice-comm "$D/slice-comm.dat" parent record-bpf tasks --comm ls
mk slice-pid "$F" slice "$S" --pid 12525 -o "$D/slice-pid.dat" &&
	mx_writer slice-pid "$D/slice-pid.dat" parent record-bpf tasks --pid 12525

# a slice that selects nothing is no file to share: exit 1, no output (outside the table: no
# reader has a file to read)
"$F" slice "$S" --comm 'no-such-task-*' -o "$D/nothing.dat" > "$D/nothing.log" 2>&1
rc=$?
if [ $rc = 1 ] && [ ! -e "$D/nothing.dat" ]; then
	mx_say "ok: slice --comm selecting no event: exit 1, no file"
else
	fail "slice selecting no event (--comm 'no-such-task-*'): exit 1 and no file expected, exit $rc\
$([ -e "$D/nothing.dat" ] && echo " and a file of $("$F" info --json "$D/nothing.dat" 2> /dev/null |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["events"])' 2>&1) events")"
fi

mx_run
mx_finish
