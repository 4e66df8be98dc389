// LogCompaction: keeps the disk use of the log proportional to the live data. A run first drops expired keys whose only
// version is on disk (KVStore.DropExpiredOnDiskAsync: no writes), then takes the oldest part of the log
// that is on disk (at least one segment, up to a quarter of the on-disk log, in whole segments), copies every live record
// there to the tail and deletes keys found expired; then the store deletes the segment files that hold no live record.
// Invariants:
//  - A record is copied only while its key's lock is held exclusively and only if it is still the key's newest record, so
//    a command's write is never overwritten by an older copy, and a key that changed meanwhile is left alone.
//  - Records of flushed databases (ids no database maps to) are never copied.
//  - One run at a time, and runs never queue: a periodic start while a run is in progress is skipped, and COMPACT then
//    joins the run in progress. Stop() cancels a run at its next record and waits for it; nothing starts until Resume().
//  - Every second (whatever the interval), the on-disk log is swept for expired keys (no writes; see ExpiredRecordSweeper)
//    while some key has a TTL: expired keys on disk leave DBSIZE within seconds, and emptied segments are deleted.
//  - The sweep's page verdicts spare chain walks, and they are trusted only while they hold up: a run that leaves its
//    range unreclaimed (something in it still counts as live that the run did not see) makes the next runs walk every
//    chain (KeyIterator.UseSweepVerdicts = false) until a run reclaims again. The on-disk part of the segment holding
//    the head, which runs never cover, gets one verdict-free expiry pass each time the log has been quiet for
//    QuietPassAfterMs while keys with a TTL remain: no expired key is left counted for good by a missed verdict.
//  - Scheduling adapts to garbage: a run whose records were mostly dead (expired, superseded) is followed by another one
//    after a quarter of the interval (at least a second); otherwise the next run waits for the interval and only happens if the log grew since the last run.
//    A server with nothing to reclaim therefore does no compaction work.
//  - A periodic run first samples its range (KVStore.SampleLiveShareAsync: a few reads, no writes) and copies nothing
//    unless the run would pay (WorthARun): at most half the range live, or the log more than twice the live data. A
//    log written once and read since is never rewritten. COMPACT always runs.
using Garnet.storage.Store;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Storage;

/// <param name="Skipped">A periodic run that sampled its range and found a run not worth its copies (WorthARun).</param>
public readonly record struct CompactionResult(long Examined, long Copied, long ExpiredDeleted, long BytesReclaimed, long DiskBytesBefore, long DiskBytesAfter,
    bool Skipped = false);

public sealed class LogCompaction : IDisposable
{
    private readonly StoreHost _host;
    private readonly ILogger _logger;
    private readonly TimeSpan _interval;
    private readonly object _gate = new();
    private readonly IDisposable _tick;
    private Task<CompactionResult>? _running;
    private CancellationTokenSource _cancel = new();
    private bool _stopped;
    private long _nextRunMs;
    private long _tailAtLastRun = -1;

    public LogCompaction(StoreHost host, Util.ServerCron cron, TimeSpan interval, ILogger logger)
    {
        _host = host;
        _logger = logger;
        _interval = interval;
        _nextRunMs = Environment.TickCount64 + (long)interval.TotalMilliseconds;
        // Every second: the expiry sweep of the on-disk log (cheap, see ExpiredRecordSweeper), and a compaction run when one is due.
        _tick = cron.Every("compaction", TimeSpan.FromSeconds(1), Tick);
    }

    private Task? _sweeping;
    /// <summary>A periodic sweep (with its deletes) or a compaction run that takes this long logs a warning with its figures.</summary>
    public const long SlowWorkMs = 10_000;
    private long _runStartedMs;
    /// <summary>How long the compaction run in progress has taken so far (0: none), for INFO.</summary>
    public long RunningMs => Volatile.Read(ref _runStartedMs) is var t and > 0 ? Environment.TickCount64 - t : 0;

