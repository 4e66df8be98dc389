using Garnet.Options;

namespace Garnet.test;

[TestFixture]
public class OptionsTests
{
    private static string Error(params string[] args)
    {
        var ex = Assert.Throws<OptionsException>(() =>
        {
            var o = OptionsParser.Parse(args, TextWriter.Null, out _, out _)!;
            SettingsBuilder.Build(o);
        });
        Assert.That(ex!.Message, Does.Not.Contain('\n'), "one line");
        return ex.Message;
    }

    [Test]
    public void Defaults()
    {
        var s = SettingsBuilder.Build(OptionsParser.Parse([], TextWriter.Null, out _, out _)!);
        Assert.That(s.Bind, Is.EqualTo(new[] { "127.0.0.1" }));
        Assert.That(s.Port, Is.EqualTo(6379));
        Assert.That(s.Dir, Is.EqualTo("./data"));
        Assert.That(s.Databases, Is.EqualTo(16));
        Assert.That(s.MemoryBytes, Is.EqualTo(1L << 30));
        Assert.That(s.RequirePass, Is.Null);
        Assert.That(s.LogLevel, Is.EqualTo("notice"));
        Assert.That(s.Limits.ProtoMaxBulkLen, Is.EqualTo(512L << 20));
        Assert.That(s.Limits.QueryBufferLimit, Is.EqualTo(1L << 30));
    }

    [Test]
    public void CommandLineValues()
    {
        var s = SettingsBuilder.Build(OptionsParser.Parse(
            ["--port", "7000", "--bind", "0.0.0.0 ::1", "--memory", "4gb", "--dir", "/tmp/x", "--requirepass", "pw", "--databases", "2", "--loglevel", "warning"],
            TextWriter.Null, out _, out _)!);
        Assert.That(s.Port, Is.EqualTo(7000));
        Assert.That(s.Bind, Is.EqualTo(new[] { "0.0.0.0", "::1" }));
        Assert.That(s.MemoryBytes, Is.EqualTo(4L << 30));
        Assert.That(s.RequirePass, Is.EqualTo("pw"));
        Assert.That(s.Databases, Is.EqualTo(2));
        Assert.That(s.LogLevel, Is.EqualTo("warning"));
    }

    [Test]
    public void InvalidValuesNameTheOption()
    {
        Assert.That(Error("--port", "70000"), Is.EqualTo("Invalid value for --port: '70000'. Allowed: an integer from 0 to 65535."));
        Assert.That(Error("--memory", "lots"), Does.StartWith("Invalid value for --memory: 'lots'. Allowed: a size"));
        Assert.That(Error("--memory", "10"), Does.StartWith("Invalid value for --memory: '10'."));
        Assert.That(Error("--bind", "localhost:1"), Does.StartWith("Invalid value for --bind: 'localhost:1'."));
        Assert.That(Error("--databases", "0"), Is.EqualTo("Invalid value for --databases: '0'. Allowed: an integer from 1 to 1024."));
        Assert.That(Error("--loglevel", "loud"), Is.EqualTo("Invalid value for --loglevel: 'loud'. Allowed: debug, verbose, notice, warning, nothing."));
        Assert.That(Error("--maxclients", "0"), Does.StartWith("Invalid value for --maxclients"));
        Assert.That(Error("--timeout", "-1"), Does.StartWith("Invalid value for --timeout"));
        Assert.That(Error("--proto-max-bulk-len", "1k"), Does.StartWith("Invalid value for --proto-max-bulk-len"));
        Assert.That(Error("--min-free-disk", "60%"), Is.EqualTo("Invalid value for --min-free-disk: '60%'. Allowed: 0 (off), a size such as 256mb, or a percentage of the file system from 0% to 50% such as 1%."));
        Assert.That(Error("--min-free-disk", "plenty"), Does.StartWith("Invalid value for --min-free-disk: 'plenty'."));
        Assert.That(Error("--min-free-disk", "-1%"), Does.StartWith("Invalid value for --min-free-disk: '-1%'."));
        Assert.That(Error("--network-engine", "uring"), Is.EqualTo("Invalid value for --network-engine: 'uring'. Allowed: epoll or sockets."));
        Assert.That(Error("--network-threads", "0"), Is.EqualTo("Invalid value for --network-threads: '0'. Allowed: an integer from 1 to 64."));
        Assert.That(Error("--network-threads", "65"), Is.EqualTo("Invalid value for --network-threads: '65'. Allowed: an integer from 1 to 64."));
        Assert.That(Error("--config", "/nonexistent/garnet.conf"), Does.StartWith("Invalid value for --config: file '/nonexistent/garnet.conf' does not exist."));
    }

