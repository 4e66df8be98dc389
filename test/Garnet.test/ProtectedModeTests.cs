// Protected mode: the decision (settings + client address -> serve or deny), its options, and end to end: loopback
// clients are served; in a test-only network namespace, a client from a non-loopback address gets Redis's DENIED
// reply and is closed until protected mode is turned off or a password is set.
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Text;
using Garnet.Options;
using Garnet.server;
using Garnet.server.Clients;

namespace Garnet.test;

[TestFixture]
public class ProtectedModeTests
{
    [TestCase("127.0.0.1", true)]
    [TestCase("127.8.9.10", true)]
    [TestCase("::1", true)]
    [TestCase("::ffff:127.0.0.1", true)]
    [TestCase("10.1.2.3", false)]
    [TestCase("192.168.0.7", false)]
    [TestCase("::ffff:10.1.2.3", false)]
    [TestCase("fe80::1", false)]
    [TestCase("2001:db8::1", false)]
    public void OnWithoutPasswordServesOnlyLoopback(string address, bool allowed)
    {
        var ip = IPAddress.Parse(address);
        Assert.That(ProtectedMode.Allows(protectedMode: true, passwordRequired: false, ip), Is.EqualTo(allowed));
        Assert.That(ProtectedMode.Allows(protectedMode: true, passwordRequired: true, ip), Is.True, "a password lifts it");
        Assert.That(ProtectedMode.Allows(protectedMode: false, passwordRequired: false, ip), Is.True, "off lifts it");
    }

    [Test]
    public void UnknownAddressIsNotLoopback()
    {
        Assert.That(ProtectedMode.Allows(true, false, null), Is.False);
        Assert.That(ProtectedMode.Allows(false, false, null), Is.True);
    }

    [Test]
    public void SettingsDecide()
    {
        var s = new ServerSettings();
        var external = IPAddress.Parse("10.0.0.1");
        Assert.That(s.ProtectedMode, Is.True, "on by default, as Redis");
        Assert.That(ProtectedMode.Allows(s, external), Is.False);
        s.RequirePass = "pw";
        Assert.That(ProtectedMode.Allows(s, external), Is.True);
        s.RequirePass = null;
        s.ProtectedMode = false;
        Assert.That(ProtectedMode.Allows(s, external), Is.True);
    }

    [Test]
    public void DeniedReplyIsRedisText()
    {
        Assert.That(ProtectedMode.DeniedText, Does.StartWith("-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface."));
        Assert.That(ProtectedMode.DeniedText, Does.Contain("3) If you started the server manually just for testing, restart it with the '--protected-mode no' option."));
        Assert.That(ProtectedMode.DeniedText, Does.EndWith("the server to start accepting connections from the outside.\r\n"));
        Assert.That(ProtectedMode.DeniedText.IndexOf('\r'), Is.EqualTo(ProtectedMode.DeniedText.Length - 2), "one line");
    }

    [Test]
    public void StartupWarningOnlyWhenExposed()
    {
        ServerSettings S(string bind, bool protectedMode, string? pass) => new() { Bind = bind.Split(' '), ProtectedMode = protectedMode, RequirePass = pass };
        Assert.That(ProtectedMode.StartupWarning(S("0.0.0.0", false, null)), Does.Contain("0.0.0.0"));
        Assert.That(ProtectedMode.StartupWarning(S("127.0.0.1 *", false, null)), Does.Contain("*").And.Not.Contain("127.0.0.1"));
        Assert.That(ProtectedMode.StartupWarning(S("127.0.0.1 -::1", false, null)), Is.Null);
        Assert.That(ProtectedMode.StartupWarning(S("0.0.0.0", true, null)), Is.Null);
        Assert.That(ProtectedMode.StartupWarning(S("0.0.0.0", false, "pw")), Is.Null);
    }

