// SLOWLOG GET/LEN/RESET/HELP with slowlog-log-slower-than and slowlog-max-len, Redis 7.2's entry shape and trimming.
using Garnet.client;

namespace Garnet.test.Observability;

[TestFixture, NonParallelizable]
public class SlowLogTests : ServerFixture
{
    private RespClient _c = null!;

    [SetUp]
    public void LogEverything()
    {
        _c = _server.Client();
        RespAssert.Simple(_c.Execute("CONFIG", "SET", "slowlog-log-slower-than", "0"), "OK");
        RespAssert.Simple(_c.Execute("CONFIG", "SET", "slowlog-max-len", "128"), "OK");
        RespAssert.Simple(_c.Execute("SLOWLOG", "RESET"), "OK");
    }

    [TearDown]
    public void Restore()
    {
        _c.Execute("CONFIG", "SET", "slowlog-log-slower-than", "10000");
        _c.Dispose();
    }

    [Test]
    public void EntriesHaveRedisShape()
    {
        _c.Execute("CLIENT", "SETNAME", "slowpoke");
        _c.Execute("SET", "sl:k", "v");
        var entries = _c.Execute("SLOWLOG", "GET").Elements!;
        // newest first: SET, then CLIENT SETNAME (the SLOWLOG RESET before them is logged too, as in Redis)
        var set = entries[0].Elements!;
        Assert.That(set, Has.Length.EqualTo(6));
        Assert.That(set[0].Type, Is.EqualTo(RespType.Integer));
        Assert.That(set[1].Integer, Is.EqualTo(DateTimeOffset.UtcNow.ToUnixTimeSeconds()).Within(5));
        Assert.That(set[2].Integer, Is.GreaterThanOrEqualTo(0));
        Assert.That(set[3].Elements!.Select(e => e.Text), Is.EqualTo(new[] { "SET", "sl:k", "v" }));
        Assert.That(set[4].Text, Does.Match(@"^127\.0\.0\.1:\d+$"));
        Assert.That(set[5].Text, Is.EqualTo("slowpoke"));
        Assert.That(entries[1].Elements![0].Integer, Is.EqualTo(set[0].Integer - 1), "ids grow by one");
        Assert.That(entries[1].Elements![3].Elements!.Select(e => e.Text), Is.EqualTo(new[] { "CLIENT", "SETNAME", "slowpoke" }));
    }

    [Test]
    public void ArgumentsAreTrimmedAsRedisDoes()
    {
        var args = new List<object> { "RPUSH", "sl:list" };
        for (int i = 0; i < 40; i++) args.Add("e" + i);
        _c.Execute(args.ToArray());
        var logged = _c.Execute("SLOWLOG", "GET", "1").Elements![0].Elements![3].Elements!.Select(e => e.Text!).ToList();
        Assert.That(logged, Has.Count.EqualTo(32));
        Assert.That(logged[30], Is.EqualTo("e28"));
        Assert.That(logged[31], Is.EqualTo("... (11 more arguments)"));

        _c.Execute("SET", "sl:big", new string('x', 200));
        logged = _c.Execute("SLOWLOG", "GET", "1").Elements![0].Elements![3].Elements!.Select(e => e.Text!).ToList();
        Assert.That(logged[2], Is.EqualTo(new string('x', 128) + "... (72 more bytes)"));
    }

    [Test]
    public void PasswordsAreRedacted()
    {
        _c.Execute("AUTH", "secret-password");
        var logged = _c.Execute("SLOWLOG", "GET", "1").Elements![0].Elements![3].Elements!.Select(e => e.Text!).ToList();
        Assert.That(logged, Is.EqualTo(new[] { "AUTH", "(redacted)" }));
    }

