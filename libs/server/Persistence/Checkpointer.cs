// Checkpointer: takes checkpoints (SAVE, BGSAVE, the save rules, shutdown) as RDB files in --dir, named
// checkpoint.<n>.rdb, while the server keeps serving.
// How a checkpoint is consistent: with every key lock held (no command in flight), the database mapping and the write
// count are read and the engine cuts the log (a snapshot point); the locks are released as soon as the cut is made, so
// commands stop for about one epoch barrier. The file is then written from the records below the cut, which never
// change, while commands go on above it.
// Invariants:
//  - One checkpoint at a time. A file is written under a temporary name, fsynced, then renamed into place and the
//    directory fsynced: a checkpoint.<n>.rdb on disk is always complete (its CRC says so too).
//  - The newest Keep checkpoints are kept; older ones are deleted only after a newer one is durable.
//  - A FLUSHALL that clears the store while a file is written (its records below the cut are gone) makes that file
//    incomplete: it is deleted unpublished and the checkpoint is taken again, after the flush.
using Garnet.server.Storage;
using Garnet.storage.Store;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Persistence;

public sealed class Checkpointer : IDisposable
{
    public const string FilePrefix = "checkpoint.", FileSuffix = ".rdb";
    public const int Keep = 2;
    /// <summary>AUX field naming the first AOF file that holds writes after the checkpoint.</summary>
    public const string AofSequenceAux = "garnet-aof-seq";
    /// <summary>AUX field with the cut's time (Unix ms): the keys expired then are not in the file.</summary>
    public const string CutTimeAux = "garnet-cut-ms";

    /// <summary>Rotated at each cut, and trimmed to what the kept checkpoints need (set when --aof is on).</summary>
    public AofLog? Aof { get; set; }

    /// <summary>The function libraries' code to write as RDB function records (set by the server; called under every key lock).</summary>
    public Func<IReadOnlyList<byte[]>>? FunctionCodes { get; set; }

    private readonly StoreHost _host;
    private readonly string _dir;
    private readonly Func<long> _writesTotal;
    private readonly ILogger _logger;
    private readonly SemaphoreSlim _one = new(1, 1);
    private IDisposable? _rules;
    private long _writesAtLastSave;
    private long _lastAttemptMs;
    private long _nextSequence;

    public Checkpointer(StoreHost host, string dir, IReadOnlyList<SaveRule> rules, Func<long> writesTotal, ILogger logger)
    {
        _host = host;
        _dir = Path.GetFullPath(dir);
        Rules = rules;
        _writesTotal = writesTotal;
        _logger = logger;
        _nextSequence = Existing(_dir).Select(f => f.sequence).DefaultIfEmpty(0).Max() + 1;
        LastSaveUnixSeconds = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
    }

    /// <summary>Starts checking the save rules every second (after recovery and AOF replay are done).</summary>
    public void StartSaveRules()
    {
        // What recovery loaded and replayed counts as saved (LASTSAVE is the start time), as after a Redis load.
        Interlocked.Exchange(ref _writesAtLastSave, _writesTotal());
        LastSaveUnixSeconds = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        _rules ??= _host.Cron.Every("save rules", TimeSpan.FromSeconds(1), SaveIfDue);
    }

    private volatile bool _disposed;

    /// <summary>Why the running checkpoint was started (null when none runs).</summary>
    public string? CurrentReason { get; private set; }

    public IReadOnlyList<SaveRule> Rules { get; set; }
    public bool InProgress => Volatile.Read(ref _running) != 0;
    public long LastSaveUnixSeconds { get; private set; }
    public bool LastSaveOk { get; private set; } = true;
    public long LastDurationSeconds { get; private set; } = -1;
    public long CurrentStartUnixSeconds { get; private set; } = -1;
    public long Saves { get; private set; }
    public long LastKeys { get; private set; }
    public long LastBytes { get; private set; }
    public string? LastFile { get; private set; }
    /// <summary>The running checkpoint started with the AOF on (it rotates and trims the AOF: INFO's AOF rewrite).</summary>
    public bool CurrentIsAofRewrite { get; private set; }
    public long AofRewrites { get; private set; }
    public bool LastAofRewriteOk { get; private set; } = true;
    public long AofRewriteConsecutiveFailures { get; private set; }
    public long LastAofRewriteSeconds { get; private set; } = -1;
    /// <summary>A checkpoint is scheduled to start after the running one (BGSAVE SCHEDULE, BGREWRITEAOF).</summary>
    public bool Scheduled => Volatile.Read(ref _scheduled) != 0;
    public long ChangesSinceLastSave => _writesTotal() - Interlocked.Read(ref _writesAtLastSave);


