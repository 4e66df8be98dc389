// ServerCron: the server's periodic jobs on one thread. These tests wait for runs with bounded polls (the cron's clock is the
// real one), and assert counts and orderings, never durations.
using Garnet.server.Util;
using NUnit.Framework;

namespace Garnet.test;

[TestFixture]
public class ServerCronTests
{
    private static void WaitUntil(Func<bool> condition, string what)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(10);
        while (!condition())
        {
            Assert.That(DateTime.UtcNow, Is.LessThan(deadline), "timed out waiting for " + what);
            Thread.Sleep(5);
        }
    }

    [Test]
    public void JobsRunRepeatedlyOnTheCronThreadAndAThrowingJobGoesOn()
    {
        using var cron = new ServerCron(null);
        int runs = 0, throws = 0;
        string? thread = null;
        using var a = cron.Every("counting", TimeSpan.FromMilliseconds(10), () => { thread = Thread.CurrentThread.Name; Interlocked.Increment(ref runs); });
        using var b = cron.Every("throwing", TimeSpan.FromMilliseconds(10), () => { Interlocked.Increment(ref throws); throw new InvalidOperationException("boom"); });
        WaitUntil(() => Volatile.Read(ref runs) >= 3 && Volatile.Read(ref throws) >= 3, "three runs of each job");
        Assert.That(thread, Is.EqualTo("garnet-cron"));
    }

    [Test]
    public void JobsWhosePeriodsDivideEachOtherShareWakeups()
    {
        using var cron = new ServerCron(null);
        int fast = 0, slow = 0;
        using var a = cron.Every("fast", TimeSpan.FromMilliseconds(20), () => Interlocked.Increment(ref fast));
        WaitUntil(() => Volatile.Read(ref fast) >= 1, "a run of the fast job");
        Thread.Sleep(10); // registered between two of the fast job's due times
        using var b = cron.Every("slow", TimeSpan.FromMilliseconds(40), () => Interlocked.Increment(ref slow));
        WaitUntil(() => Volatile.Read(ref slow) >= 10, "ten runs of the slow job");
        a.Dispose();
        b.Dispose();
        // Every due time of the slow job is one of the fast job's: it never costs a wake-up of its own (unaligned, the
        // two would take about one and a half times as many).
        Assert.That(cron.Wakeups, Is.LessThanOrEqualTo(fast + 1), $"wake-ups {cron.Wakeups}, fast {fast}, slow {slow}");
        // (Each job ran: a late wake-up can make the fast job skip a due time while the slow one does not, so the ratio of
        // their runs is not asserted beyond this.)
        Assert.That(fast, Is.GreaterThanOrEqualTo(slow));
    }

    [Test]
    public void DisposingAJobWaitsForItsRunInProgressAndNoRunFollows()
    {
        using var cron = new ServerCron(null);
        using var entered = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        int runs = 0;
        var job = cron.Every("slow job", TimeSpan.FromMilliseconds(5), () =>
        {
            Interlocked.Increment(ref runs);
            entered.Set();
            release.Wait();
        });
        Task disposing;
        try
        {
            Assert.That(entered.Wait(TimeSpan.FromSeconds(10)), Is.True);
            disposing = Task.Run(job.Dispose);
            Assert.That(disposing.Wait(200), Is.False, "Dispose returned while the job was still running");
        }
        finally { release.Set(); } // the cron's Dispose at the end waits for the job
        Assert.That(disposing.Wait(TimeSpan.FromSeconds(10)), Is.True);
        int after = Volatile.Read(ref runs);
        // Another job keeps the thread ticking; the removed one must not run again.
        int other = 0;
        using var b = cron.Every("other", TimeSpan.FromMilliseconds(5), () => Interlocked.Increment(ref other));
        WaitUntil(() => Volatile.Read(ref other) >= 5, "five runs of the other job");
        Assert.That(Volatile.Read(ref runs), Is.EqualTo(after));
    }

    [Test]
    public void AChangedPeriodAppliesAtOnceAndAJobMayRemoveItself()
    {
        using var cron = new ServerCron(null);
        var period = TimeSpan.FromDays(365); // due at the next multiple of a year of the monotonic clock: not during the test
        int runs = 0;
        IDisposable? self = null;
        self = cron.Every("adjustable", () => period, () =>
        {
            if (Interlocked.Increment(ref runs) == 2) self!.Dispose(); // from its own run: must not wait for itself
        });
        Thread.Sleep(50);
        Assert.That(Volatile.Read(ref runs), Is.EqualTo(0));
        period = TimeSpan.FromMilliseconds(5);
        // The cron reads periods at each check; a registration makes one now.
        using var nudge = cron.Every("nudge", TimeSpan.FromMilliseconds(5), () => { });
        WaitUntil(() => Volatile.Read(ref runs) >= 2, "two runs after the period changed");
        Thread.Sleep(50);
        Assert.That(Volatile.Read(ref runs), Is.EqualTo(2));
    }

    [Test]
    public void DisposeOfTheCronWaitsForTheRunningJobAndStopsTheRest()
    {
        var cron = new ServerCron(null);
        using var entered = new ManualResetEventSlim();
        int finished = 0, runs = 0;
        cron.Every("long", TimeSpan.FromMilliseconds(5), () =>
        {
            if (Interlocked.Increment(ref runs) > 1) return;
            entered.Set();
            Thread.Sleep(100);
            Volatile.Write(ref finished, 1);
        });
        Assert.That(entered.Wait(TimeSpan.FromSeconds(10)), Is.True);
        cron.Dispose();
        Assert.That(Volatile.Read(ref finished), Is.EqualTo(1), "Dispose returned before the job in progress ended");
        int after = Volatile.Read(ref runs);
        Thread.Sleep(50);
        Assert.That(Volatile.Read(ref runs), Is.EqualTo(after));
    }
}
