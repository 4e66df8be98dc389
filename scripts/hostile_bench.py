#!/usr/bin/env python3
"""Hostile-client triggers (docs/security.md), side by side: ours and Debian's redis-server, a fresh server per trigger.

For each trigger, one client sends it while a second client sends PING every millisecond; the script prints the
trigger's time, the other client's PING latency (p99 and max, in ms, over the trigger's run), the server's peak
resident memory (VmHWM) and its resident memory 5 s after the trigger ended (memory taken for a request must go back).

Run after a Release build:  python3 scripts/hostile_bench.py [--only NAME ...] [--servers ours,redis]
Our server runs with --memory 256mb; redis-server with maxmemory unset, proto-max-bulk-len 512mb.

Triggers (names for --only):
  set512     SET of a 512 MB value
  hset100    HSET of a 100 MB field
  xadd100    XADD of a 100 MB field
  intset     CONFIG SET set-max-intset-entries 2147483647, SADD 100k integers, then one SADD of 100k more
  srand      SRANDMEMBER of a 100-member set with count -10000000
  msgpack    cmsgpack.unpack of an array header claiming 16M entries
  cjson      cjson.encode of a 60 MB string of NUL bytes
  mset3m     MSET of 3M pairs in one command, then FLUSHALL (resident memory 2 s and 10 s after FLUSHALL)
  lzf        RESTORE of a 24-byte LZF payload that declares 512 MB
  authflood  20,000 pipelined wrong AUTH on one connection (requirepass set): how many are answered
"""
import argparse, os, socket, struct, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memory_bench import Conn, Server, status  # noqa: E402

MB = 1 << 20


class PingProbe:
    """A second client: PING every millisecond, latencies in ms, until stopped."""

    def __init__(self, port):
        self.port, self.lat, self.stop_flag, self.errors = port, [], False, 0
        self.t = threading.Thread(target=self.run, daemon=True)

    def run(self):
        c = Conn(self.port)
        while not self.stop_flag:
            t0 = time.perf_counter()
            try:
                c.call("PING")
            except Exception:
                self.errors += 1
                try:
                    c.close()
                    c = Conn(self.port)
                except OSError:
                    time.sleep(0.01)
                continue
            self.lat.append((time.perf_counter() - t0) * 1000)
            time.sleep(0.001)

    def __enter__(self):
        self.t.start()
        time.sleep(0.2)
        return self

    def __exit__(self, *a):
        time.sleep(0.2)
        self.stop_flag = True
        self.t.join(30)

    def summary(self):
        if not self.lat:
            return "no PING answered"
        s = sorted(self.lat)
        return f"PING p99 {s[int(len(s) * 0.99) - 1 if len(s) > 1 else 0]:.1f} ms, max {s[-1]:.1f} ms ({len(s)} PINGs)"


def crc64(data):
    """Redis's CRC-64 (Jones, reflected), as DUMP payloads carry it."""
    poly, crc = 0x95AC9329AC4BC9B5, 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
    return crc


def lzf_payload():
    # type 0 (string), 0xC3 (LZF-encoded), compressed length 6, declared length 512 MB (32-bit form), then 6 bytes of
    # compressed data, RDB version 10 and the CRC: 24 bytes in all.
    body = bytes([0, 0xC3, 6, 0x80]) + struct.pack(">I", 512 * MB) + bytes([0x00, ord("a"), 0xE0, 0xFF, 0x00, 0x00])
    body += struct.pack("<H", 10)
    return body + struct.pack("<Q", crc64(body))


def trig_set512(c):
    v = os.urandom(MB) * 512
    c.call("SET", "big", v)


def trig_hset100(c):
    c.call("HSET", "h", "f", os.urandom(MB) * 100)


def trig_xadd100(c):
    c.call("XADD", "s", "*", "f", os.urandom(MB) * 100)


def setup_intset(c):
    c.call("CONFIG", "SET", "set-max-intset-entries", "2147483647")
    for i in range(0, 100_000, 10_000):
        c.call("SADD", "s", *range(i, i + 10_000))


def trig_intset(c):
    c.call("SADD", "s", *range(100_000, 200_000))


def setup_srand(c):
    c.call("SADD", "r", *[f"member{i}" for i in range(100)])