    private int _running;

    /// <summary>The checkpoint files in dir, newest first.</summary>
    public static List<(string path, long sequence)> Existing(string dir)
    {
        var found = NumberedFiles.In(dir, FilePrefix, FileSuffix);
        found.Reverse();
        return found;
    }

    /// <summary>Takes a checkpoint now; false when one is already running (unless waitForRunning: then it waits for that
    /// one to end first). Throws when writing it fails.</summary>
    public async Task<bool> SaveAsync(string reason, bool waitForRunning = false)
    {
        if (!await _one.WaitAsync(waitForRunning ? Timeout.Infinite : 0).ConfigureAwait(false)) return false;
        await SaveHoldingLockAsync(reason).ConfigureAwait(false);
        return true;
    }

    // Runs with _one held and releases it.
    private async Task SaveHoldingLockAsync(string reason)
    {
        Volatile.Write(ref _running, 1);
        CurrentReason = reason;
        bool rewrite = CurrentIsAofRewrite = Aof is not null; // with the AOF on, a checkpoint is also the AOF's rewrite
        long started = Environment.TickCount64;
        CurrentStartUnixSeconds = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        Interlocked.Exchange(ref _lastAttemptMs, started);
        try
        {
            using (_host.StreamSpill.HoldForCheckpoint()) // no spilled block it may read is freed meanwhile
                await WriteCheckpointAsync(reason).ConfigureAwait(false);
            LastSaveOk = true;
            if (rewrite) { AofRewrites++; LastAofRewriteOk = true; AofRewriteConsecutiveFailures = 0; }
        }
        catch (Exception ex)
        {
            LastSaveOk = false;
            if (rewrite) { LastAofRewriteOk = false; AofRewriteConsecutiveFailures++; }
            // One line (the disk being full is an operator's matter, not a bug); the stack trace at debug level.
            _logger.LogError("Checkpoint ({Reason}) failed: {Error}", reason, ex.GetBaseException().Message);
            _logger.LogDebug(ex, "Checkpoint ({Reason}) failed", reason);
            throw;
        }
        finally
        {
            LastDurationSeconds = (Environment.TickCount64 - started) / 1000;
            if (rewrite) LastAofRewriteSeconds = LastDurationSeconds;
            CurrentIsAofRewrite = false;
            CurrentStartUnixSeconds = -1;
            CurrentReason = null;
            Volatile.Write(ref _running, 0);
            _one.Release();
        }
    }

    /// <summary>BGSAVE: starts a checkpoint in the background; false when one is already running.</summary>
    public bool TryStartBackground(string reason)
    {
        if (_disposed || !_one.Wait(0)) return false; // taken here, so two callers cannot both be told "started"
        Volatile.Write(ref _running, 1);
        _ = Task.Run(async () =>
        {
            try { await SaveHoldingLockAsync(reason).ConfigureAwait(false); }
            catch { /* logged and recorded in LastSaveOk */ }
        });
        return true;
    }

    private int _scheduled;

    /// <summary>BGSAVE SCHEDULE while one runs: another checkpoint starts when it is done.</summary>
    public void ScheduleAfterCurrent(string reason) => Volatile.Write(ref _scheduled, 1);

