// CLIENT REPLY, PAUSE / UNPAUSE, NO-EVICT, NO-TOUCH: replies and errors as Redis 7.2, through raw sockets and
// StackExchange.Redis.
using StackExchange.Redis;

namespace Garnet.test.Admin;

[TestFixture]
public class ClientAdminTests : ServerFixture
{
    [TearDown]
    public void Unpause() => _server.Server.Server.Pause.Unpause();

    [Test]
    public void ReplyOffSkipOn()
    {
        using var c = new RawResp(_server.Port);
        c.Send("CLIENT", "REPLY", "OFF");
        c.Send("SET", "r", "1");
        c.Send("GET", "nosuch-command-reply");
        c.Send("NOSUCH");
        Assert.That(c.HasData(100), Is.False, "nothing is answered while replies are off, errors included");
        Assert.That(c.RunText("CLIENT", "REPLY", "ON"), Is.EqualTo("+OK\r\n"));
        Assert.That(c.RunText("GET", "r"), Is.EqualTo("$1\r\n1\r\n"), "the SET ran");
        c.Send("CLIENT", "REPLY", "SKIP");
        c.Send("INCR", "r");
        Assert.That(c.RunText("GET", "r"), Is.EqualTo("$1\r\n2\r\n"), "only the command after SKIP is silent");
        c.Send("CLIENT", "REPLY", "SKIP");
        c.Send("CLIENT", "REPLY", "SKIP");
        c.Send("INCR", "r");
        Assert.That(c.RunText("GET", "r"), Is.EqualTo("$1\r\n3\r\n"));
        Assert.That(c.RunText("CLIENT", "REPLY", "MAYBE"), Is.EqualTo("-ERR syntax error\r\n"));
        Assert.That(c.RunText("CLIENT", "REPLY"), Is.EqualTo("-ERR wrong number of arguments for 'client|reply' command\r\n"));
        // RESET turns replies back on.
        c.Send("CLIENT", "REPLY", "OFF");
        Assert.That(c.RunText("RESET"), Is.EqualTo("+RESET\r\n"));
        Assert.That(c.RunText("PING"), Is.EqualTo("+PONG\r\n"));
    }

    [Test]
    public void PauseErrorsAsRedis()
    {
        using var c = new RawResp(_server.Port);
        Assert.That(c.RunText("CLIENT", "PAUSE", "abc"), Is.EqualTo("-ERR timeout is not an integer or out of range\r\n"));
        Assert.That(c.RunText("CLIENT", "PAUSE", "-1"), Is.EqualTo("-ERR timeout is negative\r\n"));
        Assert.That(c.RunText("CLIENT", "PAUSE", "10", "foo"), Is.EqualTo("-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n"));
        Assert.That(c.RunText("CLIENT", "PAUSE", "10", "write", "x"), Is.EqualTo("-ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT HELP.\r\n"), "the name as sent, as Redis");
        Assert.That(c.RunText("CLIENT", "UNPAUSE", "x"), Is.EqualTo("-ERR wrong number of arguments for 'client|unpause' command\r\n"));
        Assert.That(c.RunText("CLIENT", "UNPAUSE"), Is.EqualTo("+OK\r\n"));
    }

    [Test]
    public void PauseWriteHoldsWritesNotReads()
    {
        using var admin = _server.Client();
        admin.Execute("SET", "pw", "old");
        RespAssert.Simple(admin.Execute("CLIENT", "PAUSE", "100000", "WRITE"), "OK");
        using var writer = new RawResp(_server.Port);
        writer.Send("SET", "pw", "new");
        using var reader = new RawResp(_server.Port);
        Assert.That(reader.RunText("GET", "pw"), Is.EqualTo("$3\r\nold\r\n"), "reads go on");
        Assert.That(reader.RunText("PING"), Is.EqualTo("+PONG\r\n"));
        // A write queued in MULTI is held too (before it is queued), as Redis.
        using var tx = new RawResp(_server.Port);
        Assert.That(tx.RunText("MULTI"), Is.EqualTo("+OK\r\n"));
        tx.Send("INCR", "pw-counter");
        Assert.That(writer.HasData(200) || tx.HasData(0), Is.False, "writes wait");
        RespAssert.Simple(admin.Execute("CLIENT", "UNPAUSE"), "OK");
        Assert.That(writer.ReadText(), Is.EqualTo("+OK\r\n"));
        Assert.That(tx.ReadText(), Is.EqualTo("+QUEUED\r\n"));
        Assert.That(tx.RunText("EXEC"), Is.EqualTo("*1\r\n:1\r\n"));
        Assert.That(reader.RunText("GET", "pw"), Is.EqualTo("$3\r\nnew\r\n"));
    }

