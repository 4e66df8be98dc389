// Reads of a stream's spilled blocks do not hold a request's thread (Session/StreamBlockReadAhead): with a stream far
// larger than its memory share (--memory 2mb keeps 64 KB of entries in memory, the block cache holds 1 MB of a ~3 MB
// spill file), pipelined and concurrent XRANGE/XREVRANGE/XREAD over old entries from several connections answer as a
// model says, in request order, while INFO's stream_spill_reads_waited_on_thread stays put and the read-ahead's reads
// (stream_spill_reads_async + stream_spill_reads_page_cache) rise; with the page-cache copy off (PageCacheFirst) every
// block goes through the asynchronous read. The group and info commands (XREADGROUP, XCLAIM, XAUTOCLAIM, XINFO STREAM
// FULL, XDEL) do the same. With the read-ahead off (StreamSpillFile.BlockReadAhead) the same reads are counted as
// waited on the thread.
using Garnet.client;
using Garnet.server.Objects.Streams;

namespace Garnet.test.Streams;

[TestFixture, NonParallelizable]
public class StreamSpillReadAheadTests
{
    private const int Entries = 40_000;
    private static readonly string Pad = new('a', 60);
    private string _dir = null!;

    [SetUp]
    public void NewDir() => _dir = Path.Combine(Path.GetTempPath(), "garnet-spillread-" + Guid.NewGuid().ToString("N"));

    [TearDown]
    public void RemoveDir()
    {
        StreamSpillFile.BlockReadAhead = true;
        StreamSpillFile.PageCacheFirst = true;
        try { Directory.Delete(_dir, true); } catch { }
    }

    private static long Info(RespClient c, string name)
    {
        foreach (var line in c.Execute("INFO", "stats").Text!.Split("\r\n"))
            if (line.StartsWith(name + ":")) return long.Parse(line[(name.Length + 1)..]);
        Assert.Fail("INFO has no " + name);
        return 0;
    }

    /// <summary>Blocks the read-ahead read: asynchronously, or copied from the page cache (where the file just written is).</summary>
    private static long ReadAhead(RespClient c) => Info(c, "stream_spill_reads_async") + Info(c, "stream_spill_reads_page_cache");

    private static TestServer Filled()
    {
        var server = new TestServer(o => o.Memory = "2mb");
        using var c = server.Client();
        for (int start = 1; start <= Entries; start += 1000)
        {
            for (int i = start; i < start + 1000; i++) c.Send("XADD", "big", $"{i}-0", "f", Pad, "n", i.ToString());
            for (int i = start; i < start + 1000; i++) Assert.That(c.Read().IsError, Is.False);
        }
        Assert.That(Info(c, "stream_spill_bytes"), Is.GreaterThan(2_000_000), "most of the stream is in the spill file");
        return server;
    }

    /// <summary>The IDs (and their "n" values) of a reply's entries.</summary>
    private static List<int> Ids(RespValue entries)
    {
        var ids = new List<int>();
        foreach (var e in entries.Elements ?? [])
        {
            int id = int.Parse(e.Elements![0].Text!.Split('-')[0]);
            Assert.That(e.Elements![1].Elements![3].Text, Is.EqualTo(id.ToString()), "the entry's values");
            ids.Add(id);
        }
        return ids;
    }

    /// <summary>One connection: rounds of pipelined range reads over old entries, each reply checked against the model.</summary>
    private static void ReadRounds(TestServer server, int seed, int rounds, int pipeline)
    {
        var rnd = new Random(seed);
        using var c = server.Client(30_000);
        for (int r = 0; r < rounds; r++)
        {
            var expected = new List<(string What, List<int> Ids, bool Xread)>();
            for (int p = 0; p < pipeline; p++)
            {
                int from = rnd.Next(1, Entries - 2000), span = rnd.Next(1, 400), count = rnd.Next(1, 60);
                switch (rnd.Next(3))
                {
                    case 0:
                        c.Send("XRANGE", "big", $"{from}", $"{from + span}", "COUNT", $"{count}");
                        expected.Add(($"XRANGE {from} {from + span} COUNT {count}", Enumerable.Range(from, Math.Min(span + 1, count)).ToList(), false));
                        break;
                    case 1:
                        c.Send("XREVRANGE", "big", $"{from + span}", $"{from}", "COUNT", $"{count}");
                        expected.Add(($"XREVRANGE {from + span} {from} COUNT {count}", Enumerable.Range(0, Math.Min(span + 1, count)).Select(i => from + span - i).ToList(), false));
                        break;
                    default:
                        c.Send("XREAD", "COUNT", $"{count}", "STREAMS", "big", $"{from}-0");
                        expected.Add(($"XREAD COUNT {count} {from}", Enumerable.Range(from + 1, count).ToList(), true));
                        break;
                }
            }
            foreach (var (what, ids, xread) in expected)
            {
                var reply = c.Read();
                Assert.That(reply.IsError, Is.False, what + ": " + reply.Text);
                var entries = xread ? reply.Elements![0].Elements![1] : reply;
                Assert.That(Ids(entries), Is.EqualTo(ids), what);
            }
        }
    }

