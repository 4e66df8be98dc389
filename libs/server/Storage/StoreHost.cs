// StoreHost: the server's key-value store (one KVStore for all databases) and the mapping of databases onto it.
// Invariants:
//  - A stored key is [physical database id, 2 bytes big-endian][the client's key]. SELECT n uses logical database n,
//    which maps to a physical id. SWAPDB swaps two mappings; FLUSHDB gives the database a fresh id at once and
//    deletes the old id's keys in the background. Nothing else writes the mapping, and always under _mapLock and with
//    every key lock held by the caller (KeyLocks.EnterAll), so no keyed command runs across a remapping.
//  - A flush that leaves no key anywhere (FLUSHALL, or FLUSHDB of the only database with keys) clears the whole store
//    instead (KVStore.Clear: the log restarts at a fresh page, its memory and segment files are given back, the index
//    shrinks to its initial size), under the same key locks; the mapping stays.
//  - Per-id key counts come from the store's key classes, so DBSIZE and INFO keyspace are O(1).
//  - At start the store is loaded from the newest readable checkpoint in --dir (Persistence/Recovery); log segment
//    files of an earlier run are removed (they are a cache tier, not a persistence format); so is the stream spill
//    file (StreamSpillFile: sealed blocks of large streams out of memory), which lives and dies with the store; its dead
//    blocks are freed by StreamSpillReclaimer in background rounds.
//  - Periodic work (active expiry, the spill poll, compaction ticks, the disk-space check, and the server's own jobs)
//    runs on one ServerCron thread, which the host owns: it stops before the store is freed.
using Garnet.storage.Store;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Storage;

public sealed class StoreHost : IDisposable
{
    private const int MaxPhysicalIds = 1 << 16;

    private readonly object _mapLock = new();
    private readonly int[] _physical;
    private readonly Queue<int> _freeIds = new();
    private readonly ILogger _logger;
    private readonly CancellationTokenSource _stop = new();
    private readonly ActiveExpiry _expiry;
    private readonly IDisposable _expiryJob, _reclaimJob, _accessClock, _accessClockJob;
    private Task _purge = Task.CompletedTask;

    public StoreHost(ServerSettings settings, ILoggerFactory loggerFactory)
    {
        _logger = loggerFactory.CreateLogger("Garnet.Store");
        string dir = Path.GetFullPath(settings.Dir);
        Directory.CreateDirectory(dir);
        var stale = Directory.EnumerateFiles(dir)
            .Where(IsLogFile).ToList();
        if (stale.Count > 0)
        {
            // The log is the store's memory-and-disk tier, not a persistence format: recovery reads checkpoints.
            _logger.LogInformation("Removing {Count} log segment files of an earlier run from {Dir} (data is recovered from checkpoints)", stale.Count, dir);
            foreach (var f in stale) File.Delete(f);
        }
        // The cache of spilled blocks read back: 1/32 of the memory budget, 1 MB to 64 MB (as a stream's hot share).
        StreamSpill = new Objects.Streams.StreamSpillFile(dir) { CacheCapacity = Math.Clamp(settings.MemoryBytes / 32, 1L << 20, 64L << 20) };
        Store = new KVStore(new KVStoreSettings
        {
            Directory = dir,
            MemoryBytes = settings.MemoryBytes,
            KeyClasses = true,
            ObjectSerializer = new ServerObjectSerializer(StreamSpill),
            SegmentBits = settings.SegmentBits,
            ReadQueueDepth = settings.ReadQueueDepth,
            DiskReadMode = settings.DiskReadMode,
            Clock = () => Clock.NowMs,
        });
        StreamSpill.Readers = Store.Readers; // stream blocks are read ahead on the store's disk reader
        // One line when the device starts failing and one when it recovers, never one per command.
        Store.Log.DeviceStateChanged = error =>
        {
            if (error is null) _logger.LogWarning("The log device in {Dir} can be written again: writes are accepted again", dir);
            else _logger.LogError("Writing the log to {Dir} failed: {Error}. Writes are refused (MISCONF) and the write is retried every second until it succeeds; reads go on", dir, error.GetBaseException().Message);
        };
        Scans = new ScanCursors(Store);
        _physical = Enumerable.Range(0, settings.Databases).ToArray();
        for (int id = settings.Databases; id < MaxPhysicalIds; id++) _freeIds.Enqueue(id);
        try { Recovered = Persistence.Recovery.Run(this, dir, settings.Databases, settings.IgnoreUnreadableData, settings.Aof, _logger); }
        catch
        {
            Store.Dispose();
            StreamSpill.Dispose();
            throw;
        }
        Cron = new Util.ServerCron(loggerFactory.CreateLogger("Garnet.Cron"));
        _accessClock = Garnet.storage.Log.AccessClock.RefreshedByCaller();
        try
        {
            _accessClockJob = Cron.Every("access clock", TimeSpan.FromMilliseconds(Garnet.storage.Log.AccessClock.RefreshMs), Garnet.storage.Log.AccessClock.Refresh);
            _expiry = new ActiveExpiry(this);
            _expiryJob = Cron.Every("active expiry", ActiveExpiry.TickPeriod, _expiry.Tick);
            SpillReclaimer = new StreamSpillReclaimer(this, loggerFactory.CreateLogger("Garnet.StreamSpill"));
            _reclaimJob = Cron.Every("stream spill", () => SpillReclaimer.PollInterval, () => SpillReclaimer.Poll(_stop.Token));
            DiskGuard = new DiskSpaceGuard(dir, settings.MinFreeDiskBytes, settings.MinFreeDiskPercent, Cron, _logger);
            Compaction = new LogCompaction(this, Cron, TimeSpan.FromSeconds(settings.CompactionIntervalSeconds), loggerFactory.CreateLogger("Garnet.Compaction"));
        }
        catch
        {
            Cron.Dispose(); // no job runs on a store that is not there
            _accessClock.Dispose(); // the clock's own timer again
            throw;
        }
    }

