// Streams survive: a checkpoint (RDB type 19) and restart with groups, consumers and the PEL; an AOF replay that gives
// the same stream and PEL, delivery times included, whatever the clock says at replay (XADD's generated IDs, XREADGROUP
// and XCLAIM/XAUTOCLAIM are logged with what they produced); DUMP/RESTORE of a payload of redis-server 7.0.15; and a
// stream several times --memory, read back from disk.
using Garnet.client;

namespace Garnet.test.Streams;

[TestFixture]
public class StreamPersistenceTests
{
    private string _dir = null!;

    [SetUp]
    public void NewDir() => _dir = Path.Combine(Path.GetTempPath(), "garnet-stream-" + Guid.NewGuid().ToString("N"));

    [TearDown]
    public void RemoveDir()
    {
        try { Directory.Delete(_dir, true); } catch { }
    }

    // DUMP of redis-server 7.0.15: entries 1-1 {a 1 b hello}, (1-2 deleted), 2-0 {other 70000}, 3-5 {a 2 b y}; group g
    // (alice has 1-1 and 2-0 pending, bob none), group h at 3-5 with ENTRIESREAD 3.
    private const string RedisDump = "130110000000000000000100000000000000014058580000001f00030101010201816102816202000102010001000101018568656c6c6f060501030100010101ded402817802050100010101dfff020101856f7468657206f270110104060102010201040102018179020501ff0303050101010204020167020081ffffffffffffffff020000000000000001000000000000000195be4c0ca2010000010000000000000002000000000000000095be4c0ca2010000010205616c69636595be4c0ca201000002000000000000000100000000000000010000000000000002000000000000000003626f6295be4c0ca201000000016803050300000a003457a78fd9934d8d";

