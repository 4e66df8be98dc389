// MemoryReclaimer: gives the memory of dropped large buffers and values back to the operating system within a bounded
// time. Left alone, the GC keeps freed large-object memory committed for future allocations (its budget grows with
// what was allocated), so a stream of 100 MB requests can hold gigabytes that nothing uses.
// Invariants:
//  - Whoever drops a large managed array (more than LargeBuffers.PoolLimit bytes) reports its size with Released.
//  - Once at least Threshold bytes were reported, a full blocking collection runs on a timer thread, at most one per
//    Interval. It is the aggressive kind (GCCollectionMode.Aggressive: compacts, and decommits every free region, so
//    RSS drops) unless the last aggressive one was too recent for its cost: an aggressive collection copies the live
//    heap, so the next one waits PauseFactor times as long as the last one took, up to MaxWait (so at most about
//    1/PauseFactor of the time is spent in them, and memory goes back within about MaxWait at worst). Then a cheap one (non-compacting: makes the garbage reusable) runs instead, and an
//    aggressive one follows as soon as it is allowed, even if nothing more is reported.
//  - One timer, armed only while something is due; its callbacks never overlap.
namespace Garnet.common.Util;

public static class MemoryReclaimer
{
    /// <summary>Reported bytes that make a collection worthwhile.</summary>
    public const long Threshold = 64L << 20;

    /// <summary>Least time between two collections started here.</summary>
    public static readonly TimeSpan Interval = TimeSpan.FromSeconds(1);

    /// <summary>An aggressive collection that took t waits PauseFactor × t before the next one (at most MaxWait).</summary>
    public const int PauseFactor = 20;
    public static readonly TimeSpan MaxWait = TimeSpan.FromSeconds(10);

    private static readonly object Gate = new();
    private static readonly Timer TickTimer = new(_ => SafeTick(), null, Timeout.Infinite, Timeout.Infinite);

    // A timer callback: an exception escaping it would end the process.
    private static void SafeTick()
    {
        try { Tick(); }
        catch (Exception ex) { FaultPoints.Report("the memory reclaimer", ex); }
    }
    private static long _released;
    private static bool _decommitDue;
    private static long _lastCollectMs = long.MinValue / 4, _nextAggressiveMs;
    private static long _collections, _aggressive, _lastPauseMs;

    /// <summary>Bytes reported since the last collection.</summary>
    public static long PendingBytes => Interlocked.Read(ref _released);
    /// <summary>Collections started here (both kinds).</summary>
    public static long Collections => Interlocked.Read(ref _collections);
    /// <summary>Of those, the aggressive (compacting, decommitting) ones.</summary>
    public static long AggressiveCollections => Interlocked.Read(ref _aggressive);
    /// <summary>How long the last aggressive collection took (ms).</summary>
    public static long LastAggressivePauseMs => Interlocked.Read(ref _lastPauseMs);

    /// <summary>Asks for a collection as if Threshold bytes had been released (IdleDecommit: memory the GC keeps
    /// committed after a burst); it runs on the timer, within the same pause budget.</summary>
    public static void RequestCollection() => Released(Threshold);

    /// <summary>A large array (or a value holding one) of this many bytes is no longer referenced.</summary>
    public static void Released(long bytes)
    {
        if (bytes <= 0) return;
        if (Interlocked.Add(ref _released, bytes) < Threshold) return;
        lock (Gate) Arm(Environment.TickCount64);
    }

    /// <summary>Under Gate: sets the timer for the next collection, if one is due.</summary>
    private static void Arm(long now)
    {
        long due;
        if (Interlocked.Read(ref _released) >= Threshold) due = _lastCollectMs + (long)Interval.TotalMilliseconds;
        else if (_decommitDue) due = Math.Max(_lastCollectMs + (long)Interval.TotalMilliseconds, _nextAggressiveMs);
        else return;
        TickTimer.Change(Math.Max(0, due - now), Timeout.Infinite);
    }

    private static void Tick()
    {
        lock (Gate)
        {
            long now = Environment.TickCount64;
            try
            {
                if (now < _lastCollectMs + (long)Interval.TotalMilliseconds) return;
                bool reported = Interlocked.Read(ref _released) >= Threshold;
                if (!reported && !_decommitDue) return;
                Interlocked.Exchange(ref _released, 0);
                Interlocked.Increment(ref _collections);
                if (now >= _nextAggressiveMs)
                {
                    GC.Collect(2, GCCollectionMode.Aggressive, blocking: true, compacting: true);
                    long end = Environment.TickCount64, pause = end - now;
                    Interlocked.Increment(ref _aggressive);
                    Interlocked.Exchange(ref _lastPauseMs, pause);
                    _nextAggressiveMs = end + Math.Min(pause * PauseFactor, (long)MaxWait.TotalMilliseconds);
                    _decommitDue = false;
                    now = end;
                }
                else
                {
                    GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: false);
                    _decommitDue = true;
                    now = Environment.TickCount64;
                }
                _lastCollectMs = now;
            }
            finally { Arm(now); }
        }
    }
}
