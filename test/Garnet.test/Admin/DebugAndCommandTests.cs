// DEBUG (the operators' subset), COMMAND GETKEYSANDFLAGS / LIST FILTERBY and the table rows of the admin commands.
using System.Diagnostics;
using System.Text.RegularExpressions;

namespace Garnet.test.Admin;

[TestFixture]
public class DebugAndCommandTests : ServerFixture
{
    [Test]
    public void DebugObjectLineAsRedis()
    {
        using var c = _server.Client();
        c.Execute("SET", "dbg-s", "hello");
        c.Execute("SET", "dbg-n", "123");
        c.Execute("RPUSH", "dbg-l", "a", "b", "c");
        var line = new Regex(@"^Value at:0x[0-9a-f]+ refcount:(\d+) encoding:(\S+) serializedlength:(\d+) lru:(\d+) lru_seconds_idle:(\d+)$");
        var m = line.Match(c.Execute("DEBUG", "OBJECT", "dbg-s").Text!);
        Assert.That(m.Success, Is.True);
        Assert.That((m.Groups[1].Value, m.Groups[2].Value, m.Groups[3].Value), Is.EqualTo(("1", "embstr", "6")), "as Redis 7 answers for \"hello\"");
        m = line.Match(c.Execute("DEBUG", "OBJECT", "dbg-n").Text!);
        Assert.That((m.Groups[1].Value, m.Groups[2].Value, m.Groups[3].Value), Is.EqualTo(("2147483647", "int", "2")));
        Assert.That(line.Match(c.Execute("DEBUG", "OBJECT", "dbg-l").Text!).Groups[2].Value, Is.EqualTo("listpack"));
        RespAssert.Error(c.Execute("DEBUG", "OBJECT", "dbg-none"), "ERR no such key");
        RespAssert.Error(c.Execute("DEBUG", "OBJECT"), "ERR unknown subcommand or wrong number of arguments for 'OBJECT'. Try DEBUG HELP.");
        RespAssert.Error(c.Execute("DEBUG", "nosuch"), "ERR unknown subcommand or wrong number of arguments for 'nosuch'. Try DEBUG HELP.");
        RespAssert.Error(c.Execute("DEBUG", "RELOAD"), "ERR DEBUG RELOAD is not supported by this server (supported: " + Garnet.server.Commands.DebugCommands.Supported + ")");
        RespAssert.Error(c.Execute("DEBUG"), "ERR wrong number of arguments for 'debug' command");

        // The lookup does not touch the key: RESTORE ... IDLETIME, then DEBUG OBJECT, shows the idle time kept.
        var payload = c.Execute("DUMP", "dbg-s").Bytes!;
        c.Execute("DEL", "dbg-s");
        c.Execute("RESTORE", "dbg-s", "0", payload, "IDLETIME", "500");
        m = line.Match(c.Execute("DEBUG", "OBJECT", "dbg-s").Text!);
        Assert.That(long.Parse(m.Groups[5].Value), Is.GreaterThanOrEqualTo(500));
        Assert.That(c.Execute("OBJECT", "IDLETIME", "dbg-s").Integer, Is.GreaterThanOrEqualTo(500));
    }

    [Test]
    public void DebugSleepHoldsOnlyItsClient()
    {
        using var sleeper = new RawResp(_server.Port);
        var sw = Stopwatch.StartNew();
        sleeper.Send("DEBUG", "SLEEP", "2");
        using var other = new RawResp(_server.Port);
        for (int i = 0; i < 10; i++) Assert.That(other.RunText("PING"), Is.EqualTo("+PONG\r\n"));
        // Served while the sleeper still sleeps (its reply not there yet), not "within so many ms": a loaded machine may
        // take long over the PINGs, but not the 2 s the sleep lasts.
        Assert.That(sleeper.HasData(0), Is.False, "other clients are served meanwhile");
        Assert.That(sleeper.ReadText(), Is.EqualTo("+OK\r\n"));
        Assert.That(sw.ElapsedMilliseconds, Is.GreaterThanOrEqualTo(1950));
        Assert.That(sleeper.RunText("DEBUG", "SLEEP", "0"), Is.EqualTo("+OK\r\n"));
        Assert.That(sleeper.RunText("DEBUG", "SLEEP", "abc"), Is.EqualTo("+OK\r\n"), "as Redis's strtod: 0");
    }

