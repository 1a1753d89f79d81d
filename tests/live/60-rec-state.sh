#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The state directory (/run/flytrap): created 0700 with /run made 0755 when a
# system has none, a read-only /run is named as the file that failed (it was
# reported as a missing tracefs file), and a state directory that is a
# symbolic link or belongs to someone else is refused by record and reset.
# Each case runs in its own mount namespace: the machine's /run is untouched.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd unshare
unshare -m true 2>/dev/null || skip "cannot make a mount namespace (unshare -m)"
cd "$TMP"

instances() { ls "$TRACEFS/instances" | grep -c '^flytrap-' || true; }
n0=$(instances)

# a read-only /run: one line naming /run/flytrap and why, nothing left in tracefs
unshare -m bash -c 'mount -t tmpfs -o ro none /run && exec "$0" record -e sched:sched_switch \
	-d 1 -o ro.dat -- true' "$FLYTRAP" >ro.out 2>ro.err
rc=$?
[ $rc = 1 ] && ok "read-only /run: exit 1" || fail "read-only /run: exit $rc"
if grep -q "^flytrap: error: cannot create the state directory '/run/flytrap': Read-only file system$" ro.err &&
	[ "$(wc -l <ro.err)" = 1 ]; then
	ok "read-only /run: the message names /run/flytrap and says why"
else
	fail "read-only /run: wrong message"; cat ro.err
fi
! grep -q tracefs ro.err || fail "read-only /run: the message still blames tracefs"
[ ! -e ro.dat ] || fail "read-only /run: an output file was left"
[ "$(instances)" = "$n0" ] || fail "read-only /run: an instance was left in tracefs"

# no /run at all (a minimal root): created 0755, the state directory 0700
root=$TMP/root
mkdir -p "$root"/{usr,etc,proc,sys,dev,tmp,work}
for d in bin sbin lib lib32 lib64 libx32; do [ -e "/$d" ] && ln -s "usr/$d" "$root/$d"; done
cp "$FLYTRAP" "$root/flytrap"
unshare -m bash -c '
	set -e
	r=$1
	for d in usr etc proc dev; do mount --rbind /$d "$r/$d"; done
	mount --rbind /sys "$r/sys"
	exec chroot "$r" /flytrap record -q -e sched:sched_switch -o /work/norun.dat -- cat /proc/version
' _ "$root" >norun.out 2>norun.err
rc=$?
[ $rc = 0 ] && ok "no /run: the recording works" || { fail "no /run: exit $rc"; cat norun.err; }
[ "$(stat -c %a "$root/run" 2>/dev/null)" = 755 ] && ok "no /run: /run made 0755" ||
	fail "no /run: /run is $(stat -c %a "$root/run" 2>&1)"
[ "$(stat -c '%a %U' "$root/run/flytrap" 2>/dev/null)" = "700 root" ] &&
	ok "no /run: /run/flytrap made 0700, root's" ||
	fail "no /run: /run/flytrap is $(stat -c '%a %U' "$root/run/flytrap" 2>&1)"
[ -s "$root/work/norun.dat" ] || fail "no /run: no output"
[ -z "$(ls -A "$root/run/flytrap" 2>/dev/null)" ] || fail "no /run: the run note was left"

# a state directory that is a symbolic link, or someone else's, is refused
mkdir -p elsewhere
for kind in symlink owner; do
	unshare -m bash -c '
		mount -t tmpfs none /run || exit 9
		if [ "$1" = symlink ]; then ln -s "$2" /run/flytrap; else mkdir -m 0700 /run/flytrap && chown nobody /run/flytrap; fi
		"$0" record -q -e sched:sched_switch -d 1 -o "$3/$1.dat" -- true 2>"$3/$1.rec.err"
		echo "record $?"
		"$0" reset 2>"$3/$1.reset.err"
		echo "reset $?"
	' "$FLYTRAP" "$kind" "$TMP/elsewhere" "$TMP" >"$kind.out" 2>&1
	if grep -qx 'record 1' "$kind.out" && grep -qx 'reset 1' "$kind.out"; then
		ok "state directory ($kind): record and reset refuse it"
	else
		fail "state directory ($kind): $(tr '\n' ' ' <"$kind.out")"
	fi
	want="refusing the state directory '/run/flytrap'"
	grep -q "$want" "$kind.rec.err" && grep -q "$want" "$kind.reset.err" &&
		ok "state directory ($kind): the message says why" ||
		{ fail "state directory ($kind): message"; cat "$kind.rec.err" "$kind.reset.err"; }
	[ ! -e "$kind.dat" ] || fail "state directory ($kind): an output was written"
done
[ -z "$(ls -A elsewhere)" ] || fail "a note was written through the symbolic link"
[ "$(instances)" = "$n0" ] || fail "an instance was left in tracefs"
finish
