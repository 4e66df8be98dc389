using Garnet.storage.Epochs;

namespace Garnet.storage.test;

[TestFixture]
public class EpochProtectionTests
{
    [Test]
    public void DeferredActionWaitsForEveryProtectedThread()
    {
        using var epoch = new EpochProtection();
        using var entered = new ManualResetEventSlim();
        using var mayRefresh = new ManualResetEventSlim();
        using var refreshed = new ManualResetEventSlim();
        var other = new Thread(() =>
        {
            epoch.Acquire();
            entered.Set();
            mayRefresh.Wait();
            epoch.Refresh();
            refreshed.Set();
            epoch.Release();
        });
        other.Start();
        entered.Wait();

        int ran = 0;
        epoch.BumpCurrentEpoch(() => Interlocked.Increment(ref ran));
        Thread.Sleep(50);
        epoch.BumpCurrentEpoch();
        Assert.That(ran, Is.EqualTo(0), "the other thread is still in the old epoch");
        Assert.That(epoch.PendingActions, Is.EqualTo(1));

        mayRefresh.Set();
        refreshed.Wait();
        other.Join();
        Assert.That(epoch.WaitForPendingActions(TimeSpan.FromSeconds(5)));
        Assert.That(ran, Is.EqualTo(1));
    }

    [Test]
    public void UnprotectedBumpRunsAtOnce()
    {
        using var epoch = new EpochProtection();
        int ran = 0;
        epoch.BumpCurrentEpoch(() => ran++);
        Assert.That(ran, Is.EqualTo(1));
        Assert.That(epoch.SafeToReclaimEpoch, Is.EqualTo(epoch.CurrentEpoch - 1));
    }

    [Test]
    public void OwnProtectionDelaysUntilRefresh()
    {
        using var epoch = new EpochProtection();
        epoch.Acquire();
        epoch.Acquire(); // re-entrant
        int ran = 0;
        epoch.BumpCurrentEpoch(() => ran++);
        Assert.That(ran, Is.EqualTo(0));
        epoch.Refresh();
        Assert.That(ran, Is.EqualTo(1));
        epoch.Release();
        Assert.That(epoch.ThisThreadProtected, Is.True, "still inside the outer Acquire");
        epoch.Release();
        Assert.That(epoch.ThisThreadProtected, Is.False);
        Assert.Throws<InvalidOperationException>(() => epoch.Release());
    }

    [Test]
    public void ManyThreadsEveryActionRunsExactlyOnceAndNeverEarly()
    {
        using var epoch = new EpochProtection();
        const int threads = 4, perThread = 20_000;
        long violations = 0, ran = 0;
        // Each action checks that no thread can still be in an epoch at or before the one the action was tagged with.
        var workers = Enumerable.Range(0, threads).Select(t => new Thread(() =>
        {
            var rnd = new Random(t);
            epoch.Acquire();
            for (int i = 0; i < perThread; i++)
            {
                if (rnd.Next(10) == 0)
                {
                    long tagged = epoch.CurrentEpoch;
                    epoch.BumpCurrentEpoch(() =>
                    {
                        if (epoch.SafeToReclaimEpoch < tagged) Interlocked.Increment(ref violations);
                        Interlocked.Increment(ref ran);
                    });
                }
                epoch.Refresh();
                if (rnd.Next(100) == 0) { epoch.Release(); epoch.Acquire(); }
            }
            epoch.Release();
        })).ToList();
        workers.ForEach(w => w.Start());
        workers.ForEach(w => w.Join());
        Assert.That(epoch.WaitForPendingActions(TimeSpan.FromSeconds(10)));
        Assert.That(violations, Is.EqualTo(0));
        Assert.That(ran, Is.GreaterThan(threads * perThread / 20));
    }

    [Test]
    public void FullDrainListDoesNotDeadlockTheProtectedCaller()
    {
        using var epoch = new EpochProtection();
        epoch.Acquire();
        int ran = 0;
        // More deferred actions than the drain list holds, all from one protected thread: it must make progress
        // by refreshing itself.
        for (int i = 0; i < 1000; i++) epoch.BumpCurrentEpoch(() => ran++);
        epoch.Refresh();
        epoch.Release();
        Assert.That(epoch.WaitForPendingActions(TimeSpan.FromSeconds(5)));
        Assert.That(ran, Is.EqualTo(1000));
    }
}
