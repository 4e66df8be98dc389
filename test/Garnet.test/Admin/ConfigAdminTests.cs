// CONFIG SET of several parameters (all or nothing, Redis 7.2's error order), CONFIG GET with several patterns, and
// CONFIG REWRITE of the file the server started with (comments and unknown lines kept, read back at the next start).
namespace Garnet.test.Admin;

[TestFixture]
public class ConfigAdminTests : ServerFixture
{
    private static Dictionary<string, string> Get(Garnet.client.RespClient c, params string[] patterns)
    {
        var reply = c.Execute(new object[] { "CONFIG", "GET" }.Concat(patterns).ToArray());
        var items = reply.Elements!;
        var map = new Dictionary<string, string>();
        for (int i = 0; i + 1 < items.Length; i += 2) map[items[i].Text!] = items[i + 1].Text!;
        return map;
    }

    [Test]
    public void SetSeveralIsAllOrNothing()
    {
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("CONFIG", "SET", "timeout", "0", "maxclients", "10000"), "OK");
        RespAssert.Simple(c.Execute("CONFIG", "SET", "timeout", "11", "maxclients", "500", "loglevel", "warning"), "OK");
        Assert.That(Get(c, "timeout", "maxclients", "loglevel"),
            Is.EquivalentTo(new Dictionary<string, string> { ["timeout"] = "11", ["maxclients"] = "500", ["loglevel"] = "warning" }));
        // A bad value anywhere: nothing changes.
        RespAssert.Error(c.Execute("CONFIG", "SET", "timeout", "5", "maxclients", "abc"),
            "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer");
        Assert.That(Get(c, "timeout")["timeout"], Is.EqualTo("11"));
        // Names are checked before values, and the first bad name wins (Redis 7.2's configSetCommand).
        RespAssert.Error(c.Execute("CONFIG", "SET", "maxclients", "abc", "nosuch", "1"), "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'");
        RespAssert.Error(c.Execute("CONFIG", "SET", "maxclients", "abc", "daemonize", "yes", "nosuch", "1"),
            "ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config");
        RespAssert.Error(c.Execute("CONFIG", "SET", "timeout", "1", "TIMEOUT", "2"),
            "ERR CONFIG SET failed (possibly related to argument 'TIMEOUT') - duplicate parameter");
        RespAssert.Error(c.Execute("CONFIG", "SET", "timeout", "1", "maxclients"), "ERR syntax error");
        Assert.That(Get(c, "timeout")["timeout"], Is.EqualTo("11"));
        RespAssert.Simple(c.Execute("CONFIG", "SET", "timeout", "0", "maxclients", "10000", "loglevel", "notice"), "OK");
    }

    [Test]
    public void GetSeveralPatterns()
    {
        using var c = _server.Client();
        var got = Get(c, "maxclient*", "time*", "timeout", "no-such-*");
        Assert.That(got.Keys, Is.EquivalentTo(new[] { "maxclients", "timeout" }), "each parameter once");
        Assert.That(Get(c, "*max-*-entries").Keys, Does.Contain("hash-max-listpack-entries").And.Contain("zset-max-ziplist-entries"));
        RespAssert.Error(c.Execute("CONFIG", "GET"), "ERR wrong number of arguments for 'config|get' command");
    }
}

[TestFixture]
public class ConfigRewriteTests
{
    private string _dir = null!;

