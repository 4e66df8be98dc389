using System.Text.RegularExpressions;
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class ClientCommandTests : ServerFixture
{

    [Test]
    public void IdAndNames()
    {
        using var a = _server.Client();
        using var b = _server.Client();
        long ida = a.Execute("CLIENT", "ID").Integer, idb = b.Execute("CLIENT", "ID").Integer;
        Assert.That(ida, Is.GreaterThan(0));
        Assert.That(idb, Is.Not.EqualTo(ida));
        Assert.That(a.Execute("CLIENT", "GETNAME").IsNull);
        RespAssert.Simple(a.Execute("CLIENT", "SETNAME", "worker-1"), "OK");
        RespAssert.Bulk(a.Execute("CLIENT", "GETNAME"), "worker-1");
        RespAssert.Error(a.Execute("CLIENT", "SETNAME", "has space"), "ERR Client names cannot contain spaces, newlines or special characters.");
        RespAssert.Bulk(a.Execute("CLIENT", "GETNAME"), "worker-1");
        RespAssert.Simple(a.Execute("CLIENT", "SETNAME", ""), "OK");
        Assert.That(a.Execute("CLIENT", "GETNAME").IsNull);
        RespAssert.Error(a.Execute("CLIENT", "SETNAME"), "ERR wrong number of arguments for 'client|setname' command");
        RespAssert.Error(a.Execute("CLIENT", "NOPE"), "ERR unknown subcommand 'NOPE'. Try CLIENT HELP.");
        RespAssert.Error(a.Execute("CLIENT"), "ERR wrong number of arguments for 'client' command");
    }

    [Test]
    public void SetInfo()
    {
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("CLIENT", "SETINFO", "LIB-NAME", "mylib"), "OK");
        RespAssert.Simple(c.Execute("CLIENT", "SETINFO", "lib-ver", "1.2.3"), "OK");
        var info = c.Execute("CLIENT", "INFO").Text!;
        Assert.That(info, Does.Contain("lib-name=mylib lib-ver=1.2.3"));
        RespAssert.Error(c.Execute("CLIENT", "SETINFO", "color", "red"), "ERR Unrecognized option 'color'");
        RespAssert.Error(c.Execute("CLIENT", "SETINFO", "lib-name", "a b"), "ERR lib-name cannot contain spaces, newlines or special characters.");
    }

    [Test]
    public void ListAndInfoFormat()
    {
        using var a = _server.Client();
        using var b = _server.Client();
        a.Execute("CLIENT", "SETNAME", "lister");
        long idb = b.Execute("CLIENT", "ID").Integer;
        var list = a.Execute("CLIENT", "LIST").Text!;
        var lines = list.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.That(lines.Length, Is.GreaterThanOrEqualTo(2));
        var pattern = new Regex(@"^id=\d+ addr=127\.0\.0\.1:\d+ laddr=127\.0\.0\.1:\d+ fd=\d+ name=\S* age=\d+ idle=\d+ flags=N db=\d+ sub=0 psub=0 ssub=0 multi=-1 qbuf=\d+ qbuf-free=\d+ argv-mem=\d+ multi-mem=0 rbs=\d+ rbp=\d+ obl=0 oll=0 omem=0 tot-mem=\d+ events=r cmd=\S+ user=default redir=-1 resp=[23] lib-name=\S* lib-ver=\S*$");
        foreach (var l in lines) Assert.That(l, Does.Match(pattern));
        Assert.That(list, Does.Contain("name=lister").And.Contain("cmd=client|list"));

        var only = a.Execute("CLIENT", "LIST", "ID", idb.ToString()).Text!;
        Assert.That(only.Split('\n', StringSplitOptions.RemoveEmptyEntries), Has.Length.EqualTo(1));
        Assert.That(only, Does.StartWith($"id={idb} "));
        Assert.That(a.Execute("CLIENT", "LIST", "TYPE", "pubsub").Text, Is.Empty);
        RespAssert.Error(a.Execute("CLIENT", "LIST", "TYPE", "bogus"), "ERR Unknown client type 'bogus'");
        RespAssert.Error(a.Execute("CLIENT", "LIST", "ID", "x"), "ERR Invalid client ID");
        RespAssert.Error(a.Execute("CLIENT", "LIST", "FOO"), "ERR syntax error");

        var info = a.Execute("CLIENT", "INFO").Text!;
        Assert.That(info, Does.Match(pattern).And.EndWith("\n"));
        Assert.That(info, Does.Contain("cmd=client|info"));

        a.Execute("HELLO", "3");
        var v = a.Execute("CLIENT", "INFO");
        Assert.That(v.Type, Is.EqualTo(RespType.Verbatim));
    }

    [Test]
    public void KillById()
    {
        using var killer = _server.Client();
        using var victim = _server.Client();
        long id = victim.Execute("CLIENT", "ID").Integer;
        RespAssert.Integer(killer.Execute("CLIENT", "KILL", "ID", id.ToString()), 1);
        Assert.That(victim.IsClosedByServer());
        RespAssert.Integer(killer.Execute("CLIENT", "KILL", "ID", id.ToString()), 0);
        RespAssert.Error(killer.Execute("CLIENT", "KILL", "ID", "0"), "ERR client-id should be greater than 0");
        // Three arguments is the old form (an address), as in Redis.
        RespAssert.Error(killer.Execute("CLIENT", "KILL", "ID"), "ERR No such client");
        RespAssert.Error(killer.Execute("CLIENT", "KILL", "ID", "1", "SKIPME"), "ERR syntax error");
        RespAssert.Error(killer.Execute("CLIENT", "KILL", "TYPE", "alien"), "ERR Unknown client type 'alien'");
        RespAssert.Error(killer.Execute("CLIENT", "KILL", "USER", "nobody"), "ERR No such user 'nobody'");
        // SKIPME yes (the default) spares the caller
        long self = killer.Execute("CLIENT", "ID").Integer;
        RespAssert.Integer(killer.Execute("CLIENT", "KILL", "ID", self.ToString()), 0);
        RespAssert.Simple(killer.Execute("PING"), "PONG");
    }

    [Test]
    public void KillByAddressOldAndNewForm()
    {
        using var killer = _server.Client();
        using var v1 = _server.Client();
        using var v2 = _server.Client();
        // Served once: the server has accepted and registered both (a connect alone can race the accept loop).
        RespAssert.Simple(v1.Execute("PING"), "PONG");
        RespAssert.Simple(v2.Execute("PING"), "PONG");
        string addr1 = "127.0.0.1:" + ((System.Net.IPEndPoint)v1.Socket.LocalEndPoint!).Port;
        string addr2 = "127.0.0.1:" + ((System.Net.IPEndPoint)v2.Socket.LocalEndPoint!).Port;
        RespAssert.Simple(killer.Execute("CLIENT", "KILL", addr1), "OK");
        Assert.That(v1.IsClosedByServer());
        RespAssert.Error(killer.Execute("CLIENT", "KILL", addr1), "ERR No such client");
        RespAssert.Integer(killer.Execute("CLIENT", "KILL", "ADDR", addr2, "SKIPME", "no"), 1);
        Assert.That(v2.IsClosedByServer());
    }

    [Test]
    public void KillReachesAClientThatStoppedReading()
    {
        using var killer = _server.Client();
        var victim = new System.Net.Sockets.Socket(System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp) { ReceiveBufferSize = 4096, SendTimeout = 1000 };
        try
        {
            victim.Connect("127.0.0.1", _server.Port);
            victim.Send(RespClient.Encode("CLIENT", "ID"));
            var buf = new byte[64];
            int n = victim.Receive(buf);
            long id = long.Parse(System.Text.Encoding.ASCII.GetString(buf, 1, n - 3));
            // Ask for ~64 MB of replies and never read them: the server ends up blocked sending to this client.
            var big = RespClient.Encode("ECHO", new string('z', 1 << 20));
            // (our sends block too once the server stops reading: back-pressure works both ways)
            try { for (int i = 0; i < 64; i++) victim.Send(big); } catch (System.Net.Sockets.SocketException) { }
            // A send that timed out (1 s) means the server stopped reading: it is stuck sending the replies it has begun.
            Poll.True(() => _server.Server.Server.Clients.TryGet(id, out var s) && s!.Connection.BytesOut > 0, "the first replies to the victim");
            RespAssert.Integer(killer.Execute("CLIENT", "KILL", "ID", id.ToString()), 1);
            var sw = System.Diagnostics.Stopwatch.StartNew();
            while (killer.Execute("CLIENT", "LIST").Text!.Contains($"id={id} ") && sw.Elapsed < TimeSpan.FromSeconds(10)) Thread.Sleep(50);
            Assert.That(killer.Execute("CLIENT", "LIST").Text, Does.Not.Contain($"id={id} "));
            var sw2 = System.Diagnostics.Stopwatch.StartNew();
            while (_server.Server.Server.Clients.TryGet(id, out _) && sw2.Elapsed < TimeSpan.FromSeconds(10)) Thread.Sleep(50);
            Assert.That(_server.Server.Server.Clients.TryGet(id, out _), Is.False, "the stuck connection is really closed");
        }
        finally { victim.Dispose(); }
    }

    [Test]
    public void KillSelfClosesAfterReply()
    {
        using var c = _server.Client();
        long id = c.Execute("CLIENT", "ID").Integer;
        RespAssert.Integer(c.Execute("CLIENT", "KILL", "ID", id.ToString(), "SKIPME", "no"), 1);
        Assert.That(c.IsClosedByServer());
    }

    [Test]
    public void Help()
    {
        using var c = _server.Client();
        var v = c.Execute("CLIENT", "HELP");
        Assert.That(v.Elements![0].Text, Does.StartWith("CLIENT <subcommand>"));
        Assert.That(v.Elements.Select(e => e.Text), Does.Contain("SETNAME <name>"));
    }
}