    /// <summary>Drops expired keys whose only version is on disk (no writes), then deletes segments left without live records.</summary>
    private async Task SweepAsync(CancellationToken cancel)
    {
        await Task.Yield();
        long started = Environment.TickCount64;
        try
        {
            long dropped = await DropExpiredOnDiskAsync(cancel).ConfigureAwait(false);
            long reclaimed = dropped > 0 ? await _host.Store.ReclaimDeadSegmentsAsync(cancel).ConfigureAwait(false) : 0;
            if (dropped > 0) _logger.LogDebug("Expiry sweep: {Dropped} expired keys on disk dropped, {Bytes} bytes of log reclaimed", dropped, reclaimed);
            long tookMs = Environment.TickCount64 - started;
            if (tookMs >= SlowWorkMs)
            {
                var f = _host.Store.ExpirySweepFigures;
                _logger.LogWarning("Expiry sweep of the on-disk log took {Seconds:F1} s ({Dropped} keys dropped, {Bytes} bytes of log reclaimed; {Pages} pages read and {HandedOut} buried keys handed out since start)",
                    tookMs / 1000.0, dropped, reclaimed, f.PagesRead, f.HandedOut);
            }
            // The oldest segment still holds something the sweep cannot drop (an expired key with older versions, a record
            // behind another chain head): a compaction run now clears it, so expired data does not pin the disk.
            if (dropped > 0 && reclaimed == 0 && _interval > TimeSpan.Zero)
            {
                Volatile.Write(ref _tailAtLastRun, -1);
                Volatile.Write(ref _nextRunMs, Math.Min(Volatile.Read(ref _nextRunMs), Environment.TickCount64));
            }
        }
        catch (OperationCanceledException) { }
        catch (Exception ex) { _logger.LogWarning("Expiry sweep of the on-disk log failed: {Error}", ex.GetBaseException().Message); }
    }

    /// <summary>The expiry sweep (see ExpiredRecordSweeper), then a tombstone for each expired key it found buried below
    /// another key's record (it cannot be unlinked without a write); counts the keys out. Returns how many went.</summary>
    private async Task<long> DropExpiredOnDiskAsync(CancellationToken cancel, bool waitForSweep = false)
    {
        var buried = new List<byte[]>();
        long dropped = await _host.Store.DropExpiredOnDiskAsync(buried, cancel, waitForSweep).ConfigureAwait(false);
        if (buried.Count > 0) dropped += await DeleteIfExpiredAsync(buried.ToAsyncEnumerable(), cancel).ConfigureAwait(false);
        _host.CountExpired(dropped);
        return dropped;
    }

    /// <summary>Deletes each key whose newest record has expired (DeleteIfExpired with lookOnDisk: a newer live version or
    /// a tombstone keeps it), with up to 256 disk reads in flight. Returns how many went; the caller counts them out.</summary>
    private async Task<long> DeleteIfExpiredAsync(IAsyncEnumerable<byte[]> keys, CancellationToken cancel)
    {
        var writes = new OpResult();
        using var session = _host.Store.NewSession<StringInput, StringOutput, StringFunctions>(new StringFunctions { Writes = writes });
        long deleted = 0;
        int inFlight = 0;
        await foreach (var key in keys.WithCancellation(cancel).ConfigureAwait(false))
        {
            cancel.ThrowIfCancellationRequested();
            var status = session.DeleteIfExpired(key, lookOnDisk: true);
            if (status.IsPending()) inFlight++;
            else if ((status & Status.Expired) != 0) deleted++;
            if (inFlight == 256) { await session.CompletePendingAsync().ConfigureAwait(false); inFlight = 0; }
        }
        await session.CompletePendingAsync().ConfigureAwait(false);
        return deleted + writes.ExpiredDeletes; // the completions of those that went to disk
    }

    public long Runs { get; private set; }
    /// <summary>Periodic runs that copied nothing because their sample said a run would not pay.</summary>
    public long SkippedRuns { get; private set; }
    /// <summary>The sample the last periodic run took of its range (default before the first).</summary>
    public LiveShareSample LastSample { get; private set; }
    public long CopiedTotal { get; private set; }

    /// <summary>A periodic run pays when at most this share of its range (by bytes) is live: it frees at least as much
    /// as it copies.</summary>
    public const double MaxLiveShareToCompact = 0.5;
    /// <summary>Or when the log is more than this many times the live data: then even a range that is all live is copied
    /// forward, so the garbage behind it can go, and disk use stays within about this factor of the live data.</summary>
    public const double MaxSpaceAmplification = 2.0;

    /// <summary>Whether a periodic run over a range with this sample pays (see the constants), for a log of logBytes
    /// (tail minus begin) holding liveKeys keys; their live bytes are estimated from the sample's mean live record.</summary>
    public static bool WorthARun(LiveShareSample sample, long logBytes, long liveKeys)
    {
        if (sample.LiveShare <= MaxLiveShareToCompact) return true;
        double liveBytes = liveKeys * sample.MeanLiveRecordBytes;
        return liveBytes <= 0 || logBytes > MaxSpaceAmplification * liveBytes;
    }