    private static void Fill(RespClient c)
    {
        for (int i = 1; i <= 300; i++) c.Execute("XADD", "ps:s", $"{1000 + i}-{i % 3}", "f", "v" + i, "n", i.ToString());
        c.Execute("XADD", "ps:s", "5000-0", "other", "shape");
        c.Execute("XDEL", "ps:s", "1010-1", "1200-2");
        c.Execute("XGROUP", "CREATE", "ps:s", "g1", "0");
        c.Execute("XGROUP", "CREATE", "ps:s", "g2", "$", "ENTRIESREAD", "7");
        c.Execute("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "5", "STREAMS", "ps:s", ">");
        c.Execute("XREADGROUP", "GROUP", "g1", "bob", "COUNT", "3", "STREAMS", "ps:s", ">");
        c.Execute("XGROUP", "CREATECONSUMER", "ps:s", "g1", "carol");
        c.Execute("XACK", "ps:s", "g1", "1001-1");
        c.Execute("XGROUP", "CREATE", "ps:empty", "g", "$", "MKSTREAM");
    }

    /// <summary>What must come back: entries, PEL (IDs, owners, delivery times and counts), groups, stream counters; and
    /// consumers' seen times, except after an AOF replay (as on Redis's replicas, a replayed read sets them to the replay's time).</summary>
    private static string Snapshot(RespClient c, bool seenTimes = true)
    {
        var parts = new List<string>
        {
            c.Execute("XRANGE", "ps:s", "-", "+").ToString(),
            c.Execute("XINFO", "GROUPS", "ps:s").ToString(),
            c.Execute("XLEN", "ps:empty").ToString(),
            c.Execute("XINFO", "GROUPS", "ps:empty").ToString(),
        };
        var full = c.Execute("XINFO", "STREAM", "ps:s", "FULL", "COUNT", "0").Elements!;
        for (int i = 0; i < full.Length; i += 2)
        {
            string name = full[i].Text!;
            if (name is "radix-tree-keys" or "radix-tree-nodes") continue;
            if (name == "groups")
                foreach (var g in full[i + 1].Elements!)
                {
                    var fields = g.Elements!;
                    for (int j = 0; j < fields.Length; j += 2)
                    {
                        if (fields[j].Text == "consumers")
                            foreach (var cons in fields[j + 1].Elements!)
                            {
                                var cf = cons.Elements!;
                                for (int k = 0; k < cf.Length; k += 2)
                                    if (cf[k].Text is "name" or "pel-count" or "pending" || (seenTimes && cf[k].Text == "seen-time")) parts.Add(cf[k].Text + "=" + cf[k + 1]);
                            }
                        else parts.Add(fields[j].Text + "=" + fields[j + 1]);
                    }
                }
            else parts.Add(name + "=" + full[i + 1]);
        }
        return string.Join("\n", parts);
    }

    [Test]
    public void CheckpointAndRestartKeepGroupsAndPel()
    {
        string before;
        using (var server = new TestServer(null, _dir))
        using (var c = server.Client())
        {
            Fill(c);
            before = Snapshot(c);
            Assert.That(c.Execute("SAVE").Text, Is.EqualTo("OK"));
        }
        using (var server = new TestServer(null, _dir))
        using (var c = server.Client())
        {
            Assert.That(Snapshot(c), Is.EqualTo(before));
            Assert.That(c.Execute("TYPE", "ps:s").Text, Is.EqualTo("stream"));
            Assert.That(c.Execute("XADD", "ps:s", "*", "f", "after").Text, Does.Match(@"^\d+-0$"));
        }
    }

    [Test]
    public void AofReplayGivesTheSameStreamAndPelWhateverTheClock()
    {
        string before;
        long t0 = 1_700_000_000_000;
        using (var server = new TestServer(o => { o.Aof = true; o.AofFsync = "always"; }, _dir))
        using (var c = server.Client())
        {
            var clock = server.Server.Server.Store.Clock;
            clock.Set(t0);
            Fill(c);
            Assert.That(c.Execute("XADD", "ps:s", "*", "gen", "1").Text, Is.EqualTo("1700000000000-0"), "a time-based ID");
            c.Execute("XADD", "ps:auto", "*", "a", "1");
            clock.Set(t0 + 1000);
            c.Execute("XADD", "ps:auto", "MAXLEN", "~", "1", "*", "a", "2");
            c.Execute("XADD", "ps:auto", "*", "a", "3");
            c.Execute("XREADGROUP", "GROUP", "g2", "dave", "STREAMS", "ps:s", ">");
            clock.Set(t0 + 5000);
            c.Execute("XCLAIM", "ps:s", "g1", "erin", "1000", "1002-2", "1003-0");
            c.Execute("XCLAIM", "ps:s", "g1", "erin", "0", "1004-1", "IDLE", "300", "RETRYCOUNT", "9");
            c.Execute("XAUTOCLAIM", "ps:s", "g1", "frank", "4000", "0", "COUNT", "2");
            c.Execute("XREADGROUP", "GROUP", "g1", "bob", "STREAMS", "ps:s", "0");
            c.Execute("XTRIM", "ps:auto", "MAXLEN", "~", "0");
            before = Snapshot(c, seenTimes: false) + "\n" + c.Execute("XRANGE", "ps:auto", "-", "+") + "\n" + c.Execute("XINFO", "STREAM", "ps:auto");
            server.Server.Server.SaveOnStop = false;
        }
        using (var server = new TestServer(o => { o.Aof = true; o.AofFsync = "always"; }, _dir))
        using (var c = server.Client())
        {
            server.Server.Server.Store.Clock.Set(t0 + 999_999);
            string after = Snapshot(c, seenTimes: false) + "\n" + c.Execute("XRANGE", "ps:auto", "-", "+") + "\n" + c.Execute("XINFO", "STREAM", "ps:auto");
            Assert.That(after, Is.EqualTo(before));
            Assert.That(after, Does.Contain("1700000000000-0, [gen, 1]").And.Contain((t0 + 1000) + "-1"), "the generated IDs came back");
            var pending = c.Execute("XPENDING", "ps:s", "g1", "1004-1", "1004-1", "1");
            Assert.That(pending.Elements![0].Elements![3].Integer, Is.EqualTo(9));
            Assert.That(pending.Elements![0].Elements![2].Integer, Is.EqualTo(999_999 - 5000 + 300), "delivery time as XCLAIM IDLE set it");
        }
    }

    [Test]
    public void RedisDumpRestoresAndOurDumpRestoresInRedis()
    {
        using var server = new TestServer();
        using var c = server.Client();
        Assert.That(c.Execute("RESTORE", "rs", "0", Convert.FromHexString(RedisDump)).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("XRANGE", "rs", "-", "+").ToString(), Is.EqualTo(
            "[[1-1, [a, 1, b, hello]], [2-0, [other, 70000]], [3-5, [a, 2, b, y]]]"));
        var pel = c.Execute("XPENDING", "rs", "g", "-", "+", "10").Elements!;
        Assert.That(pel.Select(p => p.Elements![0].Text + " " + p.Elements![1].Text + " " + p.Elements![3].Integer), Is.EqualTo(new[] { "1-1 alice 1", "2-0 alice 1" }));
        var groups = c.Execute("XINFO", "GROUPS", "rs").ToString();
        Assert.That(groups, Is.EqualTo("[[name, g, consumers, 2, pending, 2, last-delivered-id, 2-0, entries-read, (nil), lag, (nil)], [name, h, consumers, 0, pending, 0, last-delivered-id, 3-5, entries-read, 3, lag, 1]]"));
        var info = c.Execute("XINFO", "STREAM", "rs").Elements!;
        Assert.That(info[9].Text + " " + info[11].Integer, Is.EqualTo("1-2 4"), "max deleted ID and entries added");
        // A corrupt payload is refused.
        var bad = Convert.FromHexString(RedisDump);
        bad[30] ^= 0x10;
        Assert.That(c.Execute("RESTORE", "bad", "0", bad).Text, Is.EqualTo("ERR DUMP payload version or checksum are wrong"));
        var ours = c.Execute("DUMP", "rs").Bytes!;
        using var redis = new RedisProcess();
        using var r = new RespClient("127.0.0.1", redis.Port, 10000);
        Assert.That(r.Execute("RESTORE", "rs", "0", ours).Text, Is.EqualTo("OK"));
        Assert.That(r.Execute("XRANGE", "rs", "-", "+").ToString(), Is.EqualTo(c.Execute("XRANGE", "rs", "-", "+").ToString()));
        Assert.That(r.Execute("XINFO", "GROUPS", "rs").ToString(), Is.EqualTo(groups));
        Assert.That(r.Execute("XPENDING", "rs", "g").ToString(), Is.EqualTo(c.Execute("XPENDING", "rs", "g").ToString()));
    }

    [Test]
    public void StreamLargerThanMemoryReadsBackFromDisk()
    {
        // Built with room, then the server restarts with --memory 8mb: the ~12 MB stream no longer fits and is read back
        // from the object log. (While built, its oldest blocks went to the spill file: MEMORY USAGE counts them too, and
        // SAVE reads them back; see docs/objects-streams.md.)
        string pad = new('p', 200);
        const int n = 50_000;
        using (var server = new TestServer(o => o.Memory = "256mb", _dir))
        using (var c = server.Client())
        {
            for (int start = 1; start <= n; start += 1000)
            {
                for (int i = start; i < start + 1000; i++) c.Send("XADD", "big:s", i + "-1", "f", pad, "i", i.ToString());
                for (int i = start; i < start + 1000; i++) Assert.That(c.Read().IsError, Is.False);
            }
            Assert.That(c.Execute("MEMORY", "USAGE", "big:s").Integer, Is.GreaterThan(10L << 20));
            Assert.That(c.Execute("SAVE").Text, Is.EqualTo("OK"));
        }
        using (var server = new TestServer(o => o.Memory = "8mb", _dir))
        using (var c = server.Client())
        {
            for (int i = 0; i < 5_000; i++) c.Send("SET", "filler:" + i, pad);
            for (int i = 0; i < 5_000; i++) Assert.That(c.Read().IsError, Is.False);
            Assert.That(c.Execute("XLEN", "big:s").Integer, Is.EqualTo(n));
            var window = c.Execute("XRANGE", "big:s", "30000", "30002").Elements!;
            Assert.That(window.Select(e => e.Elements![1].Elements![3].Text), Is.EqualTo(new[] { "30000", "30001", "30002" }));
            Assert.That(c.Execute("XADD", "big:s", "*", "f", "new").IsError, Is.False);
            Assert.That(c.Execute("XLEN", "big:s").Integer, Is.EqualTo(n + 1));
            Assert.That(c.Execute("XREVRANGE", "big:s", "+", "-", "COUNT", "2").Elements![1].Elements![0].Text, Is.EqualTo(n + "-1"));
        }
    }
}
