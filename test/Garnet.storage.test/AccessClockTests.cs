using Garnet.storage.Log;

namespace Garnet.storage.test;

/// <summary>AccessClock's refresh: its own timer, or a caller (the server's cron) while a RefreshedByCaller handle lives.
/// The clock is the thing under test, so this waits on real time (about 2.5 s); the clock is process-wide, and nothing
/// else in this assembly takes a handle.</summary>
[TestFixture, NonParallelizable]
public class AccessClockTests
{
    [Test]
    public void ACallerThatRefreshesStopsTheTimerUntilItsHandleIsDisposed()
    {
        var handle = AccessClock.RefreshedByCaller();
        try
        {
            Thread.Sleep(300); // a timer callback already queued when the timer stopped runs now, not in the window below
            AccessClock.Refresh();
            uint before = AccessClock.NowSeconds;
            Thread.Sleep(1200);
            Assert.That(AccessClock.NowSeconds, Is.EqualTo(before), "the timer still refreshed the clock");
            AccessClock.Refresh();
            Assert.That(AccessClock.NowSeconds, Is.GreaterThan(before), "Refresh did not move the clock");
        }
        finally { handle.Dispose(); }
        uint after = AccessClock.NowSeconds;
        Thread.Sleep(1200);
        Assert.That(AccessClock.NowSeconds, Is.GreaterThan(after), "the timer did not start again");
    }
}