    public CompactionResult Last { get; private set; }
    /// <summary>True while a run is in progress.</summary>
    public bool InProgress { get { lock (_gate) return _running is { IsCompleted: false }; } }

    /// <summary>Bytes of log segment and object log files in the data directory.</summary>
    public static long DiskBytes(string dir) =>
        Directory.EnumerateFiles(dir).Where(StoreHost.IsLogFile)
            .Sum(f => { try { return new FileInfo(f).Length; } catch (IOException) { return 0L; } });

    /// <summary>How long the log's tail must stay still before the expiry pass over the head's segment.</summary>
    public const long QuietPassAfterMs = 5_000;
    private long _tickTail = -1, _quietSinceMs;
    private bool _quietPassDone;
    private bool _distrustVerdicts;
    private bool _runningQuiet; // _running is a quiet expiry pass (under _gate)
    private bool _runningSampled; // _running may skip its copies (a periodic run: onlyIfWorthwhile), under _gate

    private void Tick()
    {
        try
        {
            lock (_gate)
                if (!_stopped && _sweeping is not { IsCompleted: false } && _host.Store.ExpiringKeyCount > 0) _sweeping = SweepAsync(_cancel.Token);
            if (_interval <= TimeSpan.Zero) return;
            long tail = _host.Store.Log.TailAddress;
            long nowMs = Environment.TickCount64;
            if (tail != _tickTail) { _tickTail = tail; _quietSinceMs = nowMs; _quietPassDone = false; }
            else if (!_quietPassDone && nowMs - _quietSinceMs >= QuietPassAfterMs && _host.Store.ExpiringKeyCount > 0)
            {
                lock (_gate)
                {
                    if (_stopped || _running is { IsCompleted: false }) return;
                    _quietPassDone = true;
                    _runningQuiet = true;
                    _runningSampled = false;
                    _running = RunGuardedAsync(_cancel.Token, quietPass: true);
                }
                return;
            }
            if (nowMs < Volatile.Read(ref _nextRunMs)) return;
            // Nothing written since the last run that found little garbage: nothing new to reclaim.
            if (tail == Volatile.Read(ref _tailAtLastRun)) { Volatile.Write(ref _nextRunMs, Environment.TickCount64 + (long)_interval.TotalMilliseconds); return; }
            lock (_gate)
            {
                if (_stopped || _running is { IsCompleted: false }) return; // never queue behind a run in progress
                _runningQuiet = false;
                _runningSampled = true;
                _running = RunGuardedAsync(_cancel.Token, onlyIfWorthwhile: true);
            }
        }
        catch (Exception ex) { _logger.LogError(ex, "Log compaction failed"); }
    }

    /// <summary>Compacts the oldest on-disk part of the log (see the file comment), or joins the run in progress.
    /// onlyIfWorthwhile: as a periodic run, sample the range first and copy nothing unless WorthARun (COMPACT: false).
    /// Cancelled (OperationCanceledException) when the server stops.</summary>
    public Task<CompactionResult> RunAsync(bool onlyIfWorthwhile = false)
    {
        lock (_gate)
        {
            // A quiet expiry pass in progress is not a compaction: start one after it.
            if (_running is { IsCompleted: false } && _runningQuiet) return _running.ContinueWith(_ => RunAsync(onlyIfWorthwhile), TaskScheduler.Default).Unwrap();
            // COMPACT joining a periodic run that may skip: if it does, COMPACT runs after it.
            if (_running is { IsCompleted: false } && _runningSampled && !onlyIfWorthwhile)
                return _running.ContinueWith(t => t.IsCompletedSuccessfully && t.Result.Skipped ? RunAsync() : t, TaskScheduler.Default).Unwrap();
            if (_running is { IsCompleted: false }) return _running;
            if (_stopped) return Task.FromCanceled<CompactionResult>(new CancellationToken(true));
            _runningQuiet = false;
            _runningSampled = onlyIfWorthwhile;
            return _running = RunGuardedAsync(_cancel.Token, onlyIfWorthwhile: onlyIfWorthwhile);
        }
    }

