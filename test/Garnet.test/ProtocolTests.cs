using System.Text;
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class ProtocolTests : ServerFixture
{

    /// <summary>
    /// A null's bytes on the wire: "$-1" over RESP2, "_" over RESP3, switching with HELLO. Parsing clients (ours,
    /// StackExchange.Redis) report both as null, so this reads the socket itself.
    /// </summary>
    [Test]
    public void NullEncodingFollowsTheProtocol()
    {
        using var s = new System.Net.Sockets.Socket(System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp);
        s.ReceiveTimeout = 10_000;
        s.Connect("127.0.0.1", _server.Port);
        string Exchange(string until, params string[] command)
        {
            s.Send(RespClient.Encode(command));
            var got = new StringBuilder();
            var buf = new byte[4096];
            while (!got.ToString().EndsWith(until))
            {
                int n = s.Receive(buf);
                Assert.That(n, Is.GreaterThan(0), $"connection closed after '{got}'");
                got.Append(Encoding.ASCII.GetString(buf, 0, n));
            }
            return got.ToString();
        }

        Assert.That(Exchange("\r\n", "GET", "null:missing"), Is.EqualTo("$-1\r\n"));
        Assert.That(Exchange("modules\r\n*0\r\n", "HELLO", "3"), Does.StartWith("%7\r\n"));
        Assert.That(Exchange("\r\n", "GET", "null:missing"), Is.EqualTo("_\r\n"));
        Assert.That(Exchange("\r\n", "CLIENT", "GETNAME"), Is.EqualTo("_\r\n"));
        Assert.That(Exchange("modules\r\n*0\r\n", "HELLO", "2"), Does.StartWith("*14\r\n"));
        Assert.That(Exchange("\r\n", "GET", "null:missing"), Is.EqualTo("$-1\r\n"));
    }

    [Test]
    public void TenThousandPipelinedCommandsInOneWrite()
    {
        using var c = _server.Client();
        var ms = new MemoryStream();
        for (int i = 0; i < 10_000; i++) ms.Write(RespClient.Encode("ECHO", "v" + i));
        c.SendRaw(ms.ToArray());
        for (int i = 0; i < 10_000; i++) RespAssert.Bulk(c.Read(), "v" + i);
    }

    [Test]
    public void CommandFedOneBytePerWrite()
    {
        using var c = _server.Client();
        var bytes = RespClient.Encode("ECHO", "split across many receives").Concat(Encoding.ASCII.GetBytes("PING\r\n")).ToArray();
        foreach (var b in bytes)
        {
            c.SendRaw(new[] { b });
            Thread.Sleep(1);
        }
        RespAssert.Bulk(c.Read(), "split across many receives");
        RespAssert.Simple(c.Read(), "PONG");
    }

    [Test]
    public void LargeValueAcrossManyReceives()
    {
        using var c = _server.Client();
        var value = new byte[8 * 1024 * 1024];
        new Random(1).NextBytes(value);
        var v = c.Execute("ECHO", value);
        Assert.That(v.Type, Is.EqualTo(RespType.BulkString));
        Assert.That(v.Bytes, Is.EqualTo(value));
        RespAssert.Simple(c.Execute("PING"), "PONG");
    }

    [Test]
    public void InlineCommands()
    {
        using var c = _server.Client();
        c.SendRaw("PING\r\n"u8);
        RespAssert.Simple(c.Read(), "PONG");
        c.SendRaw("ECHO \"hello\\x41\\n world\"\n"u8);
        RespAssert.Bulk(c.Read(), "helloA\n world");
        c.SendRaw("echo 'it\\'s'\r\n"u8);
        RespAssert.Bulk(c.Read(), "it's");
        c.SendRaw("\r\n\r\n   \r\nping   x  \r\n"u8);
        RespAssert.Bulk(c.Read(), "x");
        c.SendRaw("ECHO a\vb\r\n"u8);
        RespAssert.Bulk(c.Read(), "a\vb");
        c.SendRaw("*0\r\n*-1\r\nPING\r\n"u8);
        RespAssert.Simple(c.Read(), "PONG");
    }

    [Test]
    public void UnknownCommandAndArityErrors()
    {
        using var c = _server.Client();
        RespAssert.Error(c.Execute("FOO", "a", "b"), "ERR unknown command 'FOO', with args beginning with: 'a' 'b' ");
        RespAssert.Error(c.Execute("foo"), "ERR unknown command 'foo', with args beginning with: ");
        var longArg = new string('z', 300);
        var e = c.Execute("FOO", longArg, "next").Text!;
        Assert.That(e, Does.StartWith("ERR unknown command 'FOO', with args beginning with: 'zzz"));
        Assert.That(e, Does.Not.Contain("next"));
        RespAssert.Error(c.Execute("FOO\r\nBAR"), "ERR unknown command 'FOO  BAR', with args beginning with: ");
        RespAssert.Error(c.Execute("ECHO", "a", "b"), "ERR wrong number of arguments for 'echo' command");
        RespAssert.Error(c.Execute("CONFIG", "GET"), "ERR wrong number of arguments for 'config|get' command");
        RespAssert.Simple(c.Execute("PING"), "PONG");
    }

    [TestCase("*abc\r\n", "ERR Protocol error: invalid multibulk length")]
    [TestCase("*3000000000\r\n", "ERR Protocol error: invalid multibulk length")]
    [TestCase("*1\r\n+PING\r\n", "ERR Protocol error: expected '$', got '+'")]
    [TestCase("*1\r\n$-5\r\n", "ERR Protocol error: invalid bulk length")]
    [TestCase("*1\r\n$abc\r\n", "ERR Protocol error: invalid bulk length")]
    [TestCase("*1\r\n$9999999999\r\n", "ERR Protocol error: invalid bulk length")]
    // Around the parser's digits-only fast path (checked against redis-server 7.0): leading zeros, 21 digits, a letter.
    [TestCase("*01\r\n", "ERR Protocol error: invalid multibulk length")]
    [TestCase("*99999999999999999999\r\n", "ERR Protocol error: invalid multibulk length")]
    [TestCase("*1\r\n$01\r\n", "ERR Protocol error: invalid bulk length")]
    [TestCase("*1\r\n$123456789012345678901\r\n", "ERR Protocol error: invalid bulk length")]
    [TestCase("*1\r\n$5x\r\n", "ERR Protocol error: invalid bulk length")]
    [TestCase("ECHO \"unbalanced\r\n", "ERR Protocol error: unbalanced quotes in request")]
    [TestCase("ECHO \"a\"b\r\n", "ERR Protocol error: unbalanced quotes in request")]
    public void ProtocolErrorsCloseTheConnection(string input, string error)
    {
        using var c = _server.Client();
        c.SendRaw(Encoding.ASCII.GetBytes(input));
        RespAssert.Error(c.Read(), error);
        Assert.That(c.IsClosedByServer());
        using var d = _server.Client();
        RespAssert.Simple(d.Execute("PING"), "PONG");
    }

    [Test]
    public void TooBigInlineRequest()
    {
        using var c = _server.Client();
        c.SendRaw(Encoding.ASCII.GetBytes(new string('a', 70_000)));
        RespAssert.Error(c.Read(), "ERR Protocol error: too big inline request");
        Assert.That(c.IsClosedByServer());
    }

    [Test]
    public void TooBigCountStrings()
    {
        using (var c = _server.Client())
        {
            c.SendRaw(Encoding.ASCII.GetBytes("*" + new string('1', 70_000)));
            RespAssert.Error(c.Read(), "ERR Protocol error: too big mult bulk count string");
        }
        using (var c = _server.Client())
        {
            c.SendRaw(Encoding.ASCII.GetBytes("*1\r\n$" + new string('1', 70_000)));
            RespAssert.Error(c.Read(), "ERR Protocol error: too big bulk count string");
        }
    }

    [Test]
    public void HttpRequestIsDroppedAsAttack()
    {
        using var c = _server.Client();
        c.SendRaw("POST / HTTP/1.1\r\nHost: x\r\n\r\n"u8);
        Assert.That(c.IsClosedByServer());
    }

    [Test]
    public void ProtoMaxBulkLenIsEnforcedAndSettable()
    {
        using var admin = _server.Client();
        RespAssert.Simple(admin.Execute("CONFIG", "SET", "proto-max-bulk-len", "1mb"), "OK");
        try
        {
            using var c = _server.Client();
            c.SendRaw(Encoding.ASCII.GetBytes($"*2\r\n$4\r\nECHO\r\n${1024 * 1024 + 1}\r\n"));
            RespAssert.Error(c.Read(), "ERR Protocol error: invalid bulk length");
            Assert.That(c.IsClosedByServer());
            using var d = _server.Client();
            var ok = new string('q', 1024 * 1024);
            RespAssert.Bulk(d.Execute("ECHO", ok), ok);
        }
        finally
        {
            RespAssert.Simple(admin.Execute("CONFIG", "SET", "proto-max-bulk-len", "512mb"), "OK");
        }
    }

    [Test]
    public void QueryBufferLimitDisconnects()
    {
        using var admin = _server.Client();
        RespAssert.Simple(admin.Execute("CONFIG", "SET", "client-query-buffer-limit", "1mb"), "OK");
        try
        {
            using var c = _server.Client();
            // A pipeline of incomplete requests: one huge bulk header promised, then 2 MB of data trickles in.
            c.SendRaw(Encoding.ASCII.GetBytes($"*2\r\n$4\r\nECHO\r\n${100 * 1024 * 1024}\r\n"));
            var chunk = new byte[64 * 1024];
            bool closed = false;
            try
            {
                for (int i = 0; i < 64 && !closed; i++) c.SendRaw(chunk);
            }
            catch (System.Net.Sockets.SocketException) { closed = true; }
            Assert.That(closed || c.IsClosedByServer(), "client over the query buffer limit must be disconnected");
            using var d = _server.Client();
            RespAssert.Simple(d.Execute("PING"), "PONG");
        }
        finally
        {
            RespAssert.Simple(admin.Execute("CONFIG", "SET", "client-query-buffer-limit", "1gb"), "OK");
        }
    }

    [Test]
    public void Resp3Types()
    {
        using var c = _server.Client();
        c.Execute("HELLO", "3");
        Assert.That(c.Execute("CONFIG", "GET", "port").Type, Is.EqualTo(RespType.Map));
        Assert.That(c.Execute("INFO", "server").Type, Is.EqualTo(RespType.Verbatim));
        var info = c.Execute("COMMAND", "INFO", "ping").Elements![0];
        Assert.That(info.Elements![2].Type, Is.EqualTo(RespType.Set), "flags are a set in RESP3");
        Assert.That(c.Execute("COMMAND", "INFO", "nosuch").Elements![0].Type, Is.EqualTo(RespType.Null));
        Assert.That(c.Execute("COMMAND", "DOCS", "ping").Type, Is.EqualTo(RespType.Map));
    }

    [Test]
    public void LargeRepliesAreFlushedInPieces()
    {
        // 200 x 100 KB replies in one pipeline: more than the flush threshold many times over.
        using var c = _server.Client();
        var value = new string('r', 100 * 1024);
        var ms = new MemoryStream();
        for (int i = 0; i < 200; i++) ms.Write(RespClient.Encode("ECHO", value));
        var send = Task.Run(() => c.SendRaw(ms.ToArray()));
        for (int i = 0; i < 200; i++) RespAssert.Bulk(c.Read(), value);
        send.Wait();
    }
}
