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
        SigkillUnderLoad.Run("garnet-txcrash-", port => $"--port {port} --aof --aof-fsync always --save \"\" --loglevel warning", Depth,
            (c, n) =>
            {
                // Transaction n + 1 sets every key (strings, a list's length, a hash field) to n + 1.
                string value = (n + 1).ToString();
                c.Send("MULTI");
                for (int k = 0; k < Keys; k++) c.Send("SET", "tx:k" + k, value);
                c.Send("RPUSH", "tx:list", value);
                c.Send("HSET", "tx:hash", "n", value);
                c.Send("EXEC");
            },
            c =>
            {
                for (int i = 0; i < Keys + 3; i++) c.Read(); // OK, QUEUED...
                var exec = c.Read();
                if (exec.Elements is not { Length: Keys + 2 }) throw new InvalidOperationException("unexpected EXEC reply " + exec);
            },
            (c, acked) =>
            {
                var values = Enumerable.Range(0, Keys).Select(k => long.Parse(c.Execute("GET", "tx:k" + k).Text ?? "0")).ToArray();
                long listLength = c.Execute("LLEN", "tx:list").Integer;
                long hash = long.Parse(c.Execute("HGET", "tx:hash", "n").Text ?? "0");
                TestContext.Out.WriteLine($"acknowledged {acked}; after restart keys {string.Join(",", values)}, list {listLength}, hash {hash}");
                Assert.That(acked, Is.GreaterThan(20), "the load ran");
                Assert.That(values.Distinct().Count(), Is.EqualTo(1), "no transaction is there in part");
                Assert.That(values[0], Is.InRange(acked, acked + Depth), "every acknowledged transaction is there");
                Assert.That(listLength, Is.EqualTo(values[0]));
                Assert.That(hash, Is.EqualTo(values[0]));
            }, ackedAtLeast: 20);
    }
}