    private async Task<CompactionResult> RunGuardedAsync(CancellationToken cancel, bool quietPass = false, bool onlyIfWorthwhile = false)
    {
        await Task.Yield(); // never on the caller's thread
        long tailBefore = _host.Store.Log.TailAddress;
        long started = Environment.TickCount64;
        Volatile.Write(ref _runStartedMs, started);
        try
        {
            if (quietPass)
            {
                long deleted = await ExpireHeadSegmentAsync(cancel).ConfigureAwait(false);
                if (deleted > 0) _logger.LogInformation("Expiry pass over the head's segment: {Deleted} expired keys deleted", deleted);
                return new CompactionResult(0, 0, deleted, 0, 0, 0);
            }
            var result = await CompactAsync(cancel, onlyIfWorthwhile).ConfigureAwait(false);
            Last = result;
            if (result.Skipped)
            {
                // Not worth a run now: wait for the interval and for new writes, as after a run that found little garbage.
                SkippedRuns++;
                Volatile.Write(ref _tailAtLastRun, tailBefore);
                Volatile.Write(ref _nextRunMs, Environment.TickCount64 + (long)_interval.TotalMilliseconds);
                var s = LastSample;
                _logger.LogDebug("Log compaction skipped: {Live:P0} of the sampled range is live ({Records} records sampled), and the log is not more than {Factor} times the live data",
                    s.LiveShare, s.Records, MaxSpaceAmplification);
                return result;
            }
            Runs++;
            CopiedTotal += result.Copied;
            // Mostly garbage: go on soon. Otherwise wait for the interval (and for new writes).
            bool mostlyGarbage = result.Examined > 0 && result.Copied * 2 < result.Examined;
            Volatile.Write(ref _tailAtLastRun, mostlyGarbage ? -1 : tailBefore);
            long interval = (long)_interval.TotalMilliseconds;
            Volatile.Write(ref _nextRunMs, Environment.TickCount64 + (mostlyGarbage ? Math.Max(1000, interval / 4) : interval));
            long tookMs = Environment.TickCount64 - started;
            if (result.Examined > 0 || tookMs >= SlowWorkMs)
                _logger.Log(tookMs >= SlowWorkMs ? LogLevel.Warning : LogLevel.Information,
                    "Log compaction: {Copied} live records copied forward, {Expired} expired keys deleted, {Bytes} bytes of log reclaimed (disk {Before} -> {After} bytes) in {Seconds:F1} s",
                    result.Copied, result.ExpiredDeleted, result.BytesReclaimed, result.DiskBytesBefore, result.DiskBytesAfter, tookMs / 1000.0);
            return result;
        }
        catch (OperationCanceledException) { throw; }
        catch (Exception ex)
        {
            // One line, not a stack per run: a failing disk would otherwise fill the log.
            _logger.LogError("Log compaction failed: {Error}", ex.GetBaseException().Message);
            Volatile.Write(ref _nextRunMs, Environment.TickCount64 + (long)_interval.TotalMilliseconds);
            throw;
        }
        finally { Volatile.Write(ref _runStartedMs, 0); }
    }

