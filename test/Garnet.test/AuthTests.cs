using Garnet.Options;
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class AuthTests : ServerFixture
{
    protected override void Configure(GarnetServerOptions o) => o.RequirePass = "s3cret";

    [Test]
    public void CommandsRefusedUntilAuthenticated()
    {
        using var c = _server.Client();
        RespAssert.Error(c.Execute("PING"), "NOAUTH Authentication required.");
        RespAssert.Error(c.Execute("CLIENT", "ID"), "NOAUTH Authentication required.");
        // Unknown command and arity errors come before the auth check, as in Redis.
        RespAssert.Error(c.Execute("NOSUCH"), "ERR unknown command 'NOSUCH', with args beginning with: ");
        RespAssert.Error(c.Execute("AUTH", "wrong"), "WRONGPASS invalid username-password pair or user is disabled.");
        RespAssert.Error(c.Execute("PING"), "NOAUTH Authentication required.");
        RespAssert.Simple(c.Execute("AUTH", "s3cret"), "OK");
        RespAssert.Simple(c.Execute("PING"), "PONG");
        // RESET logs the client out again
        c.Execute("RESET");
        RespAssert.Error(c.Execute("PING"), "NOAUTH Authentication required.");
        RespAssert.Simple(c.Execute("AUTH", "default", "s3cret"), "OK");
    }

    [Test]
    public void HelloAuthenticates()
    {
        using var c = _server.Client();
        RespAssert.Error(c.Execute("HELLO", "3"), "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time");
        var v = c.Execute("HELLO", "3", "AUTH", "default", "s3cret", "SETNAME", "app");
        Assert.That(v.Type, Is.EqualTo(RespType.Map));
        RespAssert.Bulk(c.Execute("CLIENT", "GETNAME"), "app");
    }

    [Test]
    public void RemovingThePasswordAdmitsWaitingClients()
    {
        using var waiting = _server.Client();
        RespAssert.Error(waiting.Execute("PING"), "NOAUTH Authentication required.");
        using var admin = _server.Client();
        admin.Execute("AUTH", "s3cret");
        RespAssert.Simple(admin.Execute("CONFIG", "SET", "requirepass", ""), "OK");
        try
        {
            RespAssert.Simple(waiting.Execute("PING"), "PONG");
            var big = new string('b', 20_000);
            RespAssert.Bulk(waiting.Execute("ECHO", big), big);
        }
        finally
        {
            RespAssert.Simple(admin.Execute("CONFIG", "SET", "requirepass", "s3cret"), "OK");
        }
        RespAssert.Error(waiting.Execute("PING"), "NOAUTH Authentication required.");
    }

    [Test]
    public void QuitAllowedWithoutAuth()
    {
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("QUIT"), "OK");
        Assert.That(c.IsClosedByServer());
    }

    [Test]
    public void UnauthenticatedClientsGetTighterLimits()
    {
        using (var c = _server.Client())
        {
            c.SendRaw("*11\r\n"u8);
            RespAssert.Error(c.Read(), "ERR Protocol error: unauthenticated multibulk length");
            Assert.That(c.IsClosedByServer());
        }
        using (var c = _server.Client())
        {
            c.SendRaw("*2\r\n$4\r\nECHO\r\n$16385\r\n"u8);
            RespAssert.Error(c.Read(), "ERR Protocol error: unauthenticated bulk length");
            Assert.That(c.IsClosedByServer());
        }
        using (var c = _server.Client())
        {
            c.Execute("AUTH", "s3cret");
            var big = new string('x', 100_000);
            RespAssert.Bulk(c.Execute("ECHO", big), big);
            var args = new object[] { "PING" }.Concat(Enumerable.Repeat<object>("a", 1)).ToArray();
            RespAssert.Bulk(c.Execute(args), "a");
        }
    }
}
