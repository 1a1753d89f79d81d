#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Damaged copies of trace files, for the hostile-input tests (tests/fuzz/commands.sh,
share.sh): mutate.py SRC_DIR OUT_DIR N SEED writes N variants of each file of SRC_DIR,
in turn a cut, bit flips in the first 64 KiB (headers, formats, first options), bit flips
in the last 64 KiB (the options after the data) and random bytes anywhere; the same SEED
gives the same variants."""
import os, random, sys
src, out, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
for name in sorted(os.listdir(src)):
    d = open(os.path.join(src, name), 'rb').read()
    for k in range(n):
        m = bytearray(d)
        kind = (k + sum(map(ord, name))) % 4
        if kind == 0:      # a cut
            m = m[:rng.randrange(1, len(m))]
        elif kind == 1:    # flips in the headers, formats and first options
            for _ in range(rng.randrange(1, 12)):
                m[rng.randrange(0, min(len(m), 65536))] ^= 1 << rng.randrange(8)
        elif kind == 2:    # flips in the last 64 KiB: the options after the data
            lo = max(0, len(m) - 65536)
            for _ in range(rng.randrange(1, 12)):
                m[rng.randrange(lo, len(m))] ^= 1 << rng.randrange(8)
        else:              # bytes anywhere
            for _ in range(rng.randrange(1, 40)):
                m[rng.randrange(0, len(m))] = rng.randrange(256)
        open(os.path.join(out, '%s.m%02d' % (name[:-4], k)), 'wb').write(bytes(m))
