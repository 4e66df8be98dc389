// KVStore: the key-value store: a hash index over a hybrid log, protected by epochs. Sessions (StoreSession)
// run operations; this class owns the shared parts and the rules that every operation follows.
// Invariants:
//  - The index entry for a tag points at the newest record of that tag; older records hang off its
//    previous-address chain. A new record is published only by a CAS of the index entry from the address its
//    chain was built on, so concurrent writers of one tag serialize on that CAS.
//  - A key's record is replaced (copy to the tail) only after sealing the old one under its exclusive lock when it
//    is in the mutable region; tombstones and in-place updates also take that lock. So "did the key exist" is
//    decided exactly once per change, and LiveKeyCount (keys whose newest record is not a tombstone, expired
//    or not, as Redis's DBSIZE counts them) stays exact under concurrency.
//  - Every operation runs under epoch protection; pointers into the log are dropped before the epoch refreshes.
using System.Runtime.CompilerServices;
using Garnet.storage.Devices;
using Garnet.storage.Epochs;
using Garnet.storage.Index;
using Garnet.storage.Log;
using Garnet.storage.Objects;

namespace Garnet.storage.Store;

public sealed class KVStoreSettings
{
    /// <summary>Directory for the log's segment files (ignored with a null device).</summary>
    public string Directory { get; set; } = "./data";
    /// <summary>
    /// Memory budget in bytes: log pages in memory + object heap + hash index. The log holds at most this many bytes of
    /// pages (rounded down to whole pages) and gives pages up (flush, evict) as the index and objects grow, down to 2.
    /// </summary>
    public long MemoryBytes { get; set; } = 256L << 20;
    /// <summary>Count live and expiring keys per class: the first two bytes of the key (the server's database id).</summary>
    public bool KeyClasses { get; set; }
    /// <summary>Turns object values into bytes and back (null: byte values only).</summary>
    public Objects.IObjectSerializer? ObjectSerializer { get; set; }
    /// <summary>log2 of the page size.</summary>
    public int PageBits { get; set; } = 22;
    /// <summary>log2 of the segment-file size (at least PageBits).</summary>
    public int SegmentBits { get; set; } = 30;
    /// <summary>Initial hash index buckets (a power of two; 64 bytes each). The index doubles online as keys are added.</summary>
    public long IndexBuckets { get; set; } = 1 << 16;
    public double MutableFraction { get; set; } = 0.9;
    /// <summary>Pure cache mode: evicted records are gone (no disk tier).</summary>
    public bool NullDevice { get; set; }
    /// <summary>Log segments bypass the OS page cache (O_DIRECT) where the OS allows it (pages of 4 KB or more).</summary>
    public bool UnbufferedIo { get; set; } = true;
    /// <summary>Second chance: a record read from disk is copied to the tail so it stays hot.</summary>
    public bool CopyReadsFromDiskToTail { get; set; } = true;
    /// <summary>Disk reads in flight at most: each runs on its own reader thread (DiskReaders), started as needed.</summary>
    public int ReadQueueDepth { get; set; } = 64;

    /// <summary>How disk reads are done: io_uring where available (Auto), or a thread per read in flight.</summary>
    public DiskReadMode DiskReadMode { get; set; } = DiskReadMode.Auto;
    /// <summary>Current time in Unix ms, for expiration (replaceable in tests).</summary>
    public Func<long> Clock { get; set; } = () => DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
}

public sealed unsafe class KVStore : IDisposable
{
    private long _liveKeys;
    private bool _disposed;

