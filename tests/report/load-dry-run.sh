#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap load --dry-run (issue 30, item 6: load in the hostile-input tests): every row a
# load would send, read and encoded, nothing sent, no server needed.  Its rows per table
# are what `flytrap sql` counts in each table, and its bytes per table what a load sends
# (a stand-in HTTP server plays ClickHouse and counts each insert's body); an unreachable
# URL is not contacted; a file that cannot be read is one error line and exit 1;
# --dry-run with --create or --schema is a usage error.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3
F=$FLYTRAP
S=tests/data/rpt-bpf.dat

# "table rows bytes" per line, from the dry run's table
dry_table() { awk 'NR > 2 && NF == 3 { print $1, $2, $3 }' "$1"; }

"$F" load --dry-run $S > "$TMP/dry.txt" 2> "$TMP/e"; rc=$?
[ $rc = 0 ] && [ ! -s "$TMP/e" ] && grep -q "a dry run, nothing sent" "$TMP/dry.txt" ||
	fail "load --dry-run: rc=$rc $(cat "$TMP/e")"
dry_table "$TMP/dry.txt" > "$TMP/dry.tab"
# every table of sql: the same number of rows
bad=
n=0
while read -r t rows _; do
	case $t in folded_stacks | latency_hist | recorder_cost | loaded_files) continue ;; esac
	q=$("$F" sql --csv -c "select count(*) from \"$t\"" $S 2> /dev/null | tail -1)
	[ "$q" = "$rows" ] || bad="$bad $t ($rows, sql $q)"
	n=$((n + 1))
done < "$TMP/dry.tab"
[ $n -ge 10 ] && [ -z "$bad" ] && ok "dry run: the rows of $n tables = sql's count(*)" ||
	fail "dry run rows differ from sql's:$bad ($n tables)"
grep -qx "loaded_files 1 [0-9]*" "$TMP/dry.tab" || fail "dry run: no loaded_files row"
# (the loaded_files row is the load's record, not one of the file's rows)
total=$(awk '$1 != "loaded_files" { s += $2 } END { print s }' "$TMP/dry.tab")
head -1 "$TMP/dry.txt" | grep -q ": $total rows," ||
	fail "dry run: the total is not the sum of the tables ($total): $(head -1 "$TMP/dry.txt")"

# what a real load sends: bytes per table, from a stand-in ClickHouse
cat > "$TMP/ch.py" << 'PY'
import http.server, re, sys, urllib.parse
log = open(sys.argv[1], "a")
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        m = re.search(r"INSERT INTO \w+\.(\w+) ", urllib.parse.unquote_plus(self.path))
        if m:
            log.write("%s %d\n" % (m.group(1), n)); log.flush()
        out = b"1\n" if b"EXISTS TABLE" in body else b"0\n" if b"count()" in body else b""
        self.send_response(200)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
: > "$TMP/ch.log"
coproc CH { exec python3 "$TMP/ch.py" "$TMP/ch.log"; }
# bash unsets CH_PID once it reaps the server, which can be between the kill and the wait
ch_pid=$CH_PID
read -r port <&"${CH[0]}"
"$F" load --clickhouse "http://127.0.0.1:$port/" $S > "$TMP/o" 2> "$TMP/e"; rc=$?
kill "$ch_pid" 2> /dev/null
wait "$ch_pid" 2> /dev/null
awk '{ b[$1] += $2 } END { for (t in b) print t, b[t] }' "$TMP/ch.log" | sort > "$TMP/sent"
awk '$3 > 0 { print $1, $3 }' "$TMP/dry.tab" | sort > "$TMP/dry.bytes"
[ $rc = 0 ] && [ -s "$TMP/sent" ] && cmp -s "$TMP/sent" "$TMP/dry.bytes" &&
	grep -q ": $total rows (" "$TMP/o" &&
	ok "a load sends the bytes and rows of the dry run ($(wc -l < "$TMP/sent") tables, $total rows)" ||
	fail "load vs dry run: rc=$rc $(cat "$TMP/e") $(diff "$TMP/sent" "$TMP/dry.bytes" | head -4)"

# no server is contacted: a URL where nothing listens does not matter
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$F" load --dry-run --clickhouse "http://127.0.0.1:$port/" $S > "$TMP/o" 2> "$TMP/e" &&
	cmp -s "$TMP/o" "$TMP/dry.txt" && ok "--dry-run with a URL: nothing contacted" ||
	fail "--dry-run with a URL nothing listens on: $(cat "$TMP/e")"

# a file that cannot be read: one line, exit 1; the other files still counted
head -c 3000 $S > "$TMP/cut.dat"
echo "not a trace" > "$TMP/junk.dat"
"$F" load --dry-run "$TMP/junk.dat" $S > "$TMP/o" 2> "$TMP/e"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && grep -q "junk.dat" "$TMP/e" &&
	grep -q "^$S: $total rows" "$TMP/o" && ok "an unreadable file: exit 1, $(cat "$TMP/e")" ||
	fail "unreadable file: rc=$rc $(cat "$TMP/e")"
"$F" load --dry-run "$TMP/cut.dat" > "$TMP/o" 2> "$TMP/e"; rc=$?
{ [ $rc = 1 ] && grep -q "error" "$TMP/e"; } || { [ $rc = 0 ] && grep -q "damaged or cut" "$TMP/e"; } &&
	ok "a cut file: exit $rc, $(head -1 "$TMP/e")" || fail "a cut file: rc=$rc $(cat "$TMP/e")"

for a in "--create" "--schema"; do
	"$F" load --dry-run $a $S > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] || fail "--dry-run $a: rc=$rc $(cat "$TMP/e")"
done
"$F" load $S > "$TMP/o" 2> "$TMP/e"; rc=$?
[ $rc = 2 ] && grep -q -- "--dry-run" "$TMP/e" && ok "usage: --dry-run with --create/--schema, no URL" ||
	fail "load without a URL: rc=$rc $(cat "$TMP/e")"
finish
