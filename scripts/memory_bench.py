#!/usr/bin/env python3
"""Resident memory of the server under large values and large requests, next to Debian's redis-server.

Each scenario starts a fresh server (ours: the built GarnetServer.dll; redis: redis-server with --save '' and
--appendonly no) in a temporary directory, drives it over raw sockets and prints VmRSS / VmHWM (from
/proc/<pid>/status) before and after. Run: python3 scripts/memory_bench.py [--only NAME] (after a Release build);
results in docs/performance.md, "Memory with large values".

Scenarios (names for --only):
  checkpoint  load a checkpoint of COUNT values of 512 MB (plus small keys): RSS once loaded, then GETRANGE of each
  overwrite   SET one 100 MB key repeatedly (--overwrite-mb)
  small-budget 2 MB values under --memory 64mb (Redis: maxmemory is not set, it keeps everything)
  partial     clients send 3/4 of a 200 MB bulk string and disconnect, or all of it (--partial-mb)
"""
import argparse, os, shutil, socket, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DLL = os.environ.get("GARNET_DLL") or os.path.join(ROOT, "main/GarnetServer/bin/Release/net10.0/GarnetServer.dll")
MB = 1 << 20


def status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM")):
                k, v = line.split(":")
                out[k] = int(v.split()[0]) // 1024  # MiB
    return out


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def send(self, *args):
        parts = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, (bytes, bytearray, memoryview)) else str(a).encode()
            parts.append(b"$%d\r\n" % len(a))
            parts.append(a)
            parts.append(b"\r\n")
        for p in parts:
            self.s.sendall(p)

    def _fill(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(max(65536, min(n - len(self.buf), 16 * MB)))
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        i = self.buf.index(b"\r\n")
        line, self.buf = self.buf[:i], self.buf[i + 2:]
        return line

    def reply(self):
        line = self._line()
        t = line[:1]
        if t == b"$":
            n = int(line[1:])
            if n < 0:
                return None
            # Read a large bulk into a preallocated buffer, without quadratic concatenation.
            out = bytearray(n + 2)
            have = min(len(self.buf), n + 2)
            out[:have] = self.buf[:have]
            self.buf = self.buf[have:]
            view = memoryview(out)
            while have < n + 2:
                r = self.s.recv_into(view[have:], min(n + 2 - have, 16 * MB))
                if r == 0:
                    raise ConnectionError("closed")
                have += r
            return bytes(out[:n])
        if t == b"-":
            raise RuntimeError(line.decode())
        if t == b":":
            return int(line[1:])
        return line[1:].decode()

    def call(self, *args):
        self.send(*args)
        return self.reply()

    def close(self):
        self.s.close()


class Server:
    def __init__(self, kind, extra, workdir, port):
        self.kind, self.port = kind, port
        self.dir = os.path.join(workdir, kind)
        os.makedirs(self.dir, exist_ok=True)
        self.extra = extra
        self.proc = None

    def start(self):
        if self.kind == "ours":
            cmd = ["dotnet", DLL, "--port", str(self.port), "--dir", self.dir, "--loglevel", "warning", "--save", ""] + self.extra
        else:
            cmd = ["redis-server", "--port", str(self.port), "--dir", self.dir, "--save", "", "--appendonly", "no",
                   "--proto-max-bulk-len", "536870912", "--client-query-buffer-limit", "1gb", "--logfile", ""] + self.extra
        self.log = open(os.path.join(self.dir, "server.log"), "ab")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=self.log)
        t0 = time.time()
        while True:
            try:
                c = Conn(self.port)
                c.call("PING")
                c.close()
                return time.time() - t0
            except (ConnectionError, OSError, RuntimeError):
                if self.proc.poll() is not None:
                    raise RuntimeError(f"{self.kind} exited; see {self.dir}/server.log")
                if time.time() - t0 > 300:
                    raise RuntimeError(f"{self.kind} did not start")
                time.sleep(0.1)

    def mem(self):
        return status(self.proc.pid)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            try:
                c = Conn(self.port)
                c.send("SHUTDOWN", "NOSAVE")
                c.close()
            except OSError:
                pass
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def fmt(m):
    return f"RSS {m['VmRSS']:>6} MiB  HWM {m['VmHWM']:>6} MiB"


