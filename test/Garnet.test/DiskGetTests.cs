// A GET of a key on disk parks its connection (no thread waits) and finishes on the connection's own thread once the read
// is done (RespServerSession.ReplyWhenReadsDone, DeferredReads): on both network engines, from several clients at pipeline
// 1 and pipelined, every reply is the key's value, in order, and a GET at pipeline 1 allocates next to nothing (the GC's
// committed memory under a disk-bound load follows allocation: configuration.md, "What the process takes beyond it").
// On the epoll engine with io_uring, the reads go through the loop's own ring (LoopDiskReads).
using Garnet.client;

namespace Garnet.test;

[TestFixture("epoll")]
[TestFixture("sockets")]
public class DiskGetTests(string engine)
{
    private TestServer _server = null!;
    private const int Keys = 100_000;

    private static string Value(int i) => $"v{i}:" + new string((char)('a' + i % 26), 300);

    [OneTimeSetUp]
    public void Start()
    {
        _server = new TestServer(o => { o.NetworkEngine = engine; o.NetworkThreads = 1; o.Memory = "4mb"; });
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        for (int start = 0; start < Keys; start += 500)
        {
            for (int i = start; i < start + 500; i++) c.Send("SET", "dg:" + i, Value(i));
            for (int i = start; i < start + 500; i++) Assert.That(c.Read().Text, Is.EqualTo("OK"));
        }
        var log = _server.Server.Server.Store.Store.Log;
        Assume.That(log.HeadAddress, Is.GreaterThan(log.TailAddress / 2), "most records left memory");
    }

    [OneTimeTearDown]
    public void Stop() => _server.Dispose();

    private long Info(RespClient c, string section, string field)
    {
        var line = c.Execute("INFO", section).Text!.Split("\r\n").Single(l => l.StartsWith(field + ":"));
        return long.Parse(line[(field.Length + 1)..]);
    }

    [Test, CancelAfter(120_000)]
    public void GetsOfKeysOnDiskFromSeveralClientsReplyInOrder()
    {
        using var stats = new RespClient("127.0.0.1", _server.Port, 60_000);
        long readsBefore = Info(stats, "stats", "disk_reads"), waitedBefore = Info(stats, "stats", "disk_reads_waited_on_thread");
        long loopRingBefore = Info(stats, "stats", "disk_reads_on_loop_rings");
        var workers = Enumerable.Range(0, 6).Select(w => Task.Run(() =>
        {
            using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
            int wrong = 0;
            var rng = new Random(w);
            for (int n = 0; n < 300; n++)
            {
                int i = rng.Next(Keys);
                if (c.Execute("GET", "dg:" + i).Text != Value(i)) wrong++; // pipeline 1
                if (n % 30 == 0)
                {
                    var batch = Enumerable.Range(0, 20).Select(_ => rng.Next(Keys)).ToArray(); // pipelined
                    foreach (int k in batch) c.Send("GET", "dg:" + k);
                    foreach (int k in batch) if (c.Read().Text != Value(k)) wrong++;
                }
                if (n % 50 == 0 && c.Execute("GET", "dg:missing" + n).IsNull is false) wrong++;
            }
            return wrong;
        })).ToArray();
        Task.WaitAll(workers);
        Assert.That(workers.Sum(t => t.Result), Is.EqualTo(0));
        Assert.That(Info(stats, "stats", "disk_reads") - readsBefore, Is.GreaterThan(1000), "the GETs went to the disk");
        Assert.That(Info(stats, "stats", "disk_reads_waited_on_thread"), Is.EqualTo(waitedBefore), "no thread waited for a read");
        long viaLoopRings = Info(stats, "stats", "disk_reads_on_loop_rings") - loopRingBefore;
        bool uring = stats.Execute("INFO", "stats").Text!.Contains("disk_read_engine:io_uring");
        if (engine == "epoll" && uring)
            Assert.That(viaLoopRings, Is.GreaterThan(1000), "the epoll loop read through its own ring (LoopDiskReads)");
        else Assert.That(viaLoopRings, Is.EqualTo(0), "only epoll loops have rings of their own");
    }

    [Test, CancelAfter(120_000)]
    public void AScriptWaitingOnItsThreadForKeysOnDiskAndGetsOfOtherClientsAllFinish()
    {
        // A key a script names only in ARGV is read on the script's thread, which hands its loop to another thread while
        // it waits (LoopRelease). On epoll with a loop ring, the read went into the loop's ring before the hand-over: the
        // new holder submits and reaps it, and wakes the script. Meanwhile other clients' GETs of keys on disk go on.
        using var stats = new RespClient("127.0.0.1", _server.Port, 60_000);
        long waitedBefore = Info(stats, "stats", "disk_reads_waited_on_thread");
        const string Script = "local out = {} for i, k in ipairs(ARGV) do out[i] = redis.call('GET', k) end return out";
        var scripts = Task.Run(() =>
        {
            using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
            var rng = new Random(99);
            int wrong = 0;
            for (int n = 0; n < 40; n++)
            {
                var keys = Enumerable.Range(0, 5).Select(_ => rng.Next(Keys)).ToArray();
                var reply = c.Execute(new object[] { "EVAL", Script, "0" }.Concat(keys.Select(k => (object)("dg:" + k))).ToArray());
                var items = reply.Elements!;
                for (int j = 0; j < keys.Length; j++) if (items[j].Text != Value(keys[j])) wrong++;
            }
            return wrong;
        });
        var gets = Enumerable.Range(0, 3).Select(w => Task.Run(() =>
        {
            using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
            var rng = new Random(200 + w);
            int wrong = 0;
            for (int n = 0; n < 300; n++)
            {
                int i = rng.Next(Keys);
                if (c.Execute("GET", "dg:" + i).Text != Value(i)) wrong++;
            }
            return wrong;
        })).ToArray();
        Assert.That(scripts.Result, Is.EqualTo(0), "every script read its keys' values");
        Assert.That(gets.Sum(t => t.Result), Is.EqualTo(0));
        Assert.That(Info(stats, "stats", "disk_reads_waited_on_thread") - waitedBefore, Is.GreaterThan(20),
            "the scripts' reads waited on their thread (the path under test)");
    }

