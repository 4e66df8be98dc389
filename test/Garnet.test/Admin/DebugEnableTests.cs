// enable-debug-command (no | yes | local): who may run DEBUG, with Redis 7's refusal text (compared with redis-server,
// whose default is no), immutable at run time, read from the option and from a redis.conf; the default here is local.
using System.Net;
using System.Net.NetworkInformation;
using System.Net.Sockets;
using Garnet.client;
using Garnet.server.Config;

namespace Garnet.test.Admin;

[TestFixture]
public class DebugEnableTests
{
    private static readonly string Refusal = ProtectedActions.DebugNotAllowedError;

    [Test]
    public void NoRefusesEveryClientAsRedisDoes()
    {
        using var server = new TestServer(o => o.EnableDebugCommand = "no");
        using var ours = new RawResp(server.Port);
        byte[] ourReply = ours.Run("DEBUG", "SLEEP", "0");
        Assert.That(System.Text.Encoding.ASCII.GetString(ourReply), Is.EqualTo("-" + Refusal + "\r\n"));
        // Checked before NOAUTH and inside MULTI it fails the transaction, as Redis's processCommand; arity comes first.
        Assert.That(ours.RunText("DEBUG"), Is.EqualTo("-ERR wrong number of arguments for 'debug' command\r\n"));
        Assert.That(ours.RunText("MULTI"), Is.EqualTo("+OK\r\n"));
        Assert.That(ours.RunText("DEBUG", "HELP"), Is.EqualTo("-" + Refusal + "\r\n"));
        Assert.That(ours.RunText("EXEC"), Is.EqualTo("-EXECABORT Transaction discarded because of previous errors.\r\n"));
        Assert.That(ours.RunText("CONFIG", "GET", "enable-debug-command"), Is.EqualTo("*2\r\n$20\r\nenable-debug-command\r\n$2\r\nno\r\n"));
        Assert.That(ours.RunText("CONFIG", "SET", "enable-debug-command", "yes"),
            Is.EqualTo("-ERR CONFIG SET failed (possibly related to argument 'enable-debug-command') - can't set immutable config\r\n"));
        using (var c = server.Client())
            Assert.That(c.Execute("INFO", "commandstats").Text, Does.Contain("cmdstat_debug:calls=0,usec=0,usec_per_call=0.00,rejected_calls=3,failed_calls=0"));

        using var redis = new RedisProcess();
        using var theirs = new RawResp(redis.Port);
        Assert.That(ourReply, Is.EqualTo(theirs.Run("DEBUG", "SLEEP", "0")), "Redis 7's refusal, byte for byte");
        Assert.That(ours.Run("CONFIG", "SET", "enable-debug-command", "yes"), Is.EqualTo(theirs.Run("CONFIG", "SET", "enable-debug-command", "yes")));
    }

    [Test]
    public void LocalAdmitsLoopbackAndUnixSocketAndRefusesOthers()
    {
        string sock = Path.Combine("/tmp", $"garnet-dbg-{Guid.NewGuid():N}.sock");
        using var server = new TestServer(o => { o.Bind = "0.0.0.0"; o.ProtectedMode = "no"; o.UnixSocket = sock; o.Port = shared.TestPorts.Free(); });
        using (var c = server.Client())
        {
            Assert.That(c.Execute("CONFIG", "GET", "enable-debug-command").Elements![1].Text, Is.EqualTo("local"), "the default");
            Assert.That(c.Execute("DEBUG", "SLEEP", "0").Text, Is.EqualTo("OK"), "loopback is local");
        }
        using (var unix = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified))
        {
            unix.Connect(new UnixDomainSocketEndPoint(sock));
            unix.Send(RespClient.Encode(["DEBUG", "SLEEP", "0"]));
            var buffer = new byte[64];
            Assert.That(System.Text.Encoding.ASCII.GetString(buffer, 0, unix.Receive(buffer)), Is.EqualTo("+OK\r\n"), "a Unix socket is local");
        }
        var external = NetworkInterface.GetAllNetworkInterfaces()
            .Where(n => n.OperationalStatus == OperationalStatus.Up)
            .SelectMany(n => n.GetIPProperties().UnicastAddresses).Select(a => a.Address)
            .FirstOrDefault(a => a.AddressFamily == AddressFamily.InterNetwork && !IPAddress.IsLoopback(a));
        if (external is null) Assert.Ignore("no IPv4 address other than loopback on this machine: the remote case is not checked");
        using var remote = new RespClient(external.ToString(), server.Port, 10000);
        var reply = remote.Execute("DEBUG", "SLEEP", "0");
        Assert.That(reply.Type, Is.EqualTo(RespType.Error));
        Assert.That(reply.Text, Is.EqualTo(Refusal), $"a client from {external} is not local");
        Assert.That(remote.Execute("PING").Text, Is.EqualTo("PONG"));
    }

    [Test]
    public void YesAdmitsAndTheOptionIsValidatedAndReadFromRedisConf()
    {
        using (var server = new TestServer(o => o.EnableDebugCommand = "YES"))
        using (var c = server.Client())
        {
            Assert.That(c.Execute("DEBUG", "SLEEP", "0").Text, Is.EqualTo("OK"));
            Assert.That(c.Execute("CONFIG", "GET", "enable-debug-command").Elements![1].Text, Is.EqualTo("yes"));
        }
        var ex = Assert.Throws<Garnet.Options.OptionsException>(() => new TestServer(o => o.EnableDebugCommand = "sometimes"));
        Assert.That(ex!.Message, Is.EqualTo("Invalid value for --enable-debug-command: 'sometimes'. Allowed: no, yes or local."));

        string conf = Path.Combine(Path.GetTempPath(), $"garnet-dbg-{Guid.NewGuid():N}.conf");
        File.WriteAllText(conf, "enable-debug-command no\n");
        try
        {
            using var server = new TestServer(o => o.ConfigFile = conf);
            using var c = server.Client();
            Assert.That(c.Execute("DEBUG", "SLEEP", "0").Text, Is.EqualTo(Refusal));
        }
        finally { File.Delete(conf); }
    }
}
