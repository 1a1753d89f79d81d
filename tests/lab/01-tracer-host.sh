#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# record/tracer.c on the machine's own kernel (no qemu): every tracer and
# kprobe request either works or ends in one clear line naming what the
# kernel lacks, and tracefs is left exactly as it was.  On the build
# machines (kernel 6.18 with function tracing, function_graph and kprobes
# refused) this checks the refusal paths; the kernel lab
# (10-kernel-lab.sh) checks the working ones.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd cc
need_cmd pkg-config
pkg-config --exists libtracefs || skip "libtracefs is not installed"

CF="-fsanitize=address,undefined -fno-sanitize-recover=undefined -std=gnu11 -O1 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wshadow=local -Wformat=2 -Wno-format-nonliteral -Werror -D_GNU_SOURCE"
# shellcheck disable=SC2046
cc $CF -I"$TOP" -I"$TOP/format" $(pkg-config --cflags libtracefs) -o "$TMP/tracer-check" \
	"$TOP/tests/lab/lib/tracer-check.c" "$TOP/record/tracer.c" "$TOP/record/state.c" -DFT_NO_MAIN "$TOP/flytrap.c" $(pkg-config --libs libtracefs) \
	>"$TMP/cc.log" 2>&1 || { cat "$TMP/cc.log"; echo "FAIL: cannot build tracer-check"; exit 1; }
TC=$TMP/tracer-check

# The only lines tracer.c may print for a refusal (tracer.h).
clear_line='no kernel function matches|(is|are) not available in this kernel|the kernel refuses|this kernel has no|in use by the|in use \(events enabled there\)|refused by the kernel'

# Other recorders may come and go while this runs: their instances and
# probe groups are left out of the comparison, and leftovers of dead
# flytrap pids are checked instead.
snap() { tracefs_snapshot | grep -v '^instances:' | grep -Ev '^[pr-][0-9]*:flytrap_[0-9]+/'; }
dead_instances() {
	local i p
	for i in $(ls "$TRACEFS/instances"); do
		case $i in flytrap-[0-9]*) kill -0 "${i#flytrap-}" 2>/dev/null || echo "$i" ;; esac
	done
	for p in $(cat "$TRACEFS/kprobe_events" "$TRACEFS/uprobe_events" 2>/dev/null |
		sed -n 's/^[pr][0-9]*:flytrap_\([0-9]*\)\/.*/\1/p' | sort -u); do
		kill -0 "$p" 2>/dev/null || echo "probes of flytrap_$p"
	done
}

# run NAME ARGS...: run tracer-check, compare tracefs, check its warnings
run() {
	local name=$1
	shift
	snap >"$TMP/before"
	dead_instances >"$TMP/dead-before"
	"$TC" "$@" -o "$TMP/out.txt" -- true 2>"$TMP/err.txt"
	local rc=$?
	snap >"$TMP/after"
	dead_instances >"$TMP/dead-after"
	# a leftover that was not there before is ours (the pid is dead now)
	if grep -vxFf "$TMP/dead-before" "$TMP/dead-after" >"$TMP/dead-new"; then
		fail "$name: left behind: $(tr '\n' ' ' <"$TMP/dead-new")"
	fi
	if cmp -s "$TMP/before" "$TMP/after"; then
		ok "$name: tracefs identical afterwards"
	else
		fail "$name: tracefs changed"
		diff "$TMP/before" "$TMP/after" | head -10
	fi
	if grep 'warning:' "$TMP/err.txt" | grep -Evq "$clear_line"; then
		fail "$name: unclear message: $(grep 'warning:' "$TMP/err.txt" | grep -Ev "$clear_line" | head -n 1)"
	fi
	grep 'warning:' "$TMP/err.txt" | sed "s/^/  $name: /"
	[ $rc -le 1 ] || fail "$name: exit $rc"
	warnings=$(grep -c 'warning:' "$TMP/err.txt")
}

run "function -l" -p function -l 'vfs_read*' -s
run "function_graph -g" -p function_graph -g do_sys_openat2 -d 2 -n getname
run "kprobe" -k 'p:kx_open do_sys_openat2 filename=+0($arg2):ustring' -k 'r:kx_ret do_sys_openat2 ret=$retval'
if [ ! -e "$TRACEFS/kprobe_events" ]; then
	grep -q 'kprobe events are not available in this kernel (no kprobe_events in tracefs, CONFIG_KPROBE_EVENTS)' "$TMP/err.txt" &&
		[ "$warnings" = 2 ] && ok "no kprobe_events: one line per probe names CONFIG_KPROBE_EVENTS" ||
		fail "no kprobe_events: $(head -c 300 "$TMP/err.txt")"
fi
if ! grep -qw function_graph "$TRACEFS/available_tracers"; then
	run "function_graph alone" -p function_graph
	grep -q 'the function_graph tracer is not available in this kernel (CONFIG_FUNCTION_GRAPH_TRACER)' "$TMP/err.txt" &&
		ok "no function_graph: the line names CONFIG_FUNCTION_GRAPH_TRACER" ||
		fail "no function_graph: $(head -c 300 "$TMP/err.txt")"
fi

# usage errors need no kernel
for spec in 'x:foo bar' 'p:grp/name do_sys_openat2' 'p5:name do_sys_openat2' 'p:na-me do_sys_openat2' 'p:name'; do
	if "$TC" -k "$spec" -- true 2>"$TMP/err.txt"; then
		fail "--kprobe '$spec' accepted"
	else
		[ $? = 2 ] && ok "--kprobe '$spec': $(head -n 1 "$TMP/err.txt" | sed 's/^tracer-check: //')" ||
			fail "--kprobe '$spec': not a usage error"
	fi
done
finish
