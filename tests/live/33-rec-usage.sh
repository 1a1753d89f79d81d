#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# record's messages (issue 31): a user who is not root hears first that
# recording needs root (or CAP_PERFMON + CAP_BPF and tracefs), not about
# the state directory's owner; a typo in what to record (an unknown event,
# a misspelt system, an empty -e, a filter the kernel rejects, a CPU the
# machine lacks, a --uprobe symbol the binary lacks) is a usage error, exit 2;
# a BPF-only recording's info counts the BPF buffer's bytes.
. "$(dirname "$0")/../lib.sh"
need_root
need_tracefs
need_cmd runuser
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
cd "$TMP"

# a directory the unprivileged user may write to (the output is checked before the kernel)
D=$(mktemp -d /tmp/flytrap-nobody.XXXXXX)
trap 'rm -rf "$D" "$TMP"' EXIT
chmod 1777 "$D"
runuser -u nobody -- "$FLYTRAP" record -e sched:sched_switch -o "$D/x.dat" -- true \
	>out.txt 2>err.txt
rc=$?
first=$(head -1 err.txt)
[ $rc = 1 ] && echo "$first" | grep -q 'recording needs root (or the capabilities CAP_PERFMON and CAP_BPF' &&
	! grep -q 'state directory' err.txt &&
	ok "not root: '$first' (exit 1)" || fail "not root: rc=$rc: $(cat err.txt)"
[ ! -e "$D/x.dat" ] || fail "not root: an output file was left"

usage() {
	local what=$1 rc
	shift
	"$FLYTRAP" record -q "$@" -o u.dat -- true >/dev/null 2>u.err
	rc=$?
	[ $rc = 2 ] && ok "$what: exit 2 ($(head -1 u.err))" || fail "$what: exit $rc: $(head -2 u.err)"
	[ ! -e u.dat ] || { fail "$what: left u.dat"; rm -f u.dat; }
}
usage "unknown event" -e sched:sched_no_such_event
usage "misspelt system" -e schde:sched_switch
usage "empty -e" -e ''
usage "filter the kernel rejects" -e sched:sched_switch -f 'no_such_field ==== 3'
usage "--cpus 99" --cpus 99 -e sched:sched_switch
usage "--uprobe with an unknown symbol" --uprobe /bin/true:no_such_symbol_here

# BPF only: info's bytes read and written count the BPF buffer's pages
if "$FLYTRAP" record --help 2>&1 | grep -q -- '--bpf' && [ -r /sys/kernel/btf/vmlinux ]; then
	if "$FLYTRAP" record -q --bpf syscalls -o b.dat -- sh -c 'for i in $(seq 200); do :; done; ls / >/dev/null' \
		>/dev/null 2>b.err; then
		line=$("$FLYTRAP" info b.dat | grep 'read .* of pages, wrote')
		echo "$line" | grep -qE 'read 0 B|wrote 0 B' &&
			fail "BPF only: info says '$line'" || ok "BPF only: info:$line"
	else
		fail "BPF-only record failed: $(head -3 b.err)"
	fi
fi
finish
