#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Helpers of the interoperability matrix (tests/matrix-lib.sh).

  matrix.py figs READER FILE [MODE]
                                 the figures a user compares, from READER's JSON in FILE, as
                                 one JSON object (names of tasks and buffers left out: redact
                                 turns them into tokens and keeps every count and duration);
                                 MODE counts leaves out the tasks' time in each state, which
                                 a window's edges cut (a slice keeps the window's counts), and
                                 tasks and streams with nothing in the window; MODE tasks also
                                 the drops figures (drops does not narrow by --pid, --comm)
  matrix.py cmp A B              exit 0 when two figure files agree, else one line naming the
                                 first figure that differs and both values
  matrix.py cell READER OUT EXP MODE [REF [INFO SQL]]
                                 one cell in one process: READER's JSON in OUT counts EXP
                                 events (where it counts them), its figures are REF's (the
                                 source's JSON, MODE as figs takes it); drops: the losses of
                                 OUT agree with those of info --json (INFO) and sql (SQL, CSV:
                                 events, ring-buffer losses, BPF drops)
  matrix.py diffzero FILE        exit 0 when a `flytrap diff --json` says nothing changed in
                                 the syscalls and event types (every row in both, deltas 0)
  matrix.py field FILE PATH      one value of a JSON file (PATH: keys joined by dots)
  matrix.py table RESULTS [md]   the writers x readers table of a results file (lines of
                                 "writer TAB reader TAB PASS|FAIL|SKIP|NA TAB message")