    [Test]
    public void ConfigSetOfSecretsIsRedacted()
    {
        // CONFIG SET requirepass must not be kept in clear. Redis redacts the value of every sensitive parameter
        // (requirepass, masterauth, masteruser, ...), each pair checked, even when the command fails.
        List<string> Last() => _c.Execute("SLOWLOG", "GET", "1").Elements![0].Elements![3].Elements!.Select(e => e.Text!).ToList();
        try
        {
            RespAssert.Simple(_c.Execute("CONFIG", "SET", "requirepass", "hunter2-secret"), "OK");
            Assert.That(Last(), Is.EqualTo(new[] { "CONFIG", "SET", "requirepass", "(redacted)" }));
            RespAssert.Simple(_c.Execute("CONFIG", "SET", "maxclients", "10000", "REQUIREPASS", "hunter3-secret"), "OK");
            Assert.That(Last(), Is.EqualTo(new[] { "CONFIG", "SET", "maxclients", "10000", "REQUIREPASS", "(redacted)" }));
            _c.Execute("CONFIG", "SET", "masterauth", "hunter4-secret", "no-such-parameter", "x");
            Assert.That(Last(), Is.EqualTo(new[] { "CONFIG", "SET", "masterauth", "(redacted)", "no-such-parameter", "x" }));
            using var other = _server.Client();
            other.Execute("HELLO", "2", "SETNAME", "n1", "AUTH", "default", "hunter3-secret");
            Assert.That(Last(), Is.EqualTo(new[] { "HELLO", "2", "SETNAME", "n1", "AUTH", "(redacted)", "(redacted)" }));
            _c.Execute("CONFIG", "GET", "requirepass");
            Assert.That(Last(), Is.EqualTo(new[] { "CONFIG", "GET", "requirepass" }), "only values of CONFIG SET are secrets");
            var all = _c.Execute("SLOWLOG", "GET", "-1").Elements!.SelectMany(e => e.Elements![3].Elements!).Select(e => e.Text!);
            Assert.That(all.Where(a => a.Contains("hunter")), Is.Empty);
        }
        finally { _c.Execute("CONFIG", "SET", "requirepass", ""); }
    }

    [Test]
    public void LenGetCountMaxLenAndReset()
    {
        for (int i = 0; i < 5; i++) _c.Execute("PING");
        Assert.That(_c.Execute("SLOWLOG", "LEN").Integer, Is.EqualTo(6)); // RESET + 5 PINGs
        Assert.That(_c.Execute("SLOWLOG", "GET", "2").Elements, Has.Length.EqualTo(2));
        Assert.That(_c.Execute("SLOWLOG", "GET", "-1").Elements!.Length, Is.GreaterThanOrEqualTo(7));
        Assert.That(_c.Execute("SLOWLOG", "GET", "0").Elements, Is.Empty);
        RespAssert.Error(_c.Execute("SLOWLOG", "GET", "-2"), "ERR count should be greater than or equal to -1");
        RespAssert.Error(_c.Execute("SLOWLOG", "GET", "x"), "ERR value is not an integer or out of range");
        RespAssert.Error(_c.Execute("SLOWLOG", "GET", "1", "2"), "ERR unknown subcommand or wrong number of arguments for 'GET'. Try SLOWLOG HELP.");

        RespAssert.Simple(_c.Execute("CONFIG", "SET", "slowlog-max-len", "3"), "OK");
        for (int i = 0; i < 5; i++) _c.Execute("PING");
        Assert.That(_c.Execute("SLOWLOG", "LEN").Integer, Is.EqualTo(3));
        Assert.That(_c.Execute("CONFIG", "GET", "slowlog-max-len").Elements![1].Text, Is.EqualTo("3"));

        RespAssert.Simple(_c.Execute("SLOWLOG", "RESET"), "OK");
        RespAssert.Simple(_c.Execute("CONFIG", "SET", "slowlog-log-slower-than", "-1"), "OK");
        _c.Execute("PING");
        Assert.That(_c.Execute("SLOWLOG", "LEN").Integer, Is.EqualTo(1), "only the SLOWLOG RESET (logged after it cleared); the CONFIG SET that turned the log off and the PING are not");
        RespAssert.Error(_c.Execute("CONFIG", "SET", "slowlog-log-slower-than", "-2"),
            "ERR CONFIG SET failed (possibly related to argument 'slowlog-log-slower-than') - argument must be between -1 and 2147483647 inclusive");
    }