    private void SaveIfDue()
    {
        try
        {
            if (InProgress || _disposed) return;
            if (Interlocked.Exchange(ref _scheduled, 0) == 1) { TryStartBackground("BGSAVE SCHEDULE"); return; }
            if (Rules.Count == 0) return;
            // After a failure, wait 5 s before the next try (as Redis does).
            if (!LastSaveOk && Environment.TickCount64 - Interlocked.Read(ref _lastAttemptMs) < 5000) return;
            long since = DateTimeOffset.UtcNow.ToUnixTimeSeconds() - LastSaveUnixSeconds;
            long changes = ChangesSinceLastSave;
            if (SaveRules.Due(Rules, since, changes))
            {
                _logger.LogInformation("{Changes} changes in {Seconds} seconds. Saving...", changes, since);
                TryStartBackground("save rule");
            }
        }
        catch (Exception ex) { _logger.LogError(ex, "Checking the save rules failed"); }
    }

    private long _retaken;
    /// <summary>Checkpoint files dropped unpublished because a FLUSHALL cleared the store while they were written (each
    /// was taken again).</summary>
    public long Retaken => Interlocked.Read(ref _retaken);

    /// <summary>Attempts before a checkpoint overtaken by flushes each time gives up.</summary>
    private const int AttemptsAgainstFlushes = 3;

    private async Task WriteCheckpointAsync(string reason)
    {
        // A FLUSHALL that empties the store (KVStore.Clear) while the file is written takes the records below the cut
        // with it: that file would hold part of the keys. It is dropped, and the checkpoint is taken again of the state
        // after the flush (a later state, as a checkpoint started then would have).
        for (int attempt = 1; ; attempt++)
        {
            if (await TryWriteCheckpointAsync(reason).ConfigureAwait(false)) return;
            Interlocked.Increment(ref _retaken);
            if (attempt == AttemptsAgainstFlushes)
                throw new IOException($"the store was flushed while the checkpoint was written, {AttemptsAgainstFlushes} times in a row");
            _logger.LogInformation("Checkpoint ({Reason}): the store was flushed while it was written; taking it again", reason);
        }
    }

