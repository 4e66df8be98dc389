// StreamSpillReclaimer: gives back the space of stream blocks in the spill file that no stream refers to any more
// (trimmed, XDELed, read back by a change, keys deleted/overwritten/expired/flushed), by mark and sweep on a background
// task (docs/objects-streams.md, "Reclaiming the spill file").
// A round: note the file's length S; start marking (StreamSpillFile.BeginMark: from now on every copy or deserialization
// of a stream notes its extents); scan every stream record that is its key's newest below the tail (KeyIterator, streams
// only) and deserialize it (noting its extents); stop marking. Extents below S not noted are dead in this round.
// Invariants:
//  - Soundness of one round: a version of a key created after the round began is a copy (Clone notes), a deserialization
//    (notes), an in-place change of a scanned object (it only adds extents above S), or a fresh stream (above S); a
//    version from before is scanned, as the iterator's epoch barrier lets every write in flight finish before it fixes
//    its end. RENAME/COPY/MOVE carry a value outside any record between two operations: one that began during the round
//    fetched it by a Clone (noted); while one is in flight no round starts (StreamSpillFile.Moving). So after a round,
//    no newest version ever refers to a dead extent again.
//  - Old versions still being read (an optimistic read, a pending disk read, a command holding a copy) are covered by
//    time: an extent is freed only when a later valid round finds it dead again at least Grace after the first did.
//  - A checkpoint reads versions as of its cut: nothing is freed while one is written (StreamSpillFile.HoldForCheckpoint).
//  - Rounds run only when worth it: when the bytes spilled since the last round reach Threshold (max(Floor, half the
//    live bytes found last round, a quarter of the log)), or when dead extents of at least half of it wait for their
//    second look and Grace has passed. The cost of scanning the log is thus amortised over the spilled bytes.
using Garnet.server.Objects;
using Garnet.server.Objects.Streams;
using Garnet.storage.Store;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Storage;

public sealed class StreamSpillReclaimer
{
    private readonly StoreHost _host;
    private readonly StreamSpillFile _spill;
    private readonly ILogger _logger;
    private readonly Dictionary<long, long> _deadSince = []; // offset -> when a valid round first found it dead
    private readonly SemaphoreSlim _one = new(1, 1);
    private long _bytesAtLastRound;
    private long _lastLive;
    private long _pendingBytes;
    private long _oldestDead; // when the oldest extent still waiting for its second look was found dead

    public StreamSpillReclaimer(StoreHost host, ILogger logger)
    {
        _host = host;
        _spill = host.StreamSpill;
        _logger = logger;
        _spill.Warn = message => _logger.LogWarning("{Message}", message);
    }

    /// <summary>Spilled bytes between rounds at least (tests lower it).</summary>
    public long Floor { get; set; } = 16L << 20;
    /// <summary>How long a dead extent waits for its second look (covers reads of old versions in flight).</summary>
    public TimeSpan Grace { get; set; } = TimeSpan.FromSeconds(1);
    /// <summary>How often the background poll checks whether a round is due.</summary>
    public TimeSpan PollInterval { get; set; } = TimeSpan.FromMilliseconds(200);
    /// <summary>The clock Grace is measured by (milliseconds; tests inject one).</summary>
    public Func<long> NowMs { get; set; } = () => Environment.TickCount64;

    /// <summary>Test hook: runs in a round after marking began and the scan's end was fixed, before the scan.</summary>
    public Func<Task>? BeforeScan { get; set; }

    public long Rounds { get; private set; }
    /// <summary>Rounds not started because a move of a stream was in flight.</summary>
    public long DiscardedRounds { get; private set; }
    /// <summary>Spilled bytes the last valid round found referenced.</summary>
    public long LastLiveBytes => Interlocked.Read(ref _lastLive);
    // A round reads the whole log (every page on disk, to find the stream records), so it waits for spilled bytes of at
    // least a quarter of the log as well: the reading is at most 4 bytes per spilled byte, and the garbage it leaves
    // within a quarter of the log's size.
    /// <summary>Spilled bytes that make the next round due (see the file comment).</summary>
    public long Threshold => Math.Max(Math.Max(Floor, LastLiveBytes / 2), LogBytes / 4);
    private long LogBytes => _host.Store.Log.TailAddress - _host.Store.Log.BeginAddress;

