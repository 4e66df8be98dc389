// The plain-read path (RespServerSession.TryRunPlainRead): a GET of a session in its plain state runs with fewer checks and
// under an epoch the batch holds. These tests pin what it must keep of the general path: replies and their order when the
// session's state changes inside one batch, INFO's counts, and that every batch gives the epoch back; and, since it writes
// GET's reply itself (RunPlainGet), the same bytes, database, expiry and access-time touch as GET's handler.
using System.Net.Sockets;
using System.Text;
using Garnet.client;
using Garnet.Options;

namespace Garnet.test;

[TestFixture]
public class PlainReadPathTests : ServerFixture
{
    private static long Field(string info, string name)
    {
        var line = info.Split("\r\n").Single(l => l.StartsWith(name + ":"));
        return long.Parse(line[(name.Length + 1)..]);
    }

    private static long GetCalls(RespClient c)
    {
        var line = c.Execute("INFO", "commandstats").Text!.Split("\r\n").SingleOrDefault(l => l.StartsWith("cmdstat_get:"));
        if (line is null) return 0;
        var calls = line.Split(':', 2)[1].Split(',').Single(f => f.StartsWith("calls="));
        return long.Parse(calls["calls=".Length..]);
    }

    /// <summary>All the commands in one send, so the server runs them in one batch.</summary>
    internal static void SendBatch(RespClient c, IEnumerable<object[]> commands)
    {
        var bytes = new List<byte>();
        foreach (var cmd in commands) bytes.AddRange(RespClient.Encode(cmd));
        c.SendRaw(bytes.ToArray());
    }