    public KVStore(KVStoreSettings settings)
    {
        if (settings.SegmentBits < settings.PageBits) throw new ArgumentException("SegmentBits must be at least PageBits");
        Settings = settings;
        Epoch = new EpochProtection();
        // Unbuffered I/O needs whole aligned sectors: pages of at least 4 KB.
        bool unbuffered = settings.UnbufferedIo && (1 << settings.PageBits) >= SegmentedFileDevice.DirectAlignment;
        Readers = new DiskReaders(settings.ReadQueueDepth, settings.DiskReadMode);
        Device = settings.NullDevice ? new NullDevice() : new SegmentedFileDevice(settings.Directory, "log", settings.SegmentBits, unbuffered, Readers);
        int pages = (int)Math.Max(2, settings.MemoryBytes >> settings.PageBits);
        Log = new HybridLog(new HybridLogSettings { PageBits = settings.PageBits, MemoryPages = pages, MutableFraction = settings.MutableFraction }, Epoch, Device);
        Index = new HashIndex(settings.IndexBuckets, Epoch, TraceRecord, () => Log.BeginAddress) { TailAddress = () => Log.TailAddress };
        Objects = new ObjectHeap(Log.BufferPages, Log.PageSize, settings.ObjectSerializer);
        if (Objects.Enabled && Device.Persistent) ObjectLog = new ObjectLog(settings.Directory, settings.SegmentBits, Readers);
        Log.MemoryBudget = settings.MemoryBytes;
        Admission = new ReadAdmission(settings.MemoryBytes);
        // A doubling of the index waits until the log has given back the pages its new table needs (Index.WantedBytes
        // counts against the log meanwhile): the old and new tables exist together while it splits.
        Log.OtherMemoryBytes = () => Index.MemoryBytes + Index.WantedBytes + Objects.TotalBytes + Admission.MemoryBytes;
        Index.MayGrow = Log.TryMakeRoomForOthers;
        Log.PagesClosing = OnPagesClosing;
        Log.TailPageIsHeavy = page => Objects.FrameBytes(Log.FrameOf(Log.PageStart(page))) >= Math.Max(Log.PageSize, settings.MemoryBytes / 8);
        if (ObjectLog is not null) Log.PageFlushing = page => ObjectFlush.SerializePageAsync(this, page);
        Clock = settings.Clock;
        if (settings.KeyClasses)
        {
            _classLive = new long[1 << 16];
            _classExpiring = new long[1 << 16];
        }
    }

    public KVStoreSettings Settings { get; }
    public EpochProtection Epoch { get; }
    public HashIndex Index { get; }

    /// <summary>Which reads copy their record to the tail (ReadAdmission).</summary>
    internal ReadAdmission Admission { get; }
    public HybridLog Log { get; }
    public IStorageDevice Device { get; }

    /// <summary>The threads that read the log and the object log (reads in flight, reads done).</summary>
    public DiskReaders Readers { get; }
    /// <summary>Space of deleted records, offered to new keys.</summary>
    public FreeRecordPool FreeRecords { get; } = new();
    /// <summary>The objects of object records in memory.</summary>
    public ObjectHeap Objects { get; }
    /// <summary>Serialized objects of flushed pages (null without a serializer or with the null device).</summary>
    public ObjectLog? ObjectLog { get; }
    internal Func<long> Clock { get; }

    /// <summary>Keys whose newest record is not a tombstone (exact; O(1)).</summary>
    public long LiveKeyCount => Interlocked.Read(ref _liveKeys);

    private long _expiringKeys;
    private readonly long[]? _classLive, _classExpiring;

    /// <summary>Live keys whose newest record has an expiration (expired or not: Redis's "expires").</summary>
    public long ExpiringKeyCount => Interlocked.Read(ref _expiringKeys);

    /// <summary>The class of a key when KeyClasses is set: its first two bytes, big-endian (e.g. a database id).</summary>
    private static int ClassOf(ReadOnlySpan<byte> key) => key.Length >= 2 ? (key[0] << 8) | key[1] : 0;

    /// <summary>LiveKeyCount of one key class (0 when classes are off).</summary>
    public long LiveKeyCountOf(int keyClass) => _classLive is null ? 0 : Interlocked.Read(ref _classLive[keyClass]);

    /// <summary>ExpiringKeyCount of one key class.</summary>
    public long ExpiringKeyCountOf(int keyClass) => _classExpiring is null ? 0 : Interlocked.Read(ref _classExpiring[keyClass]);

