#!/usr/bin/env python3
"""large-value-latency.py: large-value latency against one running server. A writer client sends one large
request (SET k <size>, GET of it back, HSET with a large field, XADD with a large field) while a second client sends
PING every ~1 ms and records each reply's latency. Prints, per case: the time of the large request, max/p99/p50 PING
latency during it, the PINGs sent, and the server's peak resident memory during the case (VmRSS sampled every 10 ms)
and its VmHWM (peak since start) from /proc/<pid>/status, and for ours the GC pause time during the case (INFO).

    python3 scripts/large-value-latency.py --port 6380 [--pid PID] [--mb 512] [--field-mb 100] [--cases set,get,hset,xadd]

The pid is found from the port (ss) when not given. Each case deletes its key first and after. Values are a repeating
pattern; GET checks that the bytes read back are the ones sent (error exit otherwise). Run it side by side against
redis-server and ours: scripts/large-value-latency.sh does that.
"""
import argparse, multiprocessing as mp, os, re, socket, subprocess, sys, threading, time


def pid_of_port(port):
    out = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True).stdout
    m = re.search(r"pid=(\d+)", out)
    return int(m.group(1)) if m else None


def status_kb(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def connect(port):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


class Reader:
    """Minimal RESP reply reader: enough for +, -, :, $ and * of the replies used here."""

    def __init__(self, sock):
        self.s, self.buf = sock, bytearray()

    def _line(self):
        while True:
            i = self.buf.find(b"\r\n")
            if i >= 0:
                line = bytes(self.buf[:i]); del self.buf[:i + 2]; return line
            chunk = self.s.recv(1 << 16)
            if not chunk: raise ConnectionError("closed")
            self.buf += chunk

    def reply(self):
        line = self._line()
        t = line[:1]
        if t in (b"+", b":"): return line[1:]
        if t == b"-": raise RuntimeError(line[1:].decode())
        if t == b"$":
            n = int(line[1:])
            if n < 0: return None
            out = bytearray(n + 2)
            have = min(len(self.buf), n + 2)
            out[:have] = self.buf[:have]; del self.buf[:have]
            view = memoryview(out)
            while have < n + 2:
                r = self.s.recv_into(view[have:], min(n + 2 - have, 1 << 22))
                if r == 0: raise ConnectionError("closed")
                have += r
            return out[:n]
        if t == b"*":
            return [self.reply() for _ in range(int(line[1:]))]
        raise RuntimeError(f"unexpected reply {line[:40]!r}")


def command(*args):
    parts = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, (bytes, bytearray, memoryview)) else str(a).encode()
        parts.append(b"$%d\r\n" % len(a)); parts.append(a); parts.append(b"\r\n")
    return parts


def send(sock, parts):
    for p in parts: sock.sendall(p)


def pinger(port, ready, stop, out):
    s = connect(port); r = Reader(s)
    lat = []
    ready.set()
    deadline = time.monotonic() + 600
    while not stop.is_set() and time.monotonic() < deadline:
        t0 = time.perf_counter()
        s.sendall(b"*1\r\n$4\r\nPING\r\n")
        r.reply()
        lat.append((time.perf_counter() - t0, t0))
        time.sleep(0.001)
    s.close()
    out.put(lat)


def pattern(size):
    unit = bytes(range(256)) * 4096  # 1 MB
    whole, rest = divmod(size, len(unit))
    return unit * whole + unit[:rest]


def gc_pause_ms(do):
    """Ours only: total GC pause so far (INFO memory gc_total_pause_ms); None for servers without it."""
    try:
        info = do("INFO", "memory").decode()
    except Exception:
        return None
    m = re.search(r"gc_total_pause_ms:(\d+)", info)
    return int(m.group(1)) if m else None


