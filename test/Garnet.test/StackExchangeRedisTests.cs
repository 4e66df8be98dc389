// A real client library against our server: StackExchange.Redis 2.x (see docs/dependencies.md for the version),
// over RESP2 and over RESP3 (`protocol=resp3`, HELLO 3 at connect). Every test runs once per protocol, and
// TestServer.Multiplexer fails a test whose connection did not end up speaking the protocol it asked for.
using StackExchange.Redis;

namespace Garnet.test;

[TestFixture]
public class StackExchangeRedisTests : ServerFixture
{
    [Test]
    public void ConnectsAndRunsServerCommands([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        string name = "se-client-" + protocol;
        using var mux = _server.Multiplexer(protocol, ",name=" + name);
        Assert.That(mux.IsConnected);
        var db = mux.GetDatabase();
        Assert.That(db.Ping(), Is.GreaterThan(TimeSpan.Zero));
        Assert.That((string?)db.Execute("ECHO", "hi"), Is.EqualTo("hi"));

        var server = mux.GetServer("127.0.0.1", _server.Port);
        var info = server.Info();
        // The client's RESP3 "txt:" quirk undone (StackExchangeInfo; InfoTests checks INFO's bytes raw).
        Assert.That(StackExchangeInfo.SectionNames(info, protocol), Is.SupersetOf(new[] { "Server", "Clients", "Memory", "Stats" }));
        Assert.That(server.Version.Major, Is.EqualTo(7));
        var config = server.ConfigGet("maxclients");
        Assert.That(config.Single().Value, Is.EqualTo("10000"));
        var time = server.Time();
        Assert.That((DateTime.UtcNow - time).Duration(), Is.LessThan(TimeSpan.FromMinutes(1)));
        Assert.That(server.IsReplica, Is.False);

        // CLIENT LIST as the server sees this client: over RESP2 it keeps a second connection for pub/sub, over
        // RESP3 one connection carries both. Each has the name, the protocol HELLO set, and the library name and
        // version the client sent with CLIENT SETINFO at connect.
        // (The pub/sub connection may finish its handshake after Connect returns: wait a little for it.)
        int expected = protocol == RedisProtocol.Resp3 ? 1 : 2;
        List<ClientInfo> mine;
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (((mine = server.ClientList().Where(c => c.Name == name).ToList()).Count < expected
                || mine.Any(c => string.IsNullOrEmpty(c.LibraryVersion))) && DateTime.UtcNow < deadline)
            Thread.Sleep(20);
        Assert.That(mine, Has.Count.EqualTo(expected));
        string libVersion = System.Diagnostics.FileVersionInfo.GetVersionInfo(typeof(ConnectionMultiplexer).Assembly.Location).FileVersion!;
        foreach (var c in mine)
        {
            Assert.That(c.Protocol, Is.EqualTo(protocol));
            Assert.That(c.LibraryName, Does.StartWith("SE.Redis"));
            Assert.That(c.LibraryVersion, Is.EqualTo(libVersion));
        }
    }

    [Test]
    public void ReplyShapesFollowTheProtocol([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        using var mux = _server.Multiplexer(protocol);
        var db = mux.GetDatabase(2);
        bool resp3 = protocol == RedisProtocol.Resp3;

        // CONFIG GET: a map in RESP3, a flat array of pairs in RESP2; the client reads both as pairs.
        var config = db.Execute("CONFIG", "GET", "maxclients");
        Assert.That(config.Resp3Type, Is.EqualTo(resp3 ? ResultType.Map : ResultType.Array));
        Assert.That(config.Resp2Type, Is.EqualTo(ResultType.Array));
        var pairs = config.ToDictionary();
        Assert.That((string?)pairs["maxclients"], Is.EqualTo("10000"));

        // INFO and CLIENT INFO: verbatim strings ("txt:" and the text) in RESP3, bulk strings in RESP2.
        // ToString(out type) takes the format off; a plain string cast keeps it, as the client documents.
        var info = db.Execute("INFO", "server");
        Assert.That(info.Resp3Type, Is.EqualTo(resp3 ? ResultType.VerbatimString : ResultType.BulkString));
        Assert.That(info.Resp2Type, Is.EqualTo(ResultType.BulkString));
        Assert.That(info.ToString(out string? format), Does.StartWith("# Server\r\nredis_version:7.2.5\r\n"));
        Assert.That(format, Is.EqualTo(resp3 ? "txt" : null));
        Assert.That((string?)info, Does.StartWith(resp3 ? "txt:# Server\r\n" : "# Server\r\n"));
        var clientInfo = db.Execute("CLIENT", "INFO");
        Assert.That(clientInfo.Resp3Type, Is.EqualTo(resp3 ? ResultType.VerbatimString : ResultType.BulkString));
        Assert.That(clientInfo.ToString(out _), Does.Contain($" resp={(resp3 ? 3 : 2)} "));

        // A missing key: RESP3's null type or RESP2's null bulk string, which the client reports alike.
        var missing = db.Execute("GET", "shape:missing");
        Assert.That(missing.IsNull);
        Assert.That(missing.Resp3Type, Is.EqualTo(ResultType.Null));
        Assert.That(missing.Resp2Type, Is.EqualTo(ResultType.BulkString));
        Assert.That(db.StringGet("shape:missing").IsNull);

        // Integers, simple strings and arrays look the same in both.
        Assert.That((long)db.Execute("INCRBY", "shape:n", "5"), Is.EqualTo(5));
        Assert.That(db.Execute("SET", "shape:s", "v").Resp3Type, Is.EqualTo(ResultType.SimpleString));
        var mget = (RedisValue[]?)db.Execute("MGET", "shape:s", "shape:missing");
        Assert.That(mget, Is.EqualTo(new RedisValue[] { "v", RedisValue.Null }));

        // HELLO with no version answers in the connection's protocol: a map in RESP3, pairs in RESP2.
        var hello = db.Execute("HELLO");
        Assert.That(hello.Resp3Type, Is.EqualTo(resp3 ? ResultType.Map : ResultType.Array));
        Assert.That((long)hello.ToDictionary()["proto"], Is.EqualTo(resp3 ? 3 : 2));
        db.KeyDelete(new RedisKey[] { "shape:n", "shape:s" });
    }

    [Test]
    public void ErrorsSurfaceAsRedisServerException([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        using var mux = _server.Multiplexer(protocol);
        var db = mux.GetDatabase();
        var ex = Assert.Throws<RedisServerException>(() => db.Execute("NOSUCHCOMMAND", "a"));
        Assert.That(ex!.Message, Does.StartWith("ERR unknown command 'NOSUCHCOMMAND'"));
        Assert.That((string?)db.Execute("PING"), Is.EqualTo("PONG"));
    }

    [Test]
    public void ManyConcurrentRequests([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        using var mux = _server.Multiplexer(protocol);
        var db = mux.GetDatabase();
        var tasks = Enumerable.Range(0, 5000).Select(i => db.ExecuteAsync("ECHO", "m" + i)).ToArray();
        Task.WaitAll(tasks);
        for (int i = 0; i < tasks.Length; i++) Assert.That((string?)tasks[i].Result, Is.EqualTo("m" + i));
    }
}
