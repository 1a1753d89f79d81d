#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The README demo's recording (issue 35, item 1 and 8), with its options
# (record/demo.sh: 5 s of --bpf syscalls,offcpu,profile and the scheduler,
# syscall, irq and timer events, while a shell loop runs ls -R, whose bash
# stacks are deep) and record's default user stacks:
#  - fewer than 10% of the profile's samples sit under an [unwind: ...]
#    marker (the issue measured 88% with the old default), and most reach
#    __libc_start_main;
#  - the flame graph a newcomer sees (callgraph --svg, grouped by task name
#    as the HTML report is): its widest tower is a program (a task's group
#    frame, "[ls]"), not a marker.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
need_cmd python3
[ -d /usr/share/doc ] || skip "no /usr/share/doc for the demo's ls -R"
cd "$TMP"

( end=$((SECONDS + 5)); while [ $SECONDS -lt $end ]; do
	ls -R /usr/share/doc > /dev/null 2>&1; sleep 0.05; done ) &
work=$!
"$FLYTRAP" record -q -d 5 -o demo.dat --bpf syscalls,offcpu,profile \
	-e sched:sched_switch -e sched:sched_wakeup -e 'sched:sched_process_*' \
	-e raw_syscalls -e irq -e timer:hrtimer_expire_entry >/dev/null 2>rec.err
rc=$?
wait $work 2>/dev/null
[ $rc = 0 ] || { cat rec.err; fail "record (the demo's options): exit $rc"; finish; }

"$FLYTRAP" callgraph --source samples --folded demo.dat > demo.fold 2>e || fail "callgraph: $(cat e)"
read -r n u m < <(awk '{ w = $NF; t += w; if ($0 ~ /\[unwind:/) u += w; if ($0 ~ /__libc_start_main/) m += w }
	END { printf "%d %.1f %.1f\n", t, t ? 100 * u / t : 0, t ? 100 * m / t : 0 }' demo.fold)
[ "$n" -ge 50 ] && ok "the demo's profile: $n samples" || fail "the demo's profile: only $n samples"
awk -v u="$u" 'BEGIN { exit !(u < 10) }' && ok "${u}% of them under an [unwind:] marker (goal: under 10%)" ||
	fail "${u}% of the samples under a marker: $(grep '\[unwind:' demo.fold | sed 's/.*\(\[unwind:[^]]*\]\).* \([0-9]*\)$/\1 \2/' | sort | uniq -c | sort -rn | head -4)"
awk -v m="$m" 'BEGIN { exit !(m >= 50) }' && ok "${m}% reach __libc_start_main" ||
	fail "only ${m}% reach __libc_start_main"

"$FLYTRAP" callgraph --source samples --svg demo.svg demo.dat >/dev/null 2>e || fail "callgraph --svg: $(cat e)"
python3 - demo.svg <<'EOF' && ok "the flame graph's widest tower is a program" || fail "the flame graph's widest tower"
import re, sys
svg = open(sys.argv[1]).read()
tops = re.findall(r'<g class="f" data-x="[^"]*" data-w="([^"]*)" data-d="1"><title>(.*?) \(', svg)
assert tops, "no frame under the root"
w, name = max((float(w), n) for w, n in tops)
print("widest tower:", name, "%.0f%%" % (100 * w))
# a task's group frame ("[ls]") is a program; a marker or a placeholder is none
assert not name.startswith("[unwind") and name not in ("[unknown]", "[...]"), name
EOF
finish
