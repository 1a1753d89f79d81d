#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap load into a 2-shard ClickHouse fleet on this machine: two
# clickhouse-server processes (user clickhouse, 127.0.0.1 ports, data in a
# temporary directory), the --schema --cluster DDL on both, 20 files loaded
# through the Distributed tables; the same questions answered by `flytrap
# sql --each` and by ClickHouse must agree, a second load adds nothing,
# and the servers are stopped on every way out.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_root
need_cmd python3
need_cmd curl
if ! command -v clickhouse-server >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends clickhouse-server \
		clickhouse-client >/dev/null 2>&1 || skip "clickhouse-server is not installed and apt-get cannot install it"
fi
id clickhouse >/dev/null 2>&1 || skip "no 'clickhouse' user (the Debian package creates it)"
need_fixtures

D=$(mktemp -d /tmp/flytrap-ch.XXXXXX)
PIDS=
stop_servers() {
	local p
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do
		for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	PIDS=
}
trap 'stop_servers; rm -rf "$D" "$TMP"' EXIT
chmod 755 "$D"

# six free ports: http, tcp, interserver for each server
read -r H1 T1 I1 H2 T2 I2 <<< "$(python3 -c 'import socket
ss = [socket.socket() for _ in range(6)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')"
cat > "$D/remote.xml" <<EOF
<yandex><clickhouse_remote_servers><fleet>
 <shard><replica><host>127.0.0.1</host><port>$T1</port></replica></shard>
 <shard><replica><host>127.0.0.1</host><port>$T2</port></replica></shard>
</fleet></clickhouse_remote_servers></yandex>
EOF
# the package's configuration, with the cluster from remote.xml
sed "s|<yandex>|<yandex><include_from>$D/remote.xml</include_from>|" /etc/clickhouse-server/config.xml > "$D/config.xml"
cp /etc/clickhouse-server/users.xml "$D/users.xml"
chmod 644 "$D"/*.xml
start_server() {	# n http tcp interserver
	local s=$D/s$1
	mkdir -p "$s/tmp" "$s/uf" "$s/fs"
	chown -R clickhouse: "$s"
	# --pdeathsig: a test killed outright (the runner's timeout -k) takes its servers along
	setpriv --reuid clickhouse --regid clickhouse --init-groups --pdeathsig KILL clickhouse-server \
		--config-file="$D/config.xml" -- --http_port="$2" --tcp_port="$3" \
		--interserver_http_port="$4" --path="$s/" --tmp_path="$s/tmp/" --user_files_path="$s/uf/" \
		--format_schema_path="$s/fs/" --logger.log="$s/log" --logger.errorlog="$s/err" \
		> "$s/out" 2>&1 &
	PIDS="$PIDS $!"
}
start_server 1 "$H1" "$T1" "$I1"
start_server 2 "$H2" "$T2" "$I2"
for h in $H1 $H2; do
	for _ in $(seq 1 120); do curl -s "http://127.0.0.1:$h/ping" 2>/dev/null | grep -q Ok && break; sleep 0.5; done
	curl -s "http://127.0.0.1:$h/ping" | grep -q Ok || { tail -5 "$D"/s*/err; fail "clickhouse-server on $h did not start"; finish; }
done
ok "two servers: $(curl -s "http://127.0.0.1:$H1/" --data-binary 'SELECT version()')"

chq() { curl -sS --fail-with-body "http://127.0.0.1:$H1/" --data-binary "$1"; }
# the DDL, one statement per request, on both servers
"$FLYTRAP" load --schema --cluster fleet > "$D/ddl.sql" || fail "load --schema"
for h in $H1 $H2; do
	python3 - "http://127.0.0.1:$h/" "$D/ddl.sql" <<'EOF' || fail "DDL on $h"
import sys, urllib.request, urllib.error
for st in open(sys.argv[2]).read().split(';\n'):
    q = '\n'.join(l for l in st.split('\n') if l.strip() and not l.startswith('--'))
    if not q:
        continue
    try:
        urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=q.encode())).read()
    except urllib.error.HTTPError as e:
        print(q[:120], e.read().decode()[:300])
        sys.exit(1)