    [Test, CancelAfter(30_000)]
    public void StateChangesInsideOneBatchAreSeenByTheGetsAfterThem()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        Assert.That(c.Execute("SET", "pr:a", "1").IsError, Is.False);
        SendBatch(c,
        [
            ["GET", "pr:a"],
            ["MULTI"], ["GET", "pr:a"], ["SET", "pr:a", "2"], ["GET", "pr:a"], ["EXEC"],
            ["get", "pr:a"],
            ["CLIENT", "REPLY", "SKIP"], ["GET", "pr:a"],
            ["GET", "pr:missing"],
            ["GET", "pr:a", "extra"],
            ["GET", "pr:a"],
        ]);
        Assert.That(c.Read().Text, Is.EqualTo("1"));
        Assert.That(c.Read().Text, Is.EqualTo("OK"));
        Assert.That(c.Read().Text, Is.EqualTo("QUEUED"));
        Assert.That(c.Read().Text, Is.EqualTo("QUEUED"));
        Assert.That(c.Read().Text, Is.EqualTo("QUEUED"));
        var exec = c.Read();
        Assert.That(exec.Elements!.Select(e => e.Text), Is.EqualTo(new[] { "1", "OK", "2" }));
        Assert.That(c.Read().Text, Is.EqualTo("2"), "lower-case get after EXEC");
        // CLIENT REPLY SKIP: no reply for itself nor for the GET after it.
        Assert.That(c.Read().IsNull, Is.True, "GET of a missing key");
        var wrongArity = c.Read();
        Assert.That(wrongArity.IsError && wrongArity.Text!.Contains("wrong number of arguments for 'get'"), Is.True, wrongArity.ToString());
        Assert.That(c.Read().Text, Is.EqualTo("2"));
    }

    [Test, CancelAfter(30_000)]
    public void PipelinedGetsAreCountedExactly()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        for (int i = 0; i < 100; i++) c.Execute("SET", "pc:" + i, "v" + i);
        var stats = c.Execute("INFO", "stats").Text!;
        long hits = Field(stats, "keyspace_hits"), misses = Field(stats, "keyspace_misses"), calls = GetCalls(c);
        long id = c.Execute("CLIENT", "ID").Integer;
        const int Gets = 3000;
        SendBatch(c, Enumerable.Range(0, Gets).Select(i => new object[] { "GET", "pc:" + (i % 200) })); // keys 100..199 are missing
        for (int i = 0; i < Gets; i++)
        {
            var r = c.Read();
            if (i % 200 < 100) Assert.That(r.Text, Is.EqualTo("v" + (i % 200)), "reply " + i);
            else Assert.That(r.IsNull, Is.True, "reply " + i);
        }
        using (var other = new RespClient("127.0.0.1", _server.Port))
        {
            var line = other.Execute("CLIENT", "LIST", "ID", id.ToString()).Text!;
            Assert.That(line, Does.Contain(" cmd=get "), "CLIENT LIST names the last command");
        }
        stats = c.Execute("INFO", "stats").Text!;
        Assert.That(Field(stats, "keyspace_hits") - hits, Is.EqualTo(Gets / 2));
        Assert.That(Field(stats, "keyspace_misses") - misses, Is.EqualTo(Gets / 2));
        Assert.That(GetCalls(c) - calls, Is.EqualTo(Gets));
    }

    [Test, CancelAfter(30_000)]
    public void EveryBatchOfGetsGivesTheEpochBack()
    {
        var epoch = _server.Server.Server.Store.Store.Epoch;
        using var c = new RespClient("127.0.0.1", _server.Port);
        c.Execute("SET", "pe:a", "x");
        for (int round = 0; round < 5; round++)
        {
            SendBatch(c, Enumerable.Range(0, 500).Select(_ => new object[] { "GET", "pe:a" }));
            for (int i = 0; i < 500; i++) Assert.That(c.Read().Text, Is.EqualTo("x"));
            // An action deferred now runs once no thread is still in an epoch before it: the connection's thread must
            // have left the one its GETs held, or it never runs.
            int ran = 0;
            epoch.BumpCurrentEpoch(() => Interlocked.Exchange(ref ran, 1));
            var until = DateTime.UtcNow.AddSeconds(10);
            while (Volatile.Read(ref ran) == 0 && DateTime.UtcNow < until)
            {
                epoch.Acquire();
                epoch.Release();
                Thread.Sleep(1);
            }
            Assert.That(Volatile.Read(ref ran), Is.EqualTo(1), "round " + round);
        }
    }

    /// <summary>Sends commands in one write on a raw socket and reads exactly expected.Length bytes back.</summary>
    private byte[] RawBatch(Socket socket, IEnumerable<object[]> commands, int expectedLength)
    {
        var bytes = new List<byte>();
        foreach (var cmd in commands) bytes.AddRange(RespClient.Encode(cmd));
        socket.Send(bytes.ToArray());
        var reply = new byte[expectedLength];
        for (int got = 0; got < expectedLength;)
        {
            int n = socket.Receive(reply, got, expectedLength - got, SocketFlags.None);
            if (n == 0) throw new IOException("closed");
            got += n;
        }
        return reply;
    }

    private Socket Connect()
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveTimeout = 10_000 };
        socket.Connect("127.0.0.1", _server.Port);
        return socket;
    }

    [Test, CancelAfter(30_000)]
    public void PlainGetsWriteTheBytesGetsHandlerWrites([Values(2, 3)] int protocol)
    {
        // Every length where the length's digits change, a reply larger than a fresh reply buffer (the plain path declines
        // it and GET's handler answers), a missing key (RESP2 and RESP3 nulls) and a list (WRONGTYPE), in one batch after
        // a PING (so the GETs after it run on the plain path), twice: the second batch finds the reply buffer grown.
        using var setup = new RespClient("127.0.0.1", _server.Port);
        int[] lengths = [0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10_000, 99_999, 100_000, 300_000];
        var expected = new List<byte>(Encoding.ASCII.GetBytes("+PONG\r\n"));
        var gets = new List<object[]> { new object[] { "PING" } };
        foreach (int length in lengths)
        {
            string value = new string((char)('a' + length % 26), length);
            Assert.That(setup.Execute("SET", $"pb:{protocol}:{length}", value).Text, Is.EqualTo("OK"));
            gets.Add(["GET", $"pb:{protocol}:{length}"]);
            expected.AddRange(Encoding.ASCII.GetBytes($"${length}\r\n{value}\r\n"));
        }
        setup.Execute("RPUSH", $"pb:{protocol}:list", "x");
        gets.Add(["GET", $"pb:{protocol}:missing"]);
        expected.AddRange(Encoding.ASCII.GetBytes(protocol == 3 ? "_\r\n" : "$-1\r\n"));
        gets.Add(["GET", $"pb:{protocol}:list"]);
        expected.AddRange(Encoding.ASCII.GetBytes("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"));
        gets.Add(["GET", $"pb:{protocol}:0"]);
        expected.AddRange(Encoding.ASCII.GetBytes("$0\r\n\r\n"));

        using var socket = Connect();
        if (protocol == 3)
        {
            // HELLO's map is not what this test checks: read up to the PONG sent after it.
            socket.Send(RespClient.Encode("HELLO", "3").Concat(RespClient.Encode("PING")).ToArray());
            var seen = new List<byte>();
            var chunk = new byte[4096];
            while (!Encoding.ASCII.GetString(seen.ToArray()).EndsWith("+PONG\r\n"))
            {
                int n = socket.Receive(chunk);
                if (n == 0) throw new IOException("closed");
                seen.AddRange(chunk.AsSpan(0, n).ToArray());
            }
        }
        for (int round = 0; round < 2; round++)
        {
            var reply = RawBatch(socket, gets, expected.Count);
            Assert.That(Encoding.ASCII.GetString(reply), Is.EqualTo(Encoding.ASCII.GetString(expected.ToArray())), "round " + round);
        }
    }

    [Test, CancelAfter(30_000)]
    public void PlainGetsReadTheSelectedDatabaseAndFollowSwapdb()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        using var other = new RespClient("127.0.0.1", _server.Port);
        c.Execute("SELECT", "0");
        c.Execute("SET", "ps:k", "zero");
        c.Execute("SELECT", "5");
        c.Execute("SET", "ps:k", "five");
        SendBatch(c, Enumerable.Range(0, 50).Select(_ => new object[] { "GET", "ps:k" }));
        for (int i = 0; i < 50; i++) Assert.That(c.Read().Text, Is.EqualTo("five"));
        Assert.That(other.Execute("SWAPDB", "0", "5").Text, Is.EqualTo("OK"));
        SendBatch(c, Enumerable.Range(0, 50).Select(_ => new object[] { "GET", "ps:k" }));
        for (int i = 0; i < 50; i++) Assert.That(c.Read().Text, Is.EqualTo("zero"), "after SWAPDB, reply " + i);
        Assert.That(other.Execute("SWAPDB", "0", "5").Text, Is.EqualTo("OK"));
        // SELECT and then GETs at once: they read the database just selected.
        SendBatch(c, [["SELECT", "0"], ["GET", "ps:k"], ["GET", "ps:k"], ["SELECT", "5"], ["GET", "ps:k"], ["GET", "ps:k"], ["SELECT", "0"]]);
        Assert.That(Enumerable.Range(0, 7).Select(_ => c.Read().Text), Is.EqualTo(new[] { "OK", "zero", "zero", "OK", "five", "five", "OK" }));
    }

    [Test, CancelAfter(30_000)]
    public void PlainGetOfAnExpiredKeyDeletesItAsGetDoes()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        c.Execute("SET", "px:k", "v", "EX", "100");
        c.Execute("SET", "px:other", "w");
        long expired = Field(c.Execute("INFO", "stats").Text!, "expired_keys");
        var clock = _server.Server.Server.Store.Clock;
        clock.Set(DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() + 200_000);
        try
        {
            SendBatch(c, [["GET", "px:other"], ["GET", "px:k"], ["GET", "px:k"], ["GET", "px:other"]]);
            Assert.That(c.Read().Text, Is.EqualTo("w"));
            Assert.That(c.Read().IsNull, Is.True);
            Assert.That(c.Read().IsNull, Is.True);
            Assert.That(c.Read().Text, Is.EqualTo("w"));
            Assert.That(Field(c.Execute("INFO", "stats").Text!, "expired_keys") - expired, Is.EqualTo(1), "deleted once, as expired");
        }
        finally { clock.Release(); }
        Assert.That(c.Execute("EXISTS", "px:k").Integer, Is.Zero, "gone also with the clock back");
    }

    [Test, CancelAfter(30_000)]
    public void PlainGetsTouchTheKeyUnlessNoTouch()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        c.Execute("SET", "pt:k", "v");
        var payload = c.Execute("DUMP", "pt:k").Bytes!;
        c.Execute("DEL", "pt:k");
        Assert.That(c.Execute("RESTORE", "pt:k", "0", payload, "IDLETIME", "1000").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("CLIENT", "NO-TOUCH", "ON").Text, Is.EqualTo("OK"));
        SendBatch(c, Enumerable.Range(0, 20).Select(_ => new object[] { "GET", "pt:k" }));
        for (int i = 0; i < 20; i++) Assert.That(c.Read().Text, Is.EqualTo("v"));
        Assert.That(c.Execute("OBJECT", "IDLETIME", "pt:k").Integer, Is.InRange(1000, 1002), "NO-TOUCH: GETs leave it idle");
        Assert.That(c.Execute("CLIENT", "NO-TOUCH", "OFF").Text, Is.EqualTo("OK"));
        SendBatch(c, Enumerable.Range(0, 20).Select(_ => new object[] { "GET", "pt:k" }));
        for (int i = 0; i < 20; i++) Assert.That(c.Read().Text, Is.EqualTo("v"));
        Assert.That(c.Execute("OBJECT", "IDLETIME", "pt:k").Integer, Is.InRange(0, 1), "a GET touches it");
    }
}