    [Test]
    public void DebugSetActiveExpireAndHelp()
    {
        using var c = _server.Client();
        var store = _server.Server.Server.Store;
        RespAssert.Simple(c.Execute("DEBUG", "SET-ACTIVE-EXPIRE", "0"), "OK");
        Assert.That(store.ActiveExpireEnabled, Is.False);
        RespAssert.Simple(c.Execute("DEBUG", "set-active-expire", "1"), "OK");
        Assert.That(store.ActiveExpireEnabled, Is.True);
        var help = c.Execute("DEBUG", "HELP").Elements!.Select(i => i.Text).ToList();
        Assert.That(help[0], Is.EqualTo("DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
        Assert.That(help, Does.Contain("OBJECT <key>").And.Contain("SLEEP <seconds>").And.Contain("SET-ACTIVE-EXPIRE <0|1>"));
        Assert.That(c.Execute("DEBUG", "JMAP").Text, Does.Contain(".NET GC statistics"));
    }

    [Test]
    public void GetKeysAndFlags()
    {
        using var c = new RawResp(_server.Port);
        c.Run("HELLO", "3");
        Assert.That(c.RunText("COMMAND", "GETKEYSANDFLAGS", "GET", "k"), Is.EqualTo("*1\r\n*2\r\n$1\r\nk\r\n~2\r\n+RO\r\n+access\r\n"));
        Assert.That(c.RunText("COMMAND", "GETKEYSANDFLAGS", "MSET", "a", "1", "b", "2"),
            Is.EqualTo("*2\r\n*2\r\n$1\r\na\r\n~2\r\n+OW\r\n+update\r\n*2\r\n$1\r\nb\r\n~2\r\n+OW\r\n+update\r\n").Or.StartWith("*2\r\n*2\r\n$1\r\na\r\n~"));
        Assert.That(c.RunText("COMMAND", "GETKEYSANDFLAGS", "NOPE", "a"), Is.EqualTo("-ERR Invalid command specified\r\n"));
        Assert.That(c.RunText("COMMAND", "GETKEYSANDFLAGS", "PING", "x"), Is.EqualTo("-ERR The command has no key arguments\r\n"));
        Assert.That(c.RunText("COMMAND", "GETKEYSANDFLAGS", "GET", "a", "b"), Is.EqualTo("-ERR Invalid number of arguments specified for command\r\n"));
        c.Run("HELLO", "2");
        Assert.That(c.RunText("COMMAND", "GETKEYSANDFLAGS", "GET", "k"), Is.EqualTo("*1\r\n*2\r\n$1\r\nk\r\n*2\r\n+RO\r\n+access\r\n"));
    }

    [Test]
    public void ListFilterByAndTableRows()
    {
        using var c = _server.Client();
        var names = (string pattern) => c.Execute("COMMAND", "LIST", "FILTERBY", "PATTERN", pattern).Elements!.Select(i => i.Text!).ToList();
        Assert.That(names("client|*"), Does.Contain("client|reply").And.Contain("client|pause").And.Contain("client|unpause")
            .And.Contain("client|no-evict").And.Contain("client|no-touch"));
        Assert.That(names("mon*"), Is.EqualTo(new[] { "monitor" }));
        var admin = c.Execute("COMMAND", "LIST", "FILTERBY", "ACLCAT", "admin").Elements!.Select(i => i.Text!).ToList();
        Assert.That(admin, Does.Contain("monitor").And.Contain("debug").And.Contain("client|pause").And.Not.Contain("client|reply"));
        Assert.That(c.Execute("COMMAND", "LIST", "FILTERBY", "MODULE", "x").Elements, Is.Empty);
        Assert.That(c.Execute("COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuch").Elements, Is.Empty);
        RespAssert.Error(c.Execute("COMMAND", "LIST", "FILTERBY", "BOGUS", "x"), "ERR syntax error");
        RespAssert.Error(c.Execute("COMMAND", "LIST", "FILTERBY", "PATTERN", "x", "y"), "ERR syntax error");

        var info = c.Execute("COMMAND", "INFO", "monitor", "debug", "client|no-touch", "command|getkeysandflags").Elements!;
        Assert.That(info.Select(i => i.Elements![0].Text), Is.EqualTo(new[] { "monitor", "debug", "client|no-touch", "command|getkeysandflags" }));
        Assert.That(info.Select(i => i.Elements![1].Integer), Is.EqualTo(new long[] { 1, -2, 3, -3 }));
        var docs = c.Execute("COMMAND", "DOCS", "client|no-touch").Elements!;
        Assert.That(docs[0].Text, Is.EqualTo("client|no-touch"));
        Assert.That(string.Join(" ", docs[1].Elements!.Select(i => i.Text)), Does.Contain("since 7.2.0"));
    }
}

/// <summary>The same requests to redis-server 7.0 and to us: the replies' bytes must agree (where 7.2 did not change them).</summary>
[TestFixture]
public class AdminSideBySideTests : RedisSideBySide
{
    private static readonly object[][] Requests =
    [
        ["CONFIG", "SET", "timeout", "1", "port"],
        ["CONFIG", "SET", "nosuch", "1"],
        ["CONFIG", "SET", "timeout", "1", "timeout", "2"],
        ["CONFIG", "SET", "daemonize", "yes"],
        ["CONFIG", "SET", "maxclients", "abc"],
        ["CONFIG", "SET", "maxclients", "abc", "nosuch", "1"],
        ["CONFIG", "SET", "timeout", "7", "maxclients", "9000"],
        ["CONFIG", "SET", "timeout", "0", "maxclients", "10000"],
        ["CONFIG", "REWRITE"],
        ["CLIENT", "PAUSE", "abc"],
        ["CLIENT", "PAUSE", "-1"],
        ["CLIENT", "PAUSE", "10", "foo"],
        ["CLIENT", "PAUSE", "10", "write", "x"],
        ["CLIENT", "UNPAUSE"],
        ["CLIENT", "REPLY", "maybe"],
        ["CLIENT", "NO-EVICT", "x"],
        ["CLIENT", "NO-EVICT", "on"],
        ["CLIENT", "NO-EVICT", "off"],
        ["COMMAND", "GETKEYSANDFLAGS", "NOPE", "a"],
        ["COMMAND", "GETKEYSANDFLAGS", "GET", "a"],
        ["COMMAND", "LIST", "FILTERBY", "BOGUS", "x"],
        ["COMMAND", "LIST", "FILTERBY", "MODULE", "x"],
    ];

    [Test]
    public void SameReplies()
    {
        using var redis = new RawResp(_redis!.Port);
        using var ours = new RawResp(_ours!.Port);
        foreach (var r in Requests)
            Assert.That(ours.RunText(r), Is.EqualTo(redis.RunText(r)), string.Join(' ', r));
    }

    [Test]
    public void SameMonitorLinesApartFromTimeAndPort()
    {
        using var redisMon = new RawResp(_redis!.Port);
        using var oursMon = new RawResp(_ours!.Port);
        Assert.That(oursMon.RunText("MONITOR"), Is.EqualTo(redisMon.RunText("MONITOR")));
        using var redis = new RawResp(_redis.Port);
        using var ours = new RawResp(_ours.Port);
        object[][] traffic = [["SET", "k", "a\"b\\c\r\n\x7f\u00e9"], ["AUTH", "x"], ["HELLO", "2", "AUTH", "u", "p", "SETNAME", "n"], ["SELECT", "5"], ["INCR", "n"], ["NOSUCH"]];
        foreach (var t in traffic) { redis.Run(t); ours.Run(t); }
        static string Strip(string line) => Regex.Replace(line, @"^\+\d+\.\d{6} \[(\d+) 127\.0\.0\.1:\d+\]", "+T [$1 addr]");
        for (int i = 0; i < 5; i++) Assert.That(Strip(oursMon.ReadText()), Is.EqualTo(Strip(redisMon.ReadText())));
        Assert.That(oursMon.HasData(50), Is.False);
    }
}
