using Garnet.Options;
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class ServerCommandTests : ServerFixture
{
    protected override void Configure(GarnetServerOptions o) => o.Databases = 4;

    private static Dictionary<string, string> ParseInfo(string text) =>
        text.Split("\r\n").Where(l => l.Contains(':') && !l.StartsWith('#'))
            .ToDictionary(l => l[..l.IndexOf(':')], l => l[(l.IndexOf(':') + 1)..]);

    [Test]
    public void InfoSections()
    {
        using var c = _server.Client();
        var all = c.Execute("INFO").Text!;
        foreach (var h in new[] { "# Server", "# Clients", "# Memory", "# Stats", "# Replication", "# CPU", "# Keyspace" })
            Assert.That(all, Does.Contain(h + "\r\n"));
        var f = ParseInfo(all);
        Assert.That(f["redis_version"], Does.StartWith("7.2"));
        Assert.That(int.Parse(f["tcp_port"]), Is.EqualTo(_server.Port));
        Assert.That(int.Parse(f["process_id"]), Is.EqualTo(Environment.ProcessId));
        Assert.That(int.Parse(f["connected_clients"]), Is.GreaterThanOrEqualTo(1));
        Assert.That(long.Parse(f["used_memory"]), Is.GreaterThan(0));
        Assert.That(long.Parse(f["used_memory_rss"]), Is.GreaterThan(0));
        Assert.That(f["role"], Is.EqualTo("master"));

        var server = c.Execute("info", "SERVER").Text!;
        Assert.That(server, Does.StartWith("# Server\r\n"));
        Assert.That(server, Does.Not.Contain("# Clients"));
        var two = c.Execute("INFO", "clients", "stats").Text!;
        Assert.That(two, Does.Contain("# Clients").And.Contain("# Stats").And.Not.Contain("# Server"));
        Assert.That(c.Execute("INFO", "nosuchsection").Text, Is.Empty);
        Assert.That(c.Execute("INFO", "everything").Text, Does.Contain("# Keyspace"));
    }

    [Test]
    public void InfoStatsCountRealTraffic()
    {
        using var c = _server.Client();
        long before = long.Parse(ParseInfo(c.Execute("INFO", "stats").Text!)["total_commands_processed"]);
        long errBefore = long.Parse(ParseInfo(c.Execute("INFO", "stats").Text!)["total_error_replies"]);
        for (int i = 0; i < 100; i++) c.Execute("PING");
        c.Execute("SELECT", "nope");
        var after = ParseInfo(c.Execute("INFO", "stats").Text!);
        Assert.That(long.Parse(after["total_commands_processed"]) - before, Is.InRange(102, 110));
        Assert.That(long.Parse(after["total_error_replies"]) - errBefore, Is.GreaterThanOrEqualTo(1));
        Assert.That(long.Parse(after["total_net_input_bytes"]), Is.GreaterThan(1400));
        Assert.That(long.Parse(after["total_connections_received"]), Is.GreaterThanOrEqualTo(1));
    }

    [Test]
    public void ConfigGetWithPatterns()
    {
        using var c = _server.Client();
        var m = RespAssert.Map(c.Execute("CONFIG", "GET", "port"));
        Assert.That(m.Keys, Is.EquivalentTo(new[] { "port" }));
        Assert.That(m["port"].Text, Is.EqualTo(_server.Port.ToString()).Or.EqualTo("0"));
        m = RespAssert.Map(c.Execute("CONFIG", "GET", "*max*"));
        Assert.That(m.Keys, Is.SupersetOf(new[] { "maxmemory", "maxclients", "proto-max-bulk-len" }));
        m = RespAssert.Map(c.Execute("CONFIG", "GET", "DATABASES", "data*", "time?ut"));
        Assert.That(m.Keys, Is.EquivalentTo(new[] { "databases", "timeout" }));
        Assert.That(m["databases"].Text, Is.EqualTo("4"));
        Assert.That(c.Execute("CONFIG", "GET", "nomatch*").Elements, Is.Empty);
    }

    [Test]
    public void ConfigSet()
    {
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("CONFIG", "SET", "maxclients", "5000", "timeout", "0"), "OK");
        Assert.That(RespAssert.Map(c.Execute("CONFIG", "GET", "maxclients"))["maxclients"].Text, Is.EqualTo("5000"));
        RespAssert.Error(c.Execute("CONFIG", "SET", "port", "1234"), "ERR CONFIG SET failed (possibly related to argument 'port') - can't set immutable config");
        RespAssert.Error(c.Execute("CONFIG", "SET", "nosuch", "1"), "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'");
        RespAssert.Error(c.Execute("CONFIG", "SET", "maxclients", "abc"), "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer");
        RespAssert.Error(c.Execute("CONFIG", "SET", "loglevel", "loud"), "ERR CONFIG SET failed (possibly related to argument 'loglevel') - argument(s) must be one of the following: debug, verbose, notice, warning, nothing");
        RespAssert.Error(c.Execute("CONFIG", "SET", "maxclients", "1", "maxclients", "2"), "ERR CONFIG SET failed (possibly related to argument 'maxclients') - duplicate parameter");
        RespAssert.Error(c.Execute("CONFIG", "SET", "maxclients"), "ERR wrong number of arguments for 'config|set' command");
        RespAssert.Error(c.Execute("CONFIG", "SET", "maxclients", "1", "timeout"), "ERR syntax error");
        // all-or-nothing: the valid maxclients is not applied when timeout is invalid
        RespAssert.Error(c.Execute("CONFIG", "SET", "maxclients", "7", "timeout", "-1"), "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument must be between 0 and 2147483647 inclusive");
        Assert.That(RespAssert.Map(c.Execute("CONFIG", "GET", "maxclients"))["maxclients"].Text, Is.EqualTo("5000"));
        RespAssert.Simple(c.Execute("CONFIG", "SET", "LOGLEVEL", "WARNING"), "OK");
        Assert.That(RespAssert.Map(c.Execute("CONFIG", "GET", "loglevel"))["loglevel"].Text, Is.EqualTo("warning"));
        RespAssert.Simple(c.Execute("CONFIG", "SET", "loglevel", "notice", "maxclients", "10000"), "OK");
        RespAssert.Error(c.Execute("CONFIG", "FOO"), "ERR unknown subcommand 'FOO'. Try CONFIG HELP.");
    }

    [Test]
    public void ConfigResetStat()
    {
        using var c = _server.Client();
        for (int i = 0; i < 10; i++) c.Execute("PING");
        RespAssert.Simple(c.Execute("CONFIG", "RESETSTAT"), "OK");
        var f = ParseInfo(c.Execute("INFO", "stats").Text!);
        Assert.That(long.Parse(f["total_commands_processed"]), Is.LessThan(5));
        Assert.That(long.Parse(f["total_error_replies"]), Is.EqualTo(0));
    }

    [Test]
    public void ShutdownArgumentErrors()
    {
        using var c = _server.Client();
        RespAssert.Error(c.Execute("SHUTDOWN", "SAVE", "NOSAVE"), "ERR syntax error");
        RespAssert.Error(c.Execute("SHUTDOWN", "BOGUS"), "ERR syntax error");
        RespAssert.Error(c.Execute("SHUTDOWN", "ABORT"), "ERR No shutdown in progress.");
        RespAssert.Simple(c.Execute("PING"), "PONG");
    }
}

