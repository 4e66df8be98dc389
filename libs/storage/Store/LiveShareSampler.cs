// LiveShareSampler: estimates how much of a part of the on-disk log is still live, from a few small reads, writing
// nothing. Log compaction asks it whether a run would free enough to be worth copying the rest.
// Invariants:
//  - Reads at most `windows` windows of `windowBytes` each, each from a page start (where records begin), plus one chain
//    walk per record in them (capped by maxRecords); holds no key lock and changes nothing, so the answer is an estimate
//    that writes may age at once.
//  - Registers as an iterator while it reads, so no segment file in the range is deleted under it.
//  - A record counts as live when it is the newest record of its key anywhere in the log, is not a tombstone and has not
//    expired; everything else in a window (older versions, tombstones, expired records, the unused end of a page)
//    counts as dead.
namespace Garnet.storage.Store;

/// <summary>What a sample of the log saw: bytes read, and how many of them (and of its records) were live.</summary>
public readonly record struct LiveShareSample(long BytesSampled, long LiveBytes, long Records, long LiveRecords)
{
    /// <summary>Live bytes over the bytes sampled (1 when nothing was sampled: nothing shows garbage).</summary>
    public double LiveShare => BytesSampled == 0 ? 1 : (double)LiveBytes / BytesSampled;

    /// <summary>Mean size of a live record, in bytes (0 when none was live).</summary>
    public double MeanLiveRecordBytes => LiveRecords == 0 ? 0 : (double)LiveBytes / LiveRecords;
}

internal static class LiveShareSampler
{
    public static async Task<LiveShareSample> SampleAsync(KVStore store, long from, long until, int windows, int windowBytes,
        int maxRecords, CancellationToken cancel)
    {
        var log = store.Log;
        until = Math.Min(until, log.HeadAddress); // on disk only
        if (until <= from || windows < 1 || windowBytes < 1) return default;
        store.IteratorStarted();
        try
        {
            from = Math.Max(from, log.BeginAddress);
            long firstPage = log.PageOf(from), pages = log.PageOf(until - 1) - firstPage + 1;
            int perWindow = Math.Max(1, maxRecords / windows);
            long sampled = 0, live = 0, records = 0, liveRecords = 0;
            long lastPage = -1;
            for (int w = 0; w < windows; w++)
            {
                long page = firstPage + pages * w / windows;
                if (page == lastPage) continue; // fewer pages than windows
                lastPage = page;
                // Records begin at page starts (the log's first page at its first valid address) and at BeginAddress.
                long start = Math.Max(log.PageStart(page), from);
                long end = Math.Min(Math.Min(start + windowBytes, log.PageStart(page + 1)), until);
                if (end <= start) continue;
                cancel.ThrowIfCancellationRequested();
                if (start < log.BeginAddress) break; // reclaimed meanwhile
                var bytes = await log.ReadFromDeviceAsync(start, (int)(end - start)).ConfigureAwait(false);
                // A first record larger than the window: read it whole.
                int first = KVStore.RecordSizeOf(bytes);
                if (first > bytes.Length && start + first <= Math.Min(log.PageStart(page + 1), until))
                {
                    end = start + first;
                    bytes = await log.ReadFromDeviceAsync(start, first).ConfigureAwait(false);
                }
                var found = new List<(long address, byte[] record, byte[]? obj)>();
                IteratorScan.ScanBuffer(bytes, start, found);
                long windowEnd = start;
                int examined = 0;
                foreach (var (address, record, _) in found)
                {
                    if (examined++ == perWindow) break;
                    windowEnd = address + record.Length;
                    records++;
                    if (IteratorScan.IsTombstone(record) || IteratorScan.ExpiredBy(record, store.Clock())) continue;
                    if (!await KeyIterator.IsNewestKeyRecordBelowAsync(store, IteratorScan.KeyOf(record), address, long.MaxValue).ConfigureAwait(false))
                        continue;
                    live += record.Length;
                    liveRecords++;
                }
                // A window that held no whole record counts in full (the rest of a page past its last record, or garbage
                // the scan cannot parse); otherwise the bytes up to the end of its last record examined.
                sampled += (examined == 0 ? end : windowEnd) - start;
            }
            return new LiveShareSample(sampled, live, records, liveRecords);
        }
        finally { store.IteratorStopped(); }
    }
}
