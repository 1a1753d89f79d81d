#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Truncated v7 files (a cut download, a full disk, a killed copy): the
# BUFFER options sit after the data, so the reader rebuilds the buffers
# from the sections.  At many cut points over flytrap-written files (its
# own recordings, convert's output, a fresh recording when root can make
# one; zstd and uncompressed) and trace-cmd-written fixtures, `report` must print, for every CPU,
# a prefix of that CPU's events in the full listing, every event of the
# CPU streams the cut left whole, name the byte offset, and exit non-zero.
. "$TOP/tests/lib.sh"
need_cmd python3

files="$TOP/tests/data/sample.dat $TOP/tests/data/lab-function-graph.dat $TOP/tests/data/rpt-sched.dat"
if [ -d "$FIXTURES" ]; then
	files="$files $FIXTURES/HIP24+Masterarbeit__LTS_trace-cmd-v3.2_trace.dat"
	# flytrap's writer on a 4-CPU trace-cmd file
	"$FLYTRAP" convert "$FIXTURES/kinmax+buildroot-kernel__trace_fifo_multicore.dat" -o "$TMP/conv.dat" \
		>/dev/null 2>&1 && files="$files $TMP/conv.dat"
	# uncompressed: the CPUs' pages back to back, split where time goes back
	"$FLYTRAP" convert -c none "$FIXTURES/kinmax+buildroot-kernel__trace_fifo_multicore.dat" \
		-o "$TMP/raw4.dat" >/dev/null 2>&1 && files="$files $TMP/raw4.dat"
fi
"$FLYTRAP" convert -c none "$TOP/tests/data/sample.dat" -o "$TMP/raw2.dat" >/dev/null 2>&1 &&
	files="$files $TMP/raw2.dat"
# a fresh recording (root and tracefs, and not in an offline run)
if [ "${FLYTRAP_OFFLINE:-0}" != 1 ] && [ "$(id -u)" = 0 ] && [ -e "$TRACEFS/instances" ]; then
	"$FLYTRAP" record -q -d 1 -o "$TMP/rec.dat" -e sched -e raw_syscalls:sys_exit -- \
		sh -c 'for i in 1 2 3 4 5; do ls /usr/share/doc >/dev/null; sleep 0.05; done' >/dev/null 2>&1 &&
		files="$files $TMP/rec.dat"
fi

check() {	# FILE CUT: exit status and message; the listing is checked by prefixes
	local f=$1 cut=$2 rc before=$fails
	head -c "$cut" "$f" > "$TMP/cut.dat"
	timeout 120 "$FLYTRAP" report "$TMP/cut.dat" > "$TMP/cut-$cut.txt" 2> "$TMP/cut.err"; rc=$?
	"$FLYTRAP" info --json "$TMP/cut.dat" > "$TMP/cut-$cut.json" 2>/dev/null
	if [ $rc -ge 124 ]; then fail "$(basename "$f") cut at $cut: crashed (exit $rc)"; return; fi
	[ $rc -ne 0 ] || fail "$(basename "$f") cut at $cut: exit 0"
	grep -q 'byte offset [0-9]' "$TMP/cut.err" ||
		fail "$(basename "$f") cut at $cut: no byte offset in '$(head -c 200 "$TMP/cut.err")'"
	[ "$(grep -c '^flytrap: error' "$TMP/cut.err")" -le 1 ] ||
		fail "$(basename "$f") cut at $cut: more than one error line: $(cat "$TMP/cut.err")"
	[ "$fails" = "$before" ] && checked="$checked $cut"
}

