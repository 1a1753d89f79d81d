# SPDX-License-Identifier: GPL-2.0-only
# Sourced by guest.sh when /bin/flytrap has `status`: what this machine's
# kernel refuses, checked in the lab kernel.  The function tracer at the top
# level (narrowed to one function, so ftrace hooks one site) and a kprobe
# enabled in an instance: flytrap status lists them (tracer, filter lines,
# hooked functions, the probe and where it is enabled) and exits 3; reset
# --all puts the top level back, removes instance and kprobe; then status
# exits 0 and the tracefs state is the one of the start.  No jq here: the
# JSON is checked with grep (it is one line without spaces between keys).
ST=/bin/flytrap
INST=st-lab
echo do_sys_openat2 >$T/set_ftrace_filter
echo function >$T/current_tracer
echo 'p:st_lab/kx do_sys_openat2' >>$T/kprobe_events
mkdir $T/instances/$INST
echo 1 >$T/instances/$INST/events/st_lab/kx/enable
cat /etc/lab-file >/dev/null

$ST status --json --interval 0 >$OUT/status-lab.json 2>$OUT/status-lab.err
rc=$?
J=$(cat $OUT/status-lab.json)
[ $rc = 3 ] && ok "status: exits 3 with a function tracer and a kprobe" || fail "status: exit $rc"
case $J in *'"name":"top","instance":false,'*'"tracer":"function"'*) ok "status: top-level function tracer listed" ;;
	*) fail "status: no function tracer in the top level" ;; esac
case $J in *'"set_ftrace_filter":1,'*'"hooked_functions":1,'*) ok "status: 1 filter line, 1 hooked function" ;;
	*) fail "status: filter/hooked counts: $(echo "$J" | head -c 600)" ;; esac
case $J in *'"kind":"kprobe","group":"st_lab","name":"kx"'*'"enabled_in":["st-lab"]'*) ok "status: kprobe listed, enabled in its instance" ;;
	*) fail "status: kprobe not listed" ;; esac
case $J in *'"function_tracer":true'*) ok "status: cost says a function tracer runs" ;;
	*) fail "status: cost has no function tracer" ;; esac
$ST status --interval 0 >$OUT/status-lab.txt 2>&1
grep -q 'a function tracer runs' $OUT/status-lab.txt && grep -q '^  kprobe st_lab/kx do_sys_openat2' $OUT/status-lab.txt &&
	grep -q '1 kernel functions hooked' $OUT/status-lab.txt && ok "status: text names tracer, hooks and kprobe" ||
	fail "status: text: $(head -c 400 $OUT/status-lab.txt)"

$ST reset --all --yes >$OUT/reset-all-lab.txt 2>&1
rc=$?
[ $rc = 0 ] && ok "reset --all: exit 0" || fail "reset --all: exit $rc: $(head -c 300 $OUT/reset-all-lab.txt)"
grep -q 'set the top level.s current_tracer to nop (it is function)' $OUT/reset-all-lab.txt &&
	grep -q 'empty the top level.s set_ftrace_filter (1 lines)' $OUT/reset-all-lab.txt &&
	grep -q 'remove kprobe st_lab/kx' $OUT/reset-all-lab.txt && grep -q "remove instance $INST" $OUT/reset-all-lab.txt &&
	ok "reset --all: listed tracer, filter, kprobe and instance" || fail "reset --all said: $(head -c 400 $OUT/reset-all-lab.txt)"
$ST status --no-cost >$OUT/status-lab-after.txt 2>&1
rc=$?
[ $rc = 0 ] && ok "status: exits 0 after reset --all" || fail "status after reset: exit $rc: $(head -c 300 $OUT/status-lab-after.txt)"
echo >$T/trace
same_state "status + reset --all"
