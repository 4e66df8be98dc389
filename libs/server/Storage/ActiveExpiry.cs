// ActiveExpiry: deletes keys that expired without being read, so their memory is reused and DBSIZE drops. Every 100 ms (a
// ServerCron job) it walks the in-memory records from where it stopped (wrapping at the tail) and deletes the keys whose
// newest record has expired (DeleteIfExpired decides under the record's lock; in the mutable region the record's space is reused at once).
// Effort adapts as Redis's active expiry does: each tick examines RecordsPerRound records, and goes on with further rounds
// only while a round found many expired keys (at least 1 in 10) and the tick has used less than TickBudget, so a steady
// TTL workload is kept up with while an idle server (or one whose keys expire far in the future) does almost nothing.
// Records already on disk take no memory; compaction deletes the expired ones there (LogCompaction). Each key deleted here
// is reported to StoreHost.ExpiryListener (keyspace notifications' "expired").
using System.Diagnostics;
using Garnet.storage.Log;
using Garnet.storage.Store;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Storage;

internal sealed class ActiveExpiry : IDisposable
{
    public const int RecordsPerRound = 20_000;
    /// <summary>How often a tick runs (ServerCron), as Redis's hz 10.</summary>
    public static readonly TimeSpan TickPeriod = TimeSpan.FromMilliseconds(100);
    /// <summary>Most of one tick (100 ms) spent deleting: a quarter of a core at most, as Redis's ACTIVE_EXPIRE_CYCLE_SLOW.</summary>
    public static readonly TimeSpan TickBudget = TimeSpan.FromMilliseconds(25);

    private readonly StoreHost _host;
    private readonly StoreSession<StringInput, StringOutput, StringFunctions> _session;
    private readonly List<byte[]> _expired = new();
    private readonly Stopwatch _tick = new();
    private long _cursor;

    public ActiveExpiry(StoreHost host)
    {
        _host = host;
        _session = host.Store.NewSession<StringInput, StringOutput, StringFunctions>(new StringFunctions());
    }

    /// <summary>One tick (on the cron thread): idle scan cursors are dropped, then expired keys in memory are deleted.</summary>
    public void Tick()
    {
        var host = _host;
        var store = host.Store;
        host.Scans.Sweep();
        if (store.ExpiringKeyCount == 0 || !host.ActiveExpireEnabled) return;
        try
        {
            // Records below this tail are completely written once every operation in flight now has finished.
            long end = store.Log.TailAddress;
            if (!store.WaitForOperationsInFlight(TimeSpan.FromSeconds(1))) return;
            _tick.Restart();
            while (true)
            {
                _expired.Clear();
                _cursor = ExpiryScan.Collect(store, _cursor, end, RecordsPerRound, _expired, out int scanned, out bool reachedEnd);
                long deleted = 0;
                foreach (var key in _expired)
                    if ((_session.DeleteIfExpired(key) & Status.Expired) != 0)
                    {
                        deleted++;
                        host.ReportExpired(key);
                    }
                host.CountExpired(deleted);
                if (reachedEnd || _expired.Count * 10 < scanned || _tick.Elapsed > TickBudget) break;
            }
        }
        catch (Exception ex)
        {
            // One line: a failing disk (writes refused) would otherwise log a stack trace every tick.
            host.Logger.LogWarning("Active expiry failed ({Error}); it goes on at the next tick", ex.GetBaseException().Message);
        }
    }

    public void Dispose() => _session.Dispose();
}

internal static unsafe class ExpiryScan
{
    /// <summary>Collects keys of expired, still-valid records from the cursor on (at most budget records); returns where to
    /// go on next time. reachedEnd: the scan got to end (the next call starts over at the head).</summary>
    public static long Collect(KVStore store, long cursor, long end, int budget, List<byte[]> into, out int scanned, out bool reachedEnd)
    {
        scanned = 0;
        var log = store.Log;
        store.Epoch.Acquire();
        try
        {
            long head = log.HeadAddress, tail = end;
            if (cursor < head || cursor >= tail) cursor = Math.Max(head, HybridLog.FirstValidAddress);
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            while (budget-- > 0 && cursor < tail)
            {
                scanned++;
                long pageEnd = log.PageStart(log.PageOf(cursor) + 1);
                if (pageEnd - cursor < RecordLayout.HeaderSize) { cursor = pageEnd; continue; }
                byte* r = log.GetPhysical(cursor);
                if (!RecordLayout.IsPresent(r)) { cursor = pageEnd; continue; }
                int size = RecordLayout.TotalSize(r);
                if (size <= 0 || size > pageEnd - cursor) { cursor = pageEnd; continue; }
                ulong info = Volatile.Read(ref RecordLayout.Info(r));
                if ((info & (RecordInfo.Invalid | RecordInfo.Tombstone)) == 0 && RecordLayout.HasExpiration(r)
                    && RecordLayout.Expiration(r) <= now)
                    into.Add(RecordLayout.Key(r).ToArray());
                cursor += size;
            }
            reachedEnd = cursor >= tail;
            return cursor;
        }
        finally { store.Epoch.Release(); }
    }
}