    /// <summary>Accounts for a change of a key's newest record: live or not, with an expiration or not.</summary>
    internal void CountKey(ReadOnlySpan<byte> key, bool wasLive, bool wasExpiring, bool isLive, bool isExpiring)
    {
        int live = (isLive ? 1 : 0) - (wasLive ? 1 : 0);
        int expiring = (isLive && isExpiring ? 1 : 0) - (wasLive && wasExpiring ? 1 : 0);
        if (live != 0) Interlocked.Add(ref _liveKeys, live);
        if (expiring != 0) Interlocked.Add(ref _expiringKeys, expiring);
        if (_classLive is null || (live == 0 && expiring == 0)) return;
        int c = ClassOf(key);
        if (live != 0) Interlocked.Add(ref _classLive[c], live);
        if (expiring != 0) Interlocked.Add(ref _classExpiring![c], expiring);
    }

    // ------------------------------------------------------------------------------------------------------
    // Snapshot points (checkpoint support)
    // ------------------------------------------------------------------------------------------------------

    private int _writesPaused;
    private long _version;
    private readonly SemaphoreSlim _snapshotLock = new(1, 1);

    /// <summary>Snapshots taken so far; records below the last SnapshotPoint.Address belong to versions up to this one.</summary>
    public long Version => Interlocked.Read(ref _version);

    internal bool WritesPaused => Volatile.Read(ref _writesPaused) != 0;

    /// <summary>Called by writers at the top of each attempt (holding no log pointer): waits out a snapshot's pause.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void WaitWhileWritesPaused()
    {
        if (Volatile.Read(ref _writesPaused) == 0) return;
        var spin = new SpinWait();
        while (Volatile.Read(ref _writesPaused) != 0)
        {
            Epoch.Refresh(); // lets the snapshot's epoch barrier pass
            spin.SpinOnce(-1);
        }
    }

    /// <summary>
    /// Takes a consistent point-in-time cut of the store while writes go on: writes pause for one epoch barrier (every
    /// write op that started before the pause finishes, none starts), the tail page is closed and the read-only mark moved
    /// to the end of it, then writes resume. Every record below the returned address is then immutable, and together
    /// they are exactly the store's state at the pause (no later write lands below it: updates of those records copy
    /// to the tail, and freed space is reused only in the mutable region). Completes when that prefix is on the device.
    /// </summary>
    public Task<SnapshotPoint> TakeSnapshotPointAsync(CancellationToken cancellation = default) =>
        StoreIo.TakeSnapshotPoint(this, null, cancellation);

    /// <summary>As TakeSnapshotPointAsync; onCut runs once the cut is made and writes have resumed, before the wait for
    /// the flush (a caller that stopped its own writers around the cut lets them go there).</summary>
    public Task<SnapshotPoint> TakeSnapshotPointAsync(Action<SnapshotPoint> onCut, CancellationToken cancellation = default) =>
        StoreIo.TakeSnapshotPoint(this, onCut, cancellation);

    internal SemaphoreSlim SnapshotLock => _snapshotLock;
    // A count: a snapshot and a Clear may pause writes at the same time.
    internal void PauseWrites() => Interlocked.Increment(ref _writesPaused);
    internal void ResumeWrites() => Interlocked.Decrement(ref _writesPaused);

    /// <summary>With writes paused and drained: closes the tail page, makes everything below read-only, names the cut.</summary>
    internal SnapshotPoint CutWhilePaused()
    {
        long boundary = Log.CloseTailPageForSnapshot();
        Log.ShiftReadOnly(boundary);
        return new SnapshotPoint(Interlocked.Increment(ref _version), boundary, Log.BeginAddress, LiveKeyCount,
            ObjectLog?.TailAddress ?? 0, DateTimeOffset.UtcNow);
    }

    /// <summary>True when the record of key at address is the key's newest record now (no newer one anywhere in the log).
    /// A caller that must act on the answer keeps writers of the key out meanwhile.</summary>
    public ValueTask<bool> IsNewestRecordAsync(byte[] key, long address) =>
        KeyIterator.IsNewestKeyRecordBelowAsync(this, key, address, long.MaxValue);

