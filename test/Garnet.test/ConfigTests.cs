// CONFIG GET / SET / REWRITE of the parameters monitoring tools and clients read, and the run-time changes that take
// effect: save rules, appendonly (the AOF turned on and off while serving), appendfsync, maxmemory, protected-mode.
using Garnet.client;
using Garnet.Options;
using StackExchange.Redis;

namespace Garnet.test;

[TestFixture]
public class ConfigTests : ServerFixture
{
    protected override void Configure(GarnetServerOptions o) => o.Databases = 4;

    private static Dictionary<string, string> Get(RespClient c, params string[] patterns) =>
        RespAssert.Map(c.Execute(["CONFIG", "GET", .. patterns])).ToDictionary(kv => kv.Key, kv => kv.Value.Text!);

    [Test]
    public void GetStarListsWhatIsInForce()
    {
        using var c = _server.Client();
        var all = Get(c, "*");
        Assert.That(all, Does.ContainKey("save").WithValue(""));
        Assert.That(all, Does.ContainKey("appendonly").WithValue("no"));
        Assert.That(all, Does.ContainKey("appendfsync").WithValue("everysec"));
        Assert.That(all, Does.ContainKey("dir").WithValue(Path.GetFullPath(_server.Dir)));
        Assert.That(all, Does.ContainKey("dbfilename").WithValue("checkpoint.1.rdb"));
        Assert.That(all, Does.ContainKey("maxmemory").WithValue((1L << 30).ToString()));
        Assert.That(all, Does.ContainKey("maxmemory-policy").WithValue("noeviction"));
        Assert.That(all, Does.ContainKey("port").WithValue(_server.Port.ToString()));
        Assert.That(all, Does.ContainKey("bind").WithValue("127.0.0.1"));
        Assert.That(all, Does.ContainKey("databases").WithValue("4"));
        Assert.That(all, Does.ContainKey("requirepass").WithValue(""));
        Assert.That(all, Does.ContainKey("protected-mode").WithValue("yes"));
        Assert.That(all, Does.ContainKey("timeout").WithValue("0"));
        Assert.That(all, Does.ContainKey("loglevel").WithValue("notice"));
        Assert.That(all, Does.ContainKey("maxclients").WithValue("10000"));
        Assert.That(all, Does.ContainKey("notify-keyspace-events").WithValue(""));
        Assert.That(all, Does.ContainKey("cluster-enabled").WithValue("no"));
        Assert.That(all.Keys, Is.Unique);
        Assert.That(Get(c, "append*").Keys, Is.EquivalentTo(new[] { "appendonly", "appendfsync" }));
        Assert.That(Get(c, "MAXMEMORY*").Keys, Is.EquivalentTo(new[] { "maxmemory", "maxmemory-policy" }));
        Assert.That(Get(c, "[sd]a*").Keys, Is.EquivalentTo(new[] { "save", "databases", "daemonize" }));
    }

    [Test]
    public void SaveRulesTakeEffect()
    {
        using var c = _server.Client();
        var checkpoints = _server.Server.Server.Checkpoints;
        RespAssert.Simple(c.Execute("CONFIG", "SET", "save", "100 10 50 1000"), "OK");
        Assert.That(Get(c, "save")["save"], Is.EqualTo("100 10 50 1000"));
        Assert.That(checkpoints.Rules, Is.EqualTo(new[] { new Garnet.server.Persistence.SaveRule(100, 10), new Garnet.server.Persistence.SaveRule(50, 1000) }));
        Assert.That(new InfoText(c.Execute("INFO", "persistence").Text!)["checkpoint_save_rules"], Is.EqualTo("100 10 50 1000"));
        RespAssert.Error(c.Execute("CONFIG", "SET", "save", "100"), "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters");
        RespAssert.Error(c.Execute("CONFIG", "SET", "save", "0 1"), "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters");
        RespAssert.Error(c.Execute("CONFIG", "SET", "save", "10 x"), "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters");
        RespAssert.Simple(c.Execute("CONFIG", "SET", "save", ""), "OK");
        Assert.That(Get(c, "save")["save"], Is.EqualTo(""));
        Assert.That(checkpoints.Rules, Is.Empty);
        Assert.That(_server.Server.Settings.SaveRules, Is.Empty, "SHUTDOWN reads the rules from the settings");
    }

