#!/usr/bin/env python3
"""idle-memory.py: resident memory a server holds per idle connection.

Usage: python3 scripts/idle-memory.py PORT [CONNECTIONS] (default 10000)

Reads the server's VmRSS (the process listening on 127.0.0.1:PORT, found with ss -ltnp), opens CONNECTIONS
connections that each send one PING and read +PONG, waits 2 s, reads VmRSS again and prints the growth per
connection. The server's own limits must allow that many clients (--maxclients, ulimit -n of the server).
"""
import re
import resource
import socket
import subprocess
import sys
import time


def server_pid(port):
    out = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True).stdout
    m = re.search(r"pid=(\d+)", out)
    if not m:
        sys.exit(f"no process found listening on port {port} (ss -ltnp needs to see it: same user or root)")
    return int(m.group(1))


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    port = int(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 100), hard))
    pid = server_pid(port)
    before = rss_kb(pid)
    conns = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"*1\r\n$4\r\nPING\r\n")
        conns.append(s)
    for s in conns:
        reply = s.recv(64)
        if not reply.startswith(b"+PONG"):
            sys.exit(f"unexpected reply {reply!r}")
    time.sleep(2)
    after = rss_kb(pid)
    print(f"{n} idle connections: rss {before / 1024:.1f} -> {after / 1024:.1f} MiB, "
          f"{(after - before) / n:.1f} KB per connection")
    for s in conns:
        s.close()


if __name__ == "__main__":
    main()
