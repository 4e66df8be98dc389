// KeyIterator: visits every live key once, in log order, across memory and disk.
// Rule: the iterator fixes End = TailAddress when it starts, and yields a record iff it is the newest record of its
// key below End and is neither a tombstone nor expired. Records of a key written after the start are at or above
// End, so they never make an older record "not newest": a key live for the whole iteration is yielded exactly once,
// even when it is updated meanwhile; a key is never yielded twice.
// Invariants:
//  - Before scanning, the iterator waits (one epoch bump) until every thread that could have allocated below End
//    has finished writing its record, so no half-written record is mistaken for the end of a page.
//  - Memory pages are scanned under epoch protection without awaiting; disk pages are read a page at a time.
//  - Cursor is the log address to resume from; a new iterator given (Cursor, End) continues where one stopped.
//  - While an iterator is registered (from construction until it is done or disposed), writers do not unlink
//    replaced records for reuse (that could hide a key's only record below End). End is fixed only after one
//    epoch barrier following the registration, so no writer that missed the registration can be left writing.
//    Between two iterator objects resuming one iteration, that promise does not hold: keys can then be missed
//    only if they were replaced meanwhile by a copy at or above End.
//  - A KVStore.Clear after the iterator began drops every record below End (the cut is at or above the tail): the
//    iteration ends at the next batch (OvertakenByClear tells a caller that needed every key of the start, such as a
//    checkpoint, that it did not get them).
using Garnet.storage.Log;

namespace Garnet.storage.Store;

/// <summary>
/// A copy of a live record, as the iterator yields it. For an object record (IsObject), Value holds the object as the
/// store's serializer wrote it (a snapshot: the live object may change on). It may be the object's own serialized array
/// (IObjectSerializer.TryGetSerialized): never modify it.
/// </summary>
/// <summary>A record yielded by a scan; Kind is its kind tag (RecordRef.ObjectKind), for byte records too.</summary>
public readonly record struct IteratedRecord(long Address, byte[] Key, byte[] Value, long Expiration, bool IsObject = false, byte Kind = 0);

public sealed class KeyIterator : IDisposable
{
    private readonly KVStore _store;
    private readonly HybridLog _log;
    private bool _ready;
    private int _registered;

    ~KeyIterator() => Dispose(); // an abandoned iterator must not keep writers from unlinking for ever

    private readonly long _clearsAtStart;

    public KeyIterator(KVStore store, long startAddress = 0, long endAddress = 0)
    {
        _store = store;
        _log = store.Log;
        _clearsAtStart = store.Clears;
        store.IteratorStarted();
        _registered = 1;
        EpochBarrier();
        End = endAddress > 0 ? endAddress : _log.TailAddress;
        // Scans start at a page boundary (a cursor from elsewhere may point into a record).
        Cursor = Math.Max(_log.PageStart(_log.PageOf(startAddress)), _log.BeginAddress);
    }

    /// <summary>Also yield records that have expired (they still count as keys until deleted).</summary>
    public bool IncludeExpired { get; init; }

    /// <summary>Where the expiry sweep has a verdict on an on-disk page, take only its suspects (no chain walks for the
    /// rest). False: walk the chain of every record (a check that does not rely on the sweep; compaction's fallback).</summary>
    public bool UseSweepVerdicts { get; init; } = true;

    /// <summary>When above 0: yield only records that have expired by this time (Unix ms); the others are skipped before
    /// any chain walk.</summary>
    public long ExpiredBy { get; init; }

    /// <summary>When 0 or more: yield only records of this kind tag (RecordRef.ObjectKind); the objects of other kinds are
    /// neither serialized nor loaded from disk.</summary>
    public int OnlyKind { get; init; } = -1;