/// <summary>A plain GET reads a record's bytes without its lock and validates its key's stripe afterwards: with two
/// network loops (so the writer and the reader run on two threads at once; with one, their commands never overlap),
/// GETs racing MSETs and SETs that rewrite the value in place must still see only whole values.</summary>
[TestFixture]
public class PlainGetRaceTests : ServerFixture
{
    protected override void Configure(GarnetServerOptions options) => options.NetworkThreads = 2;

    [Test, CancelAfter(60_000)]
    public void GetsRacingExclusiveWritersNeverSeeAHalfWrittenPair()
    {
        // MSET takes its stripes exclusively: a GET's optimistic read that overlaps it runs again under the stripe, after
        // its batch has left the epoch; neither side may wait on the other for good, and no GET may see a torn value.
        using var writer = new RespClient("127.0.0.1", _server.Port);
        using var reader = new RespClient("127.0.0.1", _server.Port);
        string Value(int n) => n + ":" + new string((char)('a' + n % 26), 200);
        writer.Execute("MSET", "pw:a", Value(0), "pw:b", Value(0));
        var done = 0;
        var writes = Task.Run(() =>
        {
            for (int n = 1; n <= 3000; n++) Assert.That(writer.Execute("MSET", "pw:a", Value(n), "pw:b", Value(n)).Text, Is.EqualTo("OK"));
            Volatile.Write(ref done, 1);
        });
        long seen = 0;
        while (Volatile.Read(ref done) == 0)
        {
            PlainReadPathTests.SendBatch(reader, Enumerable.Range(0, 200).Select(i => new object[] { "GET", i % 2 == 0 ? "pw:a" : "pw:b" }));
            for (int i = 0; i < 200; i++)
            {
                string v = reader.Read().Text!;
                int n = int.Parse(v.Split(':')[0]);
                Assert.That(v, Is.EqualTo(Value(n)), "a whole value");
                seen++;
            }
        }
        writes.Wait();
        Assert.That(seen, Is.GreaterThan(0));
    }
    [Test, CancelAfter(60_000)]
    public void GetsRacingInPlaceSetsNeverSeeATornValue()
    {
        // Values of one length, so each SET rewrites the record in place; 8 KB each, so a copy takes long enough to
        // overlap a write (without the validation, this fails within the first few hundred batches).
        using var writer = new RespClient("127.0.0.1", _server.Port);
        using var reader = new RespClient("127.0.0.1", _server.Port);
        string Value(int n) => (n % 10) + new string((char)('a' + n % 26), 8191);
        writer.Execute("SET", "race:k", Value(0));
        var done = 0;
        var writes = Task.Run(() =>
        {
            try
            {
                for (int n = 1; n <= 20_000 && Volatile.Read(ref done) == 0; n++)
                    Assert.That(writer.Execute("SET", "race:k", Value(n)).Text, Is.EqualTo("OK"));
            }
            finally { Volatile.Write(ref done, 1); }
        });
        long seen = 0;
        try
        {
            while (Volatile.Read(ref done) == 0)
            {
                var bytes = new List<byte>();
                for (int i = 0; i < 20; i++) bytes.AddRange(RespClient.Encode("GET", "race:k"));
                reader.SendRaw(bytes.ToArray());
                for (int i = 0; i < 20; i++)
                {
                    string v = reader.Read().Text!;
                    int n = v[0] - '0';
                    Assert.That(v.Length, Is.EqualTo(8192));
                    Assert.That(v.AsSpan(1).ContainsAnyExcept(v[1]), Is.False, "a whole value, not two writers' halves");
                    Assert.That((n - (v[1] - 'a')) % 2, Is.Zero, "the digit and the letters of one write (n % 10, n % 26)");
                    seen++;
                }
            }
        }
        finally { Volatile.Write(ref done, 1); }
        writes.Wait();
        Assert.That(seen, Is.GreaterThan(0));
    }
}
