#!/usr/bin/env python3
# stream-group-bench.py: XREADGROUP + XACK throughput of one consumer group with several consumers (processes, each on
# its own connection, raw RESP over sockets, no packages). Fills stream "bench:s" with N entries (3 small fields,
# pipelined XADD), creates group "g" at 0, then every consumer loops XREADGROUP GROUP g cI COUNT C STREAMS bench:s >
# followed by one XACK of the IDs it got, until the group has delivered everything. Prints entries acknowledged per
# second (wall time of the consuming phase).
# Usage: python3 scripts/stream-group-bench.py PORT [N=200000] [CONSUMERS=10] [COUNT=10]
import multiprocessing, socket, sys, time

def enc(*a):
    out = [b"*%d\r\n" % len(a)]
    for x in a:
        x = x if isinstance(x, bytes) else str(x).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(x), x))
    return b"".join(out)

class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port)); self.f = self.s.makefile("rb")
    def read(self):
        l = self.f.readline(); t = l[:1]
        if t in (b"+", b"-", b":"): return l[1:-2]
        if t == b"$":
            n = int(l[1:-2]); return None if n < 0 else self.f.read(n + 2)[:-2]
        if t in (b"*", b"%"):
            n = int(l[1:-2])
            if n < 0: return None
            return [self.read() for _ in range(n * (2 if t == b"%" else 1))]
        if t == b"_": return None
        raise Exception(l)
    def cmd(self, *a):
        self.s.sendall(enc(*a)); return self.read()

def consumer(port, i, count, done):
    c = Conn(port); n = 0
    while True:
        r = c.cmd("XREADGROUP", "GROUP", "g", "c%d" % i, "COUNT", count, "STREAMS", "bench:s", ">")
        if not r: break
        ids = [e[0] for e in r[0][1]]
        c.cmd("XACK", "bench:s", "g", *ids)
        n += len(ids)
    done.put(n)

if __name__ == "__main__":
    port = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
    consumers = int(sys.argv[3]) if len(sys.argv) > 3 else 10; count = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    c = Conn(port)
    c.cmd("DEL", "bench:s")
    for start in range(0, n, 1000):
        c.s.sendall(b"".join(enc("XADD", "bench:s", "*", "a", k, "b", "v%d" % k, "c", "7") for k in range(start, min(n, start + 1000))))
        for _ in range(start, min(n, start + 1000)): c.read()
    c.cmd("XGROUP", "CREATE", "bench:s", "g", "0")
    done = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=consumer, args=(port, i, count, done)) for i in range(consumers)]
    t = time.time()
    for p in procs: p.start()
    total = sum(done.get() for _ in procs)
    elapsed = time.time() - t
    for p in procs: p.join()
    pending = c.cmd("XPENDING", "bench:s", "g")[0]
    print("port %d: %d entries acknowledged by %d consumers (COUNT %d) in %.2f s: %.0f entries/s; pending left %s"
          % (port, total, consumers, count, elapsed, total / elapsed, pending.decode()))