    [Test]
    public void Options()
    {
        ServerSettings Parse(params string[] args) => SettingsBuilder.Build(OptionsParser.Parse(args, TextWriter.Null, out _, out _)!);
        Assert.That(Parse().ProtectedMode, Is.True);
        Assert.That(Parse("--protected-mode", "no").ProtectedMode, Is.False);
        Assert.That(Parse("--protected-mode", "YES").ProtectedMode, Is.True);
        var ex = Assert.Throws<OptionsException>(() => Parse("--protected-mode", "sometimes"));
        Assert.That(ex!.Message, Is.EqualTo("Invalid value for --protected-mode: 'sometimes'. Allowed: yes or no."));
        var dir = Directory.CreateTempSubdirectory("garnet-pm-").FullName;
        try
        {
            var conf = Path.Combine(dir, "redis.conf");
            File.WriteAllText(conf, "protected-mode no\n");
            var s = Parse("--config", conf);
            Assert.That(s.ProtectedMode, Is.False);
            Assert.That(s.ConfigFile, Is.EqualTo(conf));
            var json = Path.Combine(dir, "garnet.json");
            File.WriteAllText(json, "{ \"protected-mode\": false }");
            Assert.That(Parse("--config", json).ProtectedMode, Is.False);
            Assert.That(Parse("--config", json, "--protected-mode", "yes").ProtectedMode, Is.True, "the command line wins");
        }
        finally { Directory.Delete(dir, true); }
    }

    [Test]
    public void LoopbackClientIsServedByDefault()
    {
        using var server = new TestServer();
        Assert.That(server.Server.Settings.ProtectedMode, Is.True);
        using var c = server.Client();
        RespAssert.Simple(c.Execute("PING"), "PONG");
        Assert.That(new InfoText(c.Execute("INFO", "stats").Text!).Long("rejected_connections"), Is.EqualTo(0));
    }
}

/// <summary>
/// End to end from a non-loopback address: the server and its clients run in a network namespace made for the test
/// (its loopback interface up, with 10.231.7.1 added to it), so nothing touches the machine's own network.
/// Needs root and iproute2; skipped otherwise.
/// </summary>
[TestFixture]
[Category("Faults")]
[NonParallelizable]
public class ProtectedModeNetworkTests
{
    private const string Namespace = "garnet-pm-test";
    private const string ExternalAddress = "10.231.7.1";

    [DllImport("libc", SetLastError = true)]
    private static extern int setns(int fd, int nstype);
    private const int CloneNewNet = 0x40000000;

    private static int Ip(string args)
    {
        using var p = Process.Start(new ProcessStartInfo("ip", args) { RedirectStandardError = true, RedirectStandardOutput = true })!;
        p.WaitForExit();
        return p.ExitCode;
    }

    [OneTimeSetUp]
    public void CreateNamespace()
    {
        if (!OperatingSystem.IsLinux() || Environment.UserName != "root") Assert.Ignore("needs root on Linux to create a network namespace");
        try { Ip($"netns del {Namespace}"); } catch (System.ComponentModel.Win32Exception) { Assert.Ignore("iproute2 (ip) is not installed"); }
        if (Ip($"netns add {Namespace}") != 0) Assert.Ignore("cannot create a network namespace here");
        Assert.That(Ip($"-n {Namespace} link set lo up"), Is.EqualTo(0));
        // A non-loopback address on the namespace's own lo: clients connecting to it come from it.
        Assert.That(Ip($"-n {Namespace} addr add {ExternalAddress}/32 dev lo"), Is.EqualTo(0));
    }

    [OneTimeTearDown]
    public void DeleteNamespace()
    {
        if (OperatingSystem.IsLinux() && Environment.UserName == "root") try { Ip($"netns del {Namespace}"); } catch { }
    }

    /// <summary>Runs f on a thread inside the namespace: sockets it creates (listeners included) live there.</summary>
    private static T InNamespace<T>(Func<T> f)
    {
        T result = default!;
        Exception? error = null;
        var t = new Thread(() =>
        {
            try
            {
                using var ns = File.OpenHandle($"/var/run/netns/{Namespace}");
                if (setns((int)ns.DangerousGetHandle(), CloneNewNet) != 0) throw new InvalidOperationException("setns failed: " + Marshal.GetLastPInvokeError());
                result = f();
            }
            catch (Exception ex) { error = ex; }
        });
        t.Start();
        t.Join();
        if (error is not null) throw new AggregateException(error);
        return result;
    }

