// Resp.benchmark --unixsocket end to end: against our server listening on a Unix socket (in process) and against
// redis-server's unixsocket. Each run is bounded by --totalops (a fraction of a second), and the server's own counters
// (INFO commandstats, read over TCP) must show the requests arrived through the socket.
using System.Text.RegularExpressions;

namespace Garnet.client.test;

[TestFixture]
public class UnixSocketBenchmarkTests
{
    private static string SocketPath(string name) => Path.Combine("/tmp", $"rb-{name}-{Guid.NewGuid():N}.sock");

    private static long Calls(RespClient c, string command)
    {
        string stats = c.Execute("INFO", "commandstats").Text!;
        var m = Regex.Match(stats, $@"cmdstat_{command}:calls=(\d+)");
        return m.Success ? long.Parse(m.Groups[1].Value) : 0;
    }

    [Test]
    public void OfflineAndOnlineRunsServeRequestsThroughOurUnixSocket()
    {
        if (!OperatingSystem.IsLinux() && !OperatingSystem.IsMacOS()) Assert.Ignore("Unix domain sockets");
        string path = SocketPath("ours");
        // Port 0 with a socket would turn TCP off (as Redis): a free port, for the counters read over TCP.
        using var server = new InProcessServer(o => { o.UnixSocket = path; o.Port = Garnet.test.shared.TestPorts.Free(); });
        try
        {
            var offline = BenchmarkRun.Start("--unixsocket", path, "--op", "GET", "--dbsize", "500", "--batchsize", "256",
                "--threads", "1,2", "--totalops", "20000", "--load-threads", "2");
            Assert.That(offline.ExitCode, Is.EqualTo(0), offline.Errors);
            Assert.That(offline.Output, Does.Contain("against unix:" + path));
            Assert.That(offline.Json.GetProperty("settings").GetProperty("unixsocket").GetString(), Is.EqualTo(path));
            for (int i = 0; i < 2; i++)
            {
                Assert.That(offline.Long(i, "ops"), Is.EqualTo(20000));
                Assert.That(offline.Long(i, "errors"), Is.EqualTo(0));
                Assert.That(offline.Long(i, "nulls"), Is.EqualTo(0), "the load went through the socket too");
            }

            var online = BenchmarkRun.Start("--unixsocket", path, "--online", "--op-workload", "GET,SET", "--op-percent", "70,30",
                "--threads", "2", "--totalops", "4000", "--skipload", "--protocol", "3", "--dbsize", "500");
            Assert.That(online.ExitCode, Is.EqualTo(0), online.Errors);
            Assert.That(online.Long(0, "ops"), Is.EqualTo(4000));

            using var c = server.Client();   // TCP: the counters count what came through the socket
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(500));
            Assert.That(Calls(c, "get") + Calls(c, "set"), Is.GreaterThanOrEqualTo(40000 + 4000 + 500));
            Assert.That(Calls(c, "hello"), Is.GreaterThanOrEqualTo(2), "--protocol 3 sent HELLO 3 on each socket connection");
        }
        finally { File.Delete(path); }
    }

    [Test]
    public void OfflineRunServesRequestsThroughRedisServersUnixSocket()
    {
        string path = SocketPath("redis");
        using var redis = new RedisServerProcess($"--unixsocket {path} --unixsocketperm 700");
        try
        {
            var run = BenchmarkRun.Start("--unixsocket", path, "--op", "MSET", "--dbsize", "300", "--batchsize", "128",
                "--threads", "2", "--totalops", "5000");
            Assert.That(run.ExitCode, Is.EqualTo(0), run.Errors);
            Assert.That(run.Long(0, "ops"), Is.EqualTo(5000));
            Assert.That(run.Long(0, "errors"), Is.EqualTo(0));
            using var c = new RespClient("127.0.0.1", redis.Port, 5000);
            Assert.That(Calls(c, "mset"), Is.EqualTo(5000));
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(300));
        }
        finally { File.Delete(path); }
    }
}
