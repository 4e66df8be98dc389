// LogCompaction: keeps the disk use of the log proportional to the live data. A run takes the oldest part of the log
// that is on disk (at least one segment, up to a quarter of the on-disk log, in whole segments), copies every live record
// there to the tail and deletes keys found expired; then the store deletes the segment files that hold no live record.
// Invariants:
//  - A record is copied only while its key's lock is held exclusively and only if it is still the key's newest record, so
//    a command's write is never overwritten by an older copy, and a key that changed meanwhile is left alone.
//  - Records of flushed databases (ids no database maps to) are never copied.
//  - One run at a time; the periodic run (CompactionInterval) and COMPACT share it.
using Garnet.storage.Store;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Storage;

public readonly record struct CompactionResult(long Examined, long Copied, long ExpiredDeleted, long BytesReclaimed, long DiskBytesBefore, long DiskBytesAfter);

public sealed class LogCompaction : IDisposable
{
    private readonly StoreHost _host;
    private readonly ILogger _logger;
    private readonly SemaphoreSlim _one = new(1, 1);
    private readonly Timer? _timer;

    public LogCompaction(StoreHost host, TimeSpan interval, ILogger logger)
    {
        _host = host;
        _logger = logger;
        if (interval > TimeSpan.Zero) _timer = new Timer(_ => _ = RunQuietlyAsync(), null, interval, interval);
    }

    public long Runs { get; private set; }
    public long CopiedTotal { get; private set; }
    public CompactionResult Last { get; private set; }

    /// <summary>Bytes of log segment and object log files in the data directory.</summary>
    public static long DiskBytes(string dir) =>
        Directory.EnumerateFiles(dir).Where(StoreHost.IsLogFile)
            .Sum(f => new FileInfo(f).Length);

    private async Task RunQuietlyAsync()
    {
        try { await RunAsync().ConfigureAwait(false); }
        catch (Exception ex) { _logger.LogError(ex, "Log compaction failed"); }
    }

    /// <summary>Compacts the oldest on-disk part of the log (see the file comment); waits for a run in progress first.</summary>
    public async Task<CompactionResult> RunAsync()
    {
        await _one.WaitAsync().ConfigureAwait(false);
        try
        {
            var result = await CompactAsync().ConfigureAwait(false);
            Last = result;
            Runs++;
            CopiedTotal += result.Copied;
            if (result.Examined > 0)
                _logger.LogInformation("Log compaction: {Copied} live records copied forward, {Expired} expired keys deleted, {Bytes} bytes of log reclaimed (disk {Before} -> {After} bytes)",
                    result.Copied, result.ExpiredDeleted, result.BytesReclaimed, result.DiskBytesBefore, result.DiskBytesAfter);
            return result;
        }
        finally { _one.Release(); }
    }

    private async Task<CompactionResult> CompactAsync()
    {
        var store = _host.Store;
        var log = store.Log;
        string dir = store.Settings.Directory;
        long diskBefore = DiskBytes(dir);
        long segment = 1L << store.Settings.SegmentBits;
        long begin = log.BeginAddress, head = log.HeadAddress;
        long onDisk = (head >> store.Settings.SegmentBits << store.Settings.SegmentBits) - begin;
        if (onDisk < segment) return new CompactionResult(0, 0, 0, 0, diskBefore, diskBefore);
        long until = begin + Math.Max(segment, onDisk / 4 >> store.Settings.SegmentBits << store.Settings.SegmentBits);
        until = until >> store.Settings.SegmentBits << store.Settings.SegmentBits;

        long examined = 0, copied = 0, expired = 0;
        using (var session = store.NewSession<StringInput, StringOutput, StringFunctions>(new StringFunctions()))
        using (var it = new KeyIterator(store, begin, until) { IncludeExpired = true })
        {
            var batch = new List<IteratedRecord>();
            var serializer = new ServerObjectSerializer();
            bool more = true;
            while (more)
            {
                batch.Clear();
                more = await it.NextBatchAsync(batch, 4096).ConfigureAwait(false);
                foreach (var r in batch)
                {
                    examined++;
                    if (r.Key.Length < 2) continue;
                    int stripe = KeyLocks.StripeOf(r.Key.AsSpan(2));
                    _host.Locks.Enter(stripe, KeyLockMode.Exclusive);
                    try
                    {
                        if (!_host.IsMappedPhysicalId((r.Key[0] << 8) | r.Key[1])) continue; // a flushed database: the purge deletes it
                        if (!await store.IsNewestRecordAsync(r.Key, r.Address).ConfigureAwait(false)) continue;
                        if (r.Expiration != 0 && r.Expiration <= _host.Clock.NowMs)
                        {
                            // Expired and still the newest record: nothing else can write the key while we hold its lock.
                            if (session.Delete(r.Key).IsPending()) await session.CompletePendingAsync().ConfigureAwait(false);
                            expired++;
                            continue;
                        }
                        var status = r.IsObject
                            ? session.Upsert(r.Key, serializer.Deserialize(r.Value), r.Expiration)
                            : session.Upsert(r.Key, r.Value, r.Expiration);
                        if (status.IsPending()) await session.CompletePendingAsync().ConfigureAwait(false);
                        copied++;
                    }
                    finally { _host.Locks.Exit(stripe, KeyLockMode.Exclusive); }
                }
            }
        }
        long reclaimed = await store.ReclaimDeadSegmentsAsync().ConfigureAwait(false);
        return new CompactionResult(examined, copied, expired, reclaimed, diskBefore, DiskBytes(dir));
    }

    public void Dispose()
    {
        if (_timer is not null)
        {
            using var timerDone = new ManualResetEvent(false);
            if (_timer.Dispose(timerDone)) timerDone.WaitOne();
        }
        _one.Wait(); // a run in progress finishes first, so the store is not freed under it
        _one.Release();
    }
}