"""
import json
import sys


def load(path):
    with open(path, encoding='utf-8', errors='surrogateescape') as f:
        return json.load(f)


def pick(d, *keys):
    return {k: d.get(k) for k in keys}


MODE = 'all'


def fig_overhead(j):
    # tasks by pid (redact keeps pids, not names); syscalls, irqs and event types by their
    # names, which no redaction touches
    tasks = {}
    keys = ['switches', 'syscalls', 'syscall_ns', 'exited']
    if MODE == 'all':
        keys += ['on_cpu_ns', 'runnable_ns', 'blocked_ns']
    for t in j.get('tasks', []):
        if MODE != 'all' and not (t.get('switches') or t.get('syscalls')):
            continue
        tasks['pid %s' % t.get('pid')] = pick(t, *keys)
    return {
        'events': j.get('events'),
        'loss': pick(j.get('loss', {}), 'markers', 'events', 'unknown'),
        'tasks': tasks,
        'syscalls': {s.get('name'): pick(s, 'count', 'errors', 'total_ns', 'p50_ns', 'p99_ns',
                                         'max_ns') for s in j.get('syscalls', [])},
        # interrupts belong to no task: --pid and --comm select none of them in a slice
        # by number: redact takes a device's name (an IRQ's action) for a text of its own
        'irqs': {'irq %s' % s.get('irq'): pick(s, 'count', 'total_ns')
                 for s in j.get('irqs', []) if MODE != 'tasks'},
        'softirqs': {'vec %s' % s.get('vec'): pick(s, 'count', 'total_ns')
                     for s in j.get('softirqs', []) if MODE != 'tasks'},
        'event_types': {e.get('event'): e.get('count') for e in j.get('event_types', [])},
    }


def fig_drops(j):
    if MODE == 'tasks':
        return {}
    streams = sorted([s.get('cpu'), s.get('events'), s.get('lost'), s.get('loss_markers')]
                     for s in j.get('streams', [])
                     if MODE == 'all' or s.get('events') or s.get('lost') or s.get('loss_markers'))
    return {
        'events': j.get('events'),
        'total': pick(j.get('total', {}), 'lost', 'lost_marked', 'loss_markers',
                      'unknown_markers', 'bpf_drops', 'recorder_lost'),
        'streams (cpu, events, lost, markers)': streams,
    }


def fig_callgraph(j):
    return pick(j, 'source', 'unit', 'total', 'calls_completed', 'calls_open',
                'unmatched_exits')


def fig_export(j):
    # slices and markers by phase and category: names are tasks' (tokens after redact)
    n = {}
    for e in j.get('traceEvents', []) if isinstance(j, dict) else j:
        k = '%s/%s' % (e.get('ph'), e.get('cat', ''))
        n[k] = n.get(k, 0) + 1
    return {'traceEvents by ph/cat': n}


def fig_analyze(j):
    out = {}
    if 'overhead' in j:
        out['overhead'] = fig_overhead(j['overhead'])
    if 'drops' in j:
        out['drops'] = fig_drops(j['drops'])
    if 'callgraph' in j and j['callgraph'] is not None:
        out['callgraph'] = fig_callgraph(j['callgraph'])
    return out


def tasks_mode_off(fig):
    # A task slice keeps what the listing selects (report --pid/--comm: the task that logged
    # each event, common_pid, as trace-cmd's -P), which the report, info and sql cells check.
    # The analyzers' --pid/--comm select by the task an event is about (a switch's next task,
    # an off-CPU record's sleeper), so their per-task figures on the whole file are not the
    # slice's (docs/sharing.md, "Known differences"): compare them only where MODE is not tasks.
    def f(j):
        return {} if MODE == 'tasks' else fig(j)
    return f


FIGS = {'overhead': tasks_mode_off(fig_overhead), 'drops': fig_drops,
        'callgraph': tasks_mode_off(fig_callgraph), 'export': tasks_mode_off(fig_export),
        'analyze': tasks_mode_off(fig_analyze)}


def first_diff(a, b, path=''):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            p = '%s.%s' % (path, k) if path else str(k)
            if k not in a:
                return '%s: absent from the source, %s here' % (p, short(b[k]))
            if k not in b:
                return '%s: %s in the source, absent here' % (p, short(a[k]))
            d = first_diff(a[k], b[k], p)
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_diff(x, y, '%s[%d]' % (path, i))
            if d:
                return d
        return None
    if a != b:
        return '%s: %s expected (the source), %s came' % (path, short(a), short(b))
    return None


def short(v):
    s = json.dumps(v)
    return s if len(s) <= 80 else s[:77] + '...'


def count_differences(a, b, path=''):
    if isinstance(a, dict) and isinstance(b, dict):
        return sum(count_differences(a.get(k), b.get(k)) for k in set(a) | set(b))
    return 0 if a == b else 1


def diffzero(j):
    for sec in ('syscalls', 'event_types'):
        for row in j.get(sec, []):
            if row.get('status') != 'both':
                return '%s %s: only in %s' % (sec, row.get('name'), row.get('status'))
            for k, v in (row.get('delta') or {}).items():
                # bytes are no count: redact drops user stacks and changes texts' lengths
                if k != 'bytes' and v not in (0, None):
                    return '%s %s: delta %s %s' % (sec, row.get('name'), k, v)
    return None


EVENTS = {'info': 'events', 'analyze': 'overhead.events', 'overhead': 'events',
          'drops': 'events'}


def cell(reader, out, exp, ref=None, info=None, sql=None):
    j = load(out)
    if reader in EVENTS:
        n = get(j, EVENTS[reader])
        if str(n) != exp:
            return '%s --json says %s events, %s expected' % (reader, n, exp)
    if ref:
        d = first_diff(FIGS[reader](load(ref)), FIGS[reader](j))
        if d:
            n = count_differences(FIGS[reader](load(ref)), FIGS[reader](j))
            return 'figures differ from the source: %s%s' % (
                d, ' (and %d other figures)' % (n - 1) if n > 1 else '')
    if info:
        a = sum(c.get('lost_events', 0) for c in load(info).get('per_cpu', []))
        with open(sql, encoding='utf-8') as f:
            row = f.read().splitlines()[-1].split(',')
        b, f_ = get(j, 'total.lost_marked'), get(j, 'total.bpf_drops')
        if not (str(a) == str(b) == row[1] and str(f_) == row[2]):
            return ('losses disagree: marked ring-buffer losses: info %s, drops %s, sql %s; '
                    'BPF drops: drops %s, sql %s' % (a, b, row[1], f_, row[2]))
    return None


def table(path, md):
    rows, readers, res = [], [], {}
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            p = line.rstrip('\n').split('\t')
            if len(p) < 3:
                continue
            w, r, st = p[0], p[1], p[2]
            if w not in rows:
                rows.append(w)
            if r not in readers:
                readers.append(r)
            res[(w, r)] = st
    # the readers in the order of tests/matrix-lib.sh, whatever order the cells came in
    order = ['info', 'report', 'sql', 'analyze', 'callgraph', 'overhead', 'drops', 'export',
             'html', 'diff', 'verify', 'trace-cmd', 'trace-cmd2', 'secrets']
    readers.sort(key=lambda r: order.index(r) if r in order else len(order))
    mark = {'PASS': 'ok', 'FAIL': 'FAIL', 'SKIP': 'skip', 'NA': '-', 'KNOWN': 'known'}
    head = ['writer \\ reader'] + readers + ['pass/fail/skip']
    body = []
    totals = {r: [0, 0, 0] for r in readers}
    for w in rows:
        cells, n = [], [0, 0, 0]
        for r in readers:
            st = res.get((w, r), 'NA')
            cells.append(mark.get(st, st))
            i = {'PASS': 0, 'FAIL': 1, 'SKIP': 2}.get(st)
            if i is not None:
                n[i] += 1
                totals[r][i] += 1
        body.append([w] + cells + ['%d/%d/%d' % tuple(n)])
    all_n = [sum(t[i] for t in totals.values()) for i in range(3)]
    body.append(['pass/fail/skip'] + ['%d/%d/%d' % tuple(totals[r]) for r in readers] +
                ['%d/%d/%d' % tuple(all_n)])
    if md:
        print('| ' + ' | '.join(head) + ' |')
        print('|' + '|'.join('---' for _ in head) + '|')
        for b in body:
            print('| ' + ' | '.join(b) + ' |')
    else:
        wid = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
        for x in [head] + body:
            print('  '.join(c.ljust(wid[i]) if i == 0 else c.rjust(wid[i])
                            for i, c in enumerate(x)).rstrip())
    return all_n


def get(j, path):
    for k in path.split('.'):
        if isinstance(j, list):
            j = j[int(k)]
        else:
            j = j.get(k) if isinstance(j, dict) else None
    return j


def main(argv):
    global MODE
    cmd = argv[1] if len(argv) > 1 else ''
    try:
        if cmd == 'figs':
            MODE = argv[4] if len(argv) > 4 else 'all'
            print(json.dumps(FIGS[argv[2]](load(argv[3])), sort_keys=True))
        elif cmd == 'cmp':
            d = first_diff(load(argv[2]), load(argv[3]))
            if d:
                n = count_differences(load(argv[2]), load(argv[3]))
                print(d + (' (and %d other figures)' % (n - 1) if n > 1 else ''))
                return 1
        elif cmd == 'cell':
            MODE = argv[5]
            d = cell(argv[2], argv[3], argv[4], *[a or None for a in argv[6:9]])
            if d:
                print(d)
                return 1
        elif cmd == 'diffzero':
            d = diffzero(load(argv[2]))
            if d:
                print(d)
                return 1
        elif cmd == 'field':
            print(get(load(argv[2]), argv[3]))
        elif cmd == 'table':
            table(argv[2], len(argv) > 3 and argv[3] == 'md')
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
        print('cannot read the JSON: %s' % (str(e).splitlines() or [''])[0][:100])
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
