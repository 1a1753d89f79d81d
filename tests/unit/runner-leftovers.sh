#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/run fails a test that leaves a process of its own running (and kills
# it), and busy_start's loops end with the test that started them even when
# that test replaced lib.sh's EXIT trap (what tests/live/11-record-cleanup.sh
# did, leaving two busy loops reparented to init after every `make test`).
. "$(dirname "$0")/../lib.sh"
need_cmd taskset

# a copy of the runner in a tree of its own, with three small tests
mkdir -p "$TMP/t/tests/report" "$TMP/t/build"
cp "$TOP/tests/run" "$TMP/t/tests/run"
cp "$TOP/tests/lib.sh" "$TMP/t/tests/lib.sh"
cat >"$TMP/t/tests/report/a-leak.sh" <<'EOF'
sleep 300 &
echo "started $!"
EOF
cat >"$TMP/t/tests/report/b-busy-trap.sh" <<'EOF'
. "$(dirname "$0")/../lib.sh"
busy_start
trap 'rm -rf "$TMP"' EXIT	# replaces lib.sh's trap: busy_stop is not called
sleep 0.2
exit 0
EOF
cat >"$TMP/t/tests/report/c-clean.sh" <<'EOF'
sleep 0.1 &
wait
EOF
O=build FLYTRAP_OFFLINE=1 bash "$TMP/t/tests/run" >"$TMP/out" 2>&1
rc=$?
sed 's/^/  | /' "$TMP/out"
leak=$(sed -n 's/^started //p' "$TMP/t/build/test-logs/tests_report_a-leak.sh.log")

[ $rc != 0 ] && ok "the runner fails when a test leaves a process" || fail "the runner exited 0"
grep -q '^FAIL  tests/report/a-leak.sh .*left processes running' "$TMP/out" &&
	ok "the leaking test is the one that fails" || fail "a-leak.sh not failed for its process"
grep -q "left running: pid $leak: sleep 300" "$TMP/out" &&
	ok "the leftover is named (pid $leak, sleep 300)" || fail "the leftover sleep is not listed"
# Alive: exists and is not a zombie (a CI container's pid 1 may never reap
# what was reparented to it; a killed zombie holds nothing).  SIGKILL is
# delivered at once but the exit takes a moment: wait up to 2 s.
alive() {
	local st
	st=$(sed 's/^.*) //' /proc/"$1"/stat 2>/dev/null | cut -d' ' -f1)
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
for _ in $(seq 20); do [ -n "$leak" ] && alive "$leak" || break; sleep 0.1; done
if [ -n "$leak" ] && alive "$leak"; then
	fail "the leftover $leak still runs"
	kill -9 "$leak"
else
	ok "the runner killed the leftover"
fi
grep -q '^PASS  tests/report/b-busy-trap.sh' "$TMP/out" &&
	ok "busy_start's loops end with their test, EXIT trap replaced or not" ||
	fail "busy_start left its loops when the EXIT trap was replaced"
grep -q '^PASS  tests/report/c-clean.sh' "$TMP/out" && ok "a test that waits for its children passes" ||
	fail "c-clean.sh did not pass"
grep -qx '2 passed, 1 failed, 0 skipped' "$TMP/out" && ok "summary: 2 passed, 1 failed" ||
	fail "summary: $(tail -n 1 "$TMP/out")"
finish
