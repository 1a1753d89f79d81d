#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Copy the BTF blob out of an uncompressed kernel image (an arm64 Image, as
Debian's linux-image-*-arm64 ships in /boot/vmlinuz-*): the kernel keeps its
.BTF section in the image it boots, so a kernel package of another
architecture gives that architecture's vmlinux.h without booting it:

    btf-from-image.py vmlinuz-6.1.0-57-arm64 vmlinux.btf
    bpftool btf dump file vmlinux.btf format c > bpf/vmlinux/arm64/vmlinux.h

The blob is found by its header (magic 0xeb9f, version 1, 24-byte header,
types first, then strings), the largest one that fits wins."""
import struct
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: btf-from-image.py IMAGE OUT.btf")
    data = open(sys.argv[1], "rb").read()
    best = None
    pos = data.find(b"\x9f\xeb\x01\x00\x18\x00\x00\x00")
    while pos >= 0:
        if pos + 24 <= len(data):
            _, _, _, hdr, toff, tlen, soff, slen = struct.unpack_from("<HBBIIIII", data, pos)
            end = pos + hdr + soff + slen
            if toff == 0 and soff >= tlen and end <= len(data) and tlen > 0 and slen > 0:
                if best is None or end - pos > best[1] - best[0]:
                    best = (pos, end)
        pos = data.find(b"\x9f\xeb\x01\x00\x18\x00\x00\x00", pos + 1)
    if best is None:
        sys.exit("btf-from-image.py: no BTF in %s (CONFIG_DEBUG_INFO_BTF?)" % sys.argv[1])
    with open(sys.argv[2], "wb") as out:
        out.write(data[best[0]:best[1]])
    print("%s: %d bytes of BTF at offset %d" % (sys.argv[2], best[1] - best[0], best[0]))


if __name__ == "__main__":
    main()
