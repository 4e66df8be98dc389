// MemoryReclaimer: gives the memory of dropped large buffers and values back to the operating system within a bounded
// time. Left alone, the GC keeps freed large-object memory committed for future allocations (its budget grows with
// what was allocated), so a stream of 100 MB requests can hold gigabytes that nothing uses.
// Invariants:
//  - Whoever drops a large managed array (more than LargeBuffers.PoolLimit bytes) reports its size with Released.
//  - Collect: once at least Threshold bytes were reported, one full blocking, non-compacting collection runs (on a
//    timer thread), at most one per CollectInterval. It is cheap (the managed heap is small: bulk data lives in native
//    log pages or in large arrays, which are not traced) and makes the garbage reusable at once.
//  - Decommit: after a collection, once no further Collect was needed for QuietTime (or at the latest LoadedInterval
//    after the previous one), one aggressive collection (GCCollectionMode.Aggressive: compacts, and decommits every
//    free region) returns the memory to the OS. It copies the live heap, so its pause is bounded in share: the next
//    one waits at least PauseFactor times as long as the last one took.
//  - One timer, armed only while there is something to do; its callbacks never overlap.
namespace Garnet.common.Util;

public static class MemoryReclaimer
{
    /// <summary>Reported bytes that make a collection worthwhile.</summary>
    public const long Threshold = 64L << 20;

    public static readonly TimeSpan CollectInterval = TimeSpan.FromSeconds(1);
    public static readonly TimeSpan QuietTime = TimeSpan.FromSeconds(2);
    public static readonly TimeSpan LoadedInterval = TimeSpan.FromSeconds(3);
    public const int PauseFactor = 20;

    private static readonly object Gate = new();
    private static readonly Timer TickTimer = new(_ => Tick(), null, Timeout.Infinite, Timeout.Infinite);
    private static long _released;
    private static bool _decommitDue;
    private static long _lastCollectMs = long.MinValue / 4, _lastAggressiveMs = Environment.TickCount64, _nextAggressiveMs;
    private static long _collections, _aggressive, _lastPauseMs;

    /// <summary>Bytes reported since the last collection.</summary>
    public static long PendingBytes => Interlocked.Read(ref _released);
    /// <summary>Non-compacting collections started here.</summary>
    public static long Collections => Interlocked.Read(ref _collections);
    /// <summary>Aggressive (compacting, decommitting) collections started here.</summary>
    public static long AggressiveCollections => Interlocked.Read(ref _aggressive);
    /// <summary>How long the last aggressive collection took (ms).</summary>
    public static long LastAggressivePauseMs => Interlocked.Read(ref _lastPauseMs);

    /// <summary>A large array (or a value holding one) of this many bytes is no longer referenced.</summary>
    public static void Released(long bytes)
    {
        if (bytes <= 0) return;
        if (Interlocked.Add(ref _released, bytes) < Threshold) return;
        lock (Gate) Arm(Environment.TickCount64); // possibly sooner than a pending decommit
    }

    /// <summary>Under Gate: sets the timer for the next thing to do, if any (it is not armed when nothing is due).</summary>
    private static void Arm(long now)
    {
        long due;
        if (Interlocked.Read(ref _released) >= Threshold) due = _lastCollectMs + (long)CollectInterval.TotalMilliseconds;
        else if (_decommitDue) due = Math.Max(AggressiveAllowedFrom(), _nextAggressiveMs);
        else return;
        TickTimer.Change(Math.Max(0, due - now), Timeout.Infinite);
    }

    /// <summary>When an aggressive collection may run for being quiet (or for having waited long enough under load).</summary>
    private static long AggressiveAllowedFrom() =>
        Math.Min(_lastCollectMs + (long)QuietTime.TotalMilliseconds, _lastAggressiveMs + (long)LoadedInterval.TotalMilliseconds);

    private static void Tick()
    {
        lock (Gate)
        {
            long now = Environment.TickCount64;
            try
            {
                if (Interlocked.Read(ref _released) >= Threshold && now >= _lastCollectMs + (long)CollectInterval.TotalMilliseconds)
                {
                    Interlocked.Exchange(ref _released, 0);
                    GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: false);
                    Interlocked.Increment(ref _collections);
                    _lastCollectMs = now = Environment.TickCount64;
                    _decommitDue = true;
                }
                if (_decommitDue && now >= AggressiveAllowedFrom() && now >= _nextAggressiveMs)
                {
                    long start = Environment.TickCount64;
                    GC.Collect(2, GCCollectionMode.Aggressive, blocking: true, compacting: true);
                    now = Environment.TickCount64;
                    long pause = now - start;
                    Interlocked.Increment(ref _aggressive);
                    Interlocked.Exchange(ref _lastPauseMs, pause);
                    _lastAggressiveMs = now;
                    _nextAggressiveMs = now + pause * PauseFactor;
                    _decommitDue = false;
                }
            }
            finally { Arm(now); }
        }
    }
}
