// CveReplaySlowTests: the CVE triggers of CveReplayTests at sizes closer to Redis's own (hundreds of MB instead of a few),
// and the variants of the same classes that freeze a server rather than crash it. Same invariants as CveReplayTests:
// the server answers, stays up, and a second client's PING is answered within LatencyBound throughout. Category
// Faults: each takes seconds and hundreds of MB.
using System.Text;
using Garnet.client;

namespace Garnet.test.Security;

[TestFixture, Category("Faults")]
public class CveReplaySlowTests : HostileServerFixture
{
    // Trigger: stream, hash and list fields of 100 MB each (Redis's test: 500 MB to 5 GB fields).
    [Test, CancelAfter(180_000)]
    public void CVE_2021_32627_32628_HundredMegabyteFields()
    {
        using var c = Client(120_000);
        using var watch = SecondClientWatch.Start(Server.Port);
        byte[] big = new byte[100 << 20];
        Array.Fill(big, (byte)'x');
        Assert.That(Reply(c, "XADD", "S", "*", "1", big).Type, Is.EqualTo(RespType.BulkString));
        RespAssert.Integer(Reply(c, "HSET", "H", "A", big), 1);
        RespAssert.Integer(Reply(c, "LPUSH", "L", big), 1);
        RespAssert.Integer(Reply(c, "HSTRLEN", "H", "A"), big.Length);
        RespAssert.Integer(Reply(c, "DEL", "S", "H", "L"), 3);
        watch.AssertServedWithin(LatencyBound, "100 MB stream, hash and list fields were written");
        AssertStillServing();
    }

    // Trigger: set-max-intset-entries 2^31-1 and SADD of 100k integers into an intset of 100k (90 s here once, Redis 0.17 s).
    [Test, CancelAfter(180_000)]
    public void CVE_2021_32687_HundredThousandIntset()
    {
        using var c = Client(120_000);
        RespAssert.Simple(Reply(c, "CONFIG", "SET", "set-max-intset-entries", "2147483647"), "OK");
        const int N = 100_000;
        var (evens, odds) = IntsetHalves(N);
        RespAssert.Integer(Reply(c, evens), N);
        using var watch = SecondClientWatch.Start(Server.Port);
        RespAssert.Integer(Reply(c, odds), N);
        watch.AssertServedWithin(LatencyBound, $"SADD of {N} integers into an intset of {N}");
        AssertStillServing();
    }

    // Trigger: a finalizer that loops forever, run by a forced collection (and a sort comparator that does): both must stay killable.
    [Test, CancelAfter(120_000)]
    public void CVE_2024_46981_EndlessFinalizerIsKillable()
    {
        using var c = Client(60_000);
        RespAssert.Simple(Reply(c, "CONFIG", "SET", "busy-reply-threshold", "200"), "OK");
        foreach (var script in new[]
        {
            "setmetatable({}, {__gc = function() while true do end end}) collectgarbage() return 1",
            "local p = newproxy(true) getmetatable(p).__gc = function() while true do end end p = nil collectgarbage() return 1",
            "local t = {3, 2, 1, 5, 4} table.sort(t, function(a, b) while true do end end) return 1",
        })
        {
            using var watch = SecondClientWatch.Start(Server.Port);
            c.Send("EVAL", script, "0");
            using (var killer = Client(10_000))
            {
                // Until the script runs past busy-reply-threshold (PING is answered BUSY) or has already ended (its reply is
                // there: a finalizer that is never run, or Redis 7.0.15, which has no table finalizers).
                Poll.True(() => c.Socket.Available > 0 || killer.Execute("PING").IsError, "the script to run or end");
                var kill = Reply(killer, "SCRIPT", "KILL");
                // Redis 7.0.15 (Lua 5.1, no table finalizers) answers NOTBUSY to the first two, OK to the comparator.
                Assert.That(kill.Text, Is.EqualTo("OK").Or.StartWith("NOTBUSY"), $"{script}: SCRIPT KILL got {kill}");
            }
            var reply = c.Read();
            Assert.That(reply.Type == RespType.Integer || reply.IsError && reply.Text!.StartsWith("ERR Script killed by user with SCRIPT KILL"), Is.True, $"{script}: {reply}");
            // PING may wait busy-reply-threshold before BUSY is answered.
            watch.AssertServedWithin(LatencyBound, script);
        }
        Reply(c, "CONFIG", "SET", "busy-reply-threshold", "5000");
        AssertStillServing();
    }
}

// Trigger for CVE-2022-36021 with part of the data on disk, where the recursive matcher once overflowed
// a reader thread's stack.
[TestFixture, Category("Faults")]
public class CveReplayDiskTests : HostileServerFixture
{
    protected override string ServerArgs => "--memory 16mb";

    // Trigger: KEYS and SCAN MATCH with '*?' x 600 (and longer) over 2,000-byte keys while 48 MB of keys and values are partly on disk.
    [Test, CancelAfter(180_000)]
    public void CVE_2022_36021_DeepPatternOverDiskData()
    {
        using var c = Client(60_000);
        var value = new string('v', 10_000);
        for (int batch = 0; batch < 40; batch++)
        {
            var mset = new List<object> { "MSET" };
            for (int i = 0; i < 100; i++) { mset.Add($"key:{batch}:{i}:" + new string('a', 2000)); mset.Add(value); }
            RespAssert.Simple(Reply(c, mset.ToArray()), "OK");
        }
        using var watch = SecondClientWatch.Start(Server.Port);
        foreach (int n in new[] { 600, 5000 })
        {
            string deep = string.Concat(Enumerable.Repeat("*?", n));
            var keys = Reply(c, "KEYS", deep);
            Assert.That(keys.IsError, Is.False, keys.ToString());
            var scan = Reply(c, "SCAN", "0", "MATCH", deep, "COUNT", "10000");
            Assert.That(scan.IsError, Is.False, scan.ToString());
            AssertAlive($"KEYS/SCAN with '*?' x {n}");
        }
        string backtrack = string.Concat(Enumerable.Repeat("a*", 20)) + "b";
        Assert.That(Reply(c, "KEYS", backtrack).Elements, Is.Empty);
        watch.AssertServedWithin(LatencyBound, "KEYS with deep patterns over data on disk");
        AssertStillServing();
    }
}