    [Test]
    public void UnknownOptionStopsParsing()
    {
        var errors = new StringWriter();
        var o = OptionsParser.Parse(["--no-such-option"], TextWriter.Null, out int exit, out _, errors);
        Assert.That(o, Is.Null);
        Assert.That(exit, Is.EqualTo(1));
        Assert.That(errors.ToString(), Is.EqualTo($"Unknown option '--no-such-option'.{Environment.NewLine}{OptionsParser.HelpHint}{Environment.NewLine}"));
        var help = new StringWriter();
        Assert.That(OptionsParser.Parse(["--help"], help, out exit, out _), Is.Null);
        Assert.That(exit, Is.EqualTo(0));
        foreach (var name in new[] { "--bind", "--port", "--memory", "--dir", "--requirepass", "--databases", "--loglevel", "--config", "--maxclients", "--timeout" })
            Assert.That(help.ToString(), Does.Contain(name));
    }

    private static string CommandLineError(params string[] args)
    {
        var ex = Assert.Throws<OptionsException>(() => CommandLineReader.Read(args, out _));
        return ex!.Message;
    }

    [Test]
    public void CommandLineMistakesSayWhatIsWrong()
    {
        Assert.That(CommandLineError("--port", "abc"), Is.EqualTo("Invalid value for --port: 'abc'. Allowed: an integer from 0 to 65535."));
        Assert.That(CommandLineError("--port=abc"), Is.EqualTo("Invalid value for --port: 'abc'. Allowed: an integer from 0 to 65535."));
        Assert.That(CommandLineError("--databases", "99999999999"), Is.EqualTo("Invalid value for --databases: '99999999999'. Allowed: an integer from 1 to 1024."));
        Assert.That(CommandLineError("--bogus", "1"), Is.EqualTo("Unknown option '--bogus'."));
        Assert.That(CommandLineError("-p", "1"), Is.EqualTo("Unknown option '-p'."));
        Assert.That(CommandLineError("--dir", "a", "--dir", "b"), Is.EqualTo("Option '--dir' is given more than once."));
        Assert.That(CommandLineError("--Dir", "a", "--DIR=b"), Is.EqualTo("Option '--dir' is given more than once."));
        Assert.That(CommandLineError("--aof", "--aof"), Is.EqualTo("Option '--aof' is given more than once."));
        Assert.That(CommandLineError("--port"), Is.EqualTo("Option '--port' needs a value."));
        Assert.That(CommandLineError("--dir", "--port", "1"), Is.EqualTo("Option '--dir' needs a value."));
        Assert.That(CommandLineError("extra"), Is.EqualTo("Unexpected argument 'extra'."));
        Assert.That(CommandLineError("--aof", "yes"), Is.EqualTo("Unexpected argument 'yes' (--aof is a switch and takes no value)."));
        Assert.That(CommandLineError("--aof=yes"), Is.EqualTo("Option '--aof' is a switch and takes no value (got 'yes')."));
    }