    [Test, CancelAfter(120_000)]
    public void AGetOfAKeyOnDiskAtPipelineOneAllocatesNextToNothing()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        for (int i = 0; i < 2000; i++) c.Execute("GET", "dg:" + (i * 13 % Keys)); // warm up: code tiers up, buffers exist
        // Three windows, the least counts: the count is the process's, and the test host's own work (it reports the
        // previous fixture's results on a thread of its own) can fall into one window; what each GET allocates falls
        // into every one.
        const int Gets = 1000;
        double least = double.MaxValue;
        int wrong = 0;
        var lines = new List<string>(3); // written after the windows: a written line is sent on the host's thread
        for (int window = 0; window < 3; window++)
        {
            long readsBefore = Info(c, "stats", "disk_reads");
            // The server runs in this process: what this (client) thread allocates is taken out of the process's total.
            long totalBefore = GC.GetTotalAllocatedBytes(precise: true), clientBefore = GC.GetAllocatedBytesForCurrentThread();
            for (int i = window * Gets; i < (window + 1) * Gets; i++)
            {
                int k = (i * 7919 + 11) % Keys;
                if (c.Execute("GET", "dg:" + k).Text != Value(k)) wrong++;
            }
            long allocated = GC.GetTotalAllocatedBytes(precise: true) - totalBefore - (GC.GetAllocatedBytesForCurrentThread() - clientBefore);
            long reads = Info(c, "stats", "disk_reads") - readsBefore;
            Assert.That(reads, Is.GreaterThan(Gets / 2), "most GETs read the disk");
            lines.Add($"{engine}: {reads} disk reads, {allocated} bytes allocated for {Gets} GETs ({(double)allocated / Gets:F1} per GET)");
            least = Math.Min(least, (double)allocated / Gets);
        }
        foreach (var line in lines) TestContext.Out.WriteLine(line);
        Assert.That(wrong, Is.EqualTo(0));
        // Before: about 900 bytes per GET of a key on disk (Tasks, state machines, closures), then 240. The server's
        // timers (INFO's peak sampling) allocate a little meanwhile.
        Assert.That(least, Is.LessThan(40));
    }

    [Test, CancelAfter(120_000)]
    public void PipelinedGetsOfKeysOnDiskAllocateNextToNothing()
    {
        // A batch whose keys are on disk is read ahead first (ReadAhead), then runs: the wait for those reads is the same
        // reusable one as a single GET's.
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        void Batch(int first)
        {
            for (int j = 0; j < 16; j++) c.Send("GET", "dg:" + ((first + j) * 7919 % Keys));
            for (int j = 0; j < 16; j++)
            {
                int k = (first + j) * 7919 % Keys;
                if (c.Read().Text != Value(k)) Interlocked.Increment(ref _wrong);
            }
        }
        for (int i = 0; i < 100; i++) Batch(50_000 + i * 16); // warm up
        // Three windows, the least counts: a one-time growth (a queue's array) or a background timer's allocation falls
        // into one window; what each GET allocates falls into every one (before: 21.5 and 35.3 bytes per GET).
        const int Batches = 200;
        double least = double.MaxValue;
        for (int window = 0; window < 3; window++)
        {
            long readsBefore = Info(c, "stats", "disk_reads");
            long totalBefore = GC.GetTotalAllocatedBytes(precise: true), clientBefore = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < Batches; i++) Batch((window * Batches + i) * 16);
            long allocated = GC.GetTotalAllocatedBytes(precise: true) - totalBefore - (GC.GetAllocatedBytesForCurrentThread() - clientBefore);
            long reads = Info(c, "stats", "disk_reads") - readsBefore;
            Assert.That(reads, Is.GreaterThan(Batches * 16 / 2), "most GETs read the disk");
            TestContext.Out.WriteLine($"{engine}: {reads} disk reads, {allocated} bytes allocated for {Batches * 16} pipelined GETs ({(double)allocated / (Batches * 16):F1} per GET)");
            least = Math.Min(least, (double)allocated / (Batches * 16));
        }
        Assert.That(_wrong, Is.EqualTo(0));
        Assert.That(least, Is.LessThan(10));
    }

    private int _wrong;
}