def value(size, tag):
    # Incompressible for LZF (whose window is 8 KB): a random MiB repeated, with a per-value prefix.
    block = os.urandom(MB)
    v = (block * ((size + MB - 1) // MB))[:size]
    return tag.encode().ljust(16, b".") + v[16:]


def settle(srv, seconds):
    """RSS after seconds of idleness (memory that is released goes back within this time)."""
    time.sleep(seconds)
    return srv.mem()


def scenario_checkpoint(kind, args, workdir, port):
    extra = [] if kind == "redis" else ["--memory", args.memory]
    srv = Server(kind, extra, workdir, port)
    srv.start()
    c = Conn(port)
    vals = {}
    for i in range(args.count):
        v = value(512 * MB, f"big{i}")
        c.call("SET", f"big{i}", v)
        vals[f"big{i}"] = v[:16]
        del v
    for i in range(1000):
        c.call("SET", f"small{i}", "x" * 100)
    c.call("SAVE")
    c.close()
    srv.stop()
    size = sum(os.path.getsize(os.path.join(srv.dir, f)) for f in os.listdir(srv.dir) if f.endswith(".rdb"))
    secs = srv.start()
    m = srv.mem()
    c = Conn(port)
    ok = all((c.call("GETRANGE", k, 0, 15) == p) for k, p in vals.items()) and c.call("DBSIZE") == args.count + 1000
    c.close()
    after = settle(srv, args.settle)
    srv.stop()
    print(f"  {kind:5} checkpoint {size / MB:.0f} MiB loaded in {secs:.1f} s: {fmt(m)}; after {args.settle} s: {fmt(after)}; values ok: {ok}")


def scenario_overwrite(kind, args, workdir, port):
    extra = [] if kind == "redis" else ["--memory", args.memory]
    srv = Server(kind, extra, workdir, port)
    srv.start()
    before = srv.mem()
    c = Conn(port)
    v = value(args.overwrite_mb * MB, "ow")
    peak = 0
    for i in range(args.repeat):
        v = f"ow{i:06d}".encode() + v[8:]
        c.call("SET", "big", v)
        peak = max(peak, srv.mem()["VmRSS"])
    ok = c.call("GET", "big") == v
    m = srv.mem()
    c.close()
    after = settle(srv, args.settle)
    srv.stop()
    print(f"  {kind:5} before: {fmt(before)}; after {args.repeat} SETs of {args.overwrite_mb} MiB: {fmt(m)} (max sampled {peak}); "
          f"after {args.settle} s: {fmt(after)}; GET ok: {ok}")


def scenario_small_budget(kind, args, workdir, port):
    extra = [] if kind == "redis" else ["--memory", "64mb"]
    srv = Server(kind, extra, workdir, port)
    srv.start()
    before = srv.mem()
    c = Conn(port)
    n = args.small_count
    block = value(2 * MB, "sb")
    # Pipelined in groups of 16.
    for i in range(0, n, 16):
        j = range(i, min(n, i + 16))
        for k in j:
            c.send("SET", f"v{k}", f"{k:08d}".encode() + block[8:])
        for k in j:
            c.reply()
    m = srv.mem()
    ok = all(c.call("GET", f"v{k}") == f"{k:08d}".encode() + block[8:] for k in (0, n // 2, n - 1))
    c.close()
    after = settle(srv, args.settle)
    srv.stop()
    print(f"  {kind:5} before: {fmt(before)}; after {n} SETs of 2 MiB ({n * 2} MiB): {fmt(m)}; "
          f"after {args.settle} s: {fmt(after)}; GET ok: {ok}")


def scenario_partial(kind, args, workdir, port):
    extra = [] if kind == "redis" else ["--memory", args.memory]
    srv = Server(kind, extra, workdir, port)
    srv.start()
    before = srv.mem()
    size = args.partial_mb * MB
    v = value(size, "partial")
    header = b"*3\r\n$3\r\nSET\r\n$7\r\npartial\r\n$%d\r\n" % size
    peak = 0
    for i in range(args.repeat):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(header)
        complete = i % 2 == 1
        s.sendall(memoryview(v)[: size if complete else size * 3 // 4])
        if complete:
            s.sendall(b"\r\n")
            c = Conn.__new__(Conn)
            c.s, c.buf = s, b""
            c.reply()
        s.close()
        time.sleep(0.05)
        peak = max(peak, srv.mem()["VmRSS"])
    time.sleep(0.5)
    m = srv.mem()
    c = Conn(port)
    ok = c.call("GET", "partial") == v
    c.close()
    after = settle(srv, args.settle)
    srv.stop()
    print(f"  {kind:5} before: {fmt(before)}; after {args.repeat} requests of {args.partial_mb} MiB (half cut off at 3/4): {fmt(m)} "
          f"(max sampled {peak}); after {args.settle} s: {fmt(after)}; GET ok: {ok}")


SCENARIOS = {
    "checkpoint": ("Checkpoint of 512 MiB values, loaded at start", scenario_checkpoint),
    "overwrite": ("One large key (--overwrite-mb) overwritten repeatedly", scenario_overwrite),
    "small-budget": ("2 MiB values under --memory 64mb", scenario_small_budget),
    "partial": ("Large requests (--partial-mb), every other one cut off", scenario_partial),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", action="append", choices=list(SCENARIOS))
    ap.add_argument("--servers", default="ours,redis")
    ap.add_argument("--port", type=int, default=6397)
    ap.add_argument("--memory", default="1gb", help="our --memory (default budget)")
    ap.add_argument("--count", type=int, default=3, help="512 MiB values in the checkpoint")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--small-count", type=int, default=500, help="2 MiB values in the small-budget scenario")
    ap.add_argument("--overwrite-mb", type=int, default=100)
    ap.add_argument("--partial-mb", type=int, default=200)
    ap.add_argument("--settle", type=float, default=10)
    args = ap.parse_args()
    kinds = [k for k in args.servers.split(",") if k != "redis" or shutil.which("redis-server")]
    if not os.path.exists(DLL) and "ours" in kinds:
        sys.exit(f"{DLL} is missing: dotnet build -c Release main/GarnetServer")
    for name in args.only or list(SCENARIOS):
        title, fn = SCENARIOS[name]
        print(f"== {title}", flush=True)
        for kind in kinds:
            workdir = tempfile.mkdtemp(prefix="garnet-mem-")
            try:
                fn(kind, args, workdir, args.port)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
