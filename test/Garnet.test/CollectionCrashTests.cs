// Collections survive SIGKILL with --aof-fsync always: every acknowledged RPUSH, HSET and HINCRBY is there after the
// restart (and at most the few in flight beyond them).
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class CollectionCrashTests
{
    private const int Depth = 8;

    [Test]
    public void EveryAcknowledgedCollectionWriteSurvivesSigkill()
    {
        SigkillUnderLoad.Run("garnet-ccrash-", port => $"--port {port} --aof --aof-fsync always --save \"\" --loglevel warning", Depth,
            (c, n) =>
            {
                // Write n: RPUSH list n; HSET hash f{n} n; HINCRBY counter total 1 (three replies per write).
                c.Send("RPUSH", "crash:list", n.ToString());
                c.Send("HSET", "crash:hash", "f" + n, n.ToString());
                c.Send("HINCRBY", "crash:counter", "total", "1");
            },
            c =>
            {
                var push = c.Read();
                var set = c.Read();
                var incr = c.Read();
                if (push.IsError || set.IsError || incr.IsError) throw new InvalidOperationException("unexpected reply");
            },
            (c, acked) =>
            {
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
            }, ackedAtLeast: 50);
    }
}