    /// <summary>Stops the iteration early (lets writers unlink replaced records again).</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _registered, 0) == 1) _store.IteratorStopped();
        GC.SuppressFinalize(this);
    }

    /// <summary>Exclusive end of the scan (the tail when the iteration began).</summary>
    public long End { get; }

    /// <summary>Next address to scan; equals End when the iteration is complete.</summary>
    public long Cursor { get; private set; }

    public bool Done => Cursor >= End;

    /// <summary>The store was cleared after this iterator began: the records below End are gone, so the iteration yielded
    /// only part of them (or none) and ends.</summary>
    public bool OvertakenByClear => _store.Clears != _clearsAtStart;

    private void WaitForWritersBelowEnd()
    {
        if (_ready) return;
        EpochBarrier();
        _ready = true;
    }

    /// <summary>Returns once every thread that was in an operation when this was called has finished it.</summary>
    private void EpochBarrier()
    {
        var done = new ManualResetEventSlim();
        _store.Epoch.BumpCurrentEpoch(done.Set);
        bool protectedHere = _store.Epoch.ThisThreadProtected;
        while (!done.IsSet)
        {
            if (protectedHere) _store.Epoch.Refresh();
            else _store.Epoch.WaitForPendingActions(TimeSpan.FromMilliseconds(10));
            done.Wait(1);
        }
    }

    /// <summary>Records looked at so far (live or not): the work done, which a log of mostly garbage makes much more than
    /// the records returned.</summary>
    public long RecordsSeen { get; private set; }

    /// <summary>Adds up to about max live records from the cursor on, reading at most maxPages log pages (so a call's work
    /// is bounded where most records are garbage); returns false when the iteration is complete.</summary>
    public async ValueTask<bool> NextBatchAsync(List<IteratedRecord> batch, int max = 1024, int maxPages = int.MaxValue)
    {
        WaitForWritersBelowEnd();
        int target = batch.Count + max;
        for (int pages = 0; batch.Count < target && Cursor < End && pages < maxPages; pages++)
        {
            if (OvertakenByClear)
            {
                Cursor = End; // nothing below End is left (the clear's cut is at or above it)
                break;
            }
            try
            {
                long page = _log.PageOf(Cursor);
                long pageEnd = Math.Min(_log.PageStart(page + 1), End);
                var candidates = new List<(long address, byte[] record, byte[]? obj)>();
                if (!IteratorScan.ScanInMemory(_store, Cursor, pageEnd, candidates, OnlyKind))
                {
                    // The page is on disk: read what is left of it in one I/O and scan the copy.
                    var bytes = await _log.ReadFromDeviceAsync(Cursor, (int)(pageEnd - Cursor)).ConfigureAwait(false);
                    IteratorScan.ScanBuffer(bytes, Cursor, candidates);
                    if (OnlyKind >= 0) candidates.RemoveAll(c => IteratorScan.KindOf(c.record) != OnlyKind);
                    // Where the expiry sweep has a verdict on the page, everything but its suspects is garbage: no chain walks.
                    var suspects = new List<(long Address, byte[] Key)>();
                    if (UseSweepVerdicts && _store.TryGetSweptSuspects(_log.PageStart(page), _log.PageStart(page + 1), suspects))
                    {
                        var keep = suspects.Select(s => s.Address).ToHashSet();
                        RecordsSeen += candidates.Count;
                        candidates.RemoveAll(c => !keep.Contains(c.address));
                        RecordsSeen -= candidates.Count;
                    }
                }
                if (ExpiredBy > 0) candidates.RemoveAll(c => !IteratorScan.ExpiredBy(c.record, ExpiredBy));
                RecordsSeen += candidates.Count;
                foreach (var (address, record, obj) in candidates)
                {
                    if (!await IsNewestBelowEndAsync(record, address).ConfigureAwait(false)) continue;
                    var value = obj;
                    if (value is null && IteratorScan.ObjectOnDisk(record, out long objectAddress, out int objectLength))
                        value = await StoreIo.LoadObjectBytesAsync(_store, objectAddress, objectLength).ConfigureAwait(false);
                    IteratorScan.AddIfLive(_store, record, address, value, batch, IncludeExpired);
                }
                Cursor = pageEnd;
            }
            catch (Exception) when (OvertakenByClear)
            {
                Cursor = End; // a read of a segment the clear deleted: nothing there is wanted any more
                break;
            }
        }
        if (Cursor >= End) Dispose();
        return Cursor < End;
    }

    /// <summary>Every record NextBatchAsync yields, up to max per call and maxPages pages per call (so cancellation is
    /// checked between calls, even where a log of mostly garbage yields few records).</summary>
    public async IAsyncEnumerable<IteratedRecord> RecordsAsync(int max, int maxPages,
        [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancel = default)
    {
        var batch = new List<IteratedRecord>();
        bool more = true;
        while (more)
        {
            cancel.ThrowIfCancellationRequested();
            batch.Clear();
            more = await NextBatchAsync(batch, max, maxPages).ConfigureAwait(false);
            foreach (var r in batch)
            {
                cancel.ThrowIfCancellationRequested();
                yield return r;
            }
        }
    }

    private ValueTask<bool> IsNewestBelowEndAsync(byte[] record, long address) => IsNewestBelowAsync(_store, record, address, End);

    /// <summary>True when no other record of the same key lies in (address, end) (walking the chain from the index).</summary>
    internal static ValueTask<bool> IsNewestBelowAsync(KVStore store, byte[] record, long address, long end) =>
        IsNewestKeyRecordBelowAsync(store, IteratorScan.KeyOf(record), address, end);

    internal static async ValueTask<bool> IsNewestKeyRecordBelowAsync(KVStore store, byte[] key, long address, long end)
    {
        long next = IteratorScan.WalkInMemory(store, key, Util.KeyHash.Hash(key), address, end, out bool resolved, out bool newest);
        while (!resolved)
        {
            // The chain continues on disk above our record: read records until we meet the key or reach our record.
            if (next < store.Log.BeginAddress) return false;
            var bytes = await StoreIo.ReadRecordAsync(store.Log, next).ConfigureAwait(false);
            var (valid, matches, previous) = IteratorScan.Inspect(bytes, key);
            if (!valid) return false;
            if (matches && next < end) return false;
            next = previous;
            if (next <= address) return next == address; // passed by: not in its chain
        }
        return newest;
    }
}