    [Test]
    public void ThresholdKeepsFastCommandsOut()
    {
        RespAssert.Simple(_c.Execute("CONFIG", "SET", "slowlog-log-slower-than", "1000000"), "OK");
        RespAssert.Simple(_c.Execute("SLOWLOG", "RESET"), "OK");
        for (int i = 0; i < 20; i++) _c.Execute("PING");
        Assert.That(_c.Execute("SLOWLOG", "LEN").Integer, Is.EqualTo(0));
    }

    [Test]
    public void HelpAndExecSkipped()
    {
        var help = _c.Execute("SLOWLOG", "HELP").Elements!.Select(e => e.Text!).ToList();
        Assert.That(help[0], Is.EqualTo("SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
        Assert.That(help, Does.Contain("GET [<count>]").And.Contain("RESET"));
        RespAssert.Simple(_c.Execute("SLOWLOG", "RESET"), "OK");
        _c.Execute("MULTI");
        _c.Execute("SET", "sl:x", "1");
        _c.Execute("EXEC");
        var names = _c.Execute("SLOWLOG", "GET", "-1").Elements!.Select(e => e.Elements![3].Elements![0].Text).ToList();
        Assert.That(names, Does.Contain("SET").And.Contain("MULTI").And.Not.Contain("EXEC"), "EXEC is skip_slowlog; its commands are logged");
    }

    [Test]
    public void PipelinedFastCommandsAreTimedInGroupsOnlyAboveOneMillisecond()
    {
        // slowlog-log-slower-than 0 (this fixture): every command is timed alone, so each pipelined GET is logged.
        _c.Execute("SET", "sl:g", "v");
        RespAssert.Simple(_c.Execute("SLOWLOG", "RESET"), "OK");
        using (var raw = new RawResp(_server.Port))
        {
            raw.SendRaw(string.Concat(Enumerable.Repeat("*2\r\n$3\r\nGET\r\n$4\r\nsl:g\r\n", 50)));
            for (int i = 0; i < 50; i++) raw.Read();
        }
        var entries = _c.Execute("SLOWLOG", "GET", "-1").Elements!;
        Assert.That(entries.Count(e => e.Elements![3].Elements![0].Text == "GET"), Is.EqualTo(50), "fine grain: each GET timed alone");

        // At 1 ms, fast commands in a pipeline share clock readings (Metrics/CommandTimer) and never reach the log, while
        // a command that is not fast is timed alone: a script that runs for 5 ms between GETs is logged, and only it.
        RespAssert.Simple(_c.Execute("CONFIG", "SET", "slowlog-log-slower-than", "1000"), "OK");
        RespAssert.Simple(_c.Execute("SLOWLOG", "RESET"), "OK");
        const string busy = "local t = redis.call('TIME') local start = t[1] * 1000000 + t[2] " +
                            "repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - start >= 5000 return 1";
        using (var raw = new RawResp(_server.Port))
        {
            var gets = string.Concat(Enumerable.Repeat("*2\r\n$3\r\nGET\r\n$4\r\nsl:g\r\n", 40));
            raw.SendRaw(gets + System.Text.Encoding.ASCII.GetString(RespClient.Encode(["EVAL", busy, "0"])) + gets);
            for (int i = 0; i < 81; i++) raw.Read();
        }
        var logged = _c.Execute("SLOWLOG", "GET", "-1").Elements!.Select(e => e.Elements![3].Elements![0].Text).ToList();
        Assert.That(logged, Does.Contain("EVAL"));
        Assert.That(logged, Does.Not.Contain("GET"));
    }
}