    [TestCase(true)]
    [TestCase(false)]
    public void PipelinedAndConcurrentReadsOfOldEntriesWaitOnNoThread(bool pageCacheFirst)
    {
        StreamSpillFile.PageCacheFirst = pageCacheFirst;
        using var server = Filled();
        using var admin = server.Client();
        long waited = Info(admin, "stream_spill_reads_waited_on_thread"), ahead = ReadAhead(admin);

        ReadRounds(server, seed: 1, rounds: 20, pipeline: 1);
        ReadRounds(server, seed: 2, rounds: 10, pipeline: 16);
        Parallel.For(0, 6, new ParallelOptions { MaxDegreeOfParallelism = 6 }, i => ReadRounds(server, seed: 10 + i, rounds: 8, pipeline: i % 2 == 0 ? 16 : 3));

        Assert.That(Info(admin, "stream_spill_reads_waited_on_thread"), Is.EqualTo(waited), "no block was read on a request's thread");
        Assert.That(ReadAhead(admin), Is.GreaterThan(ahead + 100), "blocks were read ahead (asynchronously, or from the page cache without waiting)");
        if (!pageCacheFirst) Assert.That(Info(admin, "stream_spill_reads_async"), Is.GreaterThan(100), "through the disk reader");
    }

    [Test]
    public void GroupAndInfoCommandsReadOldBlocksAhead()
    {
        using var server = Filled();
        using var c = server.Client(30_000);
        long waited = Info(c, "stream_spill_reads_waited_on_thread");
        Assert.That(c.Execute("XGROUP", "CREATE", "big", "g", "0").Text, Is.EqualTo("OK"));
        // ">" from the group's start, then the consumer's history from an old ID, then a claim of old pending entries.
        Assert.That(Ids(c.Execute("XREADGROUP", "GROUP", "g", "alice", "COUNT", "50", "STREAMS", "big", ">").Elements![0].Elements![1]), Is.EqualTo(Enumerable.Range(1, 50).ToList()));
        Assert.That(Ids(c.Execute("XREADGROUP", "GROUP", "g", "alice", "COUNT", "10", "STREAMS", "big", "20-0").Elements![0].Elements![1]), Is.EqualTo(Enumerable.Range(21, 10).ToList()));
        Assert.That(Ids(c.Execute("XCLAIM", "big", "g", "bob", "0", "3-0", "7-0")), Is.EqualTo(new List<int> { 3, 7 }));
        Assert.That(Ids(c.Execute("XAUTOCLAIM", "big", "g", "carol", "0", "40-0", "COUNT", "5").Elements![1]), Is.EqualTo(Enumerable.Range(40, 5).ToList()));
        var full = c.Execute("XINFO", "STREAM", "big", "FULL", "COUNT", "3").Elements!;
        Assert.That(Ids(full[Array.FindIndex(full, e => e.Text == "entries") + 1]), Is.EqualTo(new List<int> { 1, 2, 3 }));
        var info = c.Execute("XINFO", "STREAM", "big").Elements!;
        Assert.That(info[Array.FindIndex(info, e => e.Text == "first-entry") + 1].Elements![0].Text, Is.EqualTo("1-0"));
        Assert.That(c.Execute("XDEL", "big", "1-0", "15000-0").Integer, Is.EqualTo(2));
        Assert.That(Ids(c.Execute("XRANGE", "big", "-", "3")), Is.EqualTo(new List<int> { 2, 3 }));
        Assert.That(Ids(c.Execute("XRANGE", "big", "14999", "15001")), Is.EqualTo(new List<int> { 14999, 15001 }));
        Assert.That(Info(c, "stream_spill_reads_waited_on_thread"), Is.EqualTo(waited), "no block was read on a request's thread");
    }

    [Test]
    public void WithoutTheReadAheadTheSameReadsWaitOnTheThread()
    {
        using var server = Filled();
        using var admin = server.Client();
        StreamSpillFile.BlockReadAhead = false;
        long waited = Info(admin, "stream_spill_reads_waited_on_thread");
        ReadRounds(server, seed: 1, rounds: 20, pipeline: 1);
        Assert.That(Info(admin, "stream_spill_reads_waited_on_thread"), Is.GreaterThan(waited), "the fallback is counted");
        // Inside MULTI/EXEC the blocks are read on the thread (counted), with the read-ahead on too.
        StreamSpillFile.BlockReadAhead = true;
        waited = Info(admin, "stream_spill_reads_waited_on_thread");
        admin.Execute("MULTI");
        admin.Execute("XRANGE", "big", "-", "+"); // more blocks than the cache holds
        var exec = admin.Execute("EXEC");
        Assert.That(Ids(exec.Elements![0]), Is.EqualTo(Enumerable.Range(1, Entries).ToList()));
        Assert.That(Info(admin, "stream_spill_reads_waited_on_thread"), Is.GreaterThan(waited), "EXEC reads on the thread, counted");
    }
}