    /// <summary>True for the engine's log segment and object log files (log.N, obj.N).</summary>
    public static bool IsLogFile(string path) => System.Text.RegularExpressions.Regex.IsMatch(Path.GetFileName(path), @"^((log|obj)\.[0-9]+|stream-blocks\.spill)$");

    public KVStore Store { get; }
    /// <summary>Where sealed blocks of streams larger than their share of memory go (see docs/objects-streams.md).</summary>
    public Objects.Streams.StreamSpillFile StreamSpill { get; }
    /// <summary>Frees the space of spilled stream blocks no stream refers to any more (mark rounds in the background).</summary>
    public StreamSpillReclaimer SpillReclaimer { get; }
    /// <summary>Refuses writes while the data directory's file system is nearly full (--min-free-disk).</summary>
    public DiskSpaceGuard DiskGuard { get; }
    /// <summary>The thread that runs the server's periodic work (stopped by Dispose, before the store is freed).</summary>
    public Util.ServerCron Cron { get; }
    /// <summary>The time expiry is judged by (set to the original times while the AOF is replayed).</summary>
    public ServerClock Clock { get; } = new();
    /// <summary>What was loaded at start (File is null when the store started empty).</summary>
    public Persistence.RecoveryResult Recovered { get; }
    internal ILogger Logger => _logger;
    /// <summary>Copies live records out of the oldest segments so their files can be deleted.</summary>
    public LogCompaction Compaction { get; }

    /// <summary>Open SCAN iterations.</summary>
    public ScanCursors Scans { get; }
    public int Databases => _physical.Length;

    /// <summary>The physical id that prefixes the keys of logical database db.</summary>
    public int PhysicalId(int db) => Volatile.Read(ref _physical[db]);

    /// <summary>True when some database maps to physical id (false for ids of flushed databases).</summary>
    public bool IsMappedPhysicalId(int id)
    {
        for (int db = 0; db < _physical.Length; db++) if (Volatile.Read(ref _physical[db]) == id) return true;
        return false;
    }

    /// <summary>The physical id of each logical database, at this moment.</summary>
    public int[] DatabaseMapping()
    {
        lock (_mapLock) return (int[])_physical.Clone();
    }

