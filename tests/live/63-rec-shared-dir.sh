#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A root recorder told to write into a shared sticky directory (like /tmp)
# where an unprivileged user has planted symbolic links at the output's name
# and at the names spool files had: with fs.protected_symlinks=0 (many
# containers and older systems) the kernel does not stop root from following
# them, so flytrap must not.  The link targets stay byte-for-byte as they
# were, and the recording lands at the output's name as a regular file; so
# does a recording killed with SIGKILL once `flytrap recover` finishes it.
# `record --user nobody -- CMD` runs CMD as nobody with a clean environment;
# run through sudo (SUDO_UID/SUDO_GID), the file belongs to that user, mode
# 0600, and that user can analyze it without root.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
need_cmd setpriv
[ -r /proc/sys/fs/protected_symlinks ] || skip "no fs.protected_symlinks sysctl"
NOBODY=$(id -u nobody 2>/dev/null) || skip "no user 'nobody'"
NOGROUP=$(id -g nobody)
OLD_PS=$(cat /proc/sys/fs/protected_symlinks)
REC=
# the sysctl goes back to what it was on every exit
trap 'echo "$OLD_PS" >/proc/sys/fs/protected_symlinks; [ -n "$REC" ] && kill -9 "$REC" 2>/dev/null;
	busy_stop; rm -rf "$TMP"' EXIT
echo 0 >/proc/sys/fs/protected_symlinks || skip "cannot set fs.protected_symlinks"
# nobody must reach the shared directory and the flytrap binary
chmod 711 "$TMP"
setpriv --reuid="$NOBODY" --regid="$NOGROUP" --clear-groups test -x "$FLYTRAP" ||
	skip "user nobody cannot run $FLYTRAP"
S=$TMP/shared
mkdir "$S" && chmod 1777 "$S"
as_nobody() { setpriv --reuid="$NOBODY" --regid="$NOGROUP" --clear-groups "$@"; }
cd "$TMP"

# root's files the links point at, and what they hold
printf 'root:secret:1\n' >victim-out
printf 'do not overwrite\n' >victim-spool
sum_before=$(sha256sum victim-out victim-spool)

# plant NAME: links at NAME and at the spool names of older flytraps, a FIFO at one
plant() {
	local n=$1 b c
	as_nobody ln -s "$TMP/victim-out" "$S/$n"
	for b in 0 1; do
		for c in 0 1 2 3; do
			as_nobody ln -s "$TMP/victim-spool" "$S/.$n.spool.$b.$c"
		done
	done
	as_nobody mkfifo "$S/.$n.spool.2.0"
}
plant out.dat
[ -L "$S/out.dat" ] || skip "nobody could not plant a link"
busy_start

# 1. a recording over the planted names
"$FLYTRAP" record -e sched:sched_switch -d 1 -o "$S/out.dat" >/dev/null 2>out.err
rc=$?
[ $rc = 0 ] && ok "record over planted links: exit 0" || { fail "record exit $rc"; cat out.err; }
[ "$(sha256sum victim-out victim-spool)" = "$sum_before" ] && ok "link targets unchanged" ||
	fail "a planted link was followed: $(cat victim-out victim-spool | head -c 200)"
[ -f "$S/out.dat" ] && [ ! -L "$S/out.dat" ] && ok "the output is a regular file" ||
	fail "the output is $(stat -c %F "$S/out.dat")"
[ "$(stat -c '%a %u' "$S/out.dat")" = "600 0" ] && ok "mode 0600, root's" ||
	fail "output is $(stat -c '%a %u' "$S/out.dat")"
n=$(trace-cmd report -i "$S/out.dat" 2>/dev/null | grep -c sched_switch)
[ "$n" -gt 10 ] && ok "trace-cmd reads $n sched_switch events" || fail "trace-cmd reads $n events"
# nothing of ours is left beside it; the planted names were neither removed nor followed
left=$(ls -A "$S" | grep -vE '^(out\.dat|\.out\.dat\.spool\.[0-9]\.[0-9])$')
[ -z "$left" ] && ok "no temporary or spool file left" || fail "left in the directory: $left"
[ -L "$S/.out.dat.spool.0.0" ] && [ -p "$S/.out.dat.spool.2.0" ] &&
	ok "the planted names are left alone" || fail "a planted name was removed"

# 2. killed, reset, recovered: the temporary file and spools come from the run note
plant k.dat
"$FLYTRAP" record -e sched:sched_switch -o "$S/k.dat" 2>k.err &
REC=$!
for i in $(seq 100); do grep -q '^flytrap: recording' k.err && break; sleep 0.1; done
sleep 1.5	# past the first flush, so spools exist
note=/run/flytrap/record-$REC
temp=$(sed -n 's/^temp=//p' "$note" 2>/dev/null)
case $temp in
"$S"/.k.dat.[0-9a-f]*) ok "the run note names the temporary file" ;;
*) fail "run note temp='$temp'"; cat "$note" 2>/dev/null ;;
esac
grep -q "^spool=$S/.k.dat.[0-9a-f]*.spool." "$note" && ok "the run note names the spools" ||
	{ fail "no spool in the run note"; cat "$note"; }
