// FLUSHALL, and FLUSHDB of the only database with keys, give the store's memory back at once: the log's pages and the
// grown hash index (INFO's store_log_memory and store_index_memory), not a tombstone per key left for compaction.
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class FlushMemoryTests
{
    private const long MB = 1 << 20;
    private const int Keys = 800_000;

    private static void Load(RespClient c, string prefix, int keys)
    {
        const int perMset = 1000, inFlight = 8;
        int sent = 0, read = 0;
        for (int start = 0; start < keys; start += perMset)
        {
            var args = new List<object> { "MSET" };
            for (int i = start; i < Math.Min(keys, start + perMset); i++) { args.Add($"{prefix}{i:D7}"); args.Add($"value-{i:D7}-padding"); }
            c.Send(args.ToArray());
            if (++sent - read >= inFlight) { RespAssert.Simple(c.Read(), "OK"); read++; }
        }
        while (read < sent) { RespAssert.Simple(c.Read(), "OK"); read++; }
    }

    private static (long log, long index) StoreMemory(RespClient c)
    {
        var info = c.Execute("INFO", "memory").Text!;
        long Field(string name) => long.Parse(info.Split("\r\n").Single(l => l.StartsWith(name + ":"))[(name.Length + 1)..]);
        return (Field("store_log_memory"), Field("store_index_memory"));
    }

    /// <summary>The store's memory once it has dropped to at most the given figures, or what it was after timeout.</summary>
    private static (long log, long index) SettledMemory(RespClient c, long log, long index, TimeSpan timeout)
    {
        var (l, i) = StoreMemory(c);
        var until = DateTime.UtcNow + timeout;
        while ((l > log || i > index) && DateTime.UtcNow < until)
        {
            Thread.Sleep(50);
            (l, i) = StoreMemory(c);
        }
        return (l, i);
    }

    private static void AssertEmptiedAndUsable(RespClient c, string prefix)
    {
        RespAssert.Integer(c.Execute("DBSIZE"), 0);
        Assert.That(c.Execute("EXISTS", $"{prefix}{0:D7}", $"{prefix}{Keys / 2:D7}", $"{prefix}{Keys - 1:D7}").Integer, Is.Zero,
            "old keys are gone, on disk and in memory alike");
        RespAssert.Simple(c.Execute("SET", "after", "1"), "OK");
        Assert.That(c.Execute("GET", "after").Text, Is.EqualTo("1"));
        RespAssert.Integer(c.Execute("DBSIZE"), 1);
        Assert.That(c.Execute("SCAN", "0", "COUNT", "1000").Elements![1].Elements!.Select(e => e.Text), Is.EqualTo(new[] { "after" }));
    }

    [TestCase("FLUSHALL")]
    [TestCase("FLUSHALL", "ASYNC")]
    [TestCase("FLUSHDB")]
    public void FlushingEveryKeyGivesTheLogPagesAndTheGrownIndexBack(params string[] flush)
    {
        using var server = new TestServer(o => o.Memory = "64mb");
        using var c = server.Client(60_000);
        Load(c, "key:", Keys);
        var (logBefore, indexBefore) = StoreMemory(c);
        TestContext.Out.WriteLine($"loaded {Keys} keys: log pages {logBefore / MB} MB, index {indexBefore / MB} MB");
        Assert.That(logBefore, Is.GreaterThan(16 * MB), "the keys fill many pages");
        Assert.That(indexBefore, Is.GreaterThan(6 * MB), "the index grew past its initial 4 MB");

        RespAssert.Simple(c.Execute(flush), "OK");
        // At most the new tail page (4 MB), and the index's initial table (4 MB) with a chunk of overflow buckets.
        var (log, index) = SettledMemory(c, 4 * MB, 4 * MB + MB / 4, TimeSpan.FromSeconds(5));
        TestContext.Out.WriteLine($"after {string.Join(' ', flush)}: log pages {log / MB} MB, index {index / MB} MB");
        Assert.That(log, Is.LessThanOrEqualTo(4 * MB), "the pages of the flushed keys went back");
        Assert.That(index, Is.LessThanOrEqualTo(4 * MB + MB / 4), "the index is back to its initial size");
        AssertEmptiedAndUsable(c, "key:");
    }

    [Test, CancelAfter(60_000)]
    public void FlushallWhileClientsWriteAndReadKeepsDbsizeEqualToTheKeysThere()
    {
        // A small budget: reads and writes go to disk (pending operations) while the store is cleared under them.
        using var server = new TestServer(o => o.Memory = "16mb");
        using (var c = server.Client(60_000)) Load(c, "seed:", 200_000);
        var stop = new CancellationTokenSource();
        var errors = new System.Collections.Concurrent.ConcurrentQueue<string>();
        var clients = Enumerable.Range(0, 4).Select(t => Task.Run(() =>
        {
            using var c = server.Client(60_000);
            var rnd = new Random(t);
            while (!stop.IsCancellationRequested)
            {
                string key = rnd.Next(3) == 0 ? $"seed:{rnd.Next(200_000):D7}" : $"k{t}:{rnd.Next(5000)}";
                var reply = (rnd.Next(6)) switch
                {
                    0 or 1 => c.Execute("GET", key),
                    2 => c.Execute("SET", key, new string('v', rnd.Next(1, 200))),
                    3 => c.Execute("DEL", key),
                    4 => c.Execute("INCR", $"n{t}:{rnd.Next(100)}"),
                    _ => c.Execute("MGET", key, $"k{t}:{rnd.Next(5000)}", $"seed:{rnd.Next(200_000):D7}"),
                };
                if (reply.IsError) errors.Enqueue(reply.Text!);
            }
        })).ToArray();
        using (var c = server.Client(60_000))
        {
            for (int i = 0; i < 20; i++)
            {
                Thread.Sleep(100);
                RespAssert.Simple(c.Execute("FLUSHALL"), "OK");
            }
            Thread.Sleep(300); // writes after the last clear too
            stop.Cancel();
            Task.WaitAll(clients);
            Assert.That(errors, Is.Empty);
            long dbsize = c.Execute("DBSIZE").Integer;
            long keys = c.Execute("KEYS", "*").Elements!.Length;
            TestContext.Out.WriteLine($"after 20 FLUSHALLs under load: DBSIZE {dbsize}, KEYS {keys}");
            Assert.That(dbsize, Is.EqualTo(keys), "the key count stayed exact across the clears");
            Assert.That(keys, Is.GreaterThan(100), "the clients wrote after the last clear");
            RespAssert.Simple(c.Execute("FLUSHALL"), "OK");
            RespAssert.Integer(c.Execute("DBSIZE"), 0);
        }
    }

    [Test]
    public void FlushdbWithKeysInAnotherDatabaseKeepsThemAndDeletesItsOwnInTheBackground()
    {
        using var server = new TestServer(o => o.Memory = "64mb");
        using var c = server.Client(60_000);
        RespAssert.Simple(c.Execute("SELECT", "3"), "OK");
        RespAssert.Simple(c.Execute("SET", "kept", "in three"), "OK");
        RespAssert.Simple(c.Execute("SELECT", "0"), "OK");
        Load(c, "key:", 50_000);
        RespAssert.Simple(c.Execute("FLUSHDB", "SYNC"), "OK");
        RespAssert.Integer(c.Execute("DBSIZE"), 0);
        RespAssert.Integer(c.Execute("EXISTS", "key:0000000"), 0);
        RespAssert.Simple(c.Execute("SELECT", "3"), "OK");
        Assert.That(c.Execute("GET", "kept").Text, Is.EqualTo("in three"), "the other database was not flushed");
        RespAssert.Integer(c.Execute("DBSIZE"), 1);
        RespAssert.Simple(c.Execute("FLUSHALL"), "OK");
        RespAssert.Integer(c.Execute("DBSIZE"), 0);
    }
}
