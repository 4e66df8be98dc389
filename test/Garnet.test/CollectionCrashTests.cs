// Collections survive SIGKILL with --aof-fsync always: every acknowledged RPUSH, HSET and HINCRBY is there after the
// restart (and at most the few in flight beyond them).
using System.Diagnostics;
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class CollectionCrashTests
{
    private const int Depth = 8;

    [Test]
    public void EveryAcknowledgedCollectionWriteSurvivesSigkill()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-ccrash-").FullName;
        try
        {
            int port = ProcessTests.FreePort();
            string args = $"--port {port} --aof --aof-fsync always --save \"\" --loglevel warning";
            long acked = 0;
            using (var server = ProcessTests.Start(args, dir))
            {
                ProcessTests.WaitForPort(port, server);
                var writer = Task.Run(() =>
                {
                    try
                    {
                        using var c = new RespClient("127.0.0.1", port, 5000);
                        long sent = 0;
                        while (true)
                        {
                            // Write n: RPUSH list n; HSET hash f{n} n; HINCRBY counter total 1 (three replies per write).
                            while (sent - Volatile.Read(ref acked) < Depth)
                            {
                                c.Send("RPUSH", "crash:list", sent.ToString());
                                c.Send("HSET", "crash:hash", "f" + sent, sent.ToString());
                                c.Send("HINCRBY", "crash:counter", "total", "1");
                                sent++;
                            }
                            var push = c.Read();
                            var set = c.Read();
                            var incr = c.Read();
                            if (push.IsError || set.IsError || incr.IsError) throw new InvalidOperationException("unexpected reply");
                            Volatile.Write(ref acked, acked + 1);
                        }
                    }
                    catch (Exception ex) when (ex is IOException or System.Net.Sockets.SocketException) { }
                });
                Thread.Sleep(2000);
                server.Kill();
                server.WaitForExit();
                Assert.That(writer.Wait(TimeSpan.FromSeconds(30)));
            }
            using var again = ProcessTests.Start(args, dir);
            try
            {
                ProcessTests.WaitForPort(port, again);
                using var c = new RespClient("127.0.0.1", port, 30000);
                long listLength = c.Execute("LLEN", "crash:list").Integer;
                long hashLength = c.Execute("HLEN", "crash:hash").Integer;
                long counter = long.Parse(c.Execute("HGET", "crash:counter", "total").Text ?? "0");
                TestContext.Out.WriteLine($"acknowledged {acked}; after restart list {listLength}, hash {hashLength}, counter {counter}");
                Assert.That(acked, Is.GreaterThan(50), "the load ran");
                foreach (long n in new[] { listLength, hashLength })
                    Assert.That(n, Is.InRange(acked, acked + Depth), "every acknowledged write is there");
                Assert.That(counter, Is.InRange(acked, acked + Depth));
                var items = c.Execute("LRANGE", "crash:list", "0", "-1").Elements!.Select(e => long.Parse(e.Text!)).ToArray();
                Assert.That(items, Is.EqualTo(Enumerable.Range(0, items.Length).Select(i => (long)i)), "in order, no gap");
                Assert.That(c.Execute("HGET", "crash:hash", "f" + (acked - 1)).Text, Is.EqualTo((acked - 1).ToString()));
            }
            finally
            {
                again.Kill();
                again.WaitForExit();
            }
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }
}
