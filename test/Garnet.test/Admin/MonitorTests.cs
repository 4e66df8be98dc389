// MONITOR through raw sockets (as redis-cli --monitor reads it) and StackExchange.Redis as the traffic.
using System.Text.RegularExpressions;
using StackExchange.Redis;

namespace Garnet.test.Admin;

[TestFixture]
public class MonitorTests : ServerFixture
{
    private static readonly Regex Line = new(@"^\+\d{10}\.\d{6} \[(\d+) ([^\]]+)\] (.*)\r\n$");

    private static (string db, string who, string args) Next(RawResp monitor)
    {
        var text = monitor.ReadText();
        var m = Line.Match(text);
        Assert.That(m.Success, Is.True, "not a monitor line: " + text);
        return (m.Groups[1].Value, m.Groups[2].Value, m.Groups[3].Value);
    }

    [Test]
    public void StreamsCommandsInRedisFormat()
    {
        using var monitor = new RawResp(_server.Port);
        Assert.That(monitor.RunText("MONITOR"), Is.EqualTo("+OK\r\n"));
        using var c = new RawResp(_server.Port);
        c.Run("SET", "a b", "x\"y\n\\z\x01");
        var (db, who, args) = Next(monitor);
        Assert.That(db, Is.EqualTo("0"));
        Assert.That(who, Does.Match(@"^127\.0\.0\.1:\d+$"));
        Assert.That(args, Is.EqualTo("\"SET\" \"a b\" \"x\\\"y\\n\\\\z\\x01\""));

        // Secrets are redacted; refused and unknown commands and admin commands are not shown.
        c.Run("AUTH", "secret");
        Assert.That(Next(monitor).args, Is.EqualTo("\"AUTH\" \"(redacted)\""));
        c.Run("HELLO", "2", "AUTH", "default", "pw");
        Assert.That(Next(monitor).args, Is.EqualTo("\"HELLO\" \"2\" \"AUTH\" \"(redacted)\" \"(redacted)\""));
        c.Run("NOSUCHCOMMAND");
        c.Run("GET");
        c.Run("CONFIG", "GET", "port");
        c.Run("SELECT", "3");
        Assert.That(Next(monitor), Is.EqualTo(("3", who, "\"SELECT\" \"3\"")), "the db after the command, as Redis");
        c.Run("SELECT", "0");
        Next(monitor);

        // A transaction: MULTI, the queued commands when EXEC runs them, then EXEC; a script, then its calls as [db lua].
        c.Run("MULTI");
        c.Run("INCR", "n");
        c.Run("EXEC");
        Assert.That(Next(monitor).args, Is.EqualTo("\"MULTI\""));
        Assert.That(Next(monitor).args, Is.EqualTo("\"INCR\" \"n\""));
        Assert.That(Next(monitor).args, Is.EqualTo("\"EXEC\""));
        c.Run("EVAL", "return redis.call('get', KEYS[1])", "1", "n");
        Assert.That(Next(monitor).args, Is.EqualTo("\"EVAL\" \"return redis.call('get', KEYS[1])\" \"1\" \"n\""));
        var inner = Next(monitor);
        Assert.That((inner.who, inner.args), Is.EqualTo(("lua", "\"get\" \"n\"")));
        Assert.That(monitor.HasData(50), Is.False);
    }

    [Test]
    public void MonitorClientRulesAsRedis()
    {
        using var monitor = new RawResp(_server.Port);
        Assert.That(monitor.RunText("MONITOR"), Is.EqualTo("+OK\r\n"));
        monitor.Send("MONITOR"); // a second MONITOR gets no reply at all
        Assert.That(monitor.HasData(100), Is.False);
        // A monitor is a replica to Redis: it may not touch the keyspace; other commands answer, then show up.
        Assert.That(monitor.RunText("GET", "k"), Is.EqualTo("-ERR Replica can't interact with the keyspace\r\n"));
        Assert.That(monitor.RunText("PING"), Is.EqualTo("+PONG\r\n"));
        Assert.That(Next(monitor).args, Is.EqualTo("\"PING\""));
        var list = _server.Client().Execute("CLIENT", "LIST").Text!;
        Assert.That(list, Does.Match(@"flags=O "));
        // RESET ends it.
        Assert.That(monitor.RunText("RESET"), Is.EqualTo("+RESET\r\n"));
        using var c = new RawResp(_server.Port);
        c.Run("SET", "after", "1");
        Assert.That(monitor.HasData(100), Is.False);
        Assert.That(monitor.RunText("GET", "after"), Is.EqualTo("$1\r\n1\r\n"));

        // Inside MULTI it is refused at EXEC, as Redis.
        using var t = new RawResp(_server.Port);
        t.Run("MULTI");
        Assert.That(t.RunText("MONITOR"), Is.EqualTo("+QUEUED\r\n"));
        Assert.That(t.RunText("EXEC"), Is.EqualTo("*1\r\n-ERR MONITOR isn't allowed for DENY BLOCKING client\r\n"));
    }

    [Test]
    public void QuitEndsAndTrafficFromStackExchangeRedisIsSeen()
    {
        using var monitor = new RawResp(_server.Port);
        monitor.Run("MONITOR");
        using var mux = _server.Multiplexer(RedisProtocol.Resp2);
        var db = mux.GetDatabase(2);
        db.StringSet("se-key", "v");
        string args;
        do args = Next(monitor).args; while (!args.Contains("se-key")); // the client's handshake comes first
        Assert.That(args, Is.EqualTo("\"SET\" \"se-key\" \"v\"").IgnoreCase);
        Assert.That(_server.Server.Server.Monitors.Count, Is.EqualTo(1));
        // The client's other connection (SUBSCRIBE on its pub/sub link) may still be reported before QUIT's reply.
        monitor.Send("QUIT");
        string reply;
        do reply = monitor.ReadText(); while (reply.StartsWith("+") && Line.IsMatch(reply));
        Assert.That(reply, Is.EqualTo("+OK\r\n"));
        Assert.That(monitor.HasData(2000), Is.True, "the server closes the connection");
        Assert.That(() => _server.Server.Server.Monitors.Count, Is.EqualTo(0).After(2000, 20),
            () => _server.Client().Execute("CLIENT", "LIST").Text!);
    }

    [Test]
    public void RedisCliMonitorReadsIt()
    {
        var psi = new System.Diagnostics.ProcessStartInfo(RequiredTools.RedisCli, $"-p {_server.Port} monitor") { RedirectStandardOutput = true };
        using var cli = System.Diagnostics.Process.Start(psi)!;
        try
        {
            Assert.That(cli.StandardOutput.ReadLine(), Is.EqualTo("OK"));
            using var c = new RawResp(_server.Port);
            c.Run("SET", "from-cli-test", "1");
            string? line;
            do line = cli.StandardOutput.ReadLine(); while (line is not null && !line.Contains("from-cli-test"));
            Assert.That(line, Does.Match(@"^\d+\.\d{6} \[0 127\.0\.0\.1:\d+\] ""SET"" ""from-cli-test"" ""1""$"));
        }
        finally { cli.Kill(); }
    }
}
