#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What the time index's facts cost inside a live recording (root, tracefs):
# `flytrap record -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit` of a
# getppid loop, with the facts (the default) and without them
# (FLYTRAP_WRITER_FACTS=0, the writer's benchmark hook), rounds alternating.
# Prints the medians of the recorder's whole-process CPU (getrusage of the
# children minus the workload's own CPU), its wall time, the file's size and
# the events, and the ratios with/without.
#
#   bench/facts.sh [ROUNDS]        (O=build by default, N=1000000 calls)
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
FLYTRAP=$PWD/$O/flytrap
STORM=$PWD/$O/tests/tools/syscall_storm
ROUNDS=${1:-5}
N=${N:-1000000}
TMP=$(mktemp -d /tmp/flytrap-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 1; }
[ -x "$FLYTRAP" ] && [ -x "$STORM" ] || { echo "build first: make O=$O" >&2; exit 1; }

# FACTS(0|1) OUT: one recording; prints "cpu_s wall_s bytes events"
one() {
	python3 - "$1" "$2" "$FLYTRAP" "$STORM" "$N" <<'PY'
import os, resource, subprocess, sys, time
facts, out, ft, storm, n = sys.argv[1:]
env = dict(os.environ)
if facts == "0":
    env["FLYTRAP_WRITER_FACTS"] = "0"
t = time.monotonic()
p = subprocess.run([ft, "record", "-q", "-e", "raw_syscalls:sys_enter", "-e",
                    "raw_syscalls:sys_exit", "-o", out, "--", storm, n],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
wall = time.monotonic() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
line = [l for l in p.stdout.splitlines() if l.startswith("calls ")]
if p.returncode or not line:
    sys.stderr.write(p.stderr)
    sys.exit(1)
d = dict(zip(line[0].split()[0::2], line[0].split()[1::2]))
work = float(d["cpu_ns_per_call"]) * float(d["calls"]) / 1e9
info = subprocess.run([ft, "info", "--json", out], stdout=subprocess.PIPE, text=True)
import json
ev = json.loads(info.stdout).get("events", 0)
print("%.3f %.3f %d %d" % (ru.ru_utime + ru.ru_stime - work, wall, os.path.getsize(out), ev))
PY
}

: >"$TMP/on" >"$TMP/off"
for r in $(seq "$ROUNDS"); do
	one 1 "$TMP/on.dat" >>"$TMP/on" || exit 1
	one 0 "$TMP/off.dat" >>"$TMP/off" || exit 1
done
"$FLYTRAP" info "$TMP/on.dat" | grep "time index" | sed 's/^/with facts: /'
"$FLYTRAP" info "$TMP/off.dat" | grep "time index" | sed 's/^/without:    /'
python3 - "$TMP/on" "$TMP/off" "$ROUNDS" "$N" <<'PY'
import statistics, sys
rows = lambda p: [list(map(float, l.split())) for l in open(p) if l.strip()]
on, off = rows(sys.argv[1]), rows(sys.argv[2])
med = lambda r, i: statistics.median(x[i] for x in r)
print("%s rounds, %s getppid calls each, medians" % (sys.argv[3], sys.argv[4]))
print("| recording | recorder CPU s | wall s | file bytes | events | CPU s per M events |")
print("|---|---:|---:|---:|---:|---:|")
for name, r in (("with facts (default)", on), ("FLYTRAP_WRITER_FACTS=0", off)):
    print("| %s | %.3f | %.3f | %d | %d | %.3f |" % (name, med(r, 0), med(r, 1), med(r, 2),
          med(r, 3), med(r, 0) / med(r, 3) * 1e6))
print("ratios with/without: recorder CPU %.3f, wall %.3f, bytes %.4f" % (
      med(on, 0) / med(off, 0), med(on, 1) / med(off, 1), med(on, 2) / med(off, 2)))
PY