/// <summary>The iterator's pointer work, kept out of the async class.</summary>
internal static unsafe class IteratorScan
{
    /// <summary>Copies the valid records of [from, to) if that range is in memory; false when it is on disk.</summary>
    public static bool ScanInMemory(KVStore store, long from, long to, List<(long, byte[], byte[]?)> into, int onlyKind = -1)
    {
        var log = store.Log;
        store.Epoch.Acquire();
        try
        {
            if (from < log.HeadAddress) return false;
            long address = from;
            while (address < to)
            {
                byte* r = log.GetPhysical(address);
                if (!RecordLayout.IsPresent(r)) break; // rest of page unused
                int size = RecordLayout.TotalSize(r);
                ref ulong info = ref RecordLayout.Info(r);
                if ((Volatile.Read(ref info) & RecordInfo.Invalid) == 0 && (onlyKind < 0 || RecordLayout.ObjectKind(r) == onlyKind))
                {
                    // Where in-place updates may happen, copy under a shared lock. A sealed record takes no lock; it is
                    // immutable unless its seal is withdrawn (the copy failed to publish), so copy again if that happened.
                    bool mayChange = address >= log.SafeReadOnlyAddress;
                    while ((Volatile.Read(ref info) & RecordInfo.Invalid) == 0)
                    {
                        bool locked = mayChange && RecordInfo.TryLockShared(ref info);
                        byte[] copy;
                        byte[]? obj = null;
                        try
                        {
                            copy = new ReadOnlySpan<byte>(r, size).ToArray();
                            // Serialized under the lock (or immutable): the object cannot change meanwhile.
                            if (RecordLayout.IsObject(r) && store.Objects.Get(log.FrameOf(address), RecordLayout.ObjectSlot(r)) is { } o)
                            {
                                // An object that holds its serialized array (never changed) lends it: no copy.
                                if (!store.Objects.Serializer.TryGetSerialized(o, out obj))
                                {
                                    var w = new System.Buffers.ArrayBufferWriter<byte>();
                                    store.Objects.Serializer.Serialize(o, w);
                                    obj = w.WrittenSpan.ToArray();
                                }
                            }
                        }
                        finally { if (locked) RecordInfo.UnlockShared(ref info); }
                        if (locked || !mayChange || (Volatile.Read(ref info) & RecordInfo.Sealed) != 0) { into.Add((address, copy, obj)); break; }
                    }
                }
                address += size;
            }
            return true;
        }
        finally { store.Epoch.Release(); }
    }

    public static void ScanBuffer(byte[] bytes, long baseAddress, List<(long, byte[], byte[]?)> into) => ScanBuffer(bytes, bytes.Length, baseAddress, into);