    [SetUp]
    public void MakeDir()
    {
        _dir = Path.Combine(Path.GetTempPath(), "admin-rewrite-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(_dir);
    }

    [TearDown]
    public void RemoveDir()
    {
        Garnet.server.Objects.EncodingLimits.HashMaxListpackEntries = 128; // process-wide: the files here change it
        try { Directory.Delete(_dir, recursive: true); } catch (IOException) { }
    }

    [Test]
    public void RewriteKeepsCommentsAndUnknownLinesAndPersistsChanges()
    {
        string conf = Path.Combine(_dir, "redis.conf");
        string data = Path.Combine(_dir, "data");
        File.WriteAllText(conf, string.Join('\n',
            "# my settings",
            "timeout 10",
            "some-module-option foo bar   # not ours: kept",
            "",
            "hash-max-ziplist-entries 64",
            "timeout 20",
            "daemonize no",
            "save 900 1",
            "save 300 10",
            "  latency-tracking yes",
            "maxclients 777") + "\n");
        int port;
        using (var server = new TestServer(o => { o.ConfigFile = conf; o.Save = null; }, dir: data))
        {
            port = server.Port;
            using var c = server.Client();
            Assert.That(c.Execute("CONFIG", "GET", "timeout").Elements![1].Text, Is.EqualTo("20"), "the last line wins, as redis.conf");
            Assert.That(c.Execute("CONFIG", "GET", "hash-max-listpack-entries").Elements![1].Text, Is.EqualTo("64"));
            Assert.That(c.Execute("CONFIG", "GET", "save").Elements![1].Text, Is.EqualTo("900 1 300 10"));
            RespAssert.Simple(c.Execute("CONFIG", "SET", "timeout", "33", "hash-max-listpack-entries", "100", "maxclients", "10000",
                "notify-keyspace-events", "KEA", "save", "100 1 60 5", "slowlog-max-len", "128", "maxmemory", "64mb"), "OK");
            RespAssert.Simple(c.Execute("CONFIG", "REWRITE"), "OK");
        }
        // As redis-server 7.0.15 rewrites the same file after the same CONFIG SET (checked by hand): lines in place, a
        // parameter's extra lines blanked, blank runs made one, a parameter at its default kept on its line (maxclients),
        // not appended when absent (slowlog-max-len); non-default ones appended after the signature, dir always.
        var lines = File.ReadAllLines(conf);
        Assert.That(lines, Is.EqualTo(new[]
        {
            "# my settings",
            "timeout 33",
            "some-module-option foo bar   # not ours: kept",
            "",
            "hash-max-listpack-entries 100",
            "",
            "daemonize no",
            "save 100 1",
            "save 60 5",
            "latency-tracking yes",
            "maxclients 10000",
            "",
            "# Generated by CONFIG REWRITE",
            $"port {port}",
            "notify-keyspace-events \"AKE\"",
            "maxmemory 64mb",
            $"dir \"{Path.GetFullPath(data)}\"",
        }));
        Assert.That(Directory.GetFiles(_dir, "temp-rewriteconf-*"), Is.Empty);

        // The next start reads it back; a second rewrite changes nothing but the port (0 here: a new one each start).
        using (var server = new TestServer(o => { o.ConfigFile = conf; o.Save = null; }, dir: data))
        {
            port = server.Port;
            using var c = server.Client();
            var items = c.Execute("CONFIG", "GET", "timeout", "maxclients", "hash-max-listpack-entries", "notify-keyspace-events", "save", "maxmemory").Elements!;
            var map = Enumerable.Range(0, items.Length / 2).ToDictionary(i => items[2 * i].Text!, i => items[2 * i + 1].Text!);
            Assert.That(map, Is.EquivalentTo(new Dictionary<string, string>
            {
                ["timeout"] = "33", ["maxclients"] = "10000", ["hash-max-listpack-entries"] = "100", ["notify-keyspace-events"] = "AKE",
                ["save"] = "100 1 60 5", ["maxmemory"] = "67108864",
            }));
            RespAssert.Simple(c.Execute("CONFIG", "REWRITE"), "OK");
            // The encoding limits are process-wide: back to the default for the other tests.
            RespAssert.Simple(c.Execute("CONFIG", "SET", "hash-max-listpack-entries", "128"), "OK");
        }
        // As Redis (sdssplitlen keeps the empty line after the last newline): one blank line more at the end, then stable.
        var again = File.ReadAllLines(conf);
        Assert.That(again.Where(l => !l.StartsWith("port ")), Is.EqualTo(lines.Where(l => !l.StartsWith("port ")).Append("")));
        Assert.That(again, Does.Contain($"port {port}"));
    }

    [Test]
    public void RewriteDefaultsAreTheServersDefaults()
    {
        // Rewritable's defaults decide what is appended: each must be what a server started without options reports.
        using var server = new TestServer(o => { o.Bind = null; o.Save = null; });
        using var c = server.Client();
        foreach (var (name, def) in Garnet.server.Config.ConfigRewrite.Rewritable)
        {
            if (def is null || name == "port") continue;
            Assert.That(c.Execute("CONFIG", "GET", name).Elements![1].Text, Is.EqualTo(def), name);
        }
    }

    [Test]
    public void RewriteOfAnEmptyFileWritesTheNonDefaultsAndRemovesAnUnsetSocket()
    {
        Assert.That(Garnet.server.Config.ConfigRewrite.RewriteText("", [("timeout", "0"), ("maxclients", "5"), ("save", ""), ("unixsocket", "")]),
            Is.EqualTo("# Generated by CONFIG REWRITE\nmaxclients 5\nsave \"\"\n"));
        Assert.That(Garnet.server.Config.ConfigRewrite.RewriteText("unixsocket /tmp/a.sock\nport 7000\nunixsocketperm 700\n",
                [("unixsocket", ""), ("port", "7000"), ("unixsocketperm", "0"),
                 ("client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 0 0")]),
            Is.EqualTo("\nport 7000\nunixsocketperm 0\n\n# Generated by CONFIG REWRITE\nclient-output-buffer-limit pubsub 1mb 0 0\n"));
    }

    [Test]
    public void JsonConfigFileIsNotRewritten()
    {
        string conf = Path.Combine(_dir, "garnet.json");
        File.WriteAllText(conf, "{ \"timeout\": 5 }");
        using var server = new TestServer(o => o.ConfigFile = conf, dir: Path.Combine(_dir, "data"));
        using var c = server.Client();
        Assert.That(c.Execute("CONFIG", "REWRITE").Text, Does.StartWith("ERR Rewriting config file: CONFIG REWRITE writes redis.conf-format files only"));
        Assert.That(File.ReadAllText(conf), Is.EqualTo("{ \"timeout\": 5 }"));
    }
}
