// An exception at a thread or callback entry point of the server (the cron, a network loop, a session, the
// accept loop, a timer, the AOF writer, a disk read's or a page flush's completion) is logged and ends at most the
// connection concerned, never the process. Each test arms a fault point (FaultPoints / StorageFaults.Inject), drives
// the path, and checks through clients that the server serves on. In process: an exception that escaped would end the
// test host itself (the run would abort, not just fail).
using Garnet.client;
using Garnet.common.Util;
using Garnet.storage.Util;

namespace Garnet.test;

[TestFixture("epoll")]
[TestFixture("sockets")]
[NonParallelizable]
public class FaultContainmentTests(string engine)
{
    private TestServer _server = null!;

    [OneTimeSetUp]
    public void Start() => _server = new TestServer(o => { o.NetworkEngine = engine; o.NetworkThreads = 1; o.Memory = "4mb"; o.Aof = true; });

    [OneTimeTearDown]
    public void Stop() => _server.Dispose();

    [SetUp]
    public void Arm() => StorageFaults.Inject = FaultPoints.Hit;

    [TearDown]
    public void Disarm()
    {
        FaultPoints.DisarmAll();
        StorageFaults.Inject = null;
    }

    private void StillServing()
    {
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("SET", "fc:alive", "yes"), "OK");
        RespAssert.Bulk(c.Execute("GET", "fc:alive"), "yes");
    }

    private static void Until(Func<bool> condition, string what, int ms = 10_000)
    {
        var sw = System.Diagnostics.Stopwatch.StartNew();
        while (!condition())
        {
            if (sw.ElapsedMilliseconds > ms) Assert.Fail("timed out waiting for " + what);
            Thread.Sleep(10);
        }
    }

    [Test]
    public void AFailingSessionClosesOnlyItsConnection()
    {
        using var other = _server.Client();
        RespAssert.Simple(other.Execute("PING"), "PONG");
        using var victim = _server.Client(3000);
        RespAssert.Simple(victim.Execute("PING"), "PONG");
        FaultPoints.Arm("session");
        Assert.Catch(() => victim.Execute("PING"), "the connection whose session failed is closed");
        Assert.That(FaultPoints.Thrown("session"), Is.EqualTo(1));
        RespAssert.Simple(other.Execute("PING"), "PONG");
        StillServing();
    }

    [Test]
    public void AFailingCommandAnswersAnErrorAndKeepsTheConnection()
    {
        using var c = _server.Client();
        FaultPoints.Arm("command");
        var reply = c.Execute("PING");
        Assert.That(reply.IsError, reply.ToString());
        Assert.That(reply.Text, Does.StartWith("ERR internal error while running 'ping'"));
        RespAssert.Simple(c.Execute("PING"), "PONG");
        StillServing();
    }

    [Test]
    public void AFailingCronJobIsLoggedAndRunsAgain()
    {
        long wakeups = _server.Server.Server.Store.Cron.Wakeups;
        FaultPoints.Arm("cron:housekeeping", 3);
        FaultPoints.Arm("cron:active expiry", 3);
        Until(() => FaultPoints.Thrown("cron:housekeeping") == 3 && FaultPoints.Thrown("cron:active expiry") == 3, "the cron's faults");
        using var c = _server.Client();
        c.Execute("SET", "fc:ttl", "x", "PX", "50");
        Until(() => c.Execute("DBSIZE").Integer == 0 || c.Execute("EXISTS", "fc:ttl").Integer == 0, "active expiry after its faults");
        Until(() => _server.Server.Server.Store.Cron.Wakeups > wakeups + 3, "more cron runs");
        StillServing();
    }

    [Test]
    public void AFailingNetworkRoundIsLoggedAndTheLoopGoesOn()
    {
        if (engine != "epoll") Assert.Ignore("epoll loops only");
        using var c = _server.Client();
        FaultPoints.Arm("epoll-round", 5);
        // The faults hit the next rounds; the requests they would have read are read by the following ones.
        for (int i = 0; i < 20; i++) RespAssert.Simple(c.Execute("PING"), "PONG");
        Assert.That(FaultPoints.Thrown("epoll-round"), Is.EqualTo(5));
        StillServing();
    }

    [Test]
    public void AFailingAcceptDropsOnlyThatClient()
    {
        FaultPoints.Arm("accept");
        using (var dropped = new RespClient("127.0.0.1", _server.Port, 3000))
            Assert.Catch(() => dropped.Execute("PING"));
        Assert.That(FaultPoints.Thrown("accept"), Is.EqualTo(1));
        StillServing();
    }

    [Test]
    public void AFailingPauseTimerEndsThePause()
    {
        using var c = _server.Client();
        FaultPoints.Arm("client-pause-timer");
        RespAssert.Simple(c.Execute("CLIENT", "PAUSE", "100", "WRITE"), "OK");
        Until(() => FaultPoints.Thrown("client-pause-timer") == 1, "the timer's fault");
        using var w = _server.Client(5000);
        RespAssert.Simple(w.Execute("SET", "fc:after-pause", "1"), "OK"); // not held for ever
        StillServing();
    }

    [Test]
    public void AFailingAofWriteIsRetried()
    {
        using var c = _server.Client();
        FaultPoints.Arm("aof-write", 2);
        c.Execute("SET", "fc:aof", "1"); // may be refused with MISCONF while the write is failing
        Until(() => FaultPoints.Thrown("aof-write") == 2, "the AOF writer's faults");
        Until(() => c.Execute("SET", "fc:aof", "2").Text == "OK", "the AOF writer's recovery");
        RespAssert.Bulk(c.Execute("GET", "fc:aof"), "2");
        StillServing();
    }

    [Test, CancelAfter(120_000)]
    public void AFailingDiskReadCompletionFailsOnlyThatRead()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        string value = new string('d', 300);
        for (int start = 0; start < 40_000; start += 500)
        {
            for (int i = start; i < start + 500; i++) c.Send("SET", "fc:disk:" + i, value);
            for (int i = start; i < start + 500; i++) c.Read();
        }
        var log = _server.Server.Server.Store.Store.Log;
        Assume.That(log.HeadAddress, Is.GreaterThan(log.TailAddress / 2), "most records left memory");
        FaultPoints.Arm("disk-read-completion");
        var reply = c.Execute("GET", "fc:disk:1");
        Assert.That(FaultPoints.Thrown("disk-read-completion"), Is.EqualTo(1));
        Assert.That(reply.Type == RespType.Error || reply.Text == value, "an error (the failed read) or the value (read again)");
        RespAssert.Bulk(c.Execute("GET", "fc:disk:2"), value);
        StillServing();
    }

    [Test, CancelAfter(120_000)]
    public void AFailingObjectReadCompletionFailsOnlyThatRead()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        string field = new string('h', 200);
        for (int start = 0; start < 20_000; start += 500)
        {
            for (int i = start; i < start + 500; i++) c.Send("HSET", "fc:hash:" + i, "f1", field, "f2", field + i);
            for (int i = start; i < start + 500; i++) c.Read();
        }
        FaultPoints.Arm("object-read-completion");
        for (int i = 0; i < 200 && FaultPoints.Thrown("object-read-completion") == 0; i++)
        {
            var reply = c.Execute("HGET", "fc:hash:" + i, "f2");
            Assert.That(reply.Type == RespType.Error || reply.Text == field + i, reply.ToString());
        }
        Assume.That(FaultPoints.Thrown("object-read-completion"), Is.EqualTo(1), "a hash was read from the object log");
        RespAssert.Bulk(c.Execute("HGET", "fc:hash:3", "f2"), field + 3);
        StillServing();
    }

    /// <summary>GETs (or HGETs f2 of) prefix + i, i = 1, 2, ..., on one connection until the point, armed times, has
    /// thrown them all: each reply comes in bound and is the key's value, or the error when it was this request's read
    /// whose completion failed. Then the same connection reads the next key. False when no request got the error (a
    /// read ahead or a background read met the faults: a failed read ahead is read again by its request).</summary>
    private static bool ErrorAnswersTheFailedRead(RespClient c, string point, int times, string prefix, Func<int, string> expected, bool hash)
    {
        bool answered = false;
        int i = 1;
        for (; i <= 200 && FaultPoints.Thrown(point) < times; i++)
        {
            var reply = hash ? c.Execute("HGET", prefix + i, "f2") : c.Execute("GET", prefix + i);
            if (reply.IsError)
            {
                RespAssert.Error(reply, $"ERR internal error while running '{(hash ? "hget" : "get")}'");
                answered = true;
            }
            else Assert.That(reply.Text, Is.EqualTo(expected(i)));
        }
        Assert.That(FaultPoints.Thrown(point), Is.EqualTo(times));
        var next = hash ? c.Execute("HGET", prefix + i, "f2") : c.Execute("GET", prefix + i);
        Assert.That(next.Text, Is.EqualTo(expected(i)), "the connection goes on, with a read from disk");
        return answered;
    }

    [Test, CancelAfter(120_000)]
    public void AFailureInsideADiskReadsCompletionAnswersThatReadWithAnError()
    {
        using var loader = new RespClient("127.0.0.1", _server.Port, 60_000);
        string value = new string('c', 300);
        for (int start = 0; start < 40_000; start += 500)
        {
            for (int i = start; i < start + 500; i++) loader.Send("SET", "fc:cont:" + i, value);
            for (int i = start; i < start + 500; i++) loader.Read();
        }
        var log = _server.Server.Server.Store.Store.Log;
        Assume.That(log.HeadAddress, Is.GreaterThan(log.TailAddress / 2), "most records left memory");
        using var c = _server.Client(); // 10 s: a GET left without a reply fails the test
        FaultPoints.Arm("disk-read-continuation");
        Assume.That(ErrorAnswersTheFailedRead(c, "disk-read-continuation", 1, "fc:cont:", _ => value, hash: false), Is.True,
            "the fault was met by this client's GET");
        StillServing();
    }

    [Test, CancelAfter(120_000)]
    public void AFailureInsideAnObjectReadsCompletionAnswersThatReadWithAnError()
    {
        using var loader = new RespClient("127.0.0.1", _server.Port, 60_000);
        string field = new string('o', 200);
        for (int start = 0; start < 20_000; start += 500)
        {
            for (int i = start; i < start + 500; i++) loader.Send("HSET", "fc:objc:" + i, "f1", field, "f2", field + i);
            for (int i = start; i < start + 500; i++) loader.Read();
        }
        using var c = _server.Client();
        // Twice: an HGET reads its hash ahead (a failed read ahead is read again by the request itself).
        FaultPoints.Arm("object-read-continuation", 2);
        Assume.That(ErrorAnswersTheFailedRead(c, "object-read-continuation", 2, "fc:objc:", i => field + i, hash: true), Is.True,
            "the fault was met by this client's HGET of a hash in the object log");
        StillServing();
    }

    [Test, CancelAfter(120_000)]
    public void AFailingPageFlushCompletionIsContained()
    {
        // A server of its own: the refused writes of this test must not meet the next test on the shared server.
        using var server = new TestServer(o => { o.NetworkEngine = engine; o.NetworkThreads = 1; o.Memory = "4mb"; o.Aof = true; });
        using var c = new RespClient("127.0.0.1", server.Port, 60_000);
        FaultPoints.Arm("log-flush-completion");
        string value = new string('f', 300);
        // Enough writes that pages are flushed (4 MB budget); the first flush's completion fails.
        for (int start = 0; start < 20_000 && FaultPoints.Thrown("log-flush-completion") == 0; start += 500)
        {
            for (int i = start; i < start + 500; i++) c.Send("SET", "fc:flush:" + i, value);
            for (int i = start; i < start + 500; i++) c.Read();
        }
        Assert.That(FaultPoints.Thrown("log-flush-completion"), Is.EqualTo(1));
        Assert.That(StorageFaults.Reported, Is.GreaterThan(0));
        RespAssert.Simple(c.Execute("PING"), "PONG");
        // The failed completion counts as a failed page write: writes are refused (MISCONF) until its retry succeeds.
        Until(() => c.Execute("SET", "fc:flush:after", "1").Text == "OK", "the page write's retry");
        RespAssert.Bulk(c.Execute("GET", "fc:flush:after"), "1");
    }
}