    /// <summary>As ScanBuffer over the first length bytes (a pooled buffer may be longer).</summary>
    public static void ScanBuffer(byte[] bytes, int length, long baseAddress, List<(long, byte[], byte[]?)> into)
    {
        fixed (byte* start = bytes)
        {
            int offset = 0;
            while (offset + RecordLayout.HeaderSize <= length)
            {
                byte* r = start + offset;
                if (!RecordLayout.IsPresent(r)) break;
                int size = RecordLayout.TotalSize(r);
                if (size <= 0 || offset + size > length) break;
                if ((RecordInfo.Persistent(*(ulong*)r) & RecordInfo.Invalid) == 0)
                    into.Add((baseAddress + offset, new ReadOnlySpan<byte>(r, size).ToArray(), null));
                offset += size;
            }
        }
    }

    public static bool ExpiredBy(byte[] record, long nowMs)
    {
        fixed (byte* r = record) return RecordLayout.HasExpiration(r) && RecordLayout.Expiration(r) <= nowMs;
    }

    public static byte KindOf(byte[] record)
    {
        fixed (byte* r = record) return RecordLayout.ObjectKind(r);
    }

    public static bool IsTombstone(byte[] record)
    {
        fixed (byte* r = record) return (RecordInfo.Persistent(*(ulong*)r) & RecordInfo.Tombstone) != 0;
    }

    public static byte[] KeyOf(byte[] record)
    {
        fixed (byte* r = record) return RecordLayout.Key(r).ToArray();
    }

    /// <summary>Of a record read from disk: is it a record at all, is it key's, and its previous address.</summary>
    public static (bool valid, bool matches, long previous) Inspect(byte[] bytes, byte[] key)
    {
        if (KVStore.RecordSizeOf(bytes) < RecordLayout.HeaderSize) return (false, false, 0);
        fixed (byte* p = bytes) if (!RecordLayout.IsPresent(p)) return (false, false, 0);
        fixed (byte* r = bytes)
        {
            ulong info = RecordInfo.Persistent(*(ulong*)r);
            bool matches = (info & RecordInfo.Invalid) == 0 && RecordLayout.Key(r).SequenceEqual(key);
            return (true, matches, RecordInfo.PreviousAddress(info));
        }
    }

    /// <summary>
    /// Walks key's chain in memory from the index entry down to target. newest=true when the walk reaches target with
    /// no record of the key in (target, end). resolved=false: the walk must continue on disk at the returned address.
    /// </summary>
    public static long WalkInMemory(KVStore store, byte[] key, ulong hash, long target, long end, out bool resolved, out bool newest)
    {
        var log = store.Log;
        store.Epoch.Acquire();
        try
        {
            resolved = true;
            newest = false;
            if (!store.Index.TryFind(hash, out _, out long a)) return 0;
            long head = log.HeadAddress;
            while (a > target)
            {
                if (a < head) { resolved = false; return a; }
                byte* r = log.GetPhysical(a);
                ulong info = Volatile.Read(ref RecordLayout.Info(r));
                if (a < end && (info & RecordInfo.Invalid) == 0 && RecordLayout.Key(r).SequenceEqual(key))
                {
                    newest = false;
                    return 0;
                }
                a = RecordInfo.PreviousAddress(info);
            }
            newest = a == target; // passing it by means the record is not in its chain (never published, or unlinked)
            return 0;
        }
        finally { store.Epoch.Release(); }
    }

    public static void AddIfLive(KVStore store, byte[] record, long address, byte[]? obj, List<IteratedRecord> batch, bool includeExpired = false)
    {
        fixed (byte* r = record)
        {
            if ((RecordInfo.Persistent(*(ulong*)r) & RecordInfo.Tombstone) != 0) return;
            if (!includeExpired && store.IsExpired(r)) return;
            bool isObject = RecordLayout.IsObject(r);
            if (isObject && obj is null) return; // its object was dropped: the record was replaced meanwhile
            batch.Add(new IteratedRecord(address, RecordLayout.Key(r).ToArray(), isObject ? obj! : RecordLayout.Value(r).ToArray(), RecordLayout.Expiration(r), isObject, RecordLayout.ObjectKind(r)));
        }
    }

    /// <summary>For a live object record copied from disk: where its object's bytes are.</summary>
    public static bool ObjectOnDisk(byte[] record, out long address, out int length)
    {
        fixed (byte* r = record)
        {
            ulong info = RecordInfo.Persistent(*(ulong*)r);
            address = 0; length = -1;
            if ((info & (RecordInfo.ObjectValue | RecordInfo.Tombstone)) != RecordInfo.ObjectValue) return false;
            address = RecordLayout.ObjectDiskAddress(r);
            length = RecordLayout.ObjectDiskLength(r);
            return length >= 0;
        }
    }
}