    [Test]
    public void CommandLineForms()
    {
        var o = CommandLineReader.Read(["--PORT=7000", "--timeout", "-1", "--save", "", "--aof", "--bind", "127.0.0.1 ::1"], out var request);
        Assert.That(request, Is.EqualTo(CommandLineReader.Request.Run));
        Assert.That(o.Port, Is.EqualTo(7000));
        Assert.That(o.Timeout, Is.EqualTo(-1), "a value may start with a single dash (SettingsBuilder then refuses it)");
        Assert.That(o.Save, Is.EqualTo(""));
        Assert.That(o.Aof, Is.True);
        Assert.That(o.Bind, Is.EqualTo("127.0.0.1 ::1"));
        CommandLineReader.Read(["--port", "1", "--help"], out request);
        Assert.That(request, Is.EqualTo(CommandLineReader.Request.Help));
        CommandLineReader.Read(["--version"], out request);
        Assert.That(request, Is.EqualTo(CommandLineReader.Request.Version));
    }

    [Test]
    public void JsonConfigFileWithCommandLinePrecedence()
    {
        var path = Path.GetTempFileName() + ".json";
        File.WriteAllText(path, """
            { "port": 7100, "memory": "256mb", "databases": 8, "bind": "127.0.0.1", // comment
              "requirepass": "fromfile" }
            """);
        try
        {
            var o = OptionsParser.Parse(["--config", path, "--port", "7200"], TextWriter.Null, out _, out _)!;
            var s = SettingsBuilder.Build(o);
            Assert.That(s.Port, Is.EqualTo(7200), "command line wins");
            Assert.That(s.MemoryBytes, Is.EqualTo(256L << 20));
            Assert.That(s.Databases, Is.EqualTo(8));
            Assert.That(s.RequirePass, Is.EqualTo("fromfile"));
            File.WriteAllText(path, """{ "colour": "red" }""");
            var ex = Assert.Throws<OptionsException>(() => OptionsParser.Parse(["--config", path], TextWriter.Null, out _, out _));
            Assert.That(ex!.Message, Does.StartWith("Unknown option 'colour'"));
        }
        finally { File.Delete(path); }
    }

    [Test]
    public void RedisConfFile()
    {
        var path = Path.GetTempFileName();
        File.WriteAllText(path, """
            # a redis.conf
            bind 127.0.0.1 ::1
            port 7300
            maxmemory 100mb
            databases 4
            requirepass "quoted pass"
            appendonly no
            appendfsync always
            save 900 1
            save 300 10
            hz 10
            loglevel verbose
            client-output-buffer-limit normal 0 0 0
            """);
        try
        {
            var o = OptionsParser.Parse(["--config", path], TextWriter.Null, out _, out var ignored)!;
            var s = SettingsBuilder.Build(o);
            Assert.That(s.Port, Is.EqualTo(7300));
            Assert.That(s.Bind, Is.EqualTo(new[] { "127.0.0.1", "::1" }));
            Assert.That(s.MemoryBytes, Is.EqualTo(100L << 20));
            Assert.That(s.Databases, Is.EqualTo(4));
            Assert.That(s.RequirePass, Is.EqualTo("quoted pass"));
            Assert.That(s.LogLevel, Is.EqualTo("verbose"));
            Assert.That(s.Aof, Is.False);
            Assert.That(s.AofFsync, Is.EqualTo(Garnet.server.Persistence.AofFsync.Always));
            Assert.That(s.SaveRules, Is.EqualTo(new[] { new Garnet.server.Persistence.SaveRule(900, 1), new Garnet.server.Persistence.SaveRule(300, 10) }));
            Assert.That(ignored, Is.EqualTo(new[] { "hz (line 11)" }));
        }
        finally { File.Delete(path); }
    }

    [Test]
    public void EmbeddedServerFromOptions()
    {
        using var server = new GarnetServer(new GarnetServerOptions { Port = 0, Dir = Path.Combine(Path.GetTempPath(), "garnet-embed-" + Guid.NewGuid().ToString("N")) });
        server.Start();
        Assert.That(server.Port, Is.GreaterThan(0));
        using var c = new Garnet.client.RespClient("127.0.0.1", server.Port);
        RespAssert.Simple(c.Execute("PING"), "PONG");
        Assert.That(Directory.Exists(server.Settings.Dir), "the data directory is created at start");
        Directory.Delete(server.Settings.Dir, true);
        Assert.Throws<OptionsException>(() => new GarnetServer(new GarnetServerOptions { Port = -1 }));
    }
}
