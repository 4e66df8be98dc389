// A soak of the network engines (Stress category, not in the default run): 24 workers for 15 s on one loop thread, each
// a random mix of pipelined INCRs, a BLPOP served by another worker, a short script, MULTI/EXEC, PUBLISH to a subscriber,
// and now and then an abrupt reset in the middle of a pipeline. Afterwards every counter must match the replies the
// workers saw, every pushed element must be popped once, the subscriber must have every message once and in order, and
// every vanished connection must be gone.
using System.Net.Sockets;
using Garnet.client;

namespace Garnet.test;

[TestFixture("epoll")]
[TestFixture("sockets")]
[Category("Stress")]
public class NetworkEngineSoakTests(string engine)
{
    [Test, CancelAfter(180_000)]
    public void MixedLoadWithResetsKeepsEveryCountExact()
    {
        if (engine == "epoll" && !OperatingSystem.IsLinux()) Assert.Ignore("the epoll engine needs Linux");
        using var server = new TestServer(o => { o.NetworkEngine = engine; o.NetworkThreads = 1; });
        const int Workers = 24;
        var until = DateTime.UtcNow.AddSeconds(15);
        long incrsAcked = 0, pushed = 0, popped = 0, published = 0;
        using var subscriber = server.Client(30_000);
        subscriber.Execute("SUBSCRIBE", "soak:ch");
        var failures = new System.Collections.Concurrent.ConcurrentQueue<string>();

        // Dedicated threads, not pool tasks: 24 workers blocked in receives would starve this process's thread pool, which
        // the server's accept loop also needs (the first run of the fixture then saw nearly nothing accepted for 15 s).
        var threads = Enumerable.Range(0, Workers).Select(w => new Thread(() =>
        {
            var rnd = new Random(w);
            var c = server.Client(30_000);
            try
            {
                while (DateTime.UtcNow < until)
                {
                    switch (rnd.Next(6))
                    {
                        case 0: // a pipeline of INCRs, read back
                        {
                            int n = rnd.Next(1, 50);
                            for (int i = 0; i < n; i++) c.Send("INCR", "soak:n");
                            for (int i = 0; i < n; i++) { c.Read(); Interlocked.Increment(ref incrsAcked); }
                            break;
                        }
                        case 1: // push for another worker's BLPOP, or pop
                            if (rnd.Next(2) == 0) { c.Execute("RPUSH", "soak:list", "x"); Interlocked.Increment(ref pushed); }
                            else if (!c.Execute("BLPOP", "soak:list", "0.05").IsNull) Interlocked.Increment(ref popped);
                            break;
                        case 2:
                            RespAssert.Integer(c.Execute("EVAL", "return redis.call('INCR', KEYS[1]) > 0 and 1 or 0", "1", "soak:s"), 1);
                            break;
                        case 3:
                            c.Send("MULTI"); c.Send("INCR", "soak:m"); c.Send("INCR", "soak:m"); c.Send("EXEC");
                            c.Read(); c.Read(); c.Read();
                            var exec = c.Read();
                            if (exec.Elements![1].Integer != exec.Elements[0].Integer + 1) failures.Enqueue("EXEC was not atomic: " + exec);
                            break;
                        case 4:
                            lock (subscriber) // PUBLISH order = message order
                            {
                                c.Execute("PUBLISH", "soak:ch", Interlocked.Increment(ref published).ToString());
                            }
                            break;
                        case 5: // vanish in the middle of a pipeline: the server must drop it whole
                            if (rnd.Next(4) != 0) break;
                            for (int i = 0; i < 20; i++) c.Send("GET", "soak:n");
                            c.Socket.LingerState = new LingerOption(true, 0);
                            c.Dispose();
                            c = server.Client(30_000);
                            break;
                    }
                }
            }
            catch (Exception ex) { failures.Enqueue($"worker {w}: {ex.Message}"); }
            finally { c.Dispose(); }
        }) { IsBackground = true }).ToArray();
        foreach (var t in threads) t.Start();
        foreach (var t in threads) t.Join();
        Assert.That(failures, Is.Empty, string.Join("\n", failures.Take(5)));

        using var check = server.Client();
        Assert.That(check.Execute("GET", "soak:n").Text, Is.EqualTo(incrsAcked.ToString()), "every acknowledged INCR counted once");
        long left = check.Execute("LLEN", "soak:list").Integer;
        Assert.That(popped + left, Is.EqualTo(pushed), "every pushed element popped once or still there");
        for (long i = 1; i <= published; i++)
        {
            var msg = subscriber.Read();
            Assert.That(msg.Elements![2].Text, Is.EqualTo(i.ToString()), "messages in publish order, none lost");
        }
        var deadline = DateTime.UtcNow.AddSeconds(20);
        string clients;
        do
        {
            clients = check.Execute("INFO", "clients").Text!;
            if (clients.Contains("connected_clients:2\r\n")) break;
            Thread.Sleep(50);
        } while (DateTime.UtcNow < deadline);
        Assert.That(clients, Does.Contain("connected_clients:2\r\n"), "only the subscriber and this client are left");
        TestContext.Out.WriteLine($"{engine}: {incrsAcked} INCRs, {pushed} pushes, {popped} pops, {published} messages");
        Assert.That(incrsAcked, Is.GreaterThan(10_000), "the load made progress (a stall would show as a handful of commands)");
    }
}
