// Consumer groups survive SIGKILL with --aof-fsync always: every acknowledged XADD is in the stream after the restart,
// every entry a consumer received and had not acknowledged is still pending for it, and every acknowledged XACK stays
// acknowledged (at most the few units in flight differ).
using Garnet.client;

namespace Garnet.test.Streams;

[TestFixture, Category("Faults")]
public class StreamCrashTests
{
    private const int Depth = 4;

    [Test, MaxTime(120_000)]
    public void ConsumerGroupStateSurvivesSigkill()
    {
        SigkillUnderLoad.Run("garnet-scrash-", port => $"--port {port} --aof --aof-fsync always --save \"\" --loglevel warning", Depth,
            (c, n) =>
            {
                // Unit n: XADD entry n+1; XREADGROUP delivers it to consumer c{n%3}; every even unit acknowledges it.
                if (n == 0) c.Send("XGROUP", "CREATE", "cr:s", "g", "0", "MKSTREAM"); else c.Send("PING");
                c.Send("XADD", "cr:s", $"{n + 1}-0", "n", n.ToString());
                c.Send("XREADGROUP", "GROUP", "g", "c" + (n % 3), "COUNT", "1", "STREAMS", "cr:s", ">");
                if (n % 2 == 0) c.Send("XACK", "cr:s", "g", $"{n + 1}-0"); else c.Send("PING");
            },
            c =>
            {
                for (int i = 0; i < 4; i++)
                    if (c.Read().IsError) throw new InvalidOperationException("unexpected error reply");
            },
            (c, acked) =>
            {
                long length = c.Execute("XLEN", "cr:s").Integer;
                TestContext.Out.WriteLine($"acknowledged {acked}; after restart {length} entries");
                Assert.That(acked, Is.GreaterThan(20), "the load ran");
                Assert.That(length, Is.InRange(acked, acked + Depth), "every acknowledged XADD is there");
                var pending = c.Execute("XPENDING", "cr:s", "g", "-", "+", "1000000").Elements!
                    .Select(p => (Id: long.Parse(p.Elements![0].Text!.Split('-')[0]) - 1, Owner: p.Elements![1].Text)).ToList();
                foreach (var (n, owner) in pending)
                {
                    // Odd units are never acknowledged; an even one may still be pending only if its XACK was in flight at the kill.
                    Assert.That(n % 2 == 1 || n >= acked, Is.True, $"entry {n + 1} was acknowledged before the kill (acknowledged units: {acked})");
                    Assert.That(owner, Is.EqualTo("c" + (n % 3)), "pending for the consumer it was delivered to");
                }
                var pendingIds = pending.Select(p => p.Id).ToHashSet();
                for (long n = 1; n < acked; n += 2) Assert.That(pendingIds, Does.Contain(n), $"entry {n + 1} was delivered and not acknowledged");
                var group = c.Execute("XINFO", "GROUPS", "cr:s").Elements![0].Elements!;
                long lastDelivered = long.Parse(group[7].Text!.Split('-')[0]);
                Assert.That(lastDelivered, Is.InRange(acked, acked + Depth), "the group's last delivered ID");
                // The group goes on where it was.
                c.Execute("XADD", "cr:s", "*", "n", "after");
                var next = c.Execute("XREADGROUP", "GROUP", "g", "late", "STREAMS", "cr:s", ">");
                Assert.That(next.Elements![0].Elements![1].Elements!.Length, Is.EqualTo(length - lastDelivered + 1));
            });
    }
}