# prefixes FILE CUT...: for each cut, every CPU's events are a prefix of that
# CPU's events in the full listing (one python run parses the full listing once)
prefixes() {
	local f=$1 out
	shift
	[ $# -gt 0 ] || return 0
	out=$(python3 - "$TMP/full.txt" "$TMP/full.json" "$TMP" "$@" <<'PY'
import json, re, sys
full_txt, full_json, tmp = sys.argv[1:4]
fj = json.load(open(full_json))

def streams(j):
    """per buffer kind ('T' top, 'I' instance): CPU id -> ordinal by data offset"""
    m = {}
    for b in j['buffers']:
        k = 'T' if b['name'] == '' else 'I'
        order = sorted(b['cpus'], key=lambda c: c['offset'])
        m[k] = ({c['cpu']: i for i, c in enumerate(order)}, b.get('cpu_ids_guessed', False), order)
    return m

fs = streams(fj)
cpu_re = re.compile(r'\[(\d+)\]')

def lines(path, st):
    out = {}
    for ln in open(path, errors='replace'):
        ln = ln.rstrip('\n')
        if ln.startswith('cpus='):
            continue
        kind = 'T'
        if ln and not ln.startswith(' ') and re.match(r'^[^ ]+: ', ln) and len(fj['buffers']) > 1:
            kind = 'I'
            ln = ln.split(': ', 1)[1]
        ln = ln.lstrip(' ')
        if ln.startswith('CPU:') and 'DROPPED' in ln:
            continue
        m = cpu_re.search(ln)
        if not m:
            continue
        cpu = int(m.group(1))
        ids, guessed, _ = st.get(kind, ({}, False, []))
        key = (kind, cpu if guessed else ids.get(cpu, -1 - cpu))
        # the CPU column is compared through the key; the task names live
        # in the saved cmdlines, which a cut file may have lost ("<...>")
        ln = re.sub(r'^.*-(\d+) +\[\d+\]', r'\1 []', ln, count=1)
        out.setdefault(key, []).append(ln)
    return out

full = lines(full_txt, fs)
def check_cut(cut, got):
    bad = []
    for key, seq in got.items():
        ref = full.get(key, [])
        if seq != ref[:len(seq)]:
            i = next((i for i, (a, b) in enumerate(zip(seq, ref)) if a != b), len(ref))
            bad.append('%s: line %d differs: %r vs %r' % (key, i, seq[i] if i < len(seq) else None,
                                                        ref[i] if i < len(ref) else None))
    # streams the cut left whole print every event
    for kind, (ids, _, order) in fs.items():
        for c in order:
            if c['size'] and c['offset'] + c['size'] + 4 <= cut and fj['version'] >= 7:
                key = (kind, ids[c['cpu']])
                n, want = len(got.get(key, [])), len(full.get(key, []))
                if n != want:
                    bad.append('%s CPU %d ends before the cut but printed %d of %d events'
                               % (kind, c['cpu'], n, want))
    return bad
for cut in map(int, sys.argv[4:]):
    try:
        cj = json.load(open('%s/cut-%d.json' % (tmp, cut)))
    except Exception:
        cj = None
    cs = streams(cj) if cj else {}
    got = lines('%s/cut-%d.txt' % (tmp, cut), cs)
    bad = check_cut(cut, got)
    for b in bad[:5]:
        print('cut at %d: %s' % (cut, b))
    if not bad:
        print('ok %d %d' % (cut, sum(len(v) for v in got.values())))
PY
)
	while read -r word rest; do
		if [ "$word" = ok ]; then
			set -- $rest
			ok "$(basename "$f") cut at $1: $2 events, a per-CPU prefix of the full listing"
		else
			fail "$(basename "$f") $word $rest"
		fi
	done <<< "$out"
}


for f in $files; do
	"$FLYTRAP" report "$f" > "$TMP/full.txt" || { fail "$(basename "$f"): full report failed"; continue; }
	"$FLYTRAP" info --json "$f" > "$TMP/full.json"
	size=$(stat -c %s "$f")
	data=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(min([c["offset"] for b in d["buffers"] for c in b["cpus"]] or [0]))' "$TMP/full.json")
	[ "$data" -gt 0 ] || { fail "$(basename "$f"): no CPU data found"; continue; }
	# a cut in the metadata, just before the data, and spread over the data and the tail
	cuts="$((data / 2)) $((data - 1)) $((data + 3)) $((data + 40))"
	ks="1 2 3 4 5 6 7 8 9"
	light && ks="2 5 8"	# the sanitizer run: three cuts in the data
	for k in $ks; do cuts="$cuts $((data + (size - data) * k / 10))"; done
	cuts="$cuts $((size - 60)) $((size - 1))"
	checked=
	for cut in $cuts; do
		[ "$cut" -gt 0 ] && [ "$cut" -lt "$size" ] && check "$f" "$cut"
	done
	prefixes "$f" $checked
	rm -f "$TMP"/cut-*
done
finish
