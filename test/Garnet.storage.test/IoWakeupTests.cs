using Garnet.storage.Store;

namespace Garnet.storage.test;

/// <summary>The wake-up a session's owner waits on for its disk reads: pending wake-ups, overlapping waiters (which hung
/// the first version), the blocking wait, and a producer/consumer race that must never lose a wake-up.</summary>
[TestFixture]
public class IoWakeupTests
{
    [Test]
    public void ASetBeforeTheWaitIsConsumedByIt()
    {
        var w = new IoWakeup();
        w.Set();
        w.Set(); // collapses into one
        Assert.That(w.WaitAsync().IsCompleted, Is.True);
        var second = w.WaitAsync();
        Assert.That(second.IsCompleted, Is.False, "two Sets without a waiter leave one wake-up, not two");
        w.Set();
        Assert.That(second.AsTask().Wait(5000), Is.True);
    }

    [Test]
    public void OverlappingWaitersAreAllWoken()
    {
        var w = new IoWakeup();
        var first = w.WaitAsync().AsTask();
        var second = w.WaitAsync().AsTask();
        var third = w.WaitAsync().AsTask();
        Assert.That(first.IsCompleted || second.IsCompleted || third.IsCompleted, Is.False);
        w.Set();
        Assert.That(Task.WhenAll(first, second, third).Wait(5000), Is.True, "every waiter present at the Set wakes");
        // the reusable source is usable again afterwards
        var again = w.WaitAsync().AsTask();
        Assert.That(again.IsCompleted, Is.False);
        w.Set();
        Assert.That(again.Wait(5000), Is.True);
    }

    [Test]
    public void BlockingWaitWakesOnSetAndTimesOutWithout()
    {
        var w = new IoWakeup();
        Assert.That(w.Wait(20), Is.False);
        var setter = Task.Run(() => { Thread.Sleep(50); w.Set(); });
        Assert.That(w.Wait(10_000), Is.True);
        setter.Wait();
    }

    [Test]
    public async Task NoWakeUpIsLostBetweenACheckAndTheWait()
    {
        // The session's pattern: a completion marks its op done, then Sets; the owner checks, then waits, then checks.
        var w = new IoWakeup();
        const int Rounds = 20_000;
        int done = 0, acked = 0;
        var producer = Task.Run(() =>
        {
            for (int i = 1; i <= Rounds; i++)
            {
                // ping-pong: each Set races with the consumer's check-then-wait of the previous round
                while (Volatile.Read(ref acked) != i - 1) Thread.SpinWait(10);
                Volatile.Write(ref done, i);
                w.Set();
            }
        });
        for (int seen = 0; seen < Rounds;)
        {
            if (Volatile.Read(ref done) > seen) { seen = Volatile.Read(ref done); Volatile.Write(ref acked, seen); continue; }
            var wait = w.WaitAsync().AsTask();
            if (!wait.Wait(10_000)) Assert.Fail($"no wake-up after {seen} of {Rounds} rounds");
        }
        await producer.WaitAsync(TimeSpan.FromSeconds(30));
    }
}