    [Test]
    public void AppendFsyncAndMaxMemory()
    {
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("CONFIG", "SET", "appendfsync", "ALWAYS"), "OK");
        Assert.That(Get(c, "appendfsync")["appendfsync"], Is.EqualTo("always"));
        RespAssert.Error(c.Execute("CONFIG", "SET", "appendfsync", "sometimes"),
            "ERR CONFIG SET failed (possibly related to argument 'appendfsync') - argument(s) must be one of the following: always, everysec, no");
        RespAssert.Simple(c.Execute("CONFIG", "SET", "appendfsync", "everysec"), "OK");

        var log = _server.Server.Server.Store.Store.Log;
        RespAssert.Simple(c.Execute("CONFIG", "SET", "maxmemory", "256mb"), "OK");
        Assert.That(Get(c, "maxmemory")["maxmemory"], Is.EqualTo((256L << 20).ToString()));
        Assert.That(log.MemoryBudget, Is.EqualTo(256L << 20), "the engine's budget follows");
        Assert.That(new InfoText(c.Execute("INFO", "memory").Text!).Long("maxmemory"), Is.EqualTo(256L << 20));
        RespAssert.Error(c.Execute("CONFIG", "SET", "maxmemory", "2gb"),
            $"ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be between 1048576 and {1L << 30} inclusive");
        RespAssert.Error(c.Execute("CONFIG", "SET", "maxmemory", "lots"),
            "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value");
        RespAssert.Simple(c.Execute("CONFIG", "SET", "maxmemory", "1gb"), "OK");
        Assert.That(log.MemoryBudget, Is.EqualTo(1L << 30));

        RespAssert.Simple(c.Execute("CONFIG", "SET", "maxmemory-policy", "noeviction"), "OK");
        RespAssert.Error(c.Execute("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"),
            "ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: noeviction");
    }

    [Test]
    public void ProtectedModeTimeoutLogLevel()
    {
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("CONFIG", "SET", "protected-mode", "no"), "OK");
        Assert.That(Get(c, "protected-mode")["protected-mode"], Is.EqualTo("no"));
        Assert.That(_server.Server.Settings.ProtectedMode, Is.False);
        RespAssert.Error(c.Execute("CONFIG", "SET", "protected-mode", "maybe"),
            "ERR CONFIG SET failed (possibly related to argument 'protected-mode') - argument must be 'yes' or 'no'");
        RespAssert.Simple(c.Execute("CONFIG", "SET", "protected-mode", "YES", "timeout", "30", "loglevel", "warning"), "OK");
        Assert.That(Get(c, "protected-mode", "timeout", "loglevel"),
            Is.EquivalentTo(new Dictionary<string, string> { ["protected-mode"] = "yes", ["timeout"] = "30", ["loglevel"] = "warning" }));
        RespAssert.Simple(c.Execute("CONFIG", "SET", "timeout", "0", "loglevel", "notice"), "OK");
    }

    [Test]
    public void RefusedChangesUseRedisWording()
    {
        using var c = _server.Client();
        foreach (var p in new[] { "port", "bind", "dir", "databases", "dbfilename", "hz", "daemonize" })
            RespAssert.Error(c.Execute("CONFIG", "SET", p, "1"), $"ERR CONFIG SET failed (possibly related to argument '{p}') - can't set immutable config");
        RespAssert.Error(c.Execute("CONFIG", "SET", "no-such-thing", "1"), "ERR Unknown option or number of arguments for CONFIG SET - 'no-such-thing'");
        RespAssert.Error(c.Execute("CONFIG", "SET", "timeout", "1", "port"), "ERR syntax error");
        RespAssert.Error(c.Execute("CONFIG", "SET", "timeout"), "ERR wrong number of arguments for 'config|set' command");
        RespAssert.Error(c.Execute("CONFIG", "REWRITE"), "ERR The server is running without a config file");
        Assert.That(Get(c, "timeout")["timeout"], Is.EqualTo("0"));
    }

    [Test]
    public void StackExchangeRedisConfigRoundTrip([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        using var mux = _server.Multiplexer(protocol);
        var server = mux.GetServer(mux.GetEndPoints()[0]);
        var all = server.ConfigGet("*").ToDictionary(kv => kv.Key, kv => kv.Value);
        Assert.That(all["maxmemory-policy"], Is.EqualTo("noeviction"));
        server.ConfigSet("timeout", 17);
        Assert.That(server.ConfigGet("timeout").Single().Value, Is.EqualTo("17"));
        server.ConfigSet("timeout", 0);
    }
}