    private Task _background = Task.CompletedTask;

    /// <summary>The round the poll started last (done when none runs); the host waits for it when it stops.</summary>
    internal Task Background => _background;

    /// <summary>The background poll (a ServerCron job every PollInterval): starts a round when one is due and none runs.</summary>
    internal void Poll(CancellationToken stop)
    {
        if (!_background.IsCompleted || stop.IsCancellationRequested || !_spill.CanReclaim || !Due()) return;
        _background = RunInBackgroundAsync(stop);
    }

    private async Task RunInBackgroundAsync(CancellationToken stop)
    {
        await Task.Yield(); // never on the cron thread
        try { await RunRoundAsync(stop).ConfigureAwait(false); }
        catch (OperationCanceledException) { }
        catch (Exception ex) { _logger.LogError(ex, "Reclaiming space in the stream spill file failed"); }
    }

    /// <summary>Whether the background poll would start a round when next due (a round is not running).</summary>
    public bool Settled => _one.CurrentCount == 1 && (!_spill.CanReclaim || !Due());

    private bool Due()
    {
        long t = Threshold;
        if (_spill.Bytes - _bytesAtLastRound >= t) return true;
        if (Volatile.Read(ref _pendingBytes) < t / 2) return false;
        return NowMs() - Volatile.Read(ref _oldestDead) >= (long)Grace.TotalMilliseconds;
    }

    /// <summary>One mark round and the sweep it allows; returns the bytes freed (0 when the round was discarded).</summary>
    public async Task<long> RunRoundAsync(CancellationToken cancel = default)
    {
        await _one.WaitAsync(cancel).ConfigureAwait(false);
        try
        {
            long start = _spill.Bytes;
            if (!_spill.BeginMark())
            {
                DiscardedRounds++; // a RENAME/COPY/MOVE of a stream in flight: try again at the next poll
                return 0;
            }
            _bytesAtLastRound = start; // also when the round fails: the next try waits for more spilled bytes
            HashSet<long> marked, scanned = [];
            try
            {
                var serializer = new ServerObjectSerializer(_spill);
                using var it = new KeyIterator(_host.Store) { IncludeExpired = true, OnlyKind = (int)ObjectKind.Stream };
                if (BeforeScan is { } hook) await hook().ConfigureAwait(false);
                await foreach (var r in it.RecordsAsync(256, maxPages: 16, cancel).ConfigureAwait(false))
                    if (r.IsObject && serializer.Deserialize(r.Value) is StreamObject st)
                        foreach (var b in st.Entries.Blocks)
                            if (b.IsSpilled) scanned.Add(b.SpillOffset);
            }
            finally { marked = _spill.EndMark(); }
            marked.UnionWith(scanned); // what the scan found, and what copies and deserializations noted meanwhile
            Rounds++;
            return Sweep(start, marked);
        }
        finally { _one.Release(); }
    }

    // Extents below start not marked are dead; those a previous valid round found dead at least Grace ago are freed.
    private long Sweep(long start, HashSet<long> marked)
    {
        long now = NowMs(), grace = (long)Grace.TotalMilliseconds, live = 0, pending = 0, freeBytes = 0;
        var dead = new Dictionary<long, long>();
        var free = new HashSet<long>();
        foreach (var (offset, length) in _spill.ListedBelow(start))
        {
            if (marked.Contains(offset)) { live += length; continue; }
            if (_deadSince.TryGetValue(offset, out long since) && now - since >= grace) { free.Add(offset); freeBytes += length; continue; }
            dead[offset] = _deadSince.TryGetValue(offset, out since) ? since : now;
            pending += length;
        }
        long freed = 0;
        if (free.Count > 0 && !_spill.TryFree(free, out freed))
        {
            foreach (long offset in free) dead[offset] = _deadSince[offset]; // a checkpoint is being written: next round
            pending += freeBytes;
        }
        _deadSince.Clear();
        long oldest = long.MaxValue;
        foreach (var (offset, since) in dead)
        {
            _deadSince[offset] = since;
            oldest = Math.Min(oldest, since);
        }
        Interlocked.Exchange(ref _lastLive, live);
        Volatile.Write(ref _oldestDead, oldest);
        Volatile.Write(ref _pendingBytes, dead.Count == 0 ? 0 : pending);
        return freed;
    }
}
