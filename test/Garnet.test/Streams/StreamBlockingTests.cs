// Blocking stream reads across connections: XREAD BLOCK is woken by an XADD from another connection (every XREAD waiter
// of the key, since none takes anything), XREADGROUP BLOCK serves waiters first come first served and each entry to one
// consumer, MULTI/EXEC's XADD wakes them, CLIENT UNBLOCK, timeouts, a deleted group or key answers NOGROUP, and inside
// MULTI the reads do not block.
using Garnet.client;

namespace Garnet.test.Streams;

[TestFixture]
public class StreamBlockingTests : ServerFixture
{
    private RespClient C(int timeoutMs = 10000) => new("127.0.0.1", _server.Port, timeoutMs);

    private static long Blocked(RespClient c)
    {
        var info = c.Execute("INFO", "clients").Text!;
        return long.Parse(info.Split("\r\n").Single(l => l.StartsWith("blocked_clients:"))["blocked_clients:".Length..]);
    }

    private static void WaitUntilBlocked(RespClient probe, long count)
    {
        for (int i = 0; i < 500 && Blocked(probe) != count; i++) Thread.Sleep(10);
        Assert.That(Blocked(probe), Is.EqualTo(count));
    }

    /// <summary>The IDs of an XREAD/XREADGROUP reply of one stream (RESP2).</summary>
    private static string[] Ids(RespValue reply) => reply.Elements![0].Elements![1].Elements!.Select(e => e.Elements![0].Text!).ToArray();

    [Test]
    public void XReadBlockIsWokenByXAddFromAnotherConnectionAndEveryReaderGetsIt()
    {
        using var a = C();
        using var b = C();
        using var writer = C();
        writer.Execute("XADD", "bx:s", "1-1", "f", "old");
        a.Send("XREAD", "BLOCK", "0", "STREAMS", "bx:s", "$");
        WaitUntilBlocked(writer, 1);
        b.Send("XREAD", "BLOCK", "0", "STREAMS", "bx:other", "bx:s", "$", "$");
        WaitUntilBlocked(writer, 2);
        Assert.That(writer.Execute("XADD", "bx:s", "2-1", "f", "new").Text, Is.EqualTo("2-1"));
        var ra = a.Read();
        var rb = b.Read();
        Assert.That(ra.Elements![0].Elements![0].Text, Is.EqualTo("bx:s"));
        Assert.That(Ids(ra), Is.EqualTo(new[] { "2-1" }), "only what came after $");
        Assert.That(rb.Elements![0].Elements![0].Text, Is.EqualTo("bx:s"));
        Assert.That(Ids(rb), Is.EqualTo(new[] { "2-1" }));
        WaitUntilBlocked(writer, 0);
    }

    [Test]
    public void XReadGroupBlockServesFirstBlockedFirstAndEachEntryOnce()
    {
        using var first = C();
        using var second = C();
        using var writer = C();
        writer.Execute("XGROUP", "CREATE", "bg:s", "g", "$", "MKSTREAM");
        first.Send("XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "BLOCK", "0", "STREAMS", "bg:s", ">");
        WaitUntilBlocked(writer, 1);
        second.Send("XREADGROUP", "GROUP", "g", "c2", "COUNT", "1", "BLOCK", "0", "STREAMS", "bg:s", ">");
        WaitUntilBlocked(writer, 2);
        writer.Execute("XADD", "bg:s", "1-1", "f", "one");
        Assert.That(Ids(first.Read()), Is.EqualTo(new[] { "1-1" }), "the first blocked is served first");
        WaitUntilBlocked(writer, 1);
        writer.Execute("XADD", "bg:s", "2-1", "f", "two");
        Assert.That(Ids(second.Read()), Is.EqualTo(new[] { "2-1" }));
        var pending = writer.Execute("XPENDING", "bg:s", "g", "-", "+", "10");
        Assert.That(pending.Elements!.Select(p => (p.Elements![0].Text, p.Elements![1].Text)), Is.EqualTo(new[] { ("1-1", "c1"), ("2-1", "c2") }));
    }

    [Test]
    public void ExecWakesBlockedReaders()
    {
        using var reader = C();
        using var writer = C();
        reader.Send("XREAD", "BLOCK", "0", "STREAMS", "bm:s", "0");
        WaitUntilBlocked(writer, 1);
        writer.Execute("MULTI");
        writer.Execute("XADD", "bm:s", "5-5", "f", "v");
        writer.Execute("EXEC");
        Assert.That(Ids(reader.Read()), Is.EqualTo(new[] { "5-5" }));
    }

    [Test]
    public void TimeoutUnblockAndMulti()
    {
        using var c = C();
        using var probe = C();
        Assert.That(c.Execute("XREAD", "BLOCK", "50", "STREAMS", "bt:s", "$").IsNullArray, "a timeout answers a null array");
        c.Execute("XGROUP", "CREATE", "bt:g", "g", "$", "MKSTREAM");
        Assert.That(c.Execute("XREADGROUP", "GROUP", "g", "c", "BLOCK", "50", "STREAMS", "bt:g", ">").IsNullArray);
        long id = c.Execute("CLIENT", "ID").Integer;
        c.Send("XREAD", "BLOCK", "0", "STREAMS", "bt:s", "$");
        WaitUntilBlocked(probe, 1);
        Assert.That(probe.Execute("CLIENT", "UNBLOCK", id.ToString()).Integer, Is.EqualTo(1));
        Assert.That(c.Read().IsNullArray, "unblocked as a timeout");
        c.Send("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "bt:g", ">");
        WaitUntilBlocked(probe, 1);
        probe.Execute("CLIENT", "UNBLOCK", id.ToString(), "ERROR");
        Assert.That(c.Read().Text, Does.StartWith("UNBLOCKED"));
        // Inside MULTI a blocking read answers at once.
        c.Execute("MULTI");
        c.Execute("XREAD", "BLOCK", "0", "STREAMS", "bt:s", "$");
        c.Execute("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "bt:g", ">");
        var exec = c.Execute("EXEC");
        Assert.That(exec.Elements!.All(e => e.IsNullArray));
        Assert.That(c.Execute("XREAD", "BLOCK", "x", "STREAMS", "bt:s", "$").Text, Is.EqualTo("ERR timeout is not an integer or out of range"));
        Assert.That(c.Execute("XREAD", "BLOCK", "-5", "STREAMS", "bt:s", "$").Text, Is.EqualTo("ERR timeout is negative"));
    }

    [Test]
    public void DestroyedGroupOrDeletedKeyAnswersNoGroup()
    {
        using var a = C();
        using var b = C();
        using var admin = C();
        admin.Execute("XGROUP", "CREATE", "bd:s", "g", "$", "MKSTREAM");
        a.Send("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "bd:s", ">");
        WaitUntilBlocked(admin, 1);
        Assert.That(admin.Execute("XGROUP", "DESTROY", "bd:s", "g").Integer, Is.EqualTo(1));
        Assert.That(a.Read().Text, Is.EqualTo("NOGROUP No such key 'bd:s' or consumer group 'g' in XREADGROUP with GROUP option"));
        admin.Execute("XGROUP", "CREATE", "bd:s", "g", "$");
        b.Send("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "bd:s", ">");
        WaitUntilBlocked(admin, 1);
        admin.Execute("DEL", "bd:s");
        Assert.That(b.Read().Text, Is.EqualTo("NOGROUP No such key 'bd:s' or consumer group 'g' in XREADGROUP with GROUP option"));
        WaitUntilBlocked(admin, 0);
    }
}