    /// <summary>Completes once every operation in flight when it was called has finished (records below the tail of that
    /// moment are then completely written).</summary>
    public Task WaitForOperationsInFlightAsync() => EpochBarrierAsync();

    /// <summary>WaitForOperationsInFlightAsync for a thread that may block (a background job): no timer or thread-pool hop.
    /// False when timeout passed first.</summary>
    public bool WaitForOperationsInFlight(TimeSpan timeout)
    {
        // Not disposed: after a timeout the epoch action may still run, later, on another thread.
        var done = new ManualResetEventSlim(false, spinCount: 0);
        Epoch.BumpCurrentEpoch(done.Set);
        long deadline = Environment.TickCount64 + (long)timeout.TotalMilliseconds;
        // Threads in operations run the action when they leave; if none is left to do it, nudge the drain.
        while (!done.Wait(1))
        {
            Epoch.WaitForPendingActions(TimeSpan.Zero);
            if (Environment.TickCount64 >= deadline) return done.IsSet;
        }
        return true;
    }

    /// <summary>Completes once every thread that was inside an operation when it was called has left it.</summary>
    internal Task EpochBarrierAsync()
    {
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Epoch.BumpCurrentEpoch(() => done.TrySetResult());
        return StoreIo.WaitForBarrier(Epoch, done.Task);
    }

    // ------------------------------------------------------------------------------------------------------
    // Clear (drop every key at once)
    // ------------------------------------------------------------------------------------------------------

    private long _clears;

    /// <summary>Times Clear has run. An iterator started before a Clear that ended after it has seen part of the keys at
    /// most (KeyIterator.OvertakenByClear).</summary>
    public long Clears => Interlocked.Read(ref _clears);

    /// <summary>
    /// Drops every key at once, as if each had been deleted, without writing anything: the log's begin moves to the tail
    /// (the next write starts a fresh page), the pages below leave memory without being flushed and their frames go back
    /// to the OS, the segment files below are deleted, the index is replaced by an empty one of its initial size, and the
    /// key counts are zero. Safe while operations run: writes wait for it (as for a snapshot); a read that began before
    /// it may still return what it found. Blocks for two epoch barriers; the caller must not hold epoch protection.
    /// </summary>
    public void Clear() => StoreClear.Run(this);

    internal void CountClear() => Interlocked.Increment(ref _clears);
    internal object ClearLock { get; } = new();

    /// <summary>Every key count to zero (Clear, with writes paused and drained).</summary>
    internal void ZeroKeyCounts()
    {
        Interlocked.Exchange(ref _liveKeys, 0);
        Interlocked.Exchange(ref _expiringKeys, 0);
        if (_classLive is not null) Array.Clear(_classLive);
        if (_classExpiring is not null) Array.Clear(_classExpiring);
    }

    // ------------------------------------------------------------------------------------------------------
    // Disk housekeeping
    // ------------------------------------------------------------------------------------------------------

    /// <summary>
    /// Deletes the oldest segment files while they hold no live record (see SegmentReclaimer). Returns the bytes of log
    /// address space dropped. Safe while operations run.
    /// </summary>
    public Task<long> ReclaimDeadSegmentsAsync(CancellationToken cancellation = default) => SegmentReclaimer.ReclaimAsync(this, cancellation);

    /// <summary>
    /// Estimates how much of the on-disk part of [from, until) is live, from up to `windows` reads of `windowBytes` spread
    /// over it and a chain walk for each of up to maxRecords records in them; writes nothing (see LiveShareSampler).
    /// </summary>
    public Task<LiveShareSample> SampleLiveShareAsync(long from, long until, int windows = 16, int windowBytes = 16 << 10,
        int maxRecords = 1024, CancellationToken cancellation = default) =>
        LiveShareSampler.SampleAsync(this, from, until, windows, windowBytes, maxRecords, cancellation);

    private ExpiredRecordSweeper? _sweeper;

