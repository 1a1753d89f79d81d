#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Latency-format files (the text a latency tracer leaves in "trace", stored
# after a v6 "latency" marker or in a v7 BUFFER_TEXT section).  This kernel
# refuses the latency tracers, so mkcompat builds the files byte by byte:
# v6 (with and without a TRACECLOCK option), v7 zstd (several chunk sizes)
# and v7 uncompressed (text last, or followed by the options as trace-cmd
# writes them).  `flytrap report` must print exactly what `trace-cmd
# report` prints; info describes the text; analyzers see no events;
# convert refuses; damaged files give an error naming a byte offset.
. "$TOP/tests/lib.sh"
need_cmd trace-cmd
need_cmd python3
MK=$TOP/$O/tests/tools/mkcompat
[ -x "$MK" ] || skip "$MK is not built"

crashed() { [ "$1" -ge 124 ]; }

# texts: a short trace, 3000 lines (several read blocks and chunks), one
# with a NUL inside (trace-cmd prints each block only up to its first
# NUL), exactly two 8192-byte blocks, and an empty one
python3 - "$TMP" <<'PY'
import sys
d = sys.argv[1]
hdr = (b"# tracer: wakeup\n#\n# wakeup latency trace v1.1.5 on 6.1.0\n"
       b"# --------------------------------------------------------------------\n"
       b"# latency: 74 us, #4/4, CPU#1 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:2)\n#\n")
small = hdr + b"  <idle>-0       1dNh5    0us+:      0:120:R   + [001]    17: 98:R kworker/1:1\n"
big = hdr + b"".join(b"   bash-%-5d  1d..%d %5dus : try_to_wake_up <-wake_up_process line %06d\n"
                     % (1000 + i % 97, i % 4, i * 3, i) for i in range(3000))
open(d + "/small.txt", "wb").write(small)
open(d + "/big.txt", "wb").write(big)
open(d + "/nul.txt", "wb").write(big[:9000] + b"\0" + big[9000:30000])
open(d + "/exact.txt", "wb").write((big * 2)[:16384])
open(d + "/empty.txt", "wb").write(b"")
PY

nfiles=0; nbytes=0
same() {	# same FILE LABEL: trace-cmd and flytrap print the same bytes
	local f=$1 rc1 rc2
	timeout 60 trace-cmd report -i "$f" > "$f.tc" 2> "$f.tcerr"; rc1=$?
	timeout 60 "$FLYTRAP" report "$f" > "$f.fl" 2> "$f.flerr"; rc2=$?
	if [ $rc1 -ne 0 ]; then fail "$2: trace-cmd failed (exit $rc1): $(head -c 200 "$f.tcerr")"; return; fi
	if [ $rc2 -ne 0 ]; then fail "$2: flytrap failed (exit $rc2): $(head -c 200 "$f.flerr")"; return; fi
	if cmp -s "$f.tc" "$f.fl"; then
		nfiles=$((nfiles + 1)); nbytes=$((nbytes + $(stat -c %s "$f.fl")))
	else
		fail "$2: output differs from trace-cmd ($(cmp "$f.tc" "$f.fl" 2>&1 | head -c 120))"
	fi
}

for t in small big nul exact empty; do
	txt=$TMP/$t.txt
	"$MK" lat6 "$TMP/$t-6.dat" "$txt" && same "$TMP/$t-6.dat" "$t v6"
	"$MK" lat6 "$TMP/$t-6c.dat" "$txt" --traceclock --cpus 4 && same "$TMP/$t-6c.dat" "$t v6 + TRACECLOCK"
	for chunk in 40960 8192 1000; do
		"$MK" lat7 "$TMP/$t-7z$chunk.dat" "$txt" zstd --chunk $chunk && same "$TMP/$t-7z$chunk.dat" "$t v7 zstd, $chunk-byte chunks"
	done
	"$MK" lat7 "$TMP/$t-7zt.dat" "$txt" zstd --tail && same "$TMP/$t-7zt.dat" "$t v7 zstd, options after the text"
	"$MK" lat7 "$TMP/$t-7n.dat" "$txt" none --cpus 8 && same "$TMP/$t-7n.dat" "$t v7 uncompressed"
	"$MK" lat7 "$TMP/$t-7nt.dat" "$txt" none --tail && same "$TMP/$t-7nt.dat" "$t v7 uncompressed, options after the text"
done
[ $nfiles -eq 40 ] && ok "$nfiles latency files: flytrap report prints what trace-cmd report prints ($nbytes bytes)"

# the printed text really is the stored text (not two identical empty outputs)
{ echo "cpus=2"; cat "$TMP/big.txt"; echo; } | cmp -s - "$TMP/big-7z8192.dat.fl" &&
	ok "v7 zstd: the text comes out whole" || fail "v7 zstd: printed text is not the stored text"
{ echo "cpus=2"; cat "$TMP/small.txt"; echo; } | cmp -s - "$TMP/small-6.dat.fl" &&
	ok "v6: the text comes out whole" || fail "v6: printed text is not the stored text"
# TRACECLOCK in v6: trace-cmd takes the first 8 bytes as a clock block length
{ echo "cpus=4"; tail -c +9 "$TMP/small.txt"; echo; } | cmp -s - "$TMP/small-6c.dat.fl" &&
	ok "v6 with TRACECLOCK: the first 8 bytes go to the clock block, as in trace-cmd" ||
	fail "v6 with TRACECLOCK: not the text after its first 8 bytes"