    [Test]
    public void PauseAllHoldsEverythingAndEndsByItself()
    {
        using var admin = new RawResp(_server.Port);
        // The clock starts before the pause does, so PONG comes at least the pause's length after it however slowly the
        // test itself runs (it used to start after the reply and a new connection: a stall there shortened the wait).
        var sw = System.Diagnostics.Stopwatch.StartNew();
        Assert.That(admin.RunText("CLIENT", "PAUSE", "1500", "ALL"), Is.EqualTo("+OK\r\n"));
        using var c = new RawResp(_server.Port);
        c.Send("PING");
        Assert.That(c.HasData(50), Is.False, "even PING waits");
        Assert.That(c.ReadText(), Is.EqualTo("+PONG\r\n"));
        Assert.That(sw.ElapsedMilliseconds, Is.GreaterThanOrEqualTo(1450), "held until the pause timed out");
        // A held client does not hold its thread: many held clients, then one UNPAUSE frees all.
        admin.Run("CLIENT", "PAUSE", "100000");
        var held = Enumerable.Range(0, 20).Select(_ => new RawResp(_server.Port)).ToList();
        foreach (var h in held) h.Send("INCR", "pause-all-n");
        Thread.Sleep(50);
        _server.Server.Server.Pause.Unpause(); // (UNPAUSE would itself wait under ALL, as in Redis)
        foreach (var h in held) Assert.That(h.ReadText(), Does.StartWith(":"));
        Assert.That(c.RunText("GET", "pause-all-n"), Is.EqualTo("$2\r\n20\r\n"));
        foreach (var h in held) h.Dispose();
    }

    [Test]
    public void NoEvictAndNoTouchFlags()
    {
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("CLIENT", "NO-EVICT", "on"), "OK");
        RespAssert.Simple(c.Execute("CLIENT", "NO-TOUCH", "ON"), "OK");
        Assert.That(c.Execute("CLIENT", "INFO").Text, Does.Contain(" flags=eT "));
        RespAssert.Error(c.Execute("CLIENT", "NO-EVICT", "x"), "ERR syntax error");
        RespAssert.Error(c.Execute("CLIENT", "NO-TOUCH", "x"), "ERR syntax error");
        RespAssert.Error(c.Execute("CLIENT", "NO-TOUCH"), "ERR wrong number of arguments for 'client|no-touch' command");
        RespAssert.Simple(c.Execute("CLIENT", "NO-EVICT", "off"), "OK");
        RespAssert.Simple(c.Execute("CLIENT", "NO-TOUCH", "off"), "OK");
        Assert.That(c.Execute("CLIENT", "INFO").Text, Does.Contain(" flags=N "));
    }

    [TestCase("string")]
    [TestCase("hash")]
    public void NoTouchLeavesIdleTime(string type)
    {
        using var c = _server.Client();
        string key = "nt-" + type;
        c.Execute("DEL", key);
        if (type == "string") c.Execute("SET", key, "v");
        else c.Execute("HSET", key, "f", "v");
        var payload = c.Execute("DUMP", key).Bytes!;
        c.Execute("DEL", key);
        // RESTORE ... IDLETIME puts the last access 1000 s back.
        RespAssert.Simple(c.Execute("RESTORE", key, "0", payload, "IDLETIME", "1000"), "OK");
        Assert.That(c.Execute("OBJECT", "IDLETIME", key).Integer, Is.GreaterThanOrEqualTo(1000));
        RespAssert.Simple(c.Execute("CLIENT", "NO-TOUCH", "ON"), "OK");
        if (type == "string") c.Execute("GET", key);
        else c.Execute("HGET", key, "f");
        Assert.That(c.Execute("OBJECT", "IDLETIME", key).Integer, Is.GreaterThanOrEqualTo(1000), "a read under NO-TOUCH leaves it");
        RespAssert.Integer(c.Execute("TOUCH", key), 1);
        Assert.That(c.Execute("OBJECT", "IDLETIME", key).Integer, Is.LessThan(5), "TOUCH still touches");
        c.Execute("DEL", key);
        RespAssert.Simple(c.Execute("RESTORE", key, "0", payload, "IDLETIME", "1000"), "OK");
        RespAssert.Simple(c.Execute("CLIENT", "NO-TOUCH", "OFF"), "OK");
        if (type == "string") c.Execute("GET", key);
        else c.Execute("HGET", key, "f");
        Assert.That(c.Execute("OBJECT", "IDLETIME", key).Integer, Is.LessThan(5), "without NO-TOUCH a read touches");
    }

    [Test]
    public void ThroughStackExchangeRedis()
    {
        using var mux = _server.Multiplexer(RedisProtocol.Resp3);
        var db = mux.GetDatabase();
        Assert.That(db.Execute("CLIENT", "NO-TOUCH", "ON").ToString(), Is.EqualTo("OK"));
        Assert.That(db.Execute("CLIENT", "PAUSE", "10", "WRITE").ToString(), Is.EqualTo("OK"));
        db.StringSet("se-paused", "1"); // waits for the 10 ms pause to end
        Assert.That(db.StringGet("se-paused").ToString(), Is.EqualTo("1"));
    }
}