    /// <summary>Drops expired keys whose records are on disk and are their key's only live version, without writing (see
    /// ExpiredRecordSweeper); returns the keys dropped. Expired keys with older versions are left to compaction; expired
    /// sole versions below another key's record are added to buried (when given), for the caller to delete
    /// (StoreSession.DeleteIfExpired with lookOnDisk).
    /// With waitForSweep, a sweep in progress is waited for and then this one runs; otherwise this call returns 0 at once.</summary>
    public Task<long> DropExpiredOnDiskAsync(List<byte[]>? buried = null, CancellationToken cancellation = default, bool waitForSweep = false) =>
        EnsureSweeper().SweepAsync(buried, waitForSweep, cancellation);

    /// <summary>The on-disk expiry sweep's figures (ExpiredRecordSweeper.Figures); zeros before the first sweep.</summary>
    public (long Sweeps, long PagesRead, long HandedOut, long LastSweepMs, long RunningSince) ExpirySweepFigures =>
        Volatile.Read(ref _sweeper) is { } s ? s.Figures : default;

    private ExpiredRecordSweeper EnsureSweeper()
    {
        if (Volatile.Read(ref _sweeper) is { } s) return s;
        Interlocked.CompareExchange(ref _sweeper, new ExpiredRecordSweeper(this), null);
        return _sweeper!;
    }

    /// <summary>
    /// For an immutable record at address that the caller found expired, a sole version and not a tombstone: when it is still
    /// the head of its key's index chain, unlinks it (the entry moves to previousAddress) and counts the key out. Caller holds
    /// the epoch.
    /// </summary>
    internal DropOutcome TryDropExpiredHead(ReadOnlySpan<byte> key, long address, long previousAddress)
    {
        ulong hash = Util.KeyHash.Hash(key);
        if (!Index.TryFind(hash, out var slot, out long entry) || entry < address) return DropOutcome.Unreachable;
        if (entry > address) return DropOutcome.NotHead;
        if (!HashIndex.TryUpdate(slot, HashIndex.TagOf(hash), address, previousAddress)) return DropOutcome.NotHead;
        CountKey(key, wasLive: true, wasExpiring: true, isLive: false, isExpiring: false);
        return DropOutcome.Dropped;
    }

    internal enum DropOutcome { Dropped, NotHead, Unreachable }

    /// <summary>False when the record at address can never again be reached from the index (its chain's entry lies below
    /// it; see ExpiredRecordSweeper); true when it may be. Caller holds the epoch.</summary>
    internal bool MayReach(ReadOnlySpan<byte> key, long address) =>
        Index.TryFind(Util.KeyHash.Hash(key), out _, out long entry) && entry >= address;

    /// <summary>The expiry sweep's verdict on [from, to) for the segment reclaimer (see ExpiredRecordSweeper.TryGetSuspects).</summary>
    internal bool TryGetSweptSuspects(long from, long to, List<(long Address, byte[] Key)> suspects) =>
        _sweeper is { } s && s.TryGetSuspects(from, to, Clock(), suspects);

    private readonly System.Collections.Concurrent.ConcurrentDictionary<long, long> _objectLogStartOfPage = new();

    /// <summary>Moves BeginAddress (records below become unreachable, whole segments are deleted), and the object log with it.</summary>
    internal void DropLogBelow(long address)
    {
        Log.ShiftBeginAddress(address);
        if (ObjectLog is null) return;
        long firstKeptPage = Log.PageOf(address);
        long keepFrom;
        lock (_objectLogStartOfPage)
        {
            keepFrom = ObjectLog.TailAddress;
            foreach (var (page, start) in _objectLogStartOfPage)
            {
                if (page < firstKeptPage) _objectLogStartOfPage.TryRemove(page, out _);
                else keepFrom = Math.Min(keepFrom, start);
            }
        }
        ObjectLog.TruncateBelow(keepFrom);
    }