def trig_srand(c):
    c.call("SRANDMEMBER", "r", "-10000000")


def trig_msgpack(c):
    try:
        c.call("EVAL", "return #cmsgpack.unpack(ARGV[1])", "0", b"\xdd\x00\xff\xff\xff")
    except RuntimeError as e:
        return str(e)[:80]


def trig_cjson(c):
    try:
        c.call("EVAL", "return #cjson.encode(string.rep('\\0', 60*1024*1024))", "0")
    except RuntimeError as e:
        return str(e)[:80]


def trig_mset3m(c):
    args = []
    for i in range(3_000_000):
        args += [f"key:{i:08d}", f"value:{i:08d}"]
    c.call("MSET", *args)


def after_mset3m(srv, c):
    c.call("FLUSHALL")
    time.sleep(2)
    r2 = srv.mem()["VmRSS"]
    time.sleep(8)
    return f"RSS 2 s after FLUSHALL {r2} MiB, 10 s after {srv.mem()['VmRSS']} MiB"


def trig_lzf(c):
    try:
        c.call("RESTORE", "lzf", "0", lzf_payload())
    except RuntimeError as e:
        return str(e)[:80]


def _send_quietly(s, data):
    try:
        s.sendall(data)
    except OSError:
        pass


def setup_authflood(c):
    c.call("CONFIG", "SET", "requirepass", "pw")  # this connection stays authenticated, and clears it afterwards


def trig_authflood(first):
    c = Conn(first.port)
    n = 20_000
    # Sent from another thread: the replies must be read while the requests go out, or both sides block on full buffers.
    threading.Thread(target=lambda: _send_quietly(c.s, b"*2\r\n$4\r\nAUTH\r\n$5\r\nwrong\r\n" * n), daemon=True).start()
    answered = 0
    try:
        c.s.settimeout(10)
        while answered < n:
            c._line()
            answered += 1
    except (ConnectionError, OSError):
        pass
    c.close()
    first.call("CONFIG", "SET", "requirepass", "")
    return f"{answered} of {n} wrong AUTHs answered"


TRIGGERS = {
    "set512": (None, trig_set512, None, False),
    "hset100": (None, trig_hset100, None, False),
    "xadd100": (None, trig_xadd100, None, False),
    "intset": (setup_intset, trig_intset, None, False),
    "srand": (setup_srand, trig_srand, None, False),
    "msgpack": (None, trig_msgpack, None, False),
    "cjson": (None, trig_cjson, None, False),
    "mset3m": (None, trig_mset3m, after_mset3m, False),
    "lzf": (None, trig_lzf, None, False),
    "authflood": (setup_authflood, trig_authflood, None, True),
}


def run(kind, name, workdir, port):
    setup, trigger, after, count_only = TRIGGERS[name]
    srv = Server(kind, ["--memory", "256mb"] if kind == "ours" else [], workdir, port)
    srv.start()
    try:
        c = Conn(port)
        c.port = port
        if setup:
            setup(c)
        if count_only:
            print(f"  {kind:5} {name:9} {trigger(c)}")
            return
        t0 = time.perf_counter()
        with PingProbe(port) as probe:
            note = trigger(c)
            secs = time.perf_counter() - t0
        hwm = srv.mem()["VmHWM"]
        tail = after(srv, c) if after else ""
        time.sleep(5)
        rss = srv.mem()["VmRSS"]
        print(f"  {kind:5} {name:9} {secs:6.2f} s  {probe.summary()}; peak RSS {hwm} MiB, RSS 5 s later {rss} MiB"
              + (f"; {tail}" if tail else "") + (f"; reply: {note}" if note else ""))
        c.close()
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=list(TRIGGERS))
    ap.add_argument("--servers", default="ours,redis")
    ap.add_argument("--port", type=int, default=7431)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hostile-bench-") as workdir:
        for name in a.only:
            print(name)
            for kind in a.servers.split(","):
                try:
                    run(kind, name, workdir, a.port)
                except Exception as e:  # a server that died or stalled is a result, not the end of the run
                    print(f"  {kind:5} {name:9} FAILED: {e}")


if __name__ == "__main__":
    main()