# info and --json
"$FLYTRAP" info "$TMP/big-7z1000.dat" > "$TMP/info.txt" 2>&1 || fail "info on a latency file failed: $(cat "$TMP/info.txt")"
grep -q "^latency: .*zstd chunk" "$TMP/info.txt" && ok "info: $(grep '^latency:' "$TMP/info.txt")" ||
	fail "info does not describe the latency text: $(cat "$TMP/info.txt")"
"$FLYTRAP" info --json "$TMP/big-7z1000.dat" > "$TMP/info.json" || fail "info --json failed"
python3 - "$TMP/info.json" "$(stat -c %s "$TMP/big.txt")" <<'PY' && ok "info --json: latency size and chunks" || fail "info --json: $(head -c 300 "$TMP/info.json")"
import json, sys
j = json.load(open(sys.argv[1]))
l = j["latency"]
assert l and l["compressed"] and l["size"] == int(sys.argv[2]) and l["chunks"] == -(-int(sys.argv[2]) // 1000), l
assert j["events"] == 0
PY
"$FLYTRAP" report --json "$TMP/small-7n.dat" > "$TMP/rep.json" || fail "report --json failed"
python3 - "$TMP/rep.json" "$TMP/small.txt" <<'PY' && ok "report --json: one object with the text" || fail "report --json: $(head -c 300 "$TMP/rep.json")"
import json, sys
j = json.loads(open(sys.argv[1]).read())
assert j["format"] == "latency" and j["text"] == open(sys.argv[2]).read(), j
PY

# analyzers: an empty event stream, no crash
for a in callgraph overhead drops; do
	timeout 60 "$FLYTRAP" $a "$TMP/big-7z8192.dat" > "$TMP/an.txt" 2>&1; rc=$?
	if crashed $rc || [ $rc -gt 1 ]; then fail "$a on a latency file: exit $rc: $(head -c 200 "$TMP/an.txt")"; fi
done
ok "analyzers run on latency files (no events)"

# convert refuses (it has no pages to rewrite)
"$FLYTRAP" convert "$TMP/big-7z8192.dat" -o "$TMP/conv.dat" > "$TMP/conv.txt" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q latency "$TMP/conv.txt"; then
	ok "convert refuses a v7 latency file: $(head -c 100 "$TMP/conv.txt")"
else
	fail "convert on a v7 latency file: exit $rc, '$(head -c 200 "$TMP/conv.txt")'"
fi
rm -f "$TMP/conv.dat"
# a v6 latency file has no BUFFER_TEXT option: refused all the same, never
# an empty v7 file
"$FLYTRAP" convert "$TMP/big-6.dat" -o "$TMP/conv.dat" > "$TMP/conv.txt" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q latency "$TMP/conv.txt"; then
	ok "convert refuses a v6 latency file"
else
	fail "convert accepted a v6 latency file (exit $rc) and dropped its text"
fi
rm -f "$TMP/conv.dat"

# damage: lies in the chunk table, corrupt zstd data, a pointer to another
# section, a missing clock string, and cuts; an error naming a byte offset
# (exit 1), never a crash; a cut text prints what is there first
for bad in nchunks csize usize zdata section noclock; do
	"$MK" lat7 "$TMP/bad-$bad.dat" "$TMP/big.txt" zstd --chunk 8192 --bad $bad
	timeout 60 "$FLYTRAP" report "$TMP/bad-$bad.dat" > "$TMP/bad.out" 2> "$TMP/bad.err"; rc=$?
	if [ $rc -eq 1 ] && grep -q 'byte offset [0-9]' "$TMP/bad.err"; then
		ok "bad $bad: $(head -c 110 "$TMP/bad.err")"
	else
		fail "bad $bad: exit $rc, '$(head -c 200 "$TMP/bad.err")'"
	fi
	timeout 60 "$FLYTRAP" info "$TMP/bad-$bad.dat" > /dev/null 2>&1; rc=$?
	crashed $rc && fail "info on bad $bad crashed (exit $rc)"
done
# corrupt data in the last chunk: every chunk before it is printed
timeout 60 "$FLYTRAP" report "$TMP/bad-zdata.dat" > "$TMP/z.out" 2>/dev/null
full=$(stat -c %s "$TMP/big.txt"); n=$(( (full - 1) / 8192 * 8192 ))
{ echo "cpus=2"; head -c $n "$TMP/big.txt"; echo; } | cmp -s - "$TMP/z.out" &&
	ok "bad zdata: the $n bytes of the good chunks are printed" || fail "bad zdata: printed text is not the good chunks"
for kind in 7n 7z1000 7zt; do
	f=$TMP/big-$kind.dat; size=$(stat -c %s "$f")
	for cut in 20 300 $((size / 2)) $((size - 3)); do
		head -c $cut "$f" > "$TMP/cut.dat"
		timeout 60 "$FLYTRAP" report "$TMP/cut.dat" > "$TMP/cut.out" 2> "$TMP/cut.err"; rc=$?
		if crashed $rc || [ $rc -eq 0 ] || ! grep -q 'byte offset [0-9]' "$TMP/cut.err"; then
			fail "$kind cut at $cut of $size: exit $rc, '$(head -c 200 "$TMP/cut.err")'"
			continue
		fi
		# whatever was printed is the start of the text
		if [ -s "$TMP/cut.out" ]; then
			tail -c +8 "$TMP/cut.out" | head -c -1 > "$TMP/cut.txt"
			cmp -s "$TMP/cut.txt" <(head -c "$(stat -c %s "$TMP/cut.txt")" "$TMP/big.txt") ||
				fail "$kind cut at $cut: printed text is not a prefix of the stored text"
		fi
	done
done
ok "cut latency files: error with a byte offset, text before the cut printed"
finish