    /// <summary>Connects from inside the namespace and returns the socket (still usable from any thread).</summary>
    private static Socket Connect(string address, int port) => InNamespace(() =>
    {
        var s = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveTimeout = 10_000 };
        s.Connect(IPAddress.Parse(address), port);
        return s;
    });

    /// <summary>Sends a request, reads until the server closes the connection or a reply line ends; returns what came.</summary>
    private static string Exchange(Socket s, string request, bool untilClosed)
    {
        if (request.Length > 0) s.Send(Encoding.ASCII.GetBytes(request));
        var received = new MemoryStream();
        var buffer = new byte[8192];
        while (true)
        {
            int n;
            try { n = s.Receive(buffer); }
            catch (SocketException) { break; }
            if (n == 0) break;
            received.Write(buffer, 0, n);
            if (!untilClosed && received.Length >= 2 && buffer[n - 1] == '\n') break;
        }
        return Encoding.ASCII.GetString(received.ToArray());
    }

    [Test]
    [CancelAfter(60_000)]
    public void ExternalClientIsDeniedUntilProtectionIsLifted()
    {
        using var server = InNamespace(() => new TestServer(o => o.Bind = $"127.0.0.1 {ExternalAddress}"));
        // Port 0 gives each bind address its own port.
        int externalPort = server.Server.EndPoints.Single(e => e.Address.ToString() == ExternalAddress).Port;
        int loopbackPort = server.Server.EndPoints.Single(e => IPAddress.IsLoopback(e.Address)).Port;

        // From the external address: DENIED, then closed.
        using (var external = Connect(ExternalAddress, externalPort))
            Assert.That(Exchange(external, "", untilClosed: true), Is.EqualTo(ProtectedMode.DeniedText));

        // From loopback (in the same namespace): served.
        using var local = Connect("127.0.0.1", loopbackPort);
        Assert.That(Exchange(local, "PING\r\n", untilClosed: false), Is.EqualTo("+PONG\r\n"));
        var info = new InfoText(ReadBulk(local, "INFO stats\r\n"));
        Assert.That(info.Long("rejected_connections"), Is.EqualTo(1));

        // Protected mode off: the external client is served.
        Assert.That(Exchange(local, "CONFIG SET protected-mode no\r\n", untilClosed: false), Is.EqualTo("+OK\r\n"));
        using (var external = Connect(ExternalAddress, externalPort))
            Assert.That(Exchange(external, "PING\r\n", untilClosed: false), Is.EqualTo("+PONG\r\n"));

        // On again, with a password: served too (it must authenticate).
        Assert.That(Exchange(local, "CONFIG SET protected-mode yes requirepass s3cret\r\n", untilClosed: false), Is.EqualTo("+OK\r\n"));
        using (var external = Connect(ExternalAddress, externalPort))
        {
            Assert.That(Exchange(external, "PING\r\n", untilClosed: false), Is.EqualTo("-NOAUTH Authentication required.\r\n"));
            Assert.That(Exchange(external, "AUTH s3cret\r\n", untilClosed: false), Is.EqualTo("+OK\r\n"));
        }
    }

    private static string ReadBulk(Socket s, string request)
    {
        s.Send(Encoding.ASCII.GetBytes(request));
        var received = new MemoryStream();
        var buffer = new byte[65536];
        while (true)
        {
            int n = s.Receive(buffer);
            Assert.That(n, Is.GreaterThan(0));
            received.Write(buffer, 0, n);
            var text = Encoding.ASCII.GetString(received.ToArray());
            int header = text.IndexOf("\r\n", StringComparison.Ordinal);
            if (header > 0 && text[0] == '$')
            {
                int length = int.Parse(text[1..header]);
                if (text.Length >= header + 2 + length + 2) return text.Substring(header + 2, length);
            }
        }
    }
}
