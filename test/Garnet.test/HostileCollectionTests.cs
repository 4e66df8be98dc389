// Huge collection replies: LRANGE 0 -1 of a 10M-item list answers in full without stalling other clients, and under a
// client-output-buffer-limit the client is dropped before its reply takes more than the limit; the server keeps
// working and keeps its data.
using System.Net.Sockets;
using System.Text;
using Garnet.client;

namespace Garnet.test;

[TestFixture, Category("Faults")]
public class HostileCollectionTests
{
    private const int Items = 10_000_000, PerPush = 2000, ItemLength = 16;

    private static void Fill(TestServer server, string key)
    {
        using var c = server.Client(60_000);
        var args = new object[PerPush + 2];
        args[0] = "RPUSH";
        args[1] = key;
        for (int i = 0; i < PerPush; i++) args[i + 2] = new string('x', ItemLength);
        const int Window = 16;
        int sent = 0, read = 0;
        while (read < Items / PerPush)
        {
            while (sent < Items / PerPush && sent - read < Window) { c.Send(args); sent++; }
            var r = c.Read();
            Assert.That(r.IsError, Is.False, r.ToString());
            read++;
        }
        Assert.That(c.Execute("LLEN", key).Integer, Is.EqualTo(Items));
    }

    /// <summary>Sends LRANGE key 0 -1 on a raw socket and counts the reply bytes without keeping them; -1 when the
    /// server closed the connection first.</summary>
    private static long ReadWholeRange(int port, string key, Action? whileReading = null)
    {
        using var sock = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        sock.Connect("127.0.0.1", port);
        sock.ReceiveTimeout = 120_000;
        sock.Send(Encoding.ASCII.GetBytes($"*4\r\n$6\r\nLRANGE\r\n${key.Length}\r\n{key}\r\n$1\r\n0\r\n$2\r\n-1\r\n"));
        string header = $"*{Items}\r\n";
        long expected = header.Length + (long)Items * (ItemLength + 5 + 2);
        var buffer = new byte[1 << 20];
        long total = 0;
        bool first = true;
        while (total < expected)
        {
            int n = sock.Receive(buffer);
            if (n == 0) return -1;
            if (first)
            {
                Assert.That(Encoding.ASCII.GetString(buffer, 0, Math.Min(n, header.Length)), Is.EqualTo(header[..Math.Min(n, header.Length)]));
                first = false;
                whileReading?.Invoke();
            }
            total += n;
        }
        return total;
    }

    [Test, CancelAfter(300_000)]
    public void HugeRangeRepliesAreWholeOrDroppedAtTheLimit()
    {
        using var server = new TestServer();
        Fill(server, "big");
        using var other = server.Client();
        // In full: other clients are served while the reply is being read.
        long got = ReadWholeRange(server.Port, "big", () =>
        {
            Assert.That(other.Execute("SET", "side", "1").Text, Is.EqualTo("OK"));
            Assert.That(other.Execute("LINDEX", "big", "-1").Text, Is.EqualTo(new string('x', ItemLength)));
        });
        Assert.That(got, Is.EqualTo($"*{Items}\r\n".Length + (long)Items * (ItemLength + 7)));
        // Under a 32 MB output limit, the client is dropped; the server's managed memory does not take the whole reply.
        Assert.That(other.Execute("CONFIG", "SET", "client-output-buffer-limit", "normal 32mb 0 0").Text, Is.EqualTo("OK"));
        GC.Collect();
        long before = GC.GetTotalMemory(forceFullCollection: true);
        long peakDuring = 0;
        using var sampler = new Timer(_ => peakDuring = Math.Max(peakDuring, GC.GetTotalMemory(false)), null, 0, 5);
        Assert.That(ReadWholeRange(server.Port, "big"), Is.EqualTo(-1), "the client over the limit is disconnected");
        sampler.Change(Timeout.Infinite, Timeout.Infinite);
        TestContext.Out.WriteLine($"managed heap before {before >> 20} MB, peak while answering {peakDuring >> 20} MB");
        Assert.That(peakDuring - before, Is.LessThan(200L << 20), "no 240 MB reply was built");
        Assert.That(other.Execute("LLEN", "big").Integer, Is.EqualTo(Items), "nothing stored is lost");
        Assert.That(other.Execute("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0").Text, Is.EqualTo("OK"));
    }
}