    /// <summary>DEBUG SET-ACTIVE-EXPIRE 0 turns active expiry off (keys then expire only when read); 1 back on.</summary>
    public volatile bool ActiveExpireEnabled = true;

    public long KeyCount(int db) => Store.LiveKeyCountOf(PhysicalId(db));
    public long ExpiringCount(int db) => Store.ExpiringKeyCountOf(PhysicalId(db));

    private long _expiredKeys;
    /// <summary>Keys deleted because they had expired (active expiry, compaction): INFO's expired_keys.</summary>
    public long ExpiredKeys => Interlocked.Read(ref _expiredKeys);
    internal void CountExpired(long keys) => Interlocked.Add(ref _expiredKeys, keys);

    private long _blockingDiskWaits;
    /// <summary>Times a request's thread waited for a disk read (a key that ReadAhead did not bring in: inside EXEC, a key
    /// not named by the command table, or a record that left memory again): INFO's disk_reads_waited_on_thread.</summary>
    public long BlockingDiskWaits => Interlocked.Read(ref _blockingDiskWaits);
    internal void CountBlockingDiskWait() => Interlocked.Increment(ref _blockingDiskWaits);

    /// <summary>Told about keys active expiry deleted (keyspace notifications' "expired"); set by the server.</summary>
    public IExpiryListener? ExpiryListener { get; set; }

    /// <summary>Active expiry deleted storedKey (database prefix + key): tells the listener, in logical database terms.</summary>
    internal void ReportExpired(byte[] storedKey)
    {
        if (ExpiryListener is not { ExpiredEventsOn: true } listener || storedKey.Length < 2) return;
        int id = (storedKey[0] << 8) | storedKey[1];
        for (int db = 0; db < _physical.Length; db++)
            if (Volatile.Read(ref _physical[db]) == id) { listener.Expired(db, storedKey.AsSpan(2)); return; }
    }

    /// <summary>Key-name locks held by running commands (see KeyLocks).</summary>
    public KeyLocks Locks { get; } = new();

    /// <summary>Swaps two databases. The caller holds every key lock (the session takes them for SWAPDB), so every keyed
    /// command ran before the swap or runs after it, never across it.</summary>
    public void SwapDb(int a, int b)
    {
        lock (_mapLock) (_physical[a], _physical[b]) = (_physical[b], _physical[a]);
    }

    /// <summary>Empties database db at once: the whole store is cleared when no other database has keys; otherwise the
    /// database gets a fresh physical id and the old keys are deleted in the background.</summary>
    public void FlushDb(int db) => Flush([db]);

    /// <summary>Empties every database at once (the store is cleared: its memory goes back to the OS).</summary>
    public void FlushAll() => Flush(Enumerable.Range(0, _physical.Length).ToArray());

    /// <summary>Completes when the keys of every flushed database have been deleted (FLUSHDB SYNC waits for it).</summary>
    public Task PurgeCompletion => _purge;

    // The caller holds every key lock (the session takes them for FLUSHDB/FLUSHALL): keyed commands in flight have
    // finished, so none writes to a retired id afterwards, and none runs across a clear.
    private void Flush(int[] dbs)
    {
        lock (_mapLock)
        {
            if (!NoKeysOutside(dbs))
            {
                RetireAndPurge(dbs);
                return;
            }
        }
        // Nothing would be left: drop the whole store at once rather than a tombstone per key. The memory of its pages and
        // index goes back to the OS now; the objects their pages held become garbage, so ask for a collection too.
        Store.Clear();
        Garnet.common.Util.MemoryReclaimer.RequestCollection();
    }

    /// <summary>True when no database but those in dbs has a key (so flushing them leaves the store empty). Under _mapLock.</summary>
    private bool NoKeysOutside(int[] dbs)
    {
        for (int db = 0; db < _physical.Length; db++)
            if (Array.IndexOf(dbs, db) < 0 && Store.LiveKeyCountOf(_physical[db]) != 0) return false;
        return true;
    }