[TestFixture]
public class ConfigAppendOnlyTests
{
    private static string AofText(string dir) =>
        string.Concat(Directory.GetFiles(dir, "appendonly.*.aof").Select(f => System.Text.Encoding.ASCII.GetString(File.ReadAllBytes(f))));

    private static InfoText WaitForRewrite(RespClient c, long rewrites)
    {
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (true)
        {
            var info = new InfoText(c.Execute("INFO", "persistence").Text!);
            if (info.Long("aof_rewrites") >= rewrites && info.Long("aof_rewrite_in_progress") == 0) return info;
            Assert.That(DateTime.UtcNow, Is.LessThan(deadline), "the checkpoint after CONFIG SET appendonly yes did not finish");
            Thread.Sleep(20);
        }
    }

    [Test]
    [CancelAfter(60_000)]
    public void TurnedOnAtRunTimeRecoveryIsCheckpointPlusAof()
    {
        var dir = Path.Combine(Path.GetTempPath(), "garnet-test-" + Guid.NewGuid().ToString("N"));
        try
        {
            using (var s1 = new TestServer(dir: dir))
            using (var c = s1.Client())
            {
                c.Execute("SET", "before", "1");
                c.Execute("SET", "gone", "x");
                RespAssert.Simple(c.Execute("CONFIG", "SET", "appendonly", "yes"), "OK");
                Assert.That(RespAssert.Map(c.Execute("CONFIG", "GET", "appendonly"))["appendonly"].Text, Is.EqualTo("yes"));
                var info = WaitForRewrite(c, 1);
                Assert.That(info.Long("aof_enabled"), Is.EqualTo(1));
                Assert.That(info["aof_last_bgrewrite_status"], Is.EqualTo("ok"));
                Assert.That(Directory.GetFiles(dir, "checkpoint.*.rdb"), Has.Length.EqualTo(1), "the checkpoint the AOF starts from");
                c.Execute("SET", "after", "2");
                c.Execute("DEL", "gone");
                RespAssert.Simple(c.Execute("CONFIG", "SET", "appendonly", "yes"), "OK"); // already on: nothing changes
                s1.Server.Server.Aof!.FlushAndSync();
                Assert.That(AofText(dir), Does.Contain("after"));
            }
            // No checkpoint at stop (no save rules, and the server started without --aof): "after" comes from the AOF.
            using (var s2 = new TestServer(o => o.Aof = true, dir))
            using (var c = s2.Client())
            {
                RespAssert.Bulk(c.Execute("GET", "before"), "1");
                RespAssert.Bulk(c.Execute("GET", "after"), "2");
                Assert.That(c.Execute("GET", "gone").IsNull, Is.True, "the DEL after the checkpoint is replayed");
                Assert.That(s2.Server.Server.Replayed.Commands, Is.GreaterThanOrEqualTo(2));
            }
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    [Test]
    [CancelAfter(60_000)]
    public void TurnedOffAtRunTimeStopsLogging()
    {
        using var server = new TestServer(o => o.Aof = true);
        using var c = server.Client();
        c.Execute("SET", "logged-key", "1");
        RespAssert.Simple(c.Execute("CONFIG", "SET", "appendfsync", "always"), "OK");
        Assert.That(server.Server.Server.Aof!.Policy, Is.EqualTo(Garnet.server.Persistence.AofFsync.Always));
        c.Execute("SET", "synced-key", "1"); // the reply waits for the fsync
        Assert.That(AofText(server.Dir), Does.Contain("synced-key"));
        RespAssert.Simple(c.Execute("CONFIG", "SET", "appendonly", "no"), "OK");
        Assert.That(server.Server.Server.Aof, Is.Null);
        Assert.That(new InfoText(c.Execute("INFO", "persistence").Text!).Long("aof_enabled"), Is.EqualTo(0));
        Assert.That(AofText(server.Dir), Does.Contain("logged-key"), "what was logged is written when the log closes");
        c.Execute("SET", "unlogged-key", "1");
        RespAssert.Bulk(c.Execute("GET", "unlogged-key"), "1");
        Assert.That(AofText(server.Dir), Does.Not.Contain("unlogged-key"));
        // And on again: a new file, positions continue, replies under "always" are not held back.
        RespAssert.Simple(c.Execute("CONFIG", "SET", "appendonly", "yes"), "OK");
        WaitForRewrite(c, 1);
        c.Execute("SET", "relogged-key", "1");
        server.Server.Server.Aof!.FlushAndSync();
        Assert.That(AofText(server.Dir), Does.Contain("relogged-key"));
    }
}
