#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Messages of the reading commands (issue 31): a query where sql's file goes
# is a usage error that shows the right form; verify of a directory says so
# on stderr; load into a ClickHouse without flytrap's tables says how to make
# them, and --create makes them (a stand-in HTTP server plays ClickHouse);
# info's time span rounds as the listing does, so --to copied from it keeps
# the last event; info counts the BPF buffer's bytes read and written.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3
F=$FLYTRAP
S=tests/data

"$F" sql "$S/rpt-sched.dat" 'select count(*) from ftrace_event' >"$TMP/o" 2>"$TMP/e"; rc=$?
[ $rc = 2 ] && grep -q "is a query, not a file: give it with -c" "$TMP/e" && ! grep -q "cannot open" "$TMP/e" &&
	ok "sql FILE QUERY: exit 2, $(head -1 "$TMP/e")" || fail "sql FILE QUERY: rc=$rc $(cat "$TMP/e")"

"$F" verify "$TMP" >"$TMP/o" 2>"$TMP/e"; rc=$?
[ $rc = 1 ] && [ ! -s "$TMP/o" ] && grep -q "not a regular file (a directory)" "$TMP/e" &&
	ok "verify DIR: the error on stderr, exit 1" || fail "verify DIR: rc=$rc out=$(cat "$TMP/o") err=$(cat "$TMP/e")"

# info's span against the listing's first and last stamps
for f in "$S/rpt-sched.dat" "$S/getpid-switch.dat" "$S/sample.dat"; do
	span=$("$F" info "$f" | sed -n 's/^time span: *\([0-9.]*\) \.\. \([0-9.]*\) .*/\1 \2/p')
	first=$("$F" report "$f" 2>/dev/null | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); print $i; exit }}')
	last=$("$F" report "$f" 2>/dev/null | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); t = $i }} END {print t}')
	[ "$span" = "$first $last" ] && ok "info's span of $(basename "$f") is the listing's ($span)" ||
		fail "$(basename "$f"): info span '$span', listing '$first $last'"
	n=$("$F" report --to "${span#* }" "$f" 2>/dev/null | wc -l)
	[ "$n" = "$("$F" report "$f" 2>/dev/null | wc -l)" ] && ok "--to from info keeps every event" ||
		fail "$(basename "$f"): --to ${span#* } lists $n lines"
done

# BPF buffer bytes (mkrpt bpfloss: bytes_read 8192 + 3 BPF pages of 4096)
MK=$TOP/$O/tests/tools/mkrpt
if [ -x "$MK" ] && "$MK" bpfloss "$TMP/b.dat"; then
	"$F" info "$TMP/b.dat" | grep -q 'read 20.0 KiB of pages, wrote [1-9]' &&
		ok "info counts the BPF buffer's pages" ||
		fail "info bytes: $("$F" info "$TMP/b.dat" | grep 'of pages')"
fi

# a stand-in ClickHouse: every statement logged; EXISTS TABLE says what $TABLES says
cat >"$TMP/ch.py" <<'PY'
import http.server, sys, urllib.parse
log = open(sys.argv[1], "a")
tables = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        q = urllib.parse.unquote_plus(self.path) + " " + body[:300].decode("latin-1")
        log.write(q.replace("\n", " ") + "\n"); log.flush()
        out = b""
        if b"EXISTS TABLE" in body:
            out = (tables + "\n").encode()
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
for tables in 0 1; do
	: >"$TMP/ch$tables.log"
	coproc CH { exec python3 "$TMP/ch.py" "$TMP/ch$tables.log" $tables; }
	# bash unsets CH_PID once it reaps the server, which can be between the kill and the wait
	ch_pid=$CH_PID
	read -r port <&"${CH[0]}"
	if [ $tables = 0 ]; then
		"$F" load --clickhouse "http://127.0.0.1:$port/" "$S/rpt-sched.dat" >"$TMP/o" 2>"$TMP/e"; rc=$?
		[ $rc = 1 ] && grep -q "flytrap load --schema | clickhouse-client --multiquery" "$TMP/e" &&
			grep -q -- "--create" "$TMP/e" && ! grep -q "INSERT" "$TMP/ch0.log" &&
			ok "load without the tables: $(head -1 "$TMP/e")" ||
			fail "load without tables: rc=$rc $(cat "$TMP/e")"
		"$F" load --create --clickhouse "http://127.0.0.1:$port/" "$S/rpt-sched.dat" >"$TMP/o" 2>"$TMP/e"; rc=$?
		[ $rc = 0 ] && grep -q "CREATE DATABASE IF NOT EXISTS flytrap" "$TMP/ch0.log" &&
			grep -q "CREATE TABLE IF NOT EXISTS flytrap.loaded_files" "$TMP/ch0.log" &&
			grep -q "INSERT INTO flytrap.loaded_files" "$TMP/ch0.log" &&
			ok "load --create makes the tables, then loads" ||
			fail "load --create: rc=$rc $(cat "$TMP/e"); $(head -3 "$TMP/ch0.log")"
	else
		"$F" load --clickhouse "http://127.0.0.1:$port/" "$S/rpt-sched.dat" >"$TMP/o" 2>"$TMP/e"; rc=$?
		[ $rc = 0 ] && ! grep -q CREATE "$TMP/ch1.log" && ok "load with the tables there: loads" ||
			fail "load with tables: rc=$rc $(cat "$TMP/e")"
	fi
	kill "$ch_pid" 2>/dev/null
	wait "$ch_pid" 2>/dev/null
done
finish
