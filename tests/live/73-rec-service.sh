#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The systemd unit of the package (pkg/systemd/flytrap-flight.service, issue
# 33 item 1), where no systemd runs: systemd-analyze verify accepts it, and
# its command lines run the way systemd would run them: the configuration
# file's variables expanded as systemd does ($VAR split at blanks, ${VAR}
# one word), in its sandbox as far as a shell can build it (a mount
# namespace with / read-only (ProtectSystem=strict) but the state
# directory and tracefs, empty /home, /root and /run/user (ProtectHome),
# a private /tmp and /var/tmp (PrivateTmp), no network (PrivateNetwork),
# the capability bounding set, no new privileges, UMask, the working
# directory).  Then: the recorder records, `systemctl reload` (ExecReload)
# writes a dump, SIGTERM (systemctl stop) exits 0 leaving tracefs as found,
# SIGKILL (a crash) leaves what ExecStartPre's `flytrap reset` lists.
. "$(dirname "$0")/../lib.sh"
need_tracefs
UNIT=$TOP/pkg/systemd/flytrap-flight.service
CONF=$TOP/pkg/systemd/flytrap-flight.conf
command -v unshare >/dev/null && command -v setpriv >/dev/null || skip "unshare or setpriv missing"
unshare -m -n true 2>/dev/null || skip "cannot make mount and network namespaces"
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -9 "$p" 2>/dev/null
		# only what our own recorders left: never another's
		if [ -d "$TRACEFS/instances/flytrap-$p" ]; then
			echo 0 >"$TRACEFS/instances/flytrap-$p/tracing_on" 2>/dev/null
			rmdir "$TRACEFS/instances/flytrap-$p" 2>/dev/null
		fi
		rm -f "/run/flytrap/record-$p" "/run/flytrap/scratch-$p"
		grep -lsx "pid=$p" /run/flytrap/lock-* 2>/dev/null | xargs -r rm -f
	done
	[ -n "${CG:-}" ] && [ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

if command -v systemd-analyze >/dev/null; then
	# verify checks that the commands exist: this build's binary in place of the package's
	sed "s|/usr/bin/flytrap|$FLYTRAP|g" "$UNIT" >"$TMP/flytrap-flight.service"
	systemd-analyze verify --man=no "$TMP/flytrap-flight.service" >"$TMP/verify.out" 2>&1 &&
		ok "systemd-analyze verify accepts the unit" ||
		{ fail "systemd-analyze verify"; cat "$TMP/verify.out"; }
	sed "s|/usr/bin/flytrap|$FLYTRAP|g" "$TOP/pkg/systemd/flytrap-lastboot.service" >"$TMP/flytrap-lastboot.service"
	systemd-analyze verify --man=no "$TMP/flytrap-lastboot.service" >"$TMP/verify.out" 2>&1 &&
		ok "systemd-analyze verify accepts flytrap-lastboot.service" ||
		{ fail "systemd-analyze verify flytrap-lastboot.service"; cat "$TMP/verify.out"; }
else
	echo "note: systemd-analyze missing (apt-get install systemd): the unit is not verified"
fi

# flytrap-lastboot.service: its events exist on this kernel, and its command
# lines, where no boot buffer is reserved, say so in one line (the save's
# failure is ignored: '-'; the lab's 30-last-boot.sh runs them on Linux 6.12)
LBC=$TOP/pkg/systemd/flytrap-lastboot.conf
evs=$(sed -n 's/^FLYTRAP_LASTBOOT_EVENTS=//p' "$LBC" | sed 's/-e //g' | tr ', ' '\n\n' | grep .)
missing=
for e in $evs; do
	sys=${e%%:*} ev=${e#*:}
	[ "$sys" = "$e" ] && ev=
	[ -d "$TRACEFS/events/$sys${ev:+/$ev}" ] || missing="$missing $e"
done
[ -n "$evs" ] && [ -z "$missing" ] && ok "lastboot.conf's events exist here ($(echo $evs | wc -w))" ||
	fail "lastboot.conf names events this kernel lacks:$missing"
grep -q '^ExecStart=-/usr/bin/flytrap recover --last-boot \$FLYTRAP_LASTBOOT_INSTANCE -o /var/lib/flytrap/$' \
	"$TOP/pkg/systemd/flytrap-lastboot.service" || fail "flytrap-lastboot.service: the save's ExecStart changed"
if ! ls "$TRACEFS"/instances/*/last_boot_info >/dev/null 2>&1; then
	"$FLYTRAP" recover --last-boot -o "$TMP/" >"$TMP/lb.out" 2>&1
	rc=$?
	"$FLYTRAP" lastboot arm $(sed -n 's/^FLYTRAP_LASTBOOT_EVENTS=//p' "$LBC") >>"$TMP/lb.out" 2>&1
	rc2=$?
	[ $rc = 1 ] && [ $rc2 = 1 ] && [ "$(grep -c 'no boot-reserved trace buffer' "$TMP/lb.out")" = 2 ] &&
		[ -z "$(ls "$TMP"/last-boot-* 2>/dev/null)" ] &&
		ok "lastboot unit's commands without a boot buffer: exit 1, one line each, no file" ||
		fail "lastboot commands without a boot buffer ($rc, $rc2): $(cat "$TMP/lb.out")"
fi

# the package made by `make deb` (when built) ships the unit and its configuration as a conffile
deb=$(ls -t "$TOP/$O"/flytrap_*.deb 2>/dev/null | head -n 1)
if [ -n "$deb" ] && [ "$deb" -nt "$UNIT" ] && [ "$deb" -nt "$TOP/pkg/mkdeb.sh" ]; then
	dpkg-deb -c "$deb" >"$TMP/deb.list"
	grep -q ' ./lib/systemd/system/flytrap-flight.service$' "$TMP/deb.list" &&
		grep -q ' ./etc/flytrap/flight.conf$' "$TMP/deb.list" &&
		grep -q ' ./lib/systemd/system/flytrap-lastboot.service$' "$TMP/deb.list" &&
		dpkg-deb -I "$deb" conffiles | grep -qx /etc/flytrap/flight.conf &&
		dpkg-deb -I "$deb" conffiles | grep -qx /etc/flytrap/lastboot.conf &&
		ok "$(basename "$deb") ships the unit and /etc/flytrap/flight.conf (a conffile)" ||
		fail "$(basename "$deb") lacks the unit or its configuration"
fi

# the unit's settings, the configuration's variables, and its command lines expanded
STATE=$TMP/state
mkdir -p "$STATE"
sed -e "s|^FLYTRAP_EVENTS=.*|FLYTRAP_EVENTS=-e sched|" \
	-e "s|^FLYTRAP_MODE=.*|FLYTRAP_MODE=--flight 10s,64M --after 0.3s|" \
	-e "s|^FLYTRAP_CPU_BUDGET=.*|FLYTRAP_CPU_BUDGET=|" \
	-e "s|^FLYTRAP_OUTPUT=.*|FLYTRAP_OUTPUT=/var/lib/flytrap/flight.dat|" "$CONF" >"$TMP/flight.conf"
python3 - "$UNIT" "$TMP/flight.conf" "$FLYTRAP" >"$TMP/unit.sh" <<'PY' || fail "cannot read the unit"
import re, shlex, sys
unit, conf, binary = sys.argv[1:]
env, keys = {}, {}
for line in open(conf):
    line = line.strip()
    if line and not line.startswith('#') and '=' in line:
        k, v = line.split('=', 1)
        env[k] = v
for line in open(unit):
    line = line.strip()
    if '=' in line and not line.startswith('#') and not line.startswith('['):
        k, v = line.split('=', 1)
        keys.setdefault(k, v)
def expand(cmd):
    out = []
    for w in cmd.split():
        m = re.fullmatch(r'\$([A-Z_]+)', w)
        if m:
            out += env.get(m.group(1), '').split() if m.group(1) != 'MAINPID' else ['$MAINPID']
            continue
        out.append(re.sub(r'\$\{([A-Z_]+)\}', lambda m: env.get(m.group(1), ''), w))
    out = [binary if a == '/usr/bin/flytrap' else a for a in out]
    return ' '.join(shlex.quote(a) for a in out)
for k in ('ExecStartPre', 'ExecStart', 'ExecReload'):
    print('%s=(%s)' % (k.upper(), expand(keys[k])))
caps = ','.join('+' + c[4:].lower() for c in keys['CapabilityBoundingSet'].split())
print('CAPS=%s' % shlex.quote('-all,' + caps))
for k in ('NoNewPrivileges', 'ProtectSystem', 'ProtectHome', 'PrivateTmp', 'PrivateNetwork',
          'UMask', 'StateDirectory', 'WorkingDirectory', 'ReadWritePaths', 'KillSignal', 'Restart'):
    print('%s=%s' % (k.upper(), shlex.quote(keys.get(k, ''))))
PY
. "$TMP/unit.sh"
[ "$NONEWPRIVILEGES" = yes ] && [ "$PROTECTSYSTEM" = strict ] && [ "$PROTECTHOME" = yes ] &&
	[ "$PRIVATETMP" = yes ] && [ "$PRIVATENETWORK" = yes ] && [ "$STATEDIRECTORY" = flytrap ] &&
	[ "$WORKINGDIRECTORY" = /var/lib/flytrap ] && [ "$KILLSIGNAL" = SIGTERM ] && [ "$RESTART" = on-failure ] &&
	ok "the unit has the settings this test builds" ||
	fail "the unit's settings changed: update this test ($NONEWPRIVILEGES $PROTECTSYSTEM $PROTECTHOME $PRIVATETMP)"
[ "${EXECSTARTPRE[*]}" = "$FLYTRAP reset" ] && ok "ExecStartPre is flytrap reset" ||
	fail "ExecStartPre: ${EXECSTARTPRE[*]}"

# run ExecStart as systemd would, in the sandbox; prints nothing, execs the recorder
sandboxed() {	# STATE-DIR COMMAND...
	local state=$1
	shift
	mkdir -p /run/flytrap
	chmod 0700 /run/flytrap
	exec unshare -m -n -- /bin/sh -c '
		set -e
		mount --make-rprivate /
		# StateDirectory: /var/lib/flytrap, made in the namespace only
		mount -t tmpfs -o size=1m tmpfs /var/lib
		mkdir -m 0700 /var/lib/flytrap
		mount --bind "$1" /var/lib/flytrap
		mount -t tmpfs -o size=1m,mode=1777 tmpfs /tmp
		mount -t tmpfs -o size=1m,mode=1777 tmpfs /var/tmp
		for d in /home /root /run/user; do [ -d $d ] && mount -t tmpfs -o ro,size=4k tmpfs $d; done
		mount --bind /run/flytrap /run/flytrap
		mount -o remount,bind,ro /
		mount -o remount,bind,ro /run 2>/dev/null || true
		cd /var/lib/flytrap
		umask '"$UMASK"'
		shift
		exec setpriv --no-new-privs --inh-caps=-all --bounding-set="$CAPS" -- "$@"
	' sandbox "$state" "$@"
}
export CAPS

sandboxed "$STATE" "${EXECSTART[@]}" 2>"$TMP/rec.err" &
MAINPID=$!
pids+=($MAINPID)
for i in $(seq 100); do [ -d "$TRACEFS/instances/flytrap-$MAINPID" ] && break; sleep 0.1; done
[ -d "$TRACEFS/instances/flytrap-$MAINPID" ] && ok "ExecStart records in its sandbox" ||
	{ fail "ExecStart did not start"; cat "$TMP/rec.err"; }
# systemd runs it in the unit's cgroup: `flytrap status` names the service
CG=/sys/fs/cgroup/systemd/flytrap-flight-test$$.service
if [ -d /sys/fs/cgroup/systemd ] && mkdir "$CG" 2>/dev/null && echo $MAINPID >"$CG/cgroup.procs"; then
	"$FLYTRAP" status >"$TMP/status.out" 2>&1
	grep -q "flytrap recorder $MAINPID as flytrap-flight-test$$.service: running" "$TMP/status.out" &&
		ok "flytrap status shows the recorder as its service" ||
		{ fail "flytrap status does not name the service"; grep -i recorder "$TMP/status.out"; }
elif [ -d /sys/fs/cgroup/unified ] || [ -f /sys/fs/cgroup/cgroup.procs ]; then
	echo "note: no name=systemd cgroup hierarchy to put the recorder in: status not checked"
fi
sleep 1
reload=("${EXECRELOAD[@]/\$MAINPID/$MAINPID}")
"${reload[@]}" >"$TMP/reload.out" 2>&1 && ok "ExecReload triggers: $(head -1 "$TMP/reload.out")" ||
	{ fail "ExecReload"; cat "$TMP/reload.out"; }
for i in $(seq 100); do [ -f "$STATE/flight-0001.dat" ] && break; sleep 0.1; done
if [ -f "$STATE/flight-0001.dat" ]; then
	ok "the reload wrote flight-0001.dat in the state directory"
	"$FLYTRAP" verify "$STATE/flight-0001.dat" >/dev/null 2>&1 && ok "the dump verifies" ||
		fail "the dump does not verify"
	[ "$(stat -c %a "$STATE/flight-0001.dat")" = 600 ] && ok "the dump is mode 0600" ||
		fail "the dump is mode $(stat -c %a "$STATE/flight-0001.dat")"
else
	fail "no dump after the reload"; cat "$TMP/rec.err"
fi
kill -TERM $MAINPID
wait $MAINPID
rc=$?
[ $rc = 0 ] && ok "SIGTERM (systemctl stop): exit 0" || { fail "SIGTERM: exit $rc"; cat "$TMP/rec.err"; }
[ ! -e "$TRACEFS/instances/flytrap-$MAINPID" ] && [ ! -e "/run/flytrap/record-$MAINPID" ] &&
	ok "stop leaves tracefs and the state directory as found" || fail "stop left something"
ls -A "$STATE" | grep -q '^\.' && fail "hidden files left: $(ls -A "$STATE" | tr '\n' ' ')"

# a crash: what ExecStartPre (flytrap reset) would clean before the restart
sandboxed "$STATE" "${EXECSTART[@]}" 2>"$TMP/rec2.err" &
MAINPID=$!
pids+=($MAINPID)
for i in $(seq 100); do [ -d "$TRACEFS/instances/flytrap-$MAINPID" ] && break; sleep 0.1; done
sleep 0.5
kill -9 $MAINPID
wait $MAINPID 2>/dev/null
"${EXECSTARTPRE[@]}" -n >"$TMP/pre.out" 2>&1
grep -q "instance flytrap-$MAINPID" "$TMP/pre.out" &&
	ok "after a crash, ExecStartPre's reset finds the dead recorder's instance" ||
	{ fail "reset -n does not list flytrap-$MAINPID"; cat "$TMP/pre.out"; }
finish
