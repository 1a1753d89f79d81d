#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A recording says nothing about other users' processes that it was not
# asked for: while another user's program runs (a copy of sleep under a
# unique path, as nobody), root records the scheduler system-wide around a
# command of its own; the file's process maps (PROCMAPS) list only the
# command, and the other program's path is nowhere in the file (maps,
# symbol tables, build-ids), checked in the bytes of an uncompressed copy.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
need_cmd setpriv
cd "$TMP"
chmod 755 "$TMP"
secret=$TMP/secretbin-$$-q7
cp "$(command -v sleep)" "$secret"
chmod 755 "$secret"
other=0
trap '[ "$other" != 0 ] && kill $other 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
setpriv --reuid=nobody --regid=nogroup --clear-groups "$secret" 30 &
other=$!
sleep 0.2
kill -0 $other 2>/dev/null || skip "cannot run a program as nobody"

"$FLYTRAP" record -q -e sched:sched_switch -e sched:sched_process_exec -o r.dat \
	-- sh -c 'echo $$ >cmd.pid; exec sleep 0.5' 2>rec.err || { fail "record failed"; cat rec.err; finish; }
cmd=$(cat cmd.pid)
trace-cmd dump --options -i r.dat >opts.txt 2>/dev/null
# PROCMAPS blocks start "PIDHEX NLIBS COMM" (map lines are "START END PATH", 12-digit addresses)
pids=$(awk '/\[Option PROCMAPS/ { on = 1; next } /\[Option/ { on = 0 } on && NF == 3 && $1 ~ /^[0-9a-f]+$/ && $2 ~ /^[0-9a-f]+$/ && length($1) <= 7 && length($2) <= 4 { print $1 }' opts.txt |
	while read -r h; do printf '%d\n' "0x$h"; done | sort -u | tr '\n' ' ')
[ "$pids" = "$cmd " ] && ok "PROCMAPS lists the command only (pid $cmd)" ||
	fail "PROCMAPS lists pids '$pids', the command is $cmd (the other program $other)"
trace-cmd report -i r.dat 2>/dev/null | grep -q "secretbin" &&
	ok "the other program ran during the recording (its name is in the scheduler events, as asked)" ||
	echo "note: the other program did not show in the scheduler events"
"$FLYTRAP" convert -c none r.dat -o plain.dat 2>conv.err || { fail "convert -c none"; cat conv.err; }
if grep -aq "$secret" plain.dat r.dat; then
	fail "the other program's path $secret is in the file"
else
	ok "the other program's path is nowhere in the file (uncompressed copy searched)"
fi
grep -aq '/usr/bin/sleep\|/bin/sleep' plain.dat && ok "the command's own binary is (so the search can find a path)" ||
	fail "not even the command's binary path is in the uncompressed copy: the search proves nothing"
finish
