// Commands on keys whose records are on disk do not hold the connection's thread while the disk is read (ReadAhead):
// their keys are read into memory first, the requests then run in order, and no request thread waits for a read
// (INFO's disk_reads_waited_on_thread stays put). Other connections are served meanwhile.
using Garnet.client;
using Garnet.Options;

namespace Garnet.test;

[TestFixture]
public class DiskReadAheadTests : ServerFixture
{
    private const int Keys = 40_000;

    protected override void Configure(GarnetServerOptions options) => options.Memory = "8mb";

    private static string Value(int i) => $"v{i}-" + new string((char)('a' + i % 26), 600);

    [OneTimeSetUp]
    public void Load()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        // Keys last accessed a day ago, written first so that they are on disk (IdleTimeOfAKeyKeptOutOfMemory).
        c.Execute("SET", "idle:source", "v");
        var dump = c.Execute("DUMP", "idle:source").Bytes!;
        foreach (var k in new[] { "idle:read", "idle:looked" }) Assert.That(c.Execute("RESTORE", k, "0", dump, "IDLETIME", "86400").Text, Is.EqualTo("OK"));
        for (int start = 0; start < Keys; start += 500)
        {
            for (int i = start; i < start + 500; i++)
            {
                c.Send("SET", "s:" + i, Value(i));
                if (i % 50 == 0) c.Send("HSET", "h:" + i, "f", "hv" + i, "pad", Value(i));
                if (i % 50 == 0) c.Send("RPUSH", "l:" + i, "a" + i, "b" + i, Value(i));
                if (i % 50 == 0) c.Send("SET", "n:" + i, i.ToString());
            }
            for (int i = start; i < start + 500; i++)
            {
                Assert.That(c.Read().IsError, Is.False);
                if (i % 50 == 0) { c.Read(); c.Read(); c.Read(); }
            }
        }
        var log = _server.Server.Server.Store.Store.Log;
        Assume.That(log.HeadAddress, Is.GreaterThan(log.TailAddress / 2), "most records left memory");
    }

    private long Info(RespClient c, string field)
    {
        string text = c.Execute("INFO", "stats").Text!;
        var line = text.Split("\r\n").Single(l => l.StartsWith(field + ":"));
        return long.Parse(line[(field.Length + 1)..]);
    }

    [Test, CancelAfter(120_000)]
    public void PipelinedCommandsOnDiskKeysReplyInOrderWithoutWaitingOnTheThread()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        long waitedBefore = Info(c, "disk_reads_waited_on_thread"), readsBefore = Info(c, "disk_reads");
        // The oldest keys are on disk. A mix of string, key, hash, list and counter commands, pipelined.
        var expected = new List<Action<RespValue>>();
        for (int i = 0; i < 2000; i += 50)
        {
            int k = i;
            c.Send("STRLEN", "s:" + k); expected.Add(r => Assert.That(r.Integer, Is.EqualTo(Value(k).Length), "STRLEN s:" + k));
            c.Send("GETRANGE", "s:" + (k + 1), "0", "5"); expected.Add(r => Assert.That(r.Text, Is.EqualTo(Value(k + 1)[..6])));
            c.Send("MGET", "s:" + (k + 2), "s:" + (k + 3), "missing"); expected.Add(r =>
            {
                Assert.That(r.Elements![0].Text, Is.EqualTo(Value(k + 2)));
                Assert.That(r.Elements![1].Text, Is.EqualTo(Value(k + 3)));
                Assert.That(r.Elements![2].IsNull, Is.True);
            });
            c.Send("EXISTS", "s:" + (k + 4), "s:" + (k + 5)); expected.Add(r => Assert.That(r.Integer, Is.EqualTo(2)));
            c.Send("TYPE", "h:" + k); expected.Add(r => Assert.That(r.Text, Is.EqualTo("hash")));
            c.Send("HGET", "h:" + k, "f"); expected.Add(r => Assert.That(r.Text, Is.EqualTo("hv" + k)));
            c.Send("LRANGE", "l:" + k, "0", "1"); expected.Add(r => Assert.That(r.Elements!.Select(e => e.Text), Is.EqualTo(new[] { "a" + k, "b" + k })));
            c.Send("INCR", "n:" + k); expected.Add(r => Assert.That(r.Integer, Is.EqualTo(k + 1)));
            c.Send("APPEND", "s:" + (k + 6), "!"); expected.Add(r => Assert.That(r.Integer, Is.EqualTo(Value(k + 6).Length + 1)));
            c.Send("GET", "s:" + (k + 6)); expected.Add(r => Assert.That(r.Text, Is.EqualTo(Value(k + 6) + "!")));
            c.Send("SET", "new:" + k, "x"); expected.Add(r => Assert.That(r.Text, Is.EqualTo("OK")));
            c.Send("INCRBY", "cnt:" + k, "5"); expected.Add(r => Assert.That(r.Integer, Is.EqualTo(5)));
        }
        foreach (var check in expected) check(c.Read());
        long waited = Info(c, "disk_reads_waited_on_thread") - waitedBefore, reads = Info(c, "disk_reads") - readsBefore;
        TestContext.Out.WriteLine($"{expected.Count} commands, {reads} disk reads, {waited} waited on the thread");
        Assert.That(reads, Is.GreaterThanOrEqualTo(40 * 6), "the keys were read from disk");
        Assert.That(waited, Is.EqualTo(0), "no command waited for the disk on its thread");
    }

    // Keys s:21000 and up are on disk and read by no other test here (the read admission remembers misses).
    [Test, CancelAfter(120_000)]
    public void AKeyReadOnceStaysOutOfMemoryAndASecondMissBringsItIn()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        var log = _server.Server.Server.Store.Store.Log;
        long waitedBefore = Info(c, "disk_reads_waited_on_thread");
        const string key = "s:21000";
        long reads = Info(c, "disk_reads"), tail = log.TailAddress;
        Assert.That(c.Execute("GET", key).Text, Is.EqualTo(Value(21000)));
        Assert.That(Info(c, "disk_reads") - reads, Is.EqualTo(1), "read from disk");
        Assert.That(log.TailAddress, Is.EqualTo(tail), "a key missed once is answered without a copy to the tail");

        reads = Info(c, "disk_reads");
        Assert.That(c.Execute("GET", key).Text, Is.EqualTo(Value(21000)));
        Assert.That(Info(c, "disk_reads") - reads, Is.EqualTo(1), "still on disk");
        Assert.That(log.TailAddress, Is.GreaterThan(tail), "the second miss copied it to the tail");

        reads = Info(c, "disk_reads");
        Assert.That(c.Execute("GET", key).Text, Is.EqualTo(Value(21000)));
        Assert.That(c.Execute("STRLEN", key).Integer, Is.EqualTo(Value(21000).Length));
        Assert.That(Info(c, "disk_reads") - reads, Is.EqualTo(0), "now answered from memory");
        Assert.That(Info(c, "disk_reads_waited_on_thread") - waitedBefore, Is.EqualTo(0));
    }

    [Test, CancelAfter(120_000)]
    public void IdleTimeOfAKeyKeptOutOfMemoryCountsFromItsLastRead()
    {
        // A GET of a key on disk is answered from bytes the session drops after the request (the key stays out of memory
        // until its second miss); its touch must still count, as in Redis: OBJECT IDLETIME after a GET is 0. OBJECT
        // IDLETIME itself does not touch. Both keys were last accessed a day ago (RESTORE ... IDLETIME) and are on disk.
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        var log = _server.Server.Server.Store.Store.Log;
        long tail = log.TailAddress;
        Assert.That(c.Execute("GET", "idle:read").Text, Is.EqualTo("v"));
        Assert.That(log.TailAddress, Is.EqualTo(tail), "the GET left the key out of memory");
        Assert.That(c.Execute("OBJECT", "IDLETIME", "idle:read").Integer, Is.InRange(0, 1), "the GET touched the key");
        Assert.That(c.Execute("OBJECT", "IDLETIME", "idle:read").Integer, Is.InRange(0, 1), "and still counts once it is in memory");
        Assert.That(c.Execute("OBJECT", "IDLETIME", "idle:looked").Integer, Is.InRange(86400, 86500));
        Assert.That(c.Execute("OBJECT", "IDLETIME", "idle:looked").Integer, Is.InRange(86400, 86500), "looking does not touch");
    }

    [Test, CancelAfter(120_000)]
    public void ReadsOfKeysKeptOutOfMemoryRepeatAndOverflowWithoutWaitingOnTheThread()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        long waitedBefore = Info(c, "disk_reads_waited_on_thread"), readsBefore = Info(c, "disk_reads");
        // One key twice in one command and in two pipelined commands, then a write on it; then more keys in one MGET
        // than a session keeps out of memory (the rest are copied to the tail as before).
        c.Send("MGET", "s:22000", "s:22000");
        c.Send("GET", "s:22001");
        c.Send("GET", "s:22001");
        c.Send("STRLEN", "s:22002");
        c.Send("APPEND", "s:22002", "!");
        c.Send("GET", "s:22002");
        var many = Enumerable.Range(22100, 120).Select(i => "s:" + i).ToArray();
        c.Send(["MGET", .. many]);
        c.Send("GET", "s:22003");
        Assert.That(c.Read().Elements!.Select(e => e.Text), Is.EqualTo(new[] { Value(22000), Value(22000) }));
        Assert.That(c.Read().Text, Is.EqualTo(Value(22001)));
        Assert.That(c.Read().Text, Is.EqualTo(Value(22001)));
        Assert.That(c.Read().Integer, Is.EqualTo(Value(22002).Length));
        Assert.That(c.Read().Integer, Is.EqualTo(Value(22002).Length + 1));
        Assert.That(c.Read().Text, Is.EqualTo(Value(22002) + "!"));
        Assert.That(c.Read().Elements!.Select(e => e.Text), Is.EqualTo(Enumerable.Range(22100, 120).Select(Value)));
        Assert.That(c.Read().Text, Is.EqualTo(Value(22003)));
        Assert.That(Info(c, "disk_reads") - readsBefore, Is.GreaterThanOrEqualTo(124), "the keys were read from disk");
        Assert.That(Info(c, "disk_reads_waited_on_thread") - waitedBefore, Is.EqualTo(0), "no command waited for the disk on its thread");
    }

    [Test, CancelAfter(120_000)]
    public void ExecReadsItsQueuedKeysBeforeItRuns()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        long waitedBefore = Info(c, "disk_reads_waited_on_thread"), readsBefore = Info(c, "disk_reads");
        RespAssert.Simple(c.Execute("MULTI"), "OK");
        for (int k = 3000; k < 3100; k += 10) Assert.That(c.Execute("STRLEN", "s:" + k).Text, Is.EqualTo("QUEUED"));
        Assert.That(c.Execute("HGET", "h:3000", "f").Text, Is.EqualTo("QUEUED"));
        var exec = c.Execute("EXEC");
        Assert.That(exec.Elements!.Take(10).Select(e => e.Integer), Is.EqualTo(Enumerable.Range(0, 10).Select(n => (long)Value(3000 + n * 10).Length)));
        Assert.That(exec.Elements![10].Text, Is.EqualTo("hv3000"));
        Assert.That(Info(c, "disk_reads") - readsBefore, Is.GreaterThanOrEqualTo(10), "the keys were read from disk");
        Assert.That(Info(c, "disk_reads_waited_on_thread") - waitedBefore, Is.EqualTo(0), "EXEC did not wait for the disk under its locks");
    }

    [Test, CancelAfter(120_000)]
    public void ScriptReadsItsDeclaredKeysBeforeItRuns()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        long waitedBefore = Info(c, "disk_reads_waited_on_thread");
        var r = c.Execute("EVAL", "return {redis.call('GET', KEYS[1]), redis.call('HGET', KEYS[2], 'f')}", "2", "s:5000", "h:5000");
        Assert.That(r.Elements!.Select(e => e.Text), Is.EqualTo(new[] { Value(5000), "hv5000" }));
        Assert.That(Info(c, "disk_reads_waited_on_thread") - waitedBefore, Is.EqualTo(0), "the script did not wait for the disk under its locks");
    }

    [Test, CancelAfter(120_000)]
    public void KeysScanAndRandomKeyOverALogMostlyOnDisk()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        Assert.That(c.Execute("KEYS", "h:*").Elements!.Length, Is.EqualTo(Keys / 50));
        var lists = new HashSet<string>();
        string cursor = "0";
        do
        {
            var r = c.Execute("SCAN", cursor, "MATCH", "[lh]:*", "COUNT", "5000", "TYPE", "list");
            cursor = r.Elements![0].Text!;
            foreach (var k in r.Elements[1].Elements!) lists.Add(k.Text!);
        }
        while (cursor != "0");
        Assert.That(lists, Has.Count.EqualTo(Keys / 50));
        Assert.That(lists.All(k => k.StartsWith("l:")));
        string? random = c.Execute("RANDOMKEY").Text;
        Assert.That(c.Execute("EXISTS", random!).Integer, Is.EqualTo(1));
    }

    [Test, CancelAfter(120_000)]
    public void ManyConnectionsReadingDiskKeysAllGetTheirValues()
    {
        var tasks = Enumerable.Range(0, 16).Select(t => Task.Run(() =>
        {
            using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
            var rnd = new Random(t);
            for (int n = 0; n < 150; n++)
            {
                int k = rnd.Next(20_000);
                Assert.That(c.Execute("GETRANGE", "s:" + k, "0", "-1").Text, Does.StartWith($"v{k}-"));
            }
        })).ToArray();
        Assert.That(Task.WaitAll(tasks, TimeSpan.FromSeconds(100)), "every connection finished");
    }
}
