# SPDX-License-Identifier: GPL-2.0-only
# The interoperability matrix, live: what its two parts share (sourced; the runner skips names
# starting with "_"): the checks, the planted secrets and the workload.  The parts:
# 67-share-matrix.sh (record, record --bpf --symbols, record --user, recover, redact) and
# 68-share-matrix-merge.sh (a flight recorder's dumps, rotation, merges): two, so that each
# stays within the runner's time limit on a busy machine.
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
trap '[ -n "$RP" ] && kill -9 $RP $KIDS 2>/dev/null; [ -n "${task:-}" ] && pkill -9 -x "$task" 2>/dev/null; rm -rf "$TMP"' EXIT

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

