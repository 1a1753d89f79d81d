#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make static on a production-like machine: build/flytrap-static copied into
# a fresh Debian 12 minbase root that has none of flytrap's libraries records
# a command there with `-e sched -e raw_syscalls --bpf syscalls`, and this
# machine's trace-cmd reads the file.  ldd calls it not a dynamic executable,
# and its `report` output is byte for byte the dynamic binary's on every
# fixture (but for the events of the libtraceevent plugins it leaves out,
# which flytrap --version lists).
. "$(dirname "$0")/root.sh"
fresh_start "$@"
need_cmd trace-cmd

t0=$(date +%s)
make -C "$TOP" --no-print-directory -j2 O="$O" static >"$TMP/make.log" 2>&1 ||
	{ tail -n 30 "$TMP/make.log"; echo "FAIL: make static failed"; exit 1; }
ST=$TOP/$O/flytrap-static
echo "make static: $(($(date +%s) - t0)) s, $ST: $(du -k "$ST" | cut -f1) KiB"
"$FLYTRAP" --version >/dev/null 2>&1 || { echo "FAIL: $FLYTRAP is not built"; exit 1; }

ldd "$ST" >"$TMP/ldd" 2>&1
grep -q 'not a dynamic executable' "$TMP/ldd" && ok "ldd: not a dynamic executable" ||
	fail "ldd: $(head -c 300 "$TMP/ldd")"
"$ST" --version >"$TMP/version"
cat "$TMP/version"
grep -q '^build: static' "$TMP/version" && grep -q '^left out: ' "$TMP/version" &&
	ok "--version says it is static and what it leaves out" || fail "--version: $(cat "$TMP/version")"

# ---- report: the same bytes as the dynamic build --------------------------------
# Events of the plugins a static build has not (their lines, and the "=>"
# lines of a kernel_stack) are left out of the comparison on files that
# have them; every other line must be the same.
plugin_lines() {
	awk '/^ *=> / || /^\t=> / { if (skip) next }
	     { skip = 0 }
	     / (function|kernel_stack|kvm_[a-z_]*|kvm_mmu_[a-z_]*|jbd2_[a-z_]*): / { skip = 1; next }
	     { print }'
}
same=0 near=0
for f in "$TOP"/tests/data/*.dat "$FIXTURES"/*.dat; do
	[ -f "$f" ] || continue
	"$FLYTRAP" report "$f" >"$TMP/dyn.txt" 2>&1
	"$ST" report "$f" >"$TMP/st.txt" 2>&1
	if cmp -s "$TMP/dyn.txt" "$TMP/st.txt"; then
		same=$((same + 1))
	elif cmp -s <(plugin_lines <"$TMP/dyn.txt") <(plugin_lines <"$TMP/st.txt"); then
		near=$((near + 1))
		echo "note: $(basename "$f"): only the left-out plugins' events differ" \
			"($(diff "$TMP/dyn.txt" "$TMP/st.txt" | grep -c '^<') lines)"
	else
		fail "report differs on $(basename "$f"): $(diff "$TMP/dyn.txt" "$TMP/st.txt" | head -n 4 | tr '\n' '|')"
	fi
done
[ $same -gt 0 ] && ok "report: byte-identical on $same files, $near differ only in left-out plugins' events" ||
	fail "no file compared"

# ---- record in a fresh root without flytrap's libraries --------------------------
fresh_cache_root
fresh_new_root
for lib in libbpf1 libtracefs1 libtraceevent1 libelf1 libzstd1; do
	fresh_chroot "$ROOT" dpkg -s "$lib" >/dev/null 2>&1 && echo "note: the bare root has $lib"
done
fresh_chroot "$ROOT" dpkg -s libtracefs1 >/dev/null 2>&1 && fail "the fresh root has libtracefs1"
install -m 0755 "$ST" "$ROOT/usr/local/bin/flytrap"
fresh_mount "$ROOT"
fresh_chroot "$ROOT" sh -c 'flytrap record -e sched -e raw_syscalls --bpf syscalls -o /tmp/st.dat \
	-- sh -c "echo \$\$ >/tmp/cmd.pid; for i in 1 2 3 4 5; do ls -R /usr/share/doc >/dev/null; done"' \
	>"$TMP/rec.log" 2>&1
rc=$?
sed 's/^/  | /' "$TMP/rec.log"
[ $rc = 0 ] && ok "static record in the fresh root exits 0" || fail "static record exited $rc"
pid=$(cat "$ROOT/tmp/cmd.pid" 2>/dev/null)
if [ -s "$ROOT/tmp/st.dat" ] && [ -n "$pid" ]; then
	trace-cmd report "$ROOT/tmp/st.dat" >"$TMP/tc.txt" 2>"$TMP/tc.err" ||
		fail "host trace-cmd report failed: $(head -c 300 "$TMP/tc.err")"
	nsys=$(grep -c "^ *[^ ].*-$pid *\[[0-9]*\].* sys_enter: " "$TMP/tc.txt")
	nsw=$(grep -c ' sched_switch: ' "$TMP/tc.txt")
	nbpf=$(grep -c "^flytrap-bpf: .* syscall: .*tgid=$pid " "$TMP/tc.txt")
	[ "$nsys" -gt 0 ] && ok "host trace-cmd: $nsys sys_enter events of the command (pid $pid)" ||
		fail "host trace-cmd: no sys_enter of pid $pid"
	[ "$nsw" -gt 0 ] && ok "host trace-cmd: $nsw sched_switch events" || fail "no sched_switch"
	[ "$nbpf" -gt 0 ] && ok "host trace-cmd: $nbpf BPF syscall records of the command" ||
		fail "no BPF syscall record of pid $pid (BPF did not load?)"
	cmp -s <("$FLYTRAP" report "$ROOT/tmp/st.dat" 2>&1) <("$ST" report "$ROOT/tmp/st.dat" 2>&1) &&
		ok "static and dynamic report the recording the same" || fail "reports of the recording differ"
else
	fail "no recording in the fresh root"
fi
finish
