#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare a flytrap CPU profile with perf's of the same run (tests/live, bench/ustack.sh).

  _stackcmp.py FOLDED PERF_SCRIPT [TOLERANCE]

FOLDED: `flytrap callgraph --folded --comm C` (root first, weight last).
PERF_SCRIPT: `perf script --comm C -F ip,sym,dso` (innermost first, blank
line between samples).  Prints one line per measure; exits 1 when flytrap's
share of samples reaching __libc_start_main is below 95% or perf's top-5
inclusive functions differ from flytrap's shares by more than TOLERANCE
percentage points (default 10), both counted among the samples that reach
main (perf's own unwind stops short on some samples: the shares of what
both name whole are compared; a run where perf unwinds under half of its
samples to main is not compared, it says so).  Names are compared as both tools print
them with the version suffix dropped (`__libc_start_main@@GLIBC_2.34`) and
a function without a symbol as `[BINARY]` (perf: `[unknown] (/usr/bin/xz)`);
perf's inlined frames are left out (one frame per real call, as flytrap).
"""
import os
import re
import sys


def norm(name):
    name = re.sub(r'@.*$', '', name)
    # glibc 2.34+: __libc_start_main is an alias of __libc_start_main_impl
    return '__libc_start_main' if name == '__libc_start_main_impl' else name


def flytrap_samples(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            stack, _, w = line.rpartition(' ')
            if not stack or not w.isdigit():
                continue
            out.append((set(norm(x) for x in stack.split(';')), int(w)))
    return out


def perf_samples(path):
    out, cur, started = [], set(), False
    frame = re.compile(r'^\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$')
    with open(path, errors='replace') as f:
        for line in f:
            if not line.strip():
                if started:
                    out.append((cur, 1))
                cur, started = set(), False
                continue
            m = frame.match(line)
            if not m:
                continue
            started = True
            sym, dso = m.group(1), m.group(2)
            if dso == 'inlined':
                # glibc's __libc_start_main_impl is inlined into its alias
                if sym.startswith('__libc_start_main'):
                    cur.add('__libc_start_main')
                continue
            sym = re.sub(r'\+0x[0-9a-f]+$', '', sym)
            if sym == '[unknown]':
                sym = '[%s]' % os.path.basename(dso)
            cur.add(norm(sym))
    if started:
        out.append((cur, 1))
    return out


def share(samples, name):
    tot = sum(w for _, w in samples)
    return 100.0 * sum(w for s, w in samples if name in s) / tot if tot else 0.0


def main():
    if len(sys.argv) < 3:
        print('usage: _stackcmp.py FOLDED PERF_SCRIPT [TOLERANCE]', file=sys.stderr)
        return 2
    tol = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
    ft, pf = flytrap_samples(sys.argv[1]), perf_samples(sys.argv[2])
    nft, npf = sum(w for _, w in ft), len(pf)
    bad = 0
    if nft < 50 or npf < 50:
        print('too few samples: flytrap %d, perf %d' % (nft, npf))
        return 1
    fm, pm = share(ft, '__libc_start_main'), share(pf, '__libc_start_main')
    ok = fm >= 95.0
    bad += not ok
    print('%s main: flytrap %.1f%% of %d samples, perf %.1f%% of %d (want >= 95%%)' %
          ('ok' if ok else 'BAD', fm, nft, pm, npf))
    if pm < 50.0:
        # perf 6.1 here now and then unwinds none of a run's samples (all of
        # them [unknown] under the leaf): nothing to compare against
        print('note: perf unwound to main in %.1f%% of its samples: top-5 not compared' % pm)
        return 1 if bad else 0
    ft = [(s, w) for s, w in ft if '__libc_start_main' in s]
    pf = [(s, w) for s, w in pf if '__libc_start_main' in s]
    npf = len(pf)
    if not ft or not pf:
        print('BAD no stack reaches main')
        return 1
    incl = {}
    for s, w in pf:
        for n in s:
            incl[n] = incl.get(n, 0) + w
    top = sorted(incl, key=lambda n: (-incl[n], n))[:5]
    for n in top:
        p, f = 100.0 * incl[n] / npf, share(ft, n)
        ok = abs(p - f) <= tol
        bad += not ok
        print('%s inclusive %s: flytrap %.1f%%, perf %.1f%% (+-%g)' %
              ('ok' if ok else 'BAD', n, f, p, tol))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
