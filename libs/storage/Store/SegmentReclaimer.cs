// SegmentReclaimer: deletes the oldest on-disk segments when they hold no live record.
// A record is live when it is the newest record of its key and not a tombstone (expired records count as live, as
// LiveKeyCount counts them). Only a prefix of the log can go (chains below BeginAddress are cut), so the reclaimer
// walks segments from BeginAddress up and stops at the first one that still holds a live record, or that is not yet
// wholly on disk (below HeadAddress). Dropping superseded records and tombstones changes no key's value: every older
// record a dropped tombstone hid lies below it, so it is dropped too. Moving live records forward is compaction
// (not done here). Where the expiry sweep has a verdict on every page of a segment (ExpiredRecordSweeper), only its
// suspects are checked; otherwise every record is.
using Garnet.storage.Log;

namespace Garnet.storage.Store;

internal static class SegmentReclaimer
{
    public static async Task<long> ReclaimAsync(KVStore store, CancellationToken cancellation)
    {
        var log = store.Log;
        // An iterator may still need a superseded record below its end (its newer version lies above the end).
        if (!store.Device.Persistent || store.ActiveIterators > 0) return 0;
        int segmentBits = store.Settings.SegmentBits;
        long begin = log.BeginAddress, newBegin = begin;
        while (!cancellation.IsCancellationRequested)
        {
            long segmentEnd = ((newBegin >> segmentBits) + 1) << segmentBits;
            if (segmentEnd > log.HeadAddress) break;
            if (await HoldsLiveRecordAsync(store, newBegin, segmentEnd).ConfigureAwait(false)) break;
            newBegin = segmentEnd;
        }
        if (newBegin <= begin || store.ActiveIterators > 0) return 0;
        store.DropLogBelow(newBegin);
        return newBegin - begin;
    }

    private static async Task<bool> HoldsLiveRecordAsync(KVStore store, long from, long to)
    {
        var log = store.Log;
        var suspects = new List<(long Address, byte[] Key)>();
        if (store.TryGetSweptSuspects(from, to, suspects))
        {
            foreach (var (address, key) in suspects)
                if (await KeyIterator.IsNewestKeyRecordBelowAsync(store, key, address, long.MaxValue).ConfigureAwait(false)) return true;
            return false;
        }
        var candidates = new List<(long, byte[], byte[]?)>();
        // One pooled page buffer for the whole walk: a fresh page-sized array per page would be large-object garbage.
        byte[] bytes = System.Buffers.ArrayPool<byte>.Shared.Rent(log.PageSize);
        try
        {
            for (long page = log.PageOf(from); log.PageStart(page) < to; page++)
            {
                long start = Math.Max(log.PageStart(page), from);
                int length = (int)(Math.Min(log.PageStart(page + 1), to) - start);
                int n = await log.Device.ReadAsync(start, bytes.AsMemory(0, length)).ConfigureAwait(false);
                if (n <= 0) continue;
                candidates.Clear();
                IteratorScan.ScanBuffer(bytes, n, start, candidates);
                foreach (var (address, record, _) in candidates)
                {
                    if (IteratorScan.IsTombstone(record)) continue;
                    if (await KeyIterator.IsNewestBelowAsync(store, record, address, long.MaxValue).ConfigureAwait(false)) return true;
                }
            }
        }
        finally { System.Buffers.ArrayPool<byte>.Shared.Return(bytes); }
        return false;
    }
}
