#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The interoperability matrix, live, part 1 (tests/live/_matrix.sh): the writers that need a
# recorder, each read by every reader of tests/matrix-lib.sh (the derived writers made
# without one are tests/report/matrix-*.sh): record with the default events and its redact
# (default policy); record --bpf syscalls,offcpu,profile --symbols -e sched and its redact
# --key; record -- CMD --user nobody; recover after a SIGKILL.  The workload runs under a
# planted host name (unshare -u), as a binary whose name, folder, argument and the file it
# reads are unique strings: none may be left in a redacted file's bytes nor in what a reader
# prints.  About 2 s of recording per writer.  Part 2 (dumps, rotation, merges):
# 68-share-matrix-merge.sh.
#   MATRIX_TABLE=1 O=build tests/live/67-share-matrix.sh   prints only the table
. "$(dirname "$0")/_matrix.sh"

# ---- record, default events ------------------------------------------------------------
if rec plain 2; then
	mx_writer record "$TMP/plain.dat" self
	if "$F" redact plain.dat -o redact.dat > redact.log 2>&1; then
		mx_writer redact "$TMP/redact.dat" parent record same
	else
		mx_writer_fail redact "$(why redact.log)"
	fi
	mx_secrets redact "${secrets[@]}"
else
	mx_writer_fail record "$(why plain.err)"
	mx_writer_fail redact "no recording to redact"
fi

# ---- record --bpf syscalls,offcpu,profile --symbols -e sched ----------------------------
head -c 32 /dev/urandom > key
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	mx_writer_skip record-bpf "no kernel BTF (/sys/kernel/btf/vmlinux)"
	mx_writer_skip redact-key "no BPF recording"
elif rec bpf 2 --bpf syscalls,offcpu,profile --symbols -e sched; then
	mx_writer record-bpf "$TMP/bpf.dat" self
	if "$F" redact bpf.dat --key key -o redact-key.dat > redact-key.log 2>&1; then
		mx_writer redact-key "$TMP/redact-key.dat" parent record-bpf same
	else
		mx_writer_fail redact-key "$(why redact-key.log)"
	fi
	mx_secrets redact-key "${secrets[@]}"
elif grep -qi 'bpf\|btf\|permission' bpf.err; then
	mx_writer_skip record-bpf "the kernel refuses the BPF programs: $(why bpf.err)"
	mx_writer_skip redact-key "no BPF recording"
else
	mx_writer_fail record-bpf "$(why bpf.err)"
	mx_writer_fail redact-key "no BPF recording"
fi

# ---- record -- CMD --user nobody -------------------------------------------------------
if id nobody > /dev/null 2>&1; then
	rec user 1 -e sched -e raw_syscalls --user nobody && mx_writer record-user "$TMP/user.dat" self ||
		mx_writer_fail record-user "$(why user.err)"
else
	mx_writer_skip record-user "no user 'nobody'"
fi

# ---- recover after a SIGKILL: what the recorder had spooled (the kernel's unread pages stay
# in its instance: `flytrap reset` would save them, but it acts on every dead recorder of the
# machine, other tests' too; this test removes its own instance instead)
unshare -u sh -c "$SETHOST" _ "$host" "$F" record -e sched \
	-e raw_syscalls -o kill.dat -- sh cmd.sh "$arg" 30 > /dev/null 2> kill.err &
RP=$!
for i in $(seq 100); do grep -q '^flytrap: recording' kill.err 2> /dev/null && break; sleep 0.1; done
sleep 1.5
KIDS=$(pgrep -P $RP)
kill -9 $RP
# (braces: bash's "Killed" notice goes to the redirection too)
{ wait $RP; } 2> /dev/null
# shellcheck disable=SC2086
[ -n "$KIDS" ] && kill -9 $KIDS 2> /dev/null
# and the workload by its name, which is this run's own: pgrep -P can miss it
# when the machine is busy (seen once in a loaded run), and a recorder
# killed by SIGKILL leaves its command running for the 30 s it asked for
pkill -9 -x "$task" 2> /dev/null
for i in $(seq 50); do pgrep -x "$task" > /dev/null || break; sleep 0.1; done
KIDS=
if "$F" recover kill.dat > recover.log 2>&1; then
	mx_writer recover "$TMP/kill.dat" self
else
	mx_writer_fail recover "$(why recover.log)"
fi
[ -d "$TRACEFS/instances/flytrap-$RP" ] && rmdir "$TRACEFS/instances/flytrap-$RP"
rm -f "/run/flytrap/record-$RP"
RP=

mx_run
mx_finish

