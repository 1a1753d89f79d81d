#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap redact's policy (issue 17): names that can say which hardware ran
# (an irq handler's name, a workqueue's, a network interface's, a device's)
# are tokens by default; buffer (instance) names follow "buffer" rules
# (flytrap's own kept); a policy whose field rule names no event or field of
# the input, or is not [SYSTEM:]EVENT.FIELD, is refused with one line, exit 2
# and no output, instead of leaving the field it meant as it was.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd trace-cmd
F=$FLYTRAP
S=tests/data/sample.dat

"$F" redact --show-policy > "$TMP/pol" || fail "--show-policy"
for r in "field irq:irq_handler_entry.name hash" "field workqueue:*.workqueue hash" \
	 "field net:*.name hash" "field *.dev_name hash" "buffer * hash" "buffer flytrap-* keep"; do
	grep -qxF "$r" "$TMP/pol" || fail "the default policy lacks '$r'"
done
ok "the default policy hashes irq, workqueue, interface and device names and buffer names"

# irq handler names: a recorded file with irq_handler_entry events
IRQ=
for f in ${FIXTURES:+"$FIXTURES"/*.dat}; do
	[ -f "$f" ] && trace-cmd report -i "$f" 2> /dev/null | grep -q 'irq_handler_entry:.*name=' && { IRQ=$f; break; }
done
if [ -n "$IRQ" ]; then
	trace-cmd report -i "$IRQ" 2> /dev/null | grep -o 'irq_handler_entry:.*' | sort -u > "$TMP/irq-o"
	head -c 32 /dev/urandom > "$TMP/key"
	"$F" redact "$IRQ" -o "$TMP/irq.dat" --key "$TMP/key" > /dev/null 2> "$TMP/e" || fail "redact $IRQ: $(cat "$TMP/e")"
	trace-cmd report -i "$TMP/irq.dat" 2> /dev/null | grep -o 'irq_handler_entry:.*' | sort -u > "$TMP/irq-r"
	names=$(sed 's/.*name=//' "$TMP/irq-o" | sort -u)
	left=$(for n in $names; do grep -c "name=$n\$" "$TMP/irq-r"; done | awk '{ s += $1 } END { print s + 0 }')
	[ "$left" = 0 ] && grep -q 'name=~[0-9a-f]\{12\}$' "$TMP/irq-r" &&
		[ "$(wc -l < "$TMP/irq-o")" = "$(wc -l < "$TMP/irq-r")" ] &&
		ok "irq handler names ($(echo $names | tr '\n' ' ')) are tokens, one per name" ||
		fail "irq names left: $(head -3 "$TMP/irq-r")"
	[ "$(trace-cmd report -i "$IRQ" 2> /dev/null | grep -c irq_handler_entry)" = \
	  "$(trace-cmd report -i "$TMP/irq.dat" 2> /dev/null | grep -c irq_handler_entry)" ] ||
		fail "the irq event count changed"
else
	echo "note: no fixture with irq_handler_entry events (FIXTURES unset): irq names not checked"
fi

# buffer names: a merge of two slices has buffers a, a:flytrap-bpf, b, b:flytrap-bpf
"$F" slice $S --to 1610 -o "$TMP/a.dat" 2> /dev/null && "$F" slice $S --from 1610 -o "$TMP/b.dat" 2> /dev/null &&
	"$F" merge "$TMP/a.dat" "$TMP/b.dat" -o "$TMP/m.dat" > /dev/null 2>&1 || fail "merge of two slices"
"$F" redact "$TMP/m.dat" -o "$TMP/mr.dat" > /dev/null 2> "$TMP/e" || fail "redact of the merge: $(cat "$TMP/e")"
"$F" info --json "$TMP/mr.dat" | python3 -c "
import json, re, sys
names = sorted(b['name'] for b in json.load(sys.stdin)['buffers'] if b['name'])
assert len(names) == 4, names
assert all(re.fullmatch(r'~[0-9a-f]{12}(:flytrap-bpf)?', n) for n in names), names
assert len({n.split(':')[0] for n in names}) == 2, names" &&
	ok "a merge's source buffer names are tokens, flytrap's instance name kept after them" ||
	fail "buffer names of the redacted merge: $("$F" info "$TMP/mr.dat" | grep -A4 '^buffers')"
printf 'buffer flytrap-* hash\n' > "$TMP/bh"
"$F" redact "$TMP/m.dat" -o "$TMP/mh.dat" --policy "$TMP/bh" > /dev/null 2> "$TMP/e" || fail "redact, buffer rule: $(cat "$TMP/e")"
"$F" info "$TMP/mh.dat" | grep -A4 '^buffers' > "$TMP/bn"
grep -q flytrap-bpf "$TMP/bn" && fail "'buffer flytrap-* hash' kept the instance name" ||
	ok "'buffer flytrap-* hash' makes the instance names tokens too"
[ "$(trace-cmd report -i "$TMP/mh.dat" 2> /dev/null | grep -c ': ')" = \
  "$(trace-cmd report -i "$TMP/m.dat" 2> /dev/null | grep -c ': ')" ] || fail "the event count changed"

# bad field rules: one line, exit 2, nothing written
bad() {
	printf '%b' "$2" > "$TMP/p"
	"$F" redact $S -o "$TMP/x.dat" --policy "$TMP/p" > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && grep -q "$3" "$TMP/e" && [ ! -e "$TMP/x.dat" ] &&
		ok "$1: exit 2, '$(cat "$TMP/e")'" || fail "$1: rc=$rc, $(cat "$TMP/e")"
}
bad "an unknown field" 'field sched:sched_switch.nope keep\n' "line 1: field rule 'sched:sched_switch.nope': no event of .* has such a field"
bad "an unknown event" '# mine\n\nfield nosuch_event.name hash\n' "line 3: field rule 'nosuch_event.name': .* has no such event"
bad "an unknown field of any event" 'field no_such_field_anywhere drop\n' "no event of .* has such a field"
bad "two systems" 'field a:b:c.d hash\n' "'a:b:c.d' is not \[SYSTEM:\]EVENT.FIELD or FIELD"
bad "no field after the dot" 'field sched:sched_switch. hash\n' "is not \[SYSTEM:\]EVENT.FIELD"
bad "a system without an event" 'field sched:prev_comm keep\n' "is not \[SYSTEM:\]EVENT.FIELD"
bad "drop for a buffer" 'buffer x drop\n' "'drop' is not an action for buffer (keep, hash)"
# a pattern matching one field is accepted, and the default policy's own rules need no event
printf 'field sched:sched_sw*.prev_* hash\nfield irq:*.vec keep\n' > "$TMP/p"
"$F" redact $S -o "$TMP/y.dat" --policy "$TMP/p" > /dev/null 2> "$TMP/e" &&
	ok "field rules with patterns that match a field are accepted" || fail "pattern rules refused: $(cat "$TMP/e")"
ls -a "$TMP" | grep -q '^\.x\.dat\.' && fail "a temporary file was left behind"
finish
