// A transaction survives SIGKILL with --aof-fsync always all or nothing: every acknowledged EXEC is there after the
// restart, and no transaction is there in part (its writes go to the AOF as one MULTI ... EXEC block).
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class TransactionCrashTests
{
    private const int Keys = 6, Depth = 4;

    [Test]
    public void TransactionsSurviveSigkillWholeOrNotAtAll()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-txcrash-").FullName;
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
                            // Transaction n sets every key (a string, a list item count, a hash field) to n.
                            while (sent - Volatile.Read(ref acked) < Depth)
                            {
                                sent++;
                                c.Send("MULTI");
                                for (int k = 0; k < Keys; k++) c.Send("SET", "tx:k" + k, sent.ToString());
                                c.Send("RPUSH", "tx:list", sent.ToString());
                                c.Send("HSET", "tx:hash", "n", sent.ToString());
                                c.Send("EXEC");
                            }
                            for (int i = 0; i < Keys + 3; i++) c.Read(); // OK, QUEUED...
                            var exec = c.Read();
                            if (exec.Elements is not { Length: Keys + 2 }) throw new InvalidOperationException("unexpected EXEC reply " + exec);
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
                var values = Enumerable.Range(0, Keys).Select(k => long.Parse(c.Execute("GET", "tx:k" + k).Text ?? "0")).ToArray();
                long listLength = c.Execute("LLEN", "tx:list").Integer;
                long hash = long.Parse(c.Execute("HGET", "tx:hash", "n").Text ?? "0");
                TestContext.Out.WriteLine($"acknowledged {acked}; after restart keys {string.Join(",", values)}, list {listLength}, hash {hash}");
                Assert.That(acked, Is.GreaterThan(20), "the load ran");
                Assert.That(values.Distinct().Count(), Is.EqualTo(1), "no transaction is there in part");
                Assert.That(values[0], Is.InRange(acked, acked + Depth), "every acknowledged transaction is there");
                Assert.That(listLength, Is.EqualTo(values[0]));
                Assert.That(hash, Is.EqualTo(values[0]));
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