def run_case(name, port, pid, action, do):
    ctx = mp.get_context("fork")
    ready, stop, out = ctx.Event(), ctx.Event(), ctx.Queue()
    p = ctx.Process(target=pinger, args=(port, ready, stop, out)); p.start()
    ready.wait(10); time.sleep(0.2)
    gc0 = gc_pause_ms(do)
    before = status_kb(pid, "VmRSS")
    peak = [before]
    sampling = [True]

    def sample():
        while sampling[0]:
            peak[0] = max(peak[0], status_kb(pid, "VmRSS")); time.sleep(0.01)
    th = threading.Thread(target=sample); th.start()
    t0 = time.perf_counter()
    err = None
    started = t0
    try:
        action()
    except Exception as e:  # reported, not raised: the other cases still run
        err = e
    took = time.perf_counter() - t0
    time.sleep(0.2)
    stop.set(); lat = out.get(timeout=60); p.join(10)
    sampling[0] = False; th.join()
    gc1 = gc_pause_ms(do)
    worst = sorted(lat, reverse=True)[:DETAIL]
    lat = sorted(x for x, _ in lat)
    ms = lambda x: x * 1000
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else 0
    p50 = lat[len(lat) // 2] if lat else 0
    print(f"{name:<6} took {took:7.3f} s  ping n={len(lat):5d} max {ms(lat[-1] if lat else 0):8.2f} ms  "
          f"p99 {ms(p99):7.2f} ms  p50 {ms(p50):6.3f} ms  rss before {before / 1024:5.0f} peak {peak[0] / 1024:5.0f} MB  "
          f"VmHWM {status_kb(pid, 'VmHWM') / 1024:7.0f} MB"
          + (f"  gc pause {gc1 - gc0} ms" if gc0 is not None and gc1 is not None else "") + (f"  ERROR {err}" if err else ""), flush=True)
    if worst:
        print("       longest PINGs (ms, at s from the request's start; it took %.3f s): " % took
              + ", ".join(f"{x * 1000:.1f}@{t - started:.3f}" for x, t in worst), flush=True)
    return err is None


DETAIL = 0


def main():
    global DETAIL
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--pid", type=int)
    ap.add_argument("--mb", type=int, default=512, help="SET/GET value size in MB")
    ap.add_argument("--field-mb", type=int, default=100, help="HSET/XADD field size in MB")
    ap.add_argument("--cases", default="set,get,hset,xadd")
    ap.add_argument("--detail", type=int, default=0, help="also print the N longest PINGs and when they were sent")
    a = ap.parse_args()
    DETAIL = a.detail
    pid = a.pid or pid_of_port(a.port)
    if not pid: sys.exit(f"no server pid for port {a.port}")
    size = a.mb << 20
    if size >= 512 << 20: size = (512 << 20)  # proto-max-bulk-len (512 MB) is inclusive
    value = pattern(size)
    field = pattern(a.field_mb << 20)
    w = connect(a.port); wr = Reader(w)

    def do(*args):
        send(w, command(*args)); return wr.reply()

    do("DEL", "lv:s", "lv:h", "lv:x")
    ok = True
    for case in a.cases.split(","):
        if case == "set":
            ok &= run_case("SET", a.port, pid, lambda: do("SET", "lv:s", value), do)
        elif case == "get":
            try:
                if do("EXISTS", "lv:s") != b"1": do("SET", "lv:s", value)
            except RuntimeError as e:
                print(f"GET    skipped: the SET before it failed: {e}", flush=True); ok = False; continue
            got = []
            ok &= run_case("GET", a.port, pid, lambda: got.append(do("GET", "lv:s")), do)
            if not got or got[0] != value:
                print("GET: value read back differs from the value set", flush=True); ok = False
            got.clear()
            do("DEL", "lv:s")
        elif case == "hset":
            ok &= run_case("HSET", a.port, pid, lambda: do("HSET", "lv:h", "f", field), do)
            do("DEL", "lv:h")
        elif case == "xadd":
            ok &= run_case("XADD", a.port, pid, lambda: do("XADD", "lv:x", "*", "f", field), do)
            do("DEL", "lv:x")
    do("DEL", "lv:s", "lv:h", "lv:x")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
