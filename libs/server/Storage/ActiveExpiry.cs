// ActiveExpiry: deletes keys that expired without being read, so their memory is reused and DBSIZE drops. Every 100 ms (a
// ServerCron job) it walks the in-memory records from where it stopped (InMemoryRecordWalker.Resume, which wraps at the
// tail) and deletes the keys whose newest record has expired (DeleteIfExpired decides under the record's lock; in the
// mutable region the record's space is reused at once).
// Effort adapts as Redis's active expiry does: each tick examines RecordsPerRound records, and goes on with further rounds
// only while a round found many expired keys (at least 1 in 10) and the tick has used less than TickBudget, so a steady
// TTL workload is kept up with while an idle server (or one whose keys expire far in the future) does almost nothing.
// Records already on disk take no memory; compaction deletes the expired ones there (LogCompaction). Each key deleted here
// is reported to StoreHost.ExpiryListener (keyspace notifications' "expired").
using System.Diagnostics;
using System.Runtime.CompilerServices;
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
            if (!InMemoryRecordWalker.TryGetWrittenEnd(store, TimeSpan.FromSeconds(1), out long end)) return;
            _tick.Restart();
            while (true)
            {
                _expired.Clear();
                var collect = new ExpiredKeyCollector(_expired, DateTimeOffset.UtcNow.ToUnixTimeMilliseconds());
                var walk = InMemoryRecordWalker.Resume(store, _cursor, end, RecordsPerRound, ref collect);
                _cursor = walk.Cursor;
                long deleted = 0;
                foreach (var key in _expired)
                    if ((_session.DeleteIfExpired(key) & Status.Expired) != 0)
                    {
                        deleted++;
                        host.ReportExpired(key);
                    }
                host.CountExpired(deleted);
                if (walk.ReachedEnd || _expired.Count * 10 < walk.Steps || _tick.Elapsed > TickBudget) break;
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

/// <summary>Collects the keys of the records that have expired by nowMs (the walk leaves out invalid records and
/// tombstones).</summary>
internal readonly struct ExpiredKeyCollector(List<byte[]> into, long nowMs) : IRecordVisitor
{
    [MethodImpl(MethodImplOptions.AggressiveInlining)] // into the walk's loop: a call per record costs ~20% of the walk
    public void Visit(in WalkedRecord record)
    {
        if (record.HasExpiration && record.Expiration <= nowMs) into.Add(record.Key.ToArray());
    }
}