    /// <summary>Reserves object log space for a page being flushed and remembers where that page's objects start.</summary>
    internal long AllocateObjectLog(long page, long length)
    {
        lock (_objectLogStartOfPage)
        {
            long at = ObjectLog!.Allocate(length);
            _objectLogStartOfPage[page] = at;
            return at;
        }
    }

    private int _activeIterators;
    /// <summary>KeyIterators running now; while there are any, replaced records are not unlinked for reuse.</summary>
    public int ActiveIterators => Volatile.Read(ref _activeIterators);
    internal void IteratorStarted() => Interlocked.Increment(ref _activeIterators);
    internal void IteratorStopped() => Interlocked.Decrement(ref _activeIterators);

    /// <summary>Memory the budget counts: the index, the log pages in memory and the object heap.</summary>
    public long MemoryBytes => Index.MemoryBytes + Log.MemoryBytes + Objects.TotalBytes;

    public StoreSession<TInput, TOutput, TFunctions> NewSession<TInput, TOutput, TFunctions>(TFunctions functions)
        where TFunctions : struct, IStoreFunctions<TInput, TOutput>
        => new(this, functions);

    internal enum Search { Found, NotFound, OnDisk }

    /// <summary>
    /// Walks the chain from address down to (not including) stopAddress looking for key in memory.
    /// OnDisk: the chain continues below HeadAddress at the returned address.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal Search FindInMemory(ReadOnlySpan<byte> key, long address, long stopAddress, out long found, out byte* record) =>
        FindInMemory(-1, key, address, stopAddress, out found, out record);

    /// <summary>FindInMemory for the stored key made of prefix (2 bytes, big-endian) and key; with prefix -1, for key
    /// itself.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal Search FindInMemory(int prefix, ReadOnlySpan<byte> key, long address, long stopAddress, out long found, out byte* record)
    {
        long head = Log.HeadAddress, begin = Log.BeginAddress;
        while (address >= begin && address > stopAddress)
        {
            if (address < head)
            {
                found = address;
                record = null;
                return Search.OnDisk;
            }
            byte* r = Log.GetPhysical(address);
            ulong info = Volatile.Read(ref RecordLayout.Info(r));
            if ((info & RecordInfo.Invalid) == 0 && (prefix < 0 ? RecordLayout.Key(r).SequenceEqual(key) : IsPrefixedKey(RecordLayout.Key(r), prefix, key)))
            {
                found = address;
                record = r;
                return Search.Found;
            }
            address = RecordInfo.PreviousAddress(info);
        }
        found = 0;
        record = null;
        return Search.NotFound;
    }

    private static bool IsPrefixedKey(ReadOnlySpan<byte> stored, int prefix, ReadOnlySpan<byte> key) =>
        stored.Length == key.Length + 2 && System.Buffers.Binary.BinaryPrimitives.ReadUInt16BigEndian(stored) == prefix
        && stored.Slice(2).SequenceEqual(key);

    /// <summary>For index growth: the key hash and previous address of an in-memory record (false when on disk).</summary>
    private bool TraceRecord(long address, out ulong keyHash, out long previousAddress, out bool invalid)
    {
        if (address < Log.HeadAddress)
        {
            keyHash = 0; previousAddress = 0; invalid = false;
            return false;
        }
        byte* r = Log.GetPhysical(address);
        ulong info = Volatile.Read(ref RecordLayout.Info(r));
        previousAddress = RecordInfo.PreviousAddress(info);
        invalid = (info & RecordInfo.Invalid) != 0;
        keyHash = Util.KeyHash.Hash(RecordLayout.Key(r));
        return true;
    }

    /// <summary>
    /// Runs as an epoch action before pages [from, to) are closed: every op that saw them in memory has finished, and
    /// later ops see them as gone. Their objects are dropped (on disk they live in the object log).
    /// </summary>
    private void OnPagesClosing(long from, long to)
    {
        // Pure cache mode: an evicted record is gone, so a key whose newest record leaves memory stops existing.
        if (Settings.NullDevice) CountOutEvictedKeys(from, to);
        if (Objects.Enabled)
            for (long p = Log.PageOf(from); p < Log.PageOf(to); p++) Objects.ClearFrame(Log.FrameOf(Log.PageStart(p)));
    }

