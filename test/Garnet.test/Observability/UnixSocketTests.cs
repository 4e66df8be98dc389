// --unixsocket / --unixsocketperm: served alongside TCP (or alone with --port 0), through StackExchange.Redis and
// redis-cli -s; stale socket files replaced, live ones refused, the file deleted at shutdown; one-line option errors.
using System.Diagnostics;
using System.Net.Sockets;
using Garnet.Options;
using StackExchange.Redis;

namespace Garnet.test.Observability;

[TestFixture, NonParallelizable]
[System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
public class UnixSocketTests
{
    private string _path = null!;

    [SetUp]
    public void PickPath() => _path = Path.Combine("/tmp", "garnet-us-" + Guid.NewGuid().ToString("N")[..10] + ".sock");

    [TearDown]
    public void Clean()
    {
        try { File.Delete(_path); } catch { }
    }

    [Test]
    public void ServedAlongsideTcpThroughStackExchangeRedis([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        int port = shared.TestPorts.Free();
        using var server = new TestServer(o => { o.Port = port; o.UnixSocket = _path; o.UnixSocketPerm = "770"; });
        Assert.That(File.Exists(_path));
        Assert.That(File.GetUnixFileMode(_path) & (UnixFileMode)0x1FF, Is.EqualTo((UnixFileMode)Convert.ToInt32("770", 8)));
        var config = new ConfigurationOptions { AllowAdmin = true, Protocol = protocol, ConnectTimeout = 10000, SyncTimeout = 10000 };
        config.EndPoints.Add(new UnixDomainSocketEndPoint(_path));
        using var mux = ConnectionMultiplexer.Connect(config);
        Assert.That(mux.GetServer(mux.GetEndPoints()[0]).Protocol, Is.EqualTo(protocol));
        var db = mux.GetDatabase();
        db.StringSet("us:k", "over the socket");
        using var tcp = server.Client();
        Assert.That(tcp.Execute("GET", "us:k").Text, Is.EqualTo("over the socket"), "one keyspace for both listeners");
        var list = (string)db.Execute("CLIENT", "LIST")!;
        Assert.That(list, Does.Contain($"addr={_path}:0 laddr={_path}:0"));
        var got = tcp.Execute("CONFIG", "GET", "unixsocket*").Elements!.Select(e => e.Text).ToList();
        Assert.That(got, Is.EquivalentTo(new[] { "unixsocket", _path, "unixsocketperm", "770" }));
        Assert.That(tcp.Execute("INFO", "server").Text, Does.Contain($"name=unix,bind={_path}"));
        server.Server.Stop();
        Assert.That(File.Exists(_path), Is.False, "the socket file is deleted at shutdown");
    }

    [Test]
    public void RedisCliDashS()
    {
        using var server = new TestServer(o => { o.Port = 0; o.UnixSocket = _path; });
        Assert.That(server.Server.EndPoints, Is.Empty, "--port 0 with a Unix socket: no TCP listener (as Redis)");
        var psi = new ProcessStartInfo(RequiredTools.RedisCli) { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var a in new[] { "-s", _path, "SET", "cli:k", "v" }) psi.ArgumentList.Add(a);
        using (var p = Process.Start(psi)!) { Assert.That(p.StandardOutput.ReadToEnd().Trim(), Is.EqualTo("OK")); p.WaitForExit(10000); }
        psi.ArgumentList.Clear();
        foreach (var a in new[] { "-s", _path, "CONFIG", "GET", "port" }) psi.ArgumentList.Add(a);
        using (var p = Process.Start(psi)!) { Assert.That(p.StandardOutput.ReadToEnd().Trim(), Is.EqualTo("port\n0")); p.WaitForExit(10000); }
    }

    [Test]
    public void StaleSocketReplacedLiveSocketRefused()
    {
        // a file nobody accepts on, as a killed server leaves (.NET deletes the socket files it binds when they are closed,
        // so a plain file stands in for the stale socket: both are replaced the same way)
        File.WriteAllText(_path, "");
        using var first = new TestServer(o => { o.Port = shared.TestPorts.Free(); o.UnixSocket = _path; });
        using (var s = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified))
        {
            s.Connect(new UnixDomainSocketEndPoint(_path));
            s.Send("PING\r\n"u8);
            var buf = new byte[16];
            Assert.That(System.Text.Encoding.ASCII.GetString(buf, 0, s.Receive(buf)), Is.EqualTo("+PONG\r\n"));
        }
        var dir = Path.Combine(Path.GetTempPath(), "garnet-us-second-" + Guid.NewGuid().ToString("N"));
        var second = new GarnetServer(new GarnetServerOptions { Port = shared.TestPorts.Free(), Bind = "127.0.0.1", Dir = dir, Save = "", UnixSocket = _path });
        try
        {
            var ex = Assert.Throws<SocketException>(() => second.Start());
            Assert.That(ex!.Message, Is.EqualTo($"Could not create server Unix socket {_path}: bind: another server is accepting connections on it"));
            Assert.That(File.Exists(_path), "the live server's socket is left alone");
        }
        finally
        {
            second.Dispose();
            try { Directory.Delete(dir, true); } catch { }
        }
    }

    [TestCase("unixsocketperm", "999", "Invalid value for --unixsocketperm: '999'. Allowed: an octal file mode from 0 to 777, e.g. 700 or 770.")]
    [TestCase("unixsocketperm", "rwx", "Invalid value for --unixsocketperm: 'rwx'. Allowed: an octal file mode from 0 to 777, e.g. 700 or 770.")]
    [TestCase("unixsocket", "/nonexistent-dir/x.sock", "Invalid value for --unixsocket: '/nonexistent-dir/x.sock'. Allowed: a path in an existing directory (/nonexistent-dir does not exist).")]
    [TestCase("unixsocket", "/proc/x.sock", "Invalid value for --unixsocket: '/proc/x.sock'. Allowed: a path in a directory this user can write (/proc is not writable).")]
    [TestCase("unixsocket", "/tmp", "Invalid value for --unixsocket: '/tmp'. Allowed: a file path (this is a directory).")]
    public void BadOptionsAreOneLine(string option, string value, string message)
    {
        if (option == "unixsocket" && value == "/proc/x.sock" && Environment.UserName == "root") Assert.Ignore("root may write anywhere");
        var o = new GarnetServerOptions { Port = 0, Dir = Path.Combine(Path.GetTempPath(), "garnet-us-bad-" + Guid.NewGuid().ToString("N")) };
        if (option == "unixsocket") o.UnixSocket = value; else o.UnixSocketPerm = value;
        var ex = Assert.Throws<OptionsException>(() => SettingsBuilder.Build(o));
        Assert.That(ex!.Message, Is.EqualTo(message));
    }

    [Test]
    public void TooLongPathIsRefused()
    {
        var o = new GarnetServerOptions { UnixSocket = "/tmp/" + new string('s', 120) };
        Assert.That(Assert.Throws<OptionsException>(() => SettingsBuilder.Build(o))!.Message, Does.EndWith("Allowed: a path of at most 107 bytes."));
    }

    [Test]
    public void ConfigFileSetsTheSocket()
    {
        var conf = Path.Combine(Path.GetTempPath(), "garnet-us-" + Guid.NewGuid().ToString("N") + ".conf");
        File.WriteAllText(conf, $"unixsocket {_path}\nunixsocketperm 700\nslowlog-max-len 7\nlatency-monitor-threshold 5\n");
        try
        {
            var o = new GarnetServerOptions();
            ConfigFileLoader.Load(conf, o);
            var s = SettingsBuilder.Build(o);
            Assert.That((s.UnixSocket, s.UnixSocketPerm, s.SlowlogMaxLen, s.LatencyMonitorThreshold), Is.EqualTo((_path, Convert.ToInt32("700", 8), 7, 5)));
        }
        finally { File.Delete(conf); }
    }
}