[TestFixture]
public class ClientLimitTests
{
    [Test]
    public void MaxClientsRefusesWithError()
    {
        using var server = new TestServer(o => o.MaxClients = 2);
        using var a = server.Client();
        using var b = server.Client();
        RespAssert.Simple(a.Execute("PING"), "PONG");
        RespAssert.Simple(b.Execute("PING"), "PONG");
        using var c = server.Client();
        RespAssert.Error(c.Read(), "ERR max number of clients reached");
        Assert.That(c.IsClosedByServer());
        var info = a.Execute("INFO", "stats").Text!;
        Assert.That(info, Does.Contain("rejected_connections:1"));
    }

    [Test]
    public void IdleTimeoutClosesClients()
    {
        using var server = new TestServer(o => o.Timeout = 1);
        using var c = server.Client(timeoutMs: 5000);
        RespAssert.Simple(c.Execute("PING"), "PONG");
        Assert.That(c.IsClosedByServer(), Is.True, "an idle client is closed after 'timeout' seconds");
    }

    [Test]
    public void OutputBufferLimitDropsClientWithHugeReply()
    {
        using var server = new TestServer(o => o.ClientOutputBufferLimit = "1mb");
        using var c = server.Client();
        var small = new string('s', 1000);
        RespAssert.Bulk(c.Execute("ECHO", small), small);
        c.Send("ECHO", new string('b', 2 * 1024 * 1024));
        Assert.That(c.IsClosedByServer(), Is.True);
        using var d = server.Client();
        RespAssert.Simple(d.Execute("PING"), "PONG");
    }
}