    /// <summary>Gives each database of dbs that has keys a fresh id, and deletes the old ids' keys in the background. Under
    /// _mapLock.</summary>
    private void RetireAndPurge(int[] dbs)
    {
        var retired = new List<int>();
        foreach (int db in dbs)
        {
            if (Store.LiveKeyCountOf(_physical[db]) == 0) continue;
            if (!_freeIds.TryDequeue(out int fresh)) throw new InvalidOperationException("no free database ids: too many flushes in flight");
            retired.Add(_physical[db]);
            Volatile.Write(ref _physical[db], fresh);
        }
        if (retired.Count == 0) return;
        var previous = _purge;
        _purge = Task.Run(async () =>
        {
            await previous.ConfigureAwait(false);
            await PurgeAsync(retired).ConfigureAwait(false);
        });
    }

    /// <summary>Deletes every key of the retired ids, then makes the ids available again.</summary>
    private async Task PurgeAsync(List<int> ids)
    {
        try
        {
            var set = new HashSet<int>(ids);
            using var session = Store.NewSession<StringInput, StringOutput, StringFunctions>(new StringFunctions());
            var batch = new List<IteratedRecord>();
            using var it = new KeyIterator(Store) { IncludeExpired = true }; // expired keys count until deleted
            bool more = true;
            while (more && !_stop.IsCancellationRequested)
            {
                batch.Clear();
                more = await it.NextBatchAsync(batch, 4096).ConfigureAwait(false);
                foreach (var r in batch)
                    if (r.Key.Length >= 2 && set.Contains((r.Key[0] << 8) | r.Key[1]))
                        session.Delete(r.Key);
                await session.CompletePendingAsync().ConfigureAwait(false);
            }
            // Keys written to a retired id cannot appear: nothing maps to it, and the flush waited for keyed commands in flight.
            lock (_mapLock)
                foreach (int id in ids)
                    if (Store.LiveKeyCountOf(id) == 0) _freeIds.Enqueue(id);
            // The purge's garbage (a key per record) may have been counted live by the last collection, so the idle
            // check's figures would never show it as surplus: ask for one collection now (it runs on the reclaimer's timer).
            Garnet.common.Util.MemoryReclaimer.RequestCollection();
        }
        catch (Exception ex) { _logger.LogError(ex, "Deleting the keys of flushed databases failed"); }
    }

    /// <summary>Before the checkpoint at shutdown: cancels a compaction in progress (a backlog must not delay the exit) and
    /// starts no other until StartBackgroundWork.</summary>
    public void StopBackgroundWork() => Compaction.Stop(TimeSpan.FromSeconds(10));

    /// <summary>After a shutdown that did not happen (its checkpoint failed): compaction may run again.</summary>
    public void StartBackgroundWork() => Compaction.Resume();

    /// <summary>Stops background work and frees the store; with connections still inside commands, the store is left
    /// for the process exit to reclaim (freeing it under them would be a use-after-free).</summary>
    public void Dispose(bool connectionsIdle = true)
    {
        _stop.Cancel();
        DiskGuard.Dispose();
        Compaction.Dispose();
        _expiryJob.Dispose(); // each waits for its run in progress
        _reclaimJob.Dispose();
        _accessClockJob.Dispose();
        Cron.Dispose();
        _accessClock.Dispose(); // the clock's own timer again, if no other server in the process refreshes it
        _expiry.Dispose();
        bool quiet = true;
        try { quiet &= _purge.Wait(TimeSpan.FromSeconds(5)); } catch { }
        try { quiet &= SpillReclaimer.Background.Wait(TimeSpan.FromSeconds(5)); } catch { }
        if (quiet && connectionsIdle)
        {
            Store.Dispose();
            StreamSpill.Dispose();
        }
        else _logger.LogWarning("The store was not freed: work was still running at shutdown");
    }

    void IDisposable.Dispose() => Dispose(true);
}

/// <summary>What the storage layer reports about keys deleted by expiry without a client command (PubSub/KeyspaceEvents).</summary>
public interface IExpiryListener
{
    /// <summary>Whether "expired" events are wanted now (one volatile read).</summary>
    bool ExpiredEventsOn { get; }
    void Expired(int db, ReadOnlySpan<byte> key);
}