    /// <summary>Each live record of [from, to) that is still its key's newest leaves the live count.</summary>
    private void CountOutEvictedKeys(long from, long to)
    {
        long a = Math.Max(from, HybridLog.FirstValidAddress);
        while (a < to)
        {
            long pageEnd = Log.PageStart(Log.PageOf(a) + 1);
            if (pageEnd - a < RecordLayout.HeaderSize) { a = pageEnd; continue; }
            byte* r = Log.GetPhysical(a);
            if (!RecordLayout.IsPresent(r)) { a = pageEnd; continue; }
            ulong info = Volatile.Read(ref RecordLayout.Info(r));
            if ((info & (RecordInfo.Invalid | RecordInfo.Tombstone)) == 0 && IsNewestInMemory(r, a, from))
                CountKey(RecordLayout.Key(r), true, RecordLayout.HasExpiration(r), false, false);
            a += RecordLayout.TotalSize(r);
        }
    }

    /// <summary>True when no valid record of r's key lies above address (walking the chain from the index entry).</summary>
    private bool IsNewestInMemory(byte* r, long address, long closingFrom)
    {
        var key = RecordLayout.Key(r);
        long a = Index.PeekAddress(Util.KeyHash.Hash(key));
        while (a > address)
        {
            if (a < closingFrom) return true; // cannot happen (the chain only goes down); be safe
            byte* c = Log.GetPhysical(a);
            ulong info = Volatile.Read(ref RecordLayout.Info(c));
            if ((info & RecordInfo.Invalid) == 0 && RecordLayout.Key(c).SequenceEqual(key)) return false;
            a = RecordInfo.PreviousAddress(info);
        }
        return a == address;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool IsExpired(byte* record)
    {
        if (!RecordLayout.HasExpiration(record)) return false;
        return RecordLayout.Expiration(record) <= Clock();
    }

    /// <summary>Bytes of the record at the start of bytes (0 when there is no record header).</summary>
    internal static int RecordSizeOf(byte[] bytes)
    {
        fixed (byte* p = bytes) return RecordSizeOf(p, bytes.Length);
    }

    /// <summary>Bytes of the record at p, of which length bytes are there (0 when there is no record header).</summary>
    internal static int RecordSizeOf(byte* p, int length) =>
        length >= RecordLayout.HeaderSize && RecordLayout.IsPresent(p) ? RecordLayout.TotalSize(p) : 0;

    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        Log.Dispose();
        ObjectLog?.Dispose();
        Index.Dispose();
        Device.Dispose();
        Readers.Dispose();
        Epoch.Dispose();
    }
}

/// <summary>The store's awaiting code, kept out of unsafe classes.</summary>
internal static class StoreIo
{
    /// <summary>First guess of a record's size when reading it from disk (most records are small).</summary>
    public const int FirstReadSize = 512;

    /// <summary>The device's block (sector) size for reads.</summary>
    private const int BlockSize = 4096;

    /// <summary>How much of the record at address a pending operation reads first: the rest of its 4 KB block, which costs
    /// the device no more than its first bytes (an unbuffered read covers whole blocks anyway) and mostly holds the whole
    /// record, so one read instead of two; at least FirstReadSize, never past the page's end.</summary>
    public static int FirstReadLength(HybridLog log, long address)
    {
        int untilPageEnd = log.PageSize - (int)(address & (log.PageSize - 1));
        return Math.Min(Math.Max(FirstReadSize, BlockSize - (int)(address & (BlockSize - 1))), untilPageEnd);
    }

