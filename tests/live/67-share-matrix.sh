#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The interoperability matrix, live: the writers that need a recorder, each read by every
# reader of tests/matrix-lib.sh (the derived writers made without one are
# tests/report/matrix.sh).  Writers: record with the default events; record --bpf
# syscalls,offcpu,profile --symbols -e sched; record -- CMD --user nobody; a flight
# recorder's first dump; a rotation's middle segment; recover after a SIGKILL; merge of a
# rotation's segments, of two flight dumps and of the segments redacted one by one (each
# with its own random key); redact (default policy) of the plain recording, redact --key of
# the BPF one.  The workload runs under a planted host name (unshare -u), as a binary whose
# name, folder, argument and the file it reads are unique strings: none may be left in a
# redacted file's bytes nor in what a reader prints.  About 3 s of recording per writer.
#   MATRIX_TABLE=1 O=build tests/live/67-share-matrix.sh   prints only the table
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd unshare
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$STORM" ] || skip "syscall_storm not built"
. "$TOP/tests/matrix-lib.sh"
F=$FLYTRAP
cd "$TMP" || exit 1
chmod 755 "$TMP"
RP= KIDS=
trap '[ -n "$RP" ] && kill -9 $RP $KIDS 2>/dev/null; rm -rf "$TMP"' EXIT

# ---- the planted secrets ---------------------------------------------------------------
u=$$$RANDOM
P=$TMP/zqmdir-$u
mkdir -p "$P"
task=zqmt$u
task=${task:0:15}
cp "$STORM" "$P/$task"
file=$P/zqmfile-$u.txt
echo data > "$file"
host=zqmhost-$u
arg=zqmarg-$u-planted
chmod -R a+rX "$P"
# CALLS getppid calls in about SECS s, the planted file read first
cat > cmd.sh << EOF
cat "$file" > /dev/null
exec "$P/$task" \$((\$2 * 4000)) 1 4000
EOF
chmod a+r cmd.sh
secrets=("$task" "$P" "$file" "$host" "$arg")
# the planted host name, set without a task named 'hostname' (a task's name is a value redact
# replaces, and the word is also a key of flytrap's metadata)
SETHOST='echo "$1" > /proc/sys/kernel/hostname && shift && exec "$@"'
# rec NAME SECS [record options]: records the workload for about SECS s under the planted
# host name, into NAME.dat (its messages in NAME.err)
rec() {
	local name=$1 secs=$2
	shift 2
	unshare -u sh -c "$SETHOST" _ "$host" \
		"$F" record -q "$@" -o "$name.dat" -- sh cmd.sh "$arg" "$secs" > /dev/null 2> "$name.err"
}
# the first line naming an error, else the last one
why() { (grep -m1 -i 'error' "$1" || grep -v '^$' "$1" | tail -1) | cut -c1-200; }

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

# ---- a flight recorder's dumps: two triggers whose windows overlap -----------------------
unshare -u sh -c "$SETHOST" _ "$host" "$F" record -q --flight 30s \
	--after 0.2s -e sched -e raw_syscalls -o fl.dat -- sh cmd.sh "$arg" 3 > /dev/null 2> fl.err &
RP=$!
sleep 1.2
kill -USR1 $RP 2> /dev/null
sleep 1
kill -USR1 $RP 2> /dev/null
wait $RP
rc=$?
RP=
mapfile -t dumps < <(ls fl-*.dat 2> /dev/null)
if [ $rc = 0 ] && [ ${#dumps[@]} = 2 ]; then
	mx_writer flight-dump "$TMP/${dumps[0]}" self
	# the union of the two dumps' events, each once (ns stamps)
	for f in "${dumps[@]}"; do
		mx_listing "$f" -t | grep -E -- '-[0-9]+ +\[[0-9]+\] ' > "$f.txt"
	done
	n=$(sort -u "${dumps[0]}.txt" "${dumps[1]}.txt" | wc -l)
	"$F" merge "${dumps[@]}" -o merge-dumps.dat > merge-dumps.log 2>&1 &&
		mx_writer merge-dumps "$TMP/merge-dumps.dat" "$n" || mx_writer_fail merge-dumps "$(why merge-dumps.log)"
else
	mx_writer_fail flight-dump "record --flight exit $rc, ${#dumps[@]} dumps (2 expected): $(why fl.err)"
	mx_writer_fail merge-dumps "no dumps"
fi

# ---- rotation: the middle segment, the segments merged, and redacted one by one then merged
if rec rot 3 --rotate 1s -e sched -e raw_syscalls; then
	mapfile -t segs < <(ls rot-*.dat 2> /dev/null)
	if [ ${#segs[@]} -ge 3 ]; then
		mx_writer rotation-segment "$TMP/${segs[1]}" self
		sum=0
		for f in "${segs[@]}"; do
			mx_listing "$f" > seg.txt
			sum=$((sum + $(mx_count_lines seg.txt)))
		done
		if "$F" merge "${segs[@]}" -o merge-segments.dat > merge-segments.log 2>&1; then
			mx_writer merge-segments "$TMP/merge-segments.dat" "$sum"
		else
			mx_writer_fail merge-segments "$(why merge-segments.log)"
		fi
		mkdir -p red
		: > merge-redacted.log
		for f in "${segs[@]}"; do
			"$F" redact "$f" -o "red/$f" >> merge-redacted.log 2>&1 || break
		done
		if [ -e "red/${segs[-1]}" ] && "$F" merge red/*.dat -o merge-redacted.dat >> merge-redacted.log 2>&1; then
			mx_writer merge-redacted-segments "$TMP/merge-redacted.dat" parent merge-segments same
		else
			mx_writer_fail merge-redacted-segments "$(why merge-redacted.log)"
		fi
		mx_secrets merge-redacted-segments "${secrets[@]}"
	else
		mx_writer_fail rotation-segment "${#segs[@]} segments of a 3 s recording rotated every 1 s"
	fi
else
	mx_writer_fail rotation-segment "$(why rot.err)"
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
