using StackExchange.Redis;

namespace Garnet.test;

/// <summary>A real client library: StackExchange.Redis (1.2.6, the newest version the package registry here serves).</summary>
[TestFixture]
public class StackExchangeRedisTests : ServerFixture
{

    [Test]
    public void ConnectsAndRunsServerCommands()
    {
        using var mux = _server.Multiplexer(",name=se-client");
        Assert.That(mux.IsConnected);
        var db = mux.GetDatabase();
        Assert.That(db.Ping(), Is.GreaterThan(TimeSpan.Zero));
        Assert.That((string?)db.Execute("ECHO", "hi"), Is.EqualTo("hi"));

        var server = mux.GetServer("127.0.0.1", _server.Port);
        var info = server.Info();
        Assert.That(info.Select(g => g.Key), Is.SupersetOf(new[] { "Server", "Clients", "Memory", "Stats" }));
        Assert.That(server.Version.Major, Is.EqualTo(7));
        var config = server.ConfigGet("maxclients");
        Assert.That(config.Single().Value, Is.EqualTo("10000"));
        var clients = server.ClientList();
        Assert.That(clients.Any(c => c.Name == "se-client"));
        var time = server.Time();
        Assert.That((DateTime.UtcNow - time).Duration(), Is.LessThan(TimeSpan.FromMinutes(1)));
        Assert.That(server.IsSlave, Is.False);
    }

    [Test]
    public void ErrorsSurfaceAsRedisServerException()
    {
        using var mux = _server.Multiplexer();
        var db = mux.GetDatabase();
        var ex = Assert.Throws<RedisServerException>(() => db.Execute("NOSUCHCOMMAND", "a"));
        Assert.That(ex!.Message, Does.StartWith("ERR unknown command 'NOSUCHCOMMAND'"));
        Assert.That((string?)db.Execute("PING"), Is.EqualTo("PONG"));
    }

    [Test]
    public void ManyConcurrentRequests()
    {
        using var mux = _server.Multiplexer();
        var db = mux.GetDatabase();
        var tasks = Enumerable.Range(0, 5000).Select(i => db.ExecuteAsync("ECHO", "m" + i)).ToArray();
        Task.WaitAll(tasks);
        for (int i = 0; i < tasks.Length; i++) Assert.That((string?)tasks[i].Result, Is.EqualTo("m" + i));
    }
}
