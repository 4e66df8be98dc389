// ActiveExpiry: deletes keys that expired without being read, so their memory is reused. Every 100 ms it walks at
// most a fixed number of in-memory records from where it stopped (wrapping at the tail), and deletes the keys whose
// newest record has expired (DeleteIfExpired decides under the record's lock). Bounded work per tick = bounded CPU.
// Records already on disk take no memory; they are dropped by compaction (durability issue).
using Garnet.storage.Log;
using Garnet.storage.Store;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Storage;

internal static class ActiveExpiry
{
    public const int RecordsPerTick = 20_000;

    public static async Task RunAsync(StoreHost host, CancellationToken stop)
    {
        var store = host.Store;
        using var session = store.NewSession<StringInput, StringOutput, StringFunctions>(new StringFunctions());
        long cursor = 0;
        var expired = new List<byte[]>();
        while (!stop.IsCancellationRequested)
        {
            try { await Task.Delay(100, stop).ConfigureAwait(false); }
            catch (OperationCanceledException) { return; }
            host.Scans.Sweep();
            if (store.ExpiringKeyCount == 0) continue;
            try
            {
                // Records below this tail are completely written once every operation in flight now has finished.
                long end = store.Log.TailAddress;
                await store.WaitForOperationsInFlightAsync().ConfigureAwait(false);
                expired.Clear();
                cursor = ExpiryScan.Collect(store, cursor, end, RecordsPerTick, expired);
                foreach (var key in expired) session.DeleteIfExpired(key);
            }
            catch (Exception ex) when (ex is not OperationCanceledException)
            {
                host.Logger.LogError(ex, "Active expiry failed; it goes on at the next tick");
            }
        }
    }
}

internal static unsafe class ExpiryScan
{
    /// <summary>Collects keys of expired, still-valid records from the cursor on; returns where to go on next time.</summary>
    public static long Collect(KVStore store, long cursor, long end, int budget, List<byte[]> into)
    {
        var log = store.Log;
        store.Epoch.Acquire();
        try
        {
            long head = log.HeadAddress, tail = end;
            if (cursor < head || cursor >= tail) cursor = Math.Max(head, HybridLog.FirstValidAddress);
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            while (budget-- > 0 && cursor < tail)
            {
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
            return cursor;
        }
        finally { store.Epoch.Release(); }
    }
}