    /// <summary>Writes one checkpoint; false (nothing published) when the store was cleared before the file was complete.</summary>
    private async Task<bool> TryWriteCheckpointAsync(string reason)
    {
        var store = _host.Store;
        var locks = _host.Locks;
        int[] mapping;
        IReadOnlyList<byte[]> functions;
        long writesAtCut;
        long aofSequence;
        AofLog? aof;
        SnapshotPoint cut;
        KeyIterator? iterator = null;
        // Listed before the locks (to keep the pause short): a log installed after this listing is installed before the
        // cut (seen below) or after it (its first file is numbered above every file listed here).
        long afterExisting = AofLog.Existing(_dir).Select(f => f.sequence).DefaultIfEmpty(0).Max() + 1;
        locks.EnterAll();
        bool locked = true;
        try
        {
            mapping = _host.DatabaseMapping();
            functions = FunctionCodes?.Invoke() ?? []; // under every key lock: FUNCTION LOAD/DELETE/... are keyless writes
            writesAtCut = _writesTotal();
            // Read once, under the locks: CONFIG SET appendonly swaps the log under the same locks, so the cut is wholly
            // before or after a switch. Without an AOF: the files present (from a run with --aof, or before appendonly
            // was turned off) are older than this checkpoint.
            aof = Aof;
            aofSequence = aof is not null ? aof.Rotate() : afterExisting; // with an AOF, writes after the cut go to a new file
            cut = await store.TakeSnapshotPointAsync(point =>
            {
                // Registered before anything can run again: while it is, no segment below the cut is reclaimed and no
                // space is reused. Expired keys are filtered by the cut's time below, not by the time of the scan.
                iterator = new KeyIterator(store, 0, point.Address) { IncludeExpired = true };
                locks.ExitAll();
                locked = false;
            }).ConfigureAwait(false);
        }
        catch
        {
            iterator?.Dispose();
            throw;
        }
        finally { if (locked) locks.ExitAll(); }
        long cutMs = cut.Time.ToUnixTimeMilliseconds();

        long sequence = _nextSequence++;
        string final = Path.Combine(_dir, $"{FilePrefix}{sequence}{FileSuffix}");
        string temporary = final + ".tmp";
        var dbOf = new Dictionary<int, int>();
        for (int db = 0; db < mapping.Length; db++) dbOf[mapping[db]] = db;
        var serializer = new ServerObjectSerializer(_host.StreamSpill); // spilled stream blocks are read from the store's file
        long keys, bytes;
        bool overtaken = false;
        try
        {
            using (var writer = new RdbFileWriter(temporary))
            {
                writer.WriteAux("garnet-ver", typeof(Checkpointer).Assembly.GetName().Version?.ToString(3) ?? "0");
                writer.WriteAux("redis-bits", "64");
                writer.WriteAux("ctime", cut.Time.ToUnixTimeSeconds().ToString());
                writer.WriteAux("aof-base", "0");
                writer.WriteAux(CutTimeAux, cutMs.ToString());
                writer.WriteAux(AofSequenceAux, aofSequence.ToString());
                foreach (var code in functions) writer.WriteFunction(code);
                using (var it = iterator!)
                {
                    var batch = new List<IteratedRecord>();
                    bool more = true;
                    while (more)
                    {
                        batch.Clear();
                        more = await it.NextBatchAsync(batch, 4096).ConfigureAwait(false);
                        foreach (var r in batch)
                        {
                            if (r.Key.Length < 2 || !dbOf.TryGetValue((r.Key[0] << 8) | r.Key[1], out int db)) continue; // a flushed database
                            if (r.Expiration != 0 && r.Expiration <= cutMs) continue; // expired at the cut
                            if (!r.IsObject)
                            {
                                if (Garnet.server.Objects.InlineCollection.IsInlineKind(r.Kind))
                                    writer.WriteCollection(db, r.Key.AsSpan(2), Garnet.server.Objects.InlineCollection.Read(r.Kind, r.Value), r.Expiration);
                                else writer.WriteString(db, r.Key.AsSpan(2), r.Value, r.Expiration);
                                continue;
                            }
                            switch (serializer.Deserialize(r.Value)) // a large string adopts r.Value: no copy
                            {
                                case LargeValue large: writer.WriteString(db, r.Key.AsSpan(2), large.Span, r.Expiration); break;
                                case Garnet.server.Objects.CollectionObject collection: writer.WriteCollection(db, r.Key.AsSpan(2), collection, r.Expiration); break;
                            }
                        }
                    }
                    overtaken = it.OvertakenByClear;
                }
                if (overtaken)
                {
                    writer.Dispose();
                    File.Delete(temporary);
                    return false;
                }
                writer.Finish();
                keys = writer.Keys;
                bytes = writer.Bytes;
            }
            DurableFiles.Publish(temporary, final);
        }
        catch
        {
            iterator!.Dispose(); // if the failure came before the using took it (Dispose is idempotent)
            try { File.Delete(temporary); } catch { }
            throw;
        }
        var kept = Existing(_dir);
        foreach (var (old, _) in kept.Skip(Keep))
        {
            try { File.Delete(old); }
            catch (Exception ex) { _logger.LogWarning("Could not delete the old checkpoint {File}: {Error}", old, ex.Message); }
        }
        if (aof is not null)
        {
            // Keep the AOF files every kept checkpoint needs (the oldest one is the fallback when the newest is unreadable).
            long oldestNeeded = kept.Take(Keep).Select(k => RdbFileReader.ReadAux(k.path).TryGetValue(AofSequenceAux, out var v) && long.TryParse(v, out long n) ? n : 0).Min();
            if (oldestNeeded > 0) aof.DeleteBefore(oldestNeeded);
        }
        Interlocked.Exchange(ref _writesAtLastSave, writesAtCut);
        LastSaveUnixSeconds = cut.Time.ToUnixTimeSeconds();
        LastKeys = keys;
        LastBytes = bytes;
        LastFile = final;
        Saves++;
        _logger.LogInformation("Checkpoint {File} written ({Reason}): {Keys} keys, {Bytes} bytes", Path.GetFileName(final), reason, keys, bytes);
        return true;
    }

    public void Dispose()
    {
        _disposed = true;
        _rules?.Dispose(); // a rule check in progress finishes first
        // Wait for a running checkpoint (however long), so the store is not freed under it.
        _one.Wait();
        _one.Release();
    }
}