[ -L "$S/k.dat" ] && ok "nothing at the output's name while recording" || fail "k.dat replaced early"
kill -9 $REC
wait $REC 2>/dev/null
REC=
"$FLYTRAP" reset >reset.out 2>&1 || { fail "reset failed"; cat reset.out; }
"$FLYTRAP" recover "$S/k.dat" 2>recover.err && ok "recover exits 0" ||
	{ fail "recover failed"; cat recover.err; }
[ "$(sha256sum victim-out victim-spool)" = "$sum_before" ] && ok "kill + recover: link targets unchanged" ||
	fail "kill + recover: a planted link was followed"
[ -f "$S/k.dat" ] && [ ! -L "$S/k.dat" ] && [ "$(stat -c %a "$S/k.dat")" = 600 ] &&
	ok "recovered into a regular file, mode 0600" || fail "k.dat is $(stat -c '%F %a' "$S/k.dat")"
n=$(trace-cmd report -i "$S/k.dat" 2>/dev/null | grep -c sched_switch)
[ "$n" -gt 10 ] && ok "recovered file: trace-cmd reads $n events" || fail "recovered file: $n events"
left=$(ls -A "$S" | grep -E '^\.k\.dat\.[0-9a-f]{12}')
[ -z "$left" ] && ok "recover left no temporary or spool file" || fail "left: $left"
[ ! -e "$note" ] || fail "recover left the run note"
busy_stop

# 3. --user: the command runs as nobody, with nobody's clean environment
LEAK=root-only "$FLYTRAP" record -q -e sched:sched_switch -o user.dat --user nobody -- \
	sh -c 'id -u; id -g; echo "HOME=$HOME USER=$USER LOGNAME=$LOGNAME PATH=$PATH"; env' \
	>user.out 2>user.err
rc=$?
[ $rc = 0 ] || { fail "record --user exit $rc"; cat user.err; }
[ "$(sed -n 1p user.out)" = "$NOBODY" ] && ok "--user nobody: id -u prints $NOBODY" ||
	fail "--user nobody: id -u printed '$(sed -n 1p user.out)'"
[ "$(sed -n 2p user.out)" = "$NOGROUP" ] && ok "--user nobody: nobody's group" ||
	fail "--user nobody: id -g printed '$(sed -n 2p user.out)'"
home=$(getent passwd nobody | cut -d: -f6)
grep -qx "HOME=$home USER=nobody LOGNAME=nobody PATH=/usr/local/bin:/usr/bin:/bin" user.out &&
	ok "--user: HOME, USER, LOGNAME and PATH are nobody's" || { fail "--user environment"; cat user.out; }
grep -q '^LEAK=' user.out && fail "--user: the caller's environment leaked" ||
	ok "--user: nothing else of the caller's environment"
"$FLYTRAP" info user.dat >info.txt 2>&1
grep -q "command_user=nobody" info.txt && grep -q "command_uid=$NOBODY" info.txt &&
	ok "info says the command ran as nobody" || { fail "info"; grep command_ info.txt; }
[ "$(stat -c %u user.dat)" = 0 ] && ok "without sudo the file stays root's" || fail "user.dat owner"
"$FLYTRAP" record -q -e sched:sched_switch -o nouser.dat --user no-such-user-x -- true 2>nouser.err
rc=$?
[ $rc = 2 ] && [ "$(wc -l <nouser.err)" = 1 ] && ok "--user for a missing user: exit 2, one line" ||
	{ fail "--user no-such-user-x: exit $rc"; cat nouser.err; }

# 4. a FIFO planted where root reads a binary is never opened (an open would block)
as_nobody mkfifo "$S/prog"
chmod 755 "$S/prog" 2>/dev/null
timeout 20 "$FLYTRAP" record -q -o fifo.dat --uprobe "$S/prog:main" -- true 2>fifo.err
rc=$?
[ $rc != 124 ] && [ $rc != 0 ] && grep -q "not a regular file" fifo.err &&
	ok "--uprobe on a FIFO: refused at once ($(cat fifo.err | head -1))" ||
	{ fail "--uprobe on a FIFO: exit $rc"; cat fifo.err; }
[ -z "$(ls "$TRACEFS/instances" | grep flytrap-)" ] || fail "an instance was left"

# 5. through sudo: the file is the invoking user's, 0600, and that user can analyze it
SUDO_UID=$NOBODY SUDO_GID=$NOGROUP "$FLYTRAP" record -q -e sched:sched_switch -d 1 \
	-o "$S/sudo.dat" 2>sudo.err || { fail "sudo-style record failed"; cat sudo.err; }
[ "$(stat -c '%u %g %a' "$S/sudo.dat")" = "$NOBODY $NOGROUP 600" ] &&
	ok "sudo: owned by $NOBODY:$NOGROUP, mode 0600" || fail "sudo: $(stat -c '%u %g %a' "$S/sudo.dat")"
as_nobody "$FLYTRAP" analyze "$S/sudo.dat" >analyze.out 2>analyze.err &&
	grep -q . analyze.out && ok "nobody analyzes the file without root" ||
	{ fail "nobody cannot analyze it"; head -5 analyze.err; }
finish
