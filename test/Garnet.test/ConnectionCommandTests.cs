using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class ConnectionCommandTests : ServerFixture
{

    [Test]
    public void PingAndEcho()
    {
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("PING"), "PONG");
        RespAssert.Bulk(c.Execute("ping", "hello world"), "hello world");
        RespAssert.Error(c.Execute("PING", "a", "b"), "ERR wrong number of arguments for 'ping' command");
        RespAssert.Bulk(c.Execute("ECHO", "x\r\ny"), "x\r\ny");
        RespAssert.Bulk(c.Execute("ECHO", ""), "");
        RespAssert.Error(c.Execute("ECHO"), "ERR wrong number of arguments for 'echo' command");
    }

    [Test]
    public void HelloSwitchesProtocol()
    {
        using var c = _server.Client();
        var v = c.Execute("HELLO");
        Assert.That(v.Type, Is.EqualTo(RespType.Array), "RESP2 HELLO is a flat array");
        var m = RespAssert.Map(v);
        Assert.That(m["proto"].Integer, Is.EqualTo(2));
        Assert.That(m["server"].Text, Is.EqualTo("redis"));
        Assert.That(m["version"].Text, Does.StartWith("7."));
        Assert.That(m["mode"].Text, Is.EqualTo("standalone"));
        Assert.That(m["role"].Text, Is.EqualTo("master"));

        v = c.Execute("HELLO", "3");
        Assert.That(v.Type, Is.EqualTo(RespType.Map));
        m = RespAssert.Map(v);
        Assert.That(m["proto"].Integer, Is.EqualTo(3));
        Assert.That(m["id"].Integer, Is.EqualTo(c.Execute("CLIENT", "ID").Integer));
        Assert.That(m["modules"].Elements, Is.Empty);

        // RESP3 null for a missing name, then back to RESP2's $-1.
        Assert.That(c.Execute("CLIENT", "GETNAME").Type, Is.EqualTo(RespType.Null));
        c.SendRaw("*2\r\n$6\r\nCLIENT\r\n$7\r\nGETNAME\r\n"u8);
        c.SendRaw("*2\r\n$5\r\nHELLO\r\n$1\r\n2\r\n"u8);
        Assert.That(c.Read().IsNull);
        Assert.That(c.Read().Type, Is.EqualTo(RespType.Array));
        c.SendRaw(RespClient.Encode("CLIENT", "GETNAME"));
        var raw = ReadRaw(c, 5);
        Assert.That(raw, Is.EqualTo("$-1\r\n"));
    }

    private static string ReadRaw(RespClient c, int n)
    {
        var buf = new byte[n];
        int got = 0;
        while (got < n) got += c.Socket.Receive(buf, got, n - got, System.Net.Sockets.SocketFlags.None);
        return System.Text.Encoding.ASCII.GetString(buf);
    }

    [Test]
    public void HelloErrors()
    {
        using var c = _server.Client();
        RespAssert.Error(c.Execute("HELLO", "4"), "NOPROTO unsupported protocol version");
        RespAssert.Error(c.Execute("HELLO", "1"), "NOPROTO unsupported protocol version");
        RespAssert.Error(c.Execute("HELLO", "x"), "ERR Protocol version is not an integer or out of range");
        RespAssert.Error(c.Execute("HELLO", "3", "FOO"), "ERR Syntax error in HELLO option 'FOO'");
        RespAssert.Error(c.Execute("HELLO", "3", "AUTH", "default"), "ERR Syntax error in HELLO option 'AUTH'");
        RespAssert.Error(c.Execute("HELLO", "3", "AUTH", "bob", "pw"), "WRONGPASS invalid username-password pair or user is disabled.");
        // still RESP2 after the failures
        Assert.That(c.Execute("HELLO").Type, Is.EqualTo(RespType.Array));
        var m = RespAssert.Map(c.Execute("HELLO", "2", "SETNAME", "conn-a"));
        Assert.That(m["proto"].Integer, Is.EqualTo(2));
        RespAssert.Bulk(c.Execute("CLIENT", "GETNAME"), "conn-a");
        RespAssert.Error(c.Execute("HELLO", "2", "SETNAME", "bad name"), "ERR Client names cannot contain spaces, newlines or special characters.");
    }

    [Test]
    public void AuthWithoutPasswordConfigured()
    {
        using var c = _server.Client();
        RespAssert.Error(c.Execute("AUTH", "pw"), "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?");
        RespAssert.Simple(c.Execute("AUTH", "default", "anything"), "OK");
        RespAssert.Error(c.Execute("AUTH", "alice", "pw"), "WRONGPASS invalid username-password pair or user is disabled.");
        RespAssert.Error(c.Execute("AUTH", "a", "b", "c"), "ERR syntax error");
    }

    [Test]
    public void Select()
    {
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("SELECT", "15"), "OK");
        Assert.That(c.Execute("CLIENT", "INFO").Text, Does.Contain(" db=15 "));
        RespAssert.Error(c.Execute("SELECT", "16"), "ERR DB index is out of range");
        RespAssert.Error(c.Execute("SELECT", "-1"), "ERR DB index is out of range");
        RespAssert.Error(c.Execute("SELECT", "abc"), "ERR value is not an integer or out of range");
        RespAssert.Error(c.Execute("SELECT", "99999999999999999999"), "ERR value is not an integer or out of range");
        RespAssert.Error(c.Execute("SELECT", "-0"), "ERR value is not an integer or out of range");
        RespAssert.Error(c.Execute("SELECT", "01"), "ERR value is not an integer or out of range");
        RespAssert.Error(c.Execute("SELECT", "+1"), "ERR value is not an integer or out of range");
        RespAssert.Simple(c.Execute("SELECT", "0"), "OK");
    }

    [Test]
    public void QuitClosesAfterReply()
    {
        using var c = _server.Client();
        c.SendRaw(RespClient.Encode("QUIT"));
        RespAssert.Simple(c.Read(), "OK");
        Assert.That(c.IsClosedByServer(), Is.True);
    }

    [Test]
    public void ResetRestoresDefaults()
    {
        using var c = _server.Client();
        c.Execute("HELLO", "3");
        c.Execute("SELECT", "3");
        c.Execute("CLIENT", "SETNAME", "x");
        var v = c.Execute("RESET");
        Assert.That(v.Type, Is.EqualTo(RespType.SimpleString));
        Assert.That(v.Text, Is.EqualTo("RESET"));
        var info = c.Execute("CLIENT", "INFO").Text!;
        Assert.That(info, Does.Contain(" db=0 "));
        Assert.That(info, Does.Contain(" resp=2 "));
        Assert.That(info, Does.Contain(" name= "));
        RespAssert.Error(c.Execute("RESET", "x"), "ERR wrong number of arguments for 'reset' command");
    }

    [Test]
    public void Time()
    {
        using var c = _server.Client();
        var v = c.Execute("TIME");
        Assert.That(v.Elements, Has.Length.EqualTo(2));
        long secs = long.Parse(v.Elements![0].Text!);
        long micros = long.Parse(v.Elements[1].Text!);
        Assert.That(Math.Abs(secs - DateTimeOffset.UtcNow.ToUnixTimeSeconds()), Is.LessThan(5));
        Assert.That(micros, Is.InRange(0, 999_999));
    }
}