EOF
done
expect() { if [ "$2" = "$3" ]; then ok "$1 = $2"; else fail "$1: expected '$2', got '$3'"; fi; }
# as many as the DDL makes (21 since record --bpf-object's maps have a table)
ndist=$("$FLYTRAP" load --schema --cluster c | grep -c 'ENGINE = Distributed')
[ "$ndist" -ge 20 ] || fail "load --schema --cluster makes only $ndist Distributed tables"
expect "Distributed tables" "$ndist" "$(chq "SELECT count() FROM system.tables WHERE database = 'flytrap' AND engine = 'Distributed'")"

# 20 files: the test files and the fixtures
files=()
for f in tests/data/*.dat "$FIXTURES"/*.dat; do [ ${#files[@]} -lt 20 ] && files+=("$f"); done
expect "files" 20 ${#files[@]}
"$FLYTRAP" load --clickhouse "http://127.0.0.1:$H1/" "${files[@]}" > "$D/load1" 2>&1 || { cat "$D/load1"; fail "load"; }
tail -1 "$D/load1"
expect "loaded_files" 20 "$(chq "SELECT count() FROM flytrap.loaded_files")"
n1=$(curl -s "http://127.0.0.1:$H1/" --data-binary "SELECT count() FROM flytrap.ftrace_event_local")
n2=$(curl -s "http://127.0.0.1:$H2/" --data-binary "SELECT count() FROM flytrap.ftrace_event_local")
[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] && ok "both shards hold events ($n1 + $n2)" || fail "shards: $n1 $n2"
total=$("$FLYTRAP" sql --csv -c "SELECT count(*) FROM ftrace_event" "${files[@]}" | tail -1)
expect "events in ClickHouse = flytrap sql" "$total" "$(chq "SELECT count() FROM flytrap.ftrace_event")"

# the same questions: flytrap sql --each (file first) against ClickHouse
# (GROUP BY file), all of flytrap's in one run, its results split at their
# "file," header lines
names=() sq=() cq=()
same() { names+=("$1"); sq+=(-c "$2"); cq+=("$3"); }
same "events per name" "SELECT name, count(*) FROM ftrace_event GROUP BY name" \
	"SELECT file, name, count(*) FROM flytrap.ftrace_event GROUP BY file, name"
same "events per CPU in a time window" "SELECT cpu, count(*) FROM ftrace_event WHERE ts BETWEEN 1608800000000 AND 1608900000000 GROUP BY cpu" \
	"SELECT file, cpu, count(*) FROM flytrap.ftrace_event WHERE ts BETWEEN 1608800000000 AND 1608900000000 GROUP BY file, cpu"
same "args per key" "SELECT key, value_type, count(*), min(int_value), max(int_value) FROM args GROUP BY key, value_type" \
	"SELECT file, key, value_type, count(*), min(int_value), max(int_value) FROM flytrap.args GROUP BY file, key, value_type"
same "CPU time per thread" "SELECT utid, count(*), sum(dur) FROM sched_slice GROUP BY utid" \
	"SELECT file, utid, count(*), sum(dur) FROM flytrap.sched_slice GROUP BY file, utid"
same "thread states" "SELECT state, count(*), sum(dur) FROM thread_state GROUP BY state" \
	"SELECT file, state, count(*), sum(dur) FROM flytrap.thread_state GROUP BY file, state"
same "slices per name" "SELECT category, name, count(*), sum(dur), max(dur) FROM slice GROUP BY category, name" \
	"SELECT file, category, name, count(*), sum(dur), max(dur) FROM flytrap.slice GROUP BY file, category, name"
same "syscall p99 (nearest rank)" "SELECT name, percentile(dur, 99) FROM slice WHERE category LIKE '%syscall' GROUP BY name" \
	"SELECT file, name, arrayElement(arraySort(groupArray(dur)), toUInt64(ceil(count() * 99 / 100))) FROM flytrap.slice WHERE category LIKE '%syscall' GROUP BY file, name"
same "threads" "SELECT utid, tid, name, upid FROM thread" "SELECT file, utid, tid, name, upid FROM flytrap.thread"
same "drops" "SELECT buffer, source, count(*), sum(ifNull(count, 0)) FROM drops GROUP BY buffer, source" \
	"SELECT file, buffer, source, count(*), sum(ifNull(count, 0)) FROM flytrap.drops GROUP BY file, buffer, source"
same "BPF syscalls" "SELECT name, count(*), sum(dur) FROM bpf_syscall GROUP BY name" \
	"SELECT file, name, count(*), sum(dur) FROM flytrap.bpf_syscall GROUP BY file, name"
same "counters" "SELECT name, cpu, count(*) FROM counter GROUP BY name, cpu" \
	"SELECT file, name, cpu, count(*) FROM flytrap.counter GROUP BY file, name, cpu"
"$FLYTRAP" sql --csv --each "${sq[@]}" "${files[@]}" > "$D/a" 2> "$D/ae" || fail "flytrap sql: $(cat "$D/ae")"
awk -v d="$D" '/^file(,|$)/ { n++ } { print > (d "/a" n) }' "$D/a"
for i in "${!names[@]}"; do
	if ! chq "${cq[$i]} FORMAT CSV" > "$D/b$i" 2> "$D/be"; then
		fail "${names[$i]}: ClickHouse: $(head -c 300 "$D/b$i" "$D/be")"
		continue
	fi
	python3 - "$D/a$((i + 1))" "$D/b$i" <<'EOF' && ok "${names[$i]}: $(wc -l < "$D/b$i") rows agree" || fail "${names[$i]} differs"
import csv, sys
norm = lambda rows: sorted(tuple('' if v == '\\N' else v for v in r) for r in rows)
a = norm(list(csv.reader(open(sys.argv[1])))[1:])
b = norm(csv.reader(open(sys.argv[2])))
if a != b:
    sa, sb = set(a), set(b)
    print("only flytrap sql:", sorted(sa - sb)[:3], "only ClickHouse:", sorted(sb - sa)[:3])
    sys.exit(1)
EOF
done
# the summaries: histograms merge by adding buckets, folded stacks weigh what callgraph totals
expect "latency_hist counts = slices" "$(chq "SELECT count() FROM flytrap.slice")" "$(chq "SELECT sum(count) FROM flytrap.latency_hist")"
"$FLYTRAP" callgraph --json tests/data/lab-function-graph.dat > "$D/cg.json"
expect "folded stack weights = callgraph total" \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"])' "$D/cg.json")" \
	"$(chq "SELECT sum(weight) FROM flytrap.folded_stacks WHERE file = 'tests/data/lab-function-graph.dat'")"

# a second load adds nothing
before=$(chq "SELECT (SELECT count() FROM flytrap.ftrace_event) + (SELECT count() FROM flytrap.args) + (SELECT count() FROM flytrap.slice)")
"$FLYTRAP" load --clickhouse "http://127.0.0.1:$H1/" "${files[@]}" > "$D/load2" 2>&1 || fail "second load: $(tail -3 "$D/load2")"
expect "second load: every file already loaded" 20 "$(grep -c 'already loaded' "$D/load2")"
expect "second load added no rows" "$before" \
	"$(chq "SELECT (SELECT count() FROM flytrap.ftrace_event) + (SELECT count() FROM flytrap.args) + (SELECT count() FROM flytrap.slice)")"
expect "loaded_files after the second load" 20 "$(chq "SELECT count() FROM flytrap.loaded_files")"

# errors: no server, bad URL
"$FLYTRAP" load --clickhouse "http://127.0.0.1:1/" tests/data/rpt-sched.dat > /dev/null 2> "$D/e"; rc=$?
expect "unreachable server exit" 1 $rc
"$FLYTRAP" load --clickhouse "ftp://x/" tests/data/rpt-sched.dat > /dev/null 2>&1; expect "bad URL exit" 2 $?
stop_servers
for p in $(pgrep -u clickhouse -f "$D" 2>/dev/null); do fail "server $p still running"; done
finish
