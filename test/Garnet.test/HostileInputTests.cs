using System.Diagnostics;
using System.Net.Sockets;
using System.Text;
using Garnet.client;

namespace Garnet.test;

/// <summary>
/// Random and adversarial byte streams on many connections at once. Afterwards the server must answer on a new
/// connection and its memory must not have run away.
/// </summary>
[TestFixture]
public class HostileInputTests
{
    private static readonly string[] Adversarial =
    [
        "*2147483647\r\n",                                  // huge array promised, nothing follows
        "*-2147483648\r\n",
        "*1\r\n$2147483647\r\n",                            // huge bulk promised
        "*1\r\n$-1\r\n",
        "*3\r\n$3\r\nSET\r\n$1",                            // unterminated frame
        "*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n$4\r\nPING\r\n",     // nesting (invalid in requests)
        "$4\r\nPING\r\n",
        "*1\r\n$4\r\nPINGxx",
        "\"unterminated quote\r\n",
        "*99999999999999999999999\r\n",
        "*1\r\n$00000004\r\nPING\r\n",
        ":1\r\n-ERR\r\n+OK\r\n",
        "\0\0\0\0\r\n",
        "*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n",              // valid, among garbage
        "PING\r\n",
    ];

    [Test]
    public void ServerSurvivesHostileClients()
    {
        using var server = new TestServer();
        long before = Process.GetCurrentProcess().WorkingSet64;
        var deadline = DateTime.UtcNow.AddSeconds(20);
        var tasks = Enumerable.Range(0, 32).Select(t => Task.Factory.StartNew(() => Attack(server.Port, t, deadline), TaskCreationOptions.LongRunning)).ToArray();
        Task.WaitAll(tasks);
        long totalSent = tasks.Sum(t => t.Result);
        Assert.That(totalSent, Is.GreaterThan(1_000_000), "the attack must really send data");

        using var c = server.Client();
        RespAssert.Simple(c.Execute("PING"), "PONG");
        RespAssert.Bulk(c.Execute("ECHO", "still here"), "still here");

        GC.Collect();
        GC.WaitForPendingFinalizers();
        long after = 0;
        Poll.Until(() => (after = Process.GetCurrentProcess().WorkingSet64) - before < 512L * 1024 * 1024, TimeSpan.FromSeconds(10));
        Assert.That(after - before, Is.LessThan(512L * 1024 * 1024), $"working set grew from {before >> 20} MB to {after >> 20} MB");
        // All attack connections are gone from the registry.
        var sw = Stopwatch.StartNew();
        while (server.Server.Server.Clients.Count > 1 && sw.Elapsed < TimeSpan.FromSeconds(10)) Thread.Sleep(50);
        Assert.That(server.Server.Server.Clients.Count, Is.EqualTo(1));
    }

    private static long Attack(int port, int seed, DateTime deadline)
    {
        var rnd = new Random(seed);
        long sent = 0;
        int rounds = 0;
        while (DateTime.UtcNow < deadline && rounds++ < 400)
        {
            using var s = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveTimeout = 200, SendTimeout = 2000, NoDelay = true };
            try
            {
                s.Connect("127.0.0.1", port);
                int kind = rnd.Next(4);
                for (int i = 0; i < 1 + rnd.Next(8); i++)
                {
                    byte[] payload = kind switch
                    {
                        0 => RandomBytes(rnd, rnd.Next(1, 64 * 1024)),
                        1 => Encoding.ASCII.GetBytes(Adversarial[rnd.Next(Adversarial.Length)]),
                        2 => Mutate(rnd, RespClient.Encode("ECHO", RandomBytes(rnd, rnd.Next(0, 4096)))),
                        _ => Encoding.ASCII.GetBytes(new string('*', rnd.Next(1, 100)) + rnd.Next() + "\r\n"),
                    };
                    s.Send(payload);
                    sent += payload.Length;
                }
                var buf = new byte[8192];
                try { while (s.Receive(buf) > 0) { } } catch (SocketException) { }
            }
            catch (SocketException) { }
        }
        return sent;
    }

    private static byte[] RandomBytes(Random rnd, int n)
    {
        var b = new byte[n];
        rnd.NextBytes(b);
        return b;
    }

    private static byte[] Mutate(Random rnd, byte[] b)
    {
        for (int i = 0; i < 1 + rnd.Next(4); i++) b[rnd.Next(b.Length)] = (byte)rnd.Next(256);
        return b;
    }

    [Test]
    public void ManyHalfOpenBigBulksDoNotReserveMemory()
    {
        // 200 clients each promise a 512 MB bulk and send 1 byte of it: the server must not reserve 100 GB.
        using var server = new TestServer();
        long before = Process.GetCurrentProcess().WorkingSet64;
        var sockets = new List<Socket>();
        try
        {
            var promise = Encoding.ASCII.GetBytes($"*2\r\n$4\r\nECHO\r\n${512 * 1024 * 1024}\r\nx");
            for (int i = 0; i < 200; i++)
            {
                var s = new Socket(SocketType.Stream, ProtocolType.Tcp);
                s.Connect("127.0.0.1", server.Port);
                s.Send(promise);
                sockets.Add(s);
            }
            // The server has read every promise (and would have reserved its memory by now).
            Poll.True(() => server.Server.Server.Clients.Snapshot().Count(s => s.Connection.BytesIn >= promise.Length) >= 200,
                "the 200 promises to be read");
            using var c = server.Client();
            RespAssert.Simple(c.Execute("PING"), "PONG");
            long after = Process.GetCurrentProcess().WorkingSet64;
            Assert.That(after - before, Is.LessThan(256L * 1024 * 1024));
        }
        finally
        {
            foreach (var s in sockets) s.Dispose();
        }
    }
}
