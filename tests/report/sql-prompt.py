#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# Drives `flytrap sql FILE` on a pseudo-terminal as a person would: a
# query, the up arrow and Enter (the same query again, from the history),
# .quit; then a second session finds the query in the history file.
# usage: sql-prompt.py FLYTRAP FILE HISTFILE; prints what it saw, exit 1 on a failure.
import os, pty, select, sys, time

flytrap, trace, hist = sys.argv[1:4]

def session(keys):
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["FLYTRAP_SQL_HISTORY"] = hist
        os.environ["TERM"] = "xterm"
        os.execv(flytrap, [flytrap, "sql", trace])
    out = b""
    def read_for(secs):
        nonlocal out
        end = time.time() + secs
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.1)
            if r:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    return False
                if not data:
                    return False
                out += data
        return True
    read_for(1.5)
    for k in keys:
        os.write(fd, k)
        if not read_for(1.0):
            break
    read_for(1.0)
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return out.decode("utf-8", "replace")

q = b"select 40 + 2 as answer;\r"
out = session([q, b"\x1b[A\r", b".quit\r"])
n = out.count("42")
ok = True
if n >= 2:
    print("ok: the query ran, and ran again from the history (up arrow): 42 printed %d times" % n)
else:
    print("FAIL: 42 printed %d times; the session:\n%s" % (n, out[-800:]))
    ok = False
try:
    text = open(hist, errors="replace").read()
except OSError as e:
    text = ""
    print("FAIL: no history file: %s" % e)
    ok = False
if "select 40 + 2 as answer;" in text.replace("\\040", " "):
    print("ok: the history file keeps the query")
else:
    print("FAIL: the history file does not hold the query: %r" % text[:200])
    ok = False
out2 = session([b"\x1b[A\r", b".quit\r"])
if out2.count("42") >= 1:
    print("ok: a new session recalls the query from the history file")
else:
    print("FAIL: a new session did not recall it:\n%s" % out2[-600:])
    ok = False
sys.exit(0 if ok else 1)
