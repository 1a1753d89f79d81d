#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap sql on a file of N events (default 2M, made by tests/tools/mkrpt
# bench: sched_switch, raw_syscalls and function_graph on two CPUs):
#   - a full-scan query (events per name) against `trace-cmd report | awk`
#     giving the same counts, in one run;
#   - per-syscall count/total/p99 from the slice table;
#   - a 1% time window at the start and at the end of the file (what the
#     reader's ts pushdown saves without a time index);
#   - as root with clickhouse-server installed: rows/s loaded by
#     `flytrap load` into one server started for the run.
#
#   bench/sql.sh [N]       O=build by default
#   bench/sql.sh --scale N [DIR]
#                          issue 37's scale run instead: a file of N events
#                          (100M: 4.4 GiB of records) made in DIR (default
#                          /var/tmp) and deleted after; `analyze --threads 1`
#                          against sql's events per name (pushed down onto
#                          event_counts, and --no-pushdown unless
#                          NO_PUSHDOWN_RUN=0), count(*) (the time index) and
#                          a 1% ts window; wall, CPU, peak memory, one run
#                          each, the load average before and after.
#
# Times are CPU seconds (user + sys of every process, best of 3); wall
# times are shown too.  Prints markdown tables for docs/benchmarks.md.
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
ft=$PWD/$O/flytrap
mk=$PWD/$O/tests/tools/mkrpt
if [ "${1:-}" = --scale ]; then
	n=${2:-100000000}
	dir=${3:-/var/tmp}
	[ -x "$ft" ] && [ -x "$mk" ] || { echo "bench/sql.sh: build first (make O=$O)" >&2; exit 2; }
	f=$(mktemp "$dir/flytrap-sqlscale.XXXXXX")
	trap 'rm -f "$f" "$f.t"' EXIT
	"$mk" bench "$f" "$n" >/dev/null
	one() {	# one LABEL CMD...: "| LABEL | wall | CPU | peak MB |", output compared later
		local l=$1
		shift
		/usr/bin/time -f '%e %U %S %M' -o "$f.t" "$@" >"$f.out" 2>/dev/null || true
		awk -v l="$l" '{ printf "| %s | %.2f | %.2f | %.0f |\n", l, $1, $2 + $3, $4 / 1024 }' "$f.t"
		tail -1 "$f.t" | awk '{ print $1 }' >"$f.w"
	}
	q1="SELECT name, count(*) FROM ftrace_event GROUP BY name"
	read -r t0 t1 <<< "$("$ft" info --json "$f" | python3 -c 'import json, sys
