#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Regenerate the analyzer golden outputs after an intended output change:
#   O=build sh tests/report/golden/regen.sh    (from the top of the tree)
# then check every changed number by hand against the comments in
# tests/tools/mkrpt.c before committing.
set -e
F=${FLYTRAP:-${O:-build}/flytrap}
G=tests/report/golden
$F callgraph tests/data/rpt-graph.dat > $G/callgraph-graph.txt
$F callgraph --folded tests/data/rpt-graph.dat > $G/callgraph-graph.folded
$F callgraph --per-task --depth 2 tests/data/rpt-graph.dat > $G/callgraph-graph-pertask-depth2.txt
$F callgraph --min-percent 20 tests/data/rpt-graph.dat > $G/callgraph-graph-min20.txt
$F callgraph tests/data/rpt-stacks.dat > $G/callgraph-stacks.txt
$F callgraph --folded --per-task tests/data/rpt-stacks.dat > $G/callgraph-stacks-pertask.folded
$F overhead tests/data/rpt-sched.dat > $G/overhead-sched.txt
$F overhead --from 10.020 --to 10.040 tests/data/rpt-sched.dat > $G/overhead-sched-window.txt
$F overhead --pid 100 tests/data/rpt-sched.dat > $G/overhead-sched-pid100.txt
$F overhead --cpu 1 tests/data/rpt-sched.dat > $G/overhead-sched-cpu1.txt
$F drops --cpu 1 tests/data/rpt-drops.dat > $G/drops-drops-cpu1.txt
$F drops tests/data/rpt-drops.dat > $G/drops-drops.txt
$F drops --window 100ms tests/data/rpt-drops.dat > $G/drops-drops-100ms.txt
$F callgraph tests/data/rpt-bpf.dat > $G/callgraph-bpf.txt
$F callgraph --source samples --folded tests/data/rpt-bpf.dat > $G/callgraph-bpf-samples.folded
$F callgraph --source offcpu --folded tests/data/rpt-bpf.dat > $G/callgraph-bpf-offcpu.folded
$F overhead tests/data/rpt-bpf.dat > $G/overhead-bpf.txt
$F callgraph tests/data/lab-kfunc.dat > $G/callgraph-kfunc.txt
$F callgraph --folded tests/data/lab-kfunc.dat > $G/callgraph-kfunc.folded
