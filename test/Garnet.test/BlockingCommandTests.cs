// Blocking list commands across connections: served first-blocked-first-served, woken by pushes from any connection,
// timeouts, CLIENT UNBLOCK, INFO blocked_clients, and a blocked client that goes away loses nothing.
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class BlockingCommandTests : ServerFixture
{
    private RespClient C(int timeoutMs = 10000) => new("127.0.0.1", _server.Port, timeoutMs);

    private long BlockedClients(RespClient c)
    {
        var info = c.Execute("INFO", "clients").Text!;
        var line = info.Split("\r\n").Single(l => l.StartsWith("blocked_clients:"));
        return long.Parse(line["blocked_clients:".Length..]);
    }

    private void WaitUntilBlocked(RespClient probe, long count)
    {
        for (int i = 0; i < 500 && BlockedClients(probe) != count; i++) Thread.Sleep(10);
        Assert.That(BlockedClients(probe), Is.EqualTo(count));
    }

    [Test]
    public void ImmediateWhenThereIsSomethingToPop()
    {
        using var c = C();
        c.Execute("RPUSH", "b1", "x", "y");
        var r = c.Execute("BLPOP", "empty", "b1", "0");
        Assert.That(r.Elements!.Select(e => e.Text), Is.EqualTo(new[] { "b1", "x" }));
        Assert.That(c.Execute("BRPOP", "b1", "0").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "b1", "y" }));
        Assert.That(c.Execute("EXISTS", "b1").Integer, Is.EqualTo(0));
    }

    [Test]
    public void PushFromAnotherConnectionServesTheFirstBlockedFirst()
    {
        using var first = C();
        using var second = C();
        using var pusher = C();
        first.Send("BLPOP", "q1", "0");
        WaitUntilBlocked(pusher, 1);
        second.Send("BLPOP", "q1", "0");
        WaitUntilBlocked(pusher, 2);
        Assert.That(pusher.Execute("RPUSH", "q1", "one").Integer, Is.EqualTo(1));
        Assert.That(first.Read().Elements!.Select(e => e.Text), Is.EqualTo(new[] { "q1", "one" }), "the first blocked is served first");
        WaitUntilBlocked(pusher, 1);
        pusher.Execute("RPUSH", "q1", "two");
        Assert.That(second.Read().Elements!.Select(e => e.Text), Is.EqualTo(new[] { "q1", "two" }));
        Assert.That(pusher.Execute("LLEN", "q1").Integer, Is.EqualTo(0), "each element went to exactly one client");
        // The connection works normally afterwards, in order.
        Assert.That(first.Execute("PING").Text, Is.EqualTo("PONG"));
    }

    [Test]
    public void OnePushOfSeveralElementsServesSeveralClients()
    {
        using var a = C();
        using var b = C();
        using var pusher = C();
        a.Send("BRPOP", "q2", "0");
        WaitUntilBlocked(pusher, 1);
        b.Send("BRPOP", "q2", "0");
        WaitUntilBlocked(pusher, 2);
        pusher.Execute("LPUSH", "q2", "1", "2", "3");
        var got = new[] { a.Read().Elements![1].Text, b.Read().Elements![1].Text };
        Assert.That(got, Is.EqualTo(new[] { "1", "2" }), "RPOP order: the first blocked gets the tail first");
        Assert.That(pusher.Execute("LRANGE", "q2", "0", "-1").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "3" }));
    }

    [Test]
    public void TimeoutsAndErrors()
    {
        using var c = C();
        var r = c.Execute("BLPOP", "nothing", "0.05");
        Assert.That(r.IsNull && r.IsNullArray, "a timeout answers a null array");
        Assert.That(c.Execute("BLMOVE", "nothing", "dst", "LEFT", "RIGHT", "0.05").IsNull);
        Assert.That(c.Execute("BLMPOP", "0.05", "1", "nothing", "LEFT").IsNull);
        Assert.That(c.Execute("BLPOP", "k", "-1").Text, Is.EqualTo("ERR timeout is negative"));
        Assert.That(c.Execute("BLPOP", "k", "abc").Text, Is.EqualTo("ERR timeout is not a float or out of range"));
        Assert.That(c.Execute("BLPOP", "k", "1e300").Text, Is.EqualTo("ERR timeout is out of range"));
        c.Execute("SET", "str", "v");
        Assert.That(c.Execute("BLPOP", "str", "0").Text, Does.StartWith("WRONGTYPE"));
        Assert.That(c.Execute("BLMPOP", "0", "0", "k", "LEFT").Text, Is.EqualTo("ERR numkeys should be greater than 0"));
        Assert.That(BlockedClients(c), Is.EqualTo(0));
    }

    [Test]
    public void BlockingMoveAndMultiPop()
    {
        using var mover = C();
        using var mpop = C();
        using var pusher = C();
        mover.Send("BLMOVE", "src3", "dst3", "RIGHT", "LEFT", "0");
        WaitUntilBlocked(pusher, 1);
        pusher.Execute("RPUSH", "src3", "a", "b");
        Assert.That(mover.Read().Text, Is.EqualTo("b"));
        Assert.That(pusher.Execute("LRANGE", "dst3", "0", "-1").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "b" }));
        mpop.Send("BLMPOP", "0", "2", "none3", "other3", "LEFT", "COUNT", "5");
        WaitUntilBlocked(pusher, 1);
        pusher.Execute("RPUSH", "other3", "x", "y");
        var r = mpop.Read();
        Assert.That(r.Elements![0].Text, Is.EqualTo("other3"));
        Assert.That(r.Elements[1].Elements!.Select(e => e.Text), Is.EqualTo(new[] { "x", "y" }));
    }

    [Test]
    public void ClientUnblock()
    {
        using var blocked = C();
        using var admin = C();
        long id = blocked.Execute("CLIENT", "ID").Integer;
        blocked.Send("BLPOP", "q4", "0");
        WaitUntilBlocked(admin, 1);
        Assert.That(admin.Execute("CLIENT", "UNBLOCK", id.ToString()).Integer, Is.EqualTo(1));
        Assert.That(blocked.Read().IsNull, "TIMEOUT (the default) answers as a timeout");
        blocked.Send("BLPOP", "q4", "0");
        WaitUntilBlocked(admin, 1);
        Assert.That(admin.Execute("CLIENT", "UNBLOCK", id.ToString(), "ERROR").Integer, Is.EqualTo(1));
        Assert.That(blocked.Read().Text, Is.EqualTo("UNBLOCKED client unblocked via CLIENT UNBLOCK"));
        Assert.That(admin.Execute("CLIENT", "UNBLOCK", id.ToString()).Integer, Is.EqualTo(0), "not blocked any more");
        Assert.That(admin.Execute("CLIENT", "UNBLOCK", id.ToString(), "MAYBE").Text, Is.EqualTo("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"));
    }

    [Test]
    public void AClientThatGoesAwayTakesNothing()
    {
        using var probe = C();
        var gone = C();
        gone.Send("BLPOP", "q5", "0");
        WaitUntilBlocked(probe, 1);
        gone.Dispose();
        WaitUntilBlocked(probe, 0);
        probe.Execute("RPUSH", "q5", "kept");
        Assert.That(probe.Execute("LRANGE", "q5", "0", "-1").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "kept" }));
    }
    [Test]
    public void SortedSetBlockingPops()
    {
        using var c = C();
        using var waiterA = C();
        using var waiterB = C();
        // Immediate: the first non-empty key, lowest (or highest) score, reply [key, member, score].
        c.Execute("ZADD", "z1", "1", "a", "2", "b", "3", "c");
        Assert.That(c.Execute("BZPOPMIN", "none", "z1", "0").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "z1", "a", "1" }));
        Assert.That(c.Execute("BZPOPMAX", "z1", "0").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "z1", "c", "3" }));
        var m = c.Execute("BZMPOP", "0", "2", "none", "z1", "MIN", "COUNT", "10");
        Assert.That(m.Elements![0].Text, Is.EqualTo("z1"));
        Assert.That(m.Elements[1].Elements!.Select(p => p.Elements![0].Text + "=" + p.Elements[1].Text), Is.EqualTo(new[] { "b=2" }));
        Assert.That(c.Execute("EXISTS", "z1").Integer, Is.EqualTo(0), "popping the last member deletes the key");
        // Timeouts, errors.
        Assert.That(c.Execute("BZPOPMIN", "none", "0.05").IsNull);
        Assert.That(c.Execute("BZMPOP", "0.05", "1", "none", "MAX").IsNull);
        Assert.That(c.Execute("BZMPOP", "0", "1", "none", "UP").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("BZMPOP", "0", "1", "none", "MIN", "COUNT", "0").Text, Is.EqualTo("ERR count should be greater than 0"));
        Assert.That(c.Execute("BZPOPMIN", "none", "-1").Text, Is.EqualTo("ERR timeout is negative"));
        c.Execute("RPUSH", "alist", "x");
        Assert.That(c.Execute("BZPOPMIN", "alist", "0").Text, Does.StartWith("WRONGTYPE"));
        // Blocked clients are served in order by ZADD from another connection.
        waiterA.Send("BZPOPMAX", "zq", "0");
        WaitUntilBlocked(c, 1);
        waiterB.Send("BZMPOP", "0", "1", "zq", "MIN", "COUNT", "2");
        WaitUntilBlocked(c, 2);
        c.Execute("ZADD", "zq", "5", "five", "7", "seven", "6", "six");
        Assert.That(waiterA.Read().Elements!.Select(e => e.Text), Is.EqualTo(new[] { "zq", "seven", "7" }));
        var rb = waiterB.Read();
        Assert.That(rb.Elements![1].Elements!.Select(p => p.Elements![0].Text), Is.EqualTo(new[] { "five", "six" }));
        Assert.That(c.Execute("EXISTS", "zq").Integer, Is.EqualTo(0));
        Assert.That(BlockedClients(c), Is.EqualTo(0));
        // RESP3: the score is a double.
        c.Execute("HELLO", "3");
        c.Execute("ZADD", "z3", "1.5", "m");
        var r3 = c.Execute("BZPOPMIN", "z3", "0");
        Assert.That(r3.Elements![2].Type, Is.EqualTo(RespType.Double));
        Assert.That(r3.Elements[2].Text, Is.EqualTo("1.5"));
    }
}