j = json.load(sys.stdin); a, b = j["first_ts"], j["last_ts"]; lo = a + (b - a) // 2
print(lo, lo + (b - a) // 100)')"
	echo "file: $n events, $(stat -c %s "$f") bytes; $(nproc) CPUs; load average" \
		"$(cut -d' ' -f1-3 /proc/loadavg) before"
	echo
	echo "| command | wall s | CPU s | peak MB |"
	echo "|---|---:|---:|---:|"
	one "analyze --threads 1" "$ft" analyze --threads 1 "$f"
	aw=$(cat "$f.w")
	one "sql: $q1 (pushed down)" "$ft" sql -c "$q1" "$f"
	cp "$f.out" "$f.a"
	sw=$(cat "$f.w")
	one "sql: SELECT count(*) FROM ftrace_event (the index)" "$ft" sql -c \
		"SELECT count(*) FROM ftrace_event" "$f"
	one "sql: count(*) of a 1% ts window" "$ft" sql -c \
		"SELECT count(*) FROM ftrace_event WHERE ts >= $t0 AND ts < $t1" "$f"
	if [ "${NO_PUSHDOWN_RUN:-1}" = 1 ]; then
		one "sql --no-pushdown: $q1" "$ft" sql --no-pushdown -c "$q1" "$f"
		cmp -s "$f.out" "$f.a" || echo "bench/sql.sh: pushdown and --no-pushdown differ" >&2
	fi
	echo
	awk -v a="$aw" -v s="$sw" 'BEGIN { printf "sql events per name / analyze --threads 1 (wall): %.2fx\n", s / a }'
	echo "load average $(cut -d' ' -f1-3 /proc/loadavg) after"
	rm -f "$f.out" "$f.a" "$f.w"
	exit 0
fi
n=${1:-2000000}
work=$(mktemp -d /tmp/flytrap-sqlbench.XXXXXX)
chpid=
trap '[ -n "$chpid" ] && { kill "$chpid"; wait "$chpid"; } 2>/dev/null; rm -rf "$work"' EXIT
[ -x "$ft" ] && [ -x "$mk" ] || { echo "bench/sql.sh: build first (make O=$O)" >&2; exit 2; }
chmod 755 "$work"
"$mk" bench "$work/f.dat" "$n"
f=$work/f.dat

cpu_time() {	# "user+sys wall" best of 3 runs of the shell command $1
	local best=999999 bestw=0 i t
	for i in 1 2 3; do
		/usr/bin/time -f '%U %S %e' -o "$work/t" bash -c "$1" > "$work/out" 2>/dev/null || true
		t=$(awk '{ printf "%.3f %.3f", $1 + $2, $3 }' "$work/t")
		set -- "$1" $t
		if awk -v a="$2" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$2; bestw=$3; fi
	done
	echo "$best $bestw"
}
rate() { awk -v n="$1" -v c="$2" 'BEGIN { printf "%.2fM", (c > 0 ? n / c / 1e6 : 0) }'; }

q1="SELECT name, count(*) FROM ftrace_event GROUP BY name ORDER BY name"
awk1='{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { x = $(i + 1); sub(/:$/, "", x); c[x]++; break } }
END { for (k in c) print k "," c[k] }'
"$ft" sql --csv -c "$q1" "$f" | tail -n +2 | sort > "$work/a"
trace-cmd report -R -i "$f" 2>/dev/null | awk "$awk1" | sort > "$work/b"
cmp -s "$work/a" "$work/b" || { echo "bench/sql.sh: flytrap sql and trace-cmd disagree" >&2; exit 1; }

echo "| query | flytrap sql CPU s | rows/s | wall s | peer | peer CPU s | peer wall s | speed-up |"
echo "|---|---|---|---|---|---|---|---|"
read -r c w <<< "$(cpu_time "'$ft' sql -c '$q1' '$f'")"
read -r pc pw <<< "$(cpu_time "trace-cmd report -R -i '$f' 2>/dev/null | awk '$awk1'")"
echo "| events per name (full scan, $n rows) | $c | $(rate "$n" "$c") | $w | trace-cmd report -R \\| awk | $pc | $pw | $(awk -v a="$pc" -v b="$c" 'BEGIN { printf "%.1fx", a / b }') |"
q2="SELECT name, count(*), sum(dur), percentile(dur, 99) FROM slice WHERE category = 'syscall' GROUP BY name"
read -r c w <<< "$(cpu_time "'$ft' sql -c \"$q2\" '$f'")"
echo "| per-syscall count, total, p99 (slice, $n events read) | $c | $(rate "$n" "$c") | $w | | | | |"
read -r t0 t1 <<< "$("$ft" sql --csv -c "SELECT min(ts), max(ts) FROM ftrace_event" "$f" | tail -1 | tr , ' ')"
span=$((t1 - t0)) w1=$((t0 + span / 100)) w2=$((t1 - span / 100))
read -r c w <<< "$(cpu_time "'$ft' sql -c 'SELECT count(*) FROM ftrace_event WHERE ts <= $w1' '$f'")"
echo "| first 1% of the time (ts <= X) | $c | | $w | | | | |"
read -r c w <<< "$(cpu_time "'$ft' sql -c 'SELECT count(*) FROM ftrace_event WHERE ts >= $w2' '$f'")"
echo "| last 1% of the time (ts >= X) | $c | | $w | | | | |"

# ClickHouse load: one server for the run
if [ "$(id -u)" = 0 ] && command -v clickhouse-server > /dev/null && id clickhouse > /dev/null 2>&1; then
	read -r hp tp ip <<< "$(python3 -c 'import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')"
	mkdir -p "$work/ch/tmp" "$work/ch/uf" "$work/ch/fs"
	chown -R clickhouse: "$work/ch"
	setpriv --reuid clickhouse --regid clickhouse --init-groups clickhouse-server \
		--config-file=/etc/clickhouse-server/config.xml -- --http_port="$hp" --tcp_port="$tp" \
		--interserver_http_port="$ip" --path="$work/ch/" --tmp_path="$work/ch/tmp/" \
		--user_files_path="$work/ch/uf/" --format_schema_path="$work/ch/fs/" \
		--logger.log="$work/ch/log" --logger.errorlog="$work/ch/err" > /dev/null 2>&1 &
	chpid=$!
	for _ in $(seq 1 120); do curl -s "http://127.0.0.1:$hp/ping" 2>/dev/null | grep -q Ok && break; sleep 0.5; done
	"$ft" load --schema | python3 -c 'import sys, urllib.request
for st in sys.stdin.read().split(";\n"):
    q = "\n".join(l for l in st.split("\n") if l.strip() and not l.startswith("--"))
    if q: urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=q.encode())).read()' "http://127.0.0.1:$hp/"
	/usr/bin/time -f '%U %S %e' -o "$work/t" "$ft" load --clickhouse "http://127.0.0.1:$hp/" "$f" > "$work/load"
	rows=$(sed -n 's/.*: \([0-9]*\) rows.*/\1/p' "$work/load" | head -1)
	read -r u s e < "$work/t"
	echo
	echo "| flytrap load (one server) | rows | flytrap CPU s | wall s | rows/s (wall) | rows/CPU s |"
	echo "|---|---|---|---|---|---|"
	echo "| $n events, all tables | $rows | $(awk -v a="$u" -v b="$s" 'BEGIN { print a + b }') | $e |" \
		"$(awk -v r="$rows" -v e="$e" 'BEGIN { printf "%.0f", r / e }') | $(awk -v r="$rows" -v a="$u" -v b="$s" 'BEGIN { printf "%.0f", r / (a + b) }') |"
fi
