// Without a bound, one connection could try 20,000 wrong passwords in 0.28 s, all answered. auth-max-failures (default
// 10) bounds the failed AUTH / HELLO AUTH of one connection: the last failure's error is sent, then the connection
// closes. Checked through a raw socket, pipelined and one at a time.
using System.Net.Sockets;
using System.Text;
using Garnet.Options;

namespace Garnet.test;

[TestFixture, NonParallelizable]
public class AuthBruteForceTests : ServerFixture
{
    private const string Wrong = "WRONGPASS invalid username-password pair or user is disabled.";

    protected override void Configure(GarnetServerOptions o) => o.RequirePass = "s3cret";

    private Socket Connect()
    {
        var s = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveTimeout = 10000, SendTimeout = 10000 };
        s.Connect("127.0.0.1", _server.Port);
        return s;
    }

    /// <summary>Everything the server sends until it closes the connection (or 10 s pass: then the test fails).</summary>
    private static string ReadUntilClosed(Socket s)
    {
        var buf = new byte[64 * 1024];
        var all = new MemoryStream();
        while (true)
        {
            int n;
            try { n = s.Receive(buf); }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionReset) { break; }
            if (n == 0) break;
            all.Write(buf, 0, n);
        }
        return Encoding.ASCII.GetString(all.ToArray());
    }

    private static int Count(string text, string what)
    {
        int n = 0;
        for (int i = text.IndexOf(what, StringComparison.Ordinal); i >= 0; i = text.IndexOf(what, i + 1, StringComparison.Ordinal)) n++;
        return n;
    }

    [Test]
    public void PipelinedWrongPasswordsEndTheConnectionAtTheBound()
    {
        using var s = Connect();
        var one = "*2\r\n$4\r\nAUTH\r\n$5\r\nwrong\r\n";
        var flood = new StringBuilder();
        for (int i = 0; i < 20_000; i++) flood.Append(one);
        flood.Append("*2\r\n$4\r\nAUTH\r\n$6\r\ns3cret\r\n*1\r\n$4\r\nPING\r\n");
        try { s.Send(Encoding.ASCII.GetBytes(flood.ToString())); }
        catch (SocketException) { } // the server may close before it has read everything
        var got = ReadUntilClosed(s);
        Assert.That(Count(got, "-" + Wrong + "\r\n"), Is.EqualTo(10), "the default bound");
        Assert.That(got, Does.Not.Contain("+OK").And.Not.Contain("PONG"), "nothing behind the last failure runs");
    }

    [Test]
    public void WrongPasswordsOneAtATimeAndHelloAuthCountTogether()
    {
        using var s = Connect();
        var buf = new byte[4096];
        for (int i = 1; i <= 10; i++)
        {
            s.Send(Encoding.ASCII.GetBytes(i % 2 == 0
                ? "*2\r\n$4\r\nAUTH\r\n$5\r\nwrong\r\n"
                : "*5\r\n$5\r\nHELLO\r\n$1\r\n3\r\n$4\r\nAUTH\r\n$7\r\ndefault\r\n$5\r\nwrong\r\n"));
            int n = s.Receive(buf);
            Assert.That(Encoding.ASCII.GetString(buf, 0, n), Is.EqualTo("-" + Wrong + "\r\n"), $"attempt {i}");
        }
        Assert.That(ReadUntilClosed(s), Is.Empty, "closed after the tenth failure");

        // Another connection is not affected, and a client within the bound authenticates.
        using var c = _server.Client();
        for (int i = 0; i < 9; i++) RespAssert.Error(c.Execute("AUTH", "wrong"), Wrong);
        RespAssert.Simple(c.Execute("AUTH", "s3cret"), "OK");
        RespAssert.Simple(c.Execute("PING"), "PONG");
    }

    [Test]
    public void TheBoundIsConfigurable()
    {
        using var admin = _server.Client();
        RespAssert.Simple(admin.Execute("AUTH", "s3cret"), "OK");
        Assert.That(admin.Execute("CONFIG", "GET", "auth-max-failures").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "auth-max-failures", "10" }));
        RespAssert.Error(admin.Execute("CONFIG", "SET", "auth-max-failures", "-1"),
            "ERR CONFIG SET failed (possibly related to argument 'auth-max-failures') - argument must be between 0 and 2147483647 inclusive");
        try
        {
            RespAssert.Simple(admin.Execute("CONFIG", "SET", "auth-max-failures", "0"), "OK");
            using (var c = _server.Client())
            {
                for (int i = 0; i < 50; i++) RespAssert.Error(c.Execute("AUTH", "wrong"), Wrong);
                RespAssert.Simple(c.Execute("AUTH", "s3cret"), "OK");
            }
            RespAssert.Simple(admin.Execute("CONFIG", "SET", "auth-max-failures", "2"), "OK");
            using var s = Connect();
            s.Send(Encoding.ASCII.GetBytes(string.Concat(Enumerable.Repeat("*2\r\n$4\r\nAUTH\r\n$5\r\nwrong\r\n", 5))));
            Assert.That(Count(ReadUntilClosed(s), Wrong), Is.EqualTo(2));
        }
        finally { admin.Execute("CONFIG", "SET", "auth-max-failures", "10"); }
    }

    [Test]
    public void TheOptionIsValidatedAtStart()
    {
        var ex = Assert.Throws<OptionsException>(() =>
            SettingsBuilder.Build(OptionsParser.Parse(["--auth-max-failures", "-3"], TextWriter.Null, out _, out _)!));
        Assert.That(ex!.Message, Is.EqualTo("Invalid value for --auth-max-failures: '-3'. Allowed: 0 (no bound) or a number of failed attempts per connection."));
        Assert.That(SettingsBuilder.Build(OptionsParser.Parse(["--auth-max-failures", "3"], TextWriter.Null, out _, out _)!).AuthMaxFailures, Is.EqualTo(3));
        Assert.That(SettingsBuilder.Build(OptionsParser.Parse([], TextWriter.Null, out _, out _)!).AuthMaxFailures, Is.EqualTo(10));
    }
}