    /// <summary>Reads an object's bytes from the object log and deserializes them (on the I/O completion thread).</summary>
    public static async void ReadObject(KVStore store, long address, int length, Action<object?, Exception?> done)
    {
        object? value = null;
        Exception? error = null;
        byte[]? buffer = null;
        try
        {
            var log = store.ObjectLog ?? throw new IOException("an object record was read from disk but the store has no object log");
            if (length > LargeObjectRead)
            {
                // Large: read into an array of exactly its length and give it to the object (no pooled copy that the
                // shared pool would keep for good, and no second copy when the object can keep the array).
                var owned = GC.AllocateUninitializedArray<byte>(length);
                if (!await log.ReadAsync(address, owned).ConfigureAwait(false))
                    throw new IOException($"object log holds no {length} bytes at {address}");
                value = store.Objects.Serializer.DeserializeOwned(owned);
            }
            else
            {
                buffer = System.Buffers.ArrayPool<byte>.Shared.Rent(Math.Max(length, 1));
                if (!await log.ReadAsync(address, buffer.AsMemory(0, length)).ConfigureAwait(false))
                    throw new IOException($"object log holds no {length} bytes at {address}");
                value = store.Objects.Serializer.Deserialize(buffer.AsSpan(0, length));
            }
        }
        catch (Exception ex) { error = ex; }
        finally { if (buffer is not null) System.Buffers.ArrayPool<byte>.Shared.Return(buffer); }
        if (error is null) store.Objects.NoteObjectRead();
        // async void: an exception escaping here would end the process (StorageFaults.Complete contains it).
        Util.StorageFaults.Complete("object-read-completion", "an object read's completion", (done, value, error),
            static s => s.done(s.value, s.error), static (s, ex) => s.done(null, ex));
    }

    /// <summary>Objects serialized into more than this many bytes are read into an array of their own.</summary>
    public const int LargeObjectRead = 64 << 10;

    public static async ValueTask<byte[]> LoadObjectBytesAsync(KVStore store, long address, int length)
    {
        var log = store.ObjectLog ?? throw new IOException("an object record was read from disk but the store has no object log");
        var buffer = GC.AllocateUninitializedArray<byte>(length);
        if (!await log.ReadAsync(address, buffer).ConfigureAwait(false)) throw new IOException($"object log holds no {length} bytes at {address}");
        return buffer;
    }

    public static async Task<SnapshotPoint> TakeSnapshotPoint(KVStore store, Action<SnapshotPoint>? onCut, CancellationToken cancellation)
    {
        await store.SnapshotLock.WaitAsync(cancellation).ConfigureAwait(false);
        try
        {
            SnapshotPoint point;
            store.PauseWrites();
            try
            {
                await store.EpochBarrierAsync().ConfigureAwait(false);
                point = store.CutWhilePaused();
            }
            finally { store.ResumeWrites(); }
            onCut?.Invoke(point);
            await store.Log.WaitUntilFlushedAsync(point.Address, cancellation).ConfigureAwait(false);
            return point;
        }
        finally { store.SnapshotLock.Release(); }
    }

    public static async Task WaitForBarrier(EpochProtection epoch, Task done)
    {
        // Threads in operations run the action when they leave; if none is left to do it, nudge the drain.
        while (!done.IsCompleted)
        {
            epoch.WaitForPendingActions(TimeSpan.Zero);
            await Task.WhenAny(done, Task.Delay(1)).ConfigureAwait(false);
        }
    }

    public static async Task CompleteAsync(Func<bool> tryComplete, IoWakeup signal)
    {
        // Every op left unfinished has a read in flight whose completion Sets the signal after marking the op done.
        while (!tryComplete()) await signal.WaitAsync().ConfigureAwait(false);
    }

    /// <summary>Reads the whole record at a disk address (a second read when it is larger than the first guess).</summary>
    public static async ValueTask<byte[]> ReadRecordAsync(HybridLog log, long address)
    {
        int pageSize = log.PageSize;
        int untilPageEnd = pageSize - (int)(address & (pageSize - 1));
        int first = Math.Min(4096, untilPageEnd);
        var bytes = await log.ReadFromDeviceAsync(address, first).ConfigureAwait(false);
        int total = KVStore.RecordSizeOf(bytes);
        if (total > first && total <= untilPageEnd) bytes = await log.ReadFromDeviceAsync(address, total).ConfigureAwait(false);
        return bytes;
    }
}
