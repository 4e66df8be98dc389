// AccessClock: the time a record was last accessed is kept in Unix seconds (uint32, good until 2106), read from this
// clock. It is derived from Environment.TickCount64 with the Unix time fixed once per process, so it never runs backwards
// even when the wall clock is stepped (a stepped clock shifts idle times until restart, as in Redis).
// Invariants: NowSeconds is a field read, refreshed by a timer every RefreshMs (as Redis's LRU clock is refreshed by its
// cron), so a hot read pays no clock call (a vDSO clock_gettime per GET was 3-4% of a pipelined GET's CPU); it lags the
// true second by at most RefreshMs while the timer runs, and it only moves forward.
// A server refreshes it from its own periodic thread (RefreshedByCaller, ServerCron), which stops the clock's timer while
// any such caller lives: each firing of a .NET timer wakes the timer thread and two or three thread-pool workers.
namespace Garnet.storage.Log;

public static class AccessClock
{
    public const int RefreshMs = 100;
    private static readonly long s_baseUnixSeconds = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
    private static readonly long s_baseTickMs = Environment.TickCount64;
    private static int s_now = (int)Compute();
    private static readonly Timer s_refresh = new(static _ => Refresh(), null, RefreshMs, RefreshMs);

    public static uint NowSeconds => (uint)Volatile.Read(ref s_now);

    private static uint Compute() => (uint)(s_baseUnixSeconds + (Environment.TickCount64 - s_baseTickMs) / 1000);

    private static readonly object s_driversLock = new();
    private static int s_drivers;

    /// <summary>While the returned handle lives, the caller calls Refresh every RefreshMs and the clock's own timer stops;
    /// when the last such handle is disposed, the timer runs again.</summary>
    public static IDisposable RefreshedByCaller()
    {
        lock (s_driversLock)
            if (++s_drivers == 1) s_refresh.Change(Timeout.Infinite, Timeout.Infinite);
        return new Driver();
    }

    private sealed class Driver : IDisposable
    {
        private int _disposed;
        public void Dispose()
        {
            if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
            lock (s_driversLock)
                if (--s_drivers == 0)
                {
                    Refresh();
                    s_refresh.Change(RefreshMs, RefreshMs);
                }
        }
    }

    /// <summary>Moves the clock to now (the timer, or a caller holding RefreshedByCaller).</summary>
    public static void Refresh()
    {
        GC.KeepAlive(s_refresh);
        // Timer callbacks may overlap: only ever move forward.
        uint next = Compute();
        int seen = Volatile.Read(ref s_now);
        while ((uint)seen < next)
        {
            int was = Interlocked.CompareExchange(ref s_now, (int)next, seen);
            if (was == seen) return;
            seen = was;
        }
    }
}