    private async Task<CompactionResult> CompactAsync(CancellationToken cancel, bool onlyIfWorthwhile)
    {
        var store = _host.Store;
        var log = store.Log;
        string dir = store.Settings.Directory;
        long diskBefore = DiskBytes(dir);
        // First the cheap part: expired keys whose only version is on disk are dropped without writing anything (after
        // the periodic sweep in progress, if any: the sweep's page verdicts spare the scan below its chain walks), and
        // the segments that leaves without live records are deleted.
        long swept = await DropExpiredOnDiskAsync(cancel, waitForSweep: true).ConfigureAwait(false);
        long reclaimedFirst = swept > 0 ? await store.ReclaimDeadSegmentsAsync(cancel).ConfigureAwait(false) : 0;
        long segment = 1L << store.Settings.SegmentBits;
        long begin = log.BeginAddress, head = log.HeadAddress;
        long onDisk = (head >> store.Settings.SegmentBits << store.Settings.SegmentBits) - begin;
        if (onDisk < segment)
        {
            return new CompactionResult(swept, 0, swept, reclaimedFirst, diskBefore, DiskBytes(dir));
        }
        long until = begin + Math.Max(segment, onDisk / 4 >> store.Settings.SegmentBits << store.Settings.SegmentBits);
        until = until >> store.Settings.SegmentBits << store.Settings.SegmentBits;
        if (onlyIfWorthwhile)
        {
            var sample = await store.SampleLiveShareAsync(begin, until, cancellation: cancel).ConfigureAwait(false);
            LastSample = sample;
            if (!WorthARun(sample, log.TailAddress - begin, store.LiveKeyCount))
                return new CompactionResult(swept, 0, swept, reclaimedFirst, diskBefore, DiskBytes(dir), Skipped: true);
        }

        long examined = swept, copied = 0, expired = 0;
        bool withoutVerdicts = Volatile.Read(ref _distrustVerdicts);
        using (var session = store.NewSession<StringInput, StringOutput, StringFunctions>(new StringFunctions()))
        using (var it = new KeyIterator(store, begin, until) { IncludeExpired = true, UseSweepVerdicts = !withoutVerdicts })
        {
            var serializer = new ServerObjectSerializer(_host.StreamSpill);
            await foreach (var r in it.RecordsAsync(4096, maxPages: 4, cancel).ConfigureAwait(false))
            {
                examined++;
                if (r.Key.Length < 2) continue;
                int stripe = KeyLocks.StripeOf(r.Key.AsSpan(2));
                _host.Locks.EnterDetached(stripe, KeyLockMode.Exclusive);
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
                        : session.Upsert(r.Key, r.Value, r.Expiration, r.Kind); // the kind tag of an inline collection
                    if (status.IsPending()) await session.CompletePendingAsync().ConfigureAwait(false);
                    copied++;
                }
                finally { _host.Locks.ExitDetached(stripe, KeyLockMode.Exclusive); }
            }
        }
        _host.CountExpired(expired);
        long reclaimed = reclaimedFirst + await store.ReclaimDeadSegmentsAsync(cancel).ConfigureAwait(false);
        // Every live record of [begin, until) was copied or deleted, so its segments should now go; if the range is still
        // held (and no iterator held the reclaimer back), some verdict hid a live record: walk every chain until it goes.
        bool held = log.BeginAddress < until && store.ActiveIterators == 0;
        if (held != withoutVerdicts)
        {
            Volatile.Write(ref _distrustVerdicts, held);
            if (held) _logger.LogInformation("Log compaction left [{Begin}, {Until}) unreclaimed; the next runs check every record's chain", begin, until);
        }
        return new CompactionResult(examined, copied, expired + swept, reclaimed, diskBefore, DiskBytes(dir));
    }

    /// <summary>Deletes the keys whose newest record has expired in the on-disk part of the segment that holds the head,
    /// which compaction runs never cover, walking every chain (no sweep verdicts). Returns the keys deleted.</summary>
    private async Task<long> ExpireHeadSegmentAsync(CancellationToken cancel)
    {
        var store = _host.Store;
        var log = store.Log;
        int bits = store.Settings.SegmentBits;
        long end = log.PageStart(log.PageOf(log.HeadAddress));
        long from = Math.Max(log.BeginAddress, end >> bits << bits);
        if (from >= end) return 0;
        using var it = new KeyIterator(store, from, end) { IncludeExpired = true, UseSweepVerdicts = false, ExpiredBy = _host.Clock.NowMs };
        long deleted = await DeleteIfExpiredAsync(it.RecordsAsync(4096, maxPages: 4, cancel).Select(r => r.Key), cancel).ConfigureAwait(false);
        _host.CountExpired(deleted);
        return deleted;
    }

    /// <summary>Cancels a run in progress, waits (bounded) for it to end, and starts no run until Resume.</summary>
    public void Stop(TimeSpan? wait = null)
    {
        Task[] running;
        lock (_gate)
        {
            _stopped = true;
            _cancel.Cancel();
            running = new[] { _running, _sweeping }.Where(t => t is not null).ToArray()!;
        }
        if (running.Length == 0) return;
        try
        {
            if (!Task.WaitAll(running, wait ?? TimeSpan.FromSeconds(30)))
                _logger.LogWarning("Log compaction did not stop in time");
        }
        catch { /* cancelled or failed: logged by the run */ }
    }

    /// <summary>Allows runs again after Stop.</summary>
    public void Resume()
    {
        lock (_gate)
        {
            if (!_stopped) return;
            _stopped = false;
            _cancel.Dispose();
            _cancel = new CancellationTokenSource();
        }
    }

    public void Dispose()
    {
        _tick.Dispose(); // a tick in progress finishes first
        // A run in progress is cancelled and finishes first, so the store is not freed under it.
        Stop(TimeSpan.FromMinutes(1));
    }
}
