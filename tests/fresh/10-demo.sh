#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The README's first command on a fresh Debian 12 machine: a minbase root with
# git, make, sudo and ca-certificates (tests/fresh/root.sh), the committed
# tree cloned into it, then `sudo make demo` typed as written, in a chroot
# with /proc, /sys, tracefs, bpffs and /dev mounted.  It must exit 0, record
# this machine (not fall back to the shipped sample) and show the analyses.
# Prints how long each part took and every package the command installed:
# that log is the proof that the README's command works from nothing.
. "$(dirname "$0")/root.sh"
fresh_start "$@"

fresh_readme_command "sudo make demo"

cmd='sudo make demo'
[ $rc = 0 ] && ok "'$cmd' exits 0" || fail "'$cmd' exited $rc"
grep -q '^installing: ' "$TMP/cmd.log" && ok "it installed what was missing" || fail "no 'installing:' line: it installed nothing"
for p in qemu-system-x86 chromium; do
	grep -qx "$p" "$TMP/installed.txt" && fail "the demo installed $p (only make test needs it)"
done
grep -q 'recording [0-9]* s of this machine' "$TMP/cmd.log" && ok "it recorded this machine" ||
	fail "it did not record this machine"
grep -q 'analyzing the shipped sample' "$TMP/cmd.log" && fail "it fell back to the shipped sample"
dat=$ROOT/tmp/flytrap-demo/demo.dat
if [ -s "$dat" ]; then
	ok "the demo's file is there ($(du -k "$dat" | cut -f1) KiB)"
	grep -q "^kernel: .*$(uname -r)" "$TMP/cmd.log" &&
		ok "flytrap info shows this machine's kernel $(uname -r)" ||
		fail "flytrap info does not show this kernel ($(uname -r))"
	if command -v trace-cmd >/dev/null; then
		read -r nsw nbpf < <(trace-cmd report "$dat" 2>/dev/null |
			awk '/ sched_switch: /{ s++ } /^flytrap-bpf:/{ b++ } END { print s + 0, b + 0 }')
		[ "$nsw" -gt 0 ] && ok "host trace-cmd reads $nsw sched_switch events from it" ||
			fail "host trace-cmd finds no sched_switch event in it"
		[ "$nbpf" -gt 0 ] && ok "and $nbpf BPF events (recorded in the fresh root)" ||
			fail "no BPF events in the demo's recording"
	fi
	# libtraceevent's plugins came with the build packages: sched_switch as trace-cmd prints it
	fresh_chroot "$ROOT" /root/flytrap/build/flytrap report -e sched_switch /tmp/flytrap-demo/demo.dat \
		2>&1 | head -n 3 >"$TMP/sw.txt"
	grep -q ' sched_switch: .* ==> ' "$TMP/sw.txt" && ! grep -q 'prev_comm=' "$TMP/sw.txt" &&
		ok "flytrap report in the root prints sched_switch as trace-cmd does (plugins there)" ||
		fail "sched_switch printed without libtraceevent's plugin: $(tail -n 1 "$TMP/sw.txt")"
else
	fail "no $dat"
fi
for h in 'flytrap info' 'flytrap analyze' 'flytrap report'; do
	grep -q "== $h" "$TMP/cmd.log" || fail "the demo shows no '$h' part"
done
grep -q 'flame graph: ' "$TMP/cmd.log" && ok "analyze wrote the flame graph" || fail "no flame graph"
grep -q 'HTML report: ' "$TMP/cmd.log" && ok "the HTML report was written" || fail "no HTML report"
grep -qi 'error' "$TMP/cmd.log" && fail "the demo printed an error: $(grep -i -m1 error "$TMP/cmd.log")"
finish
