// HashIndex: maps a key's hash to the logical address of the newest record for that hash (tag) in the log.
// Layout: buckets of one 64-byte cache line = 7 entries + 1 overflow link; overflow buckets come from a pool.
// Entry (64 bits): [63] occupied (always 1, so no entry, even tag 0 with address 0, looks free) | [62] tentative |
//                  [61..48] tag (14 bits: hash bits 16..29) | [47..0] logical address. The home bucket is hash bits
//                  0..n-1 for 2^n buckets.
// Invariants:
//  - An entry word of 0 is free. Entries change only by CAS, so readers never lock.
//  - At most one non-tentative entry per tag in a bucket chain: an insert first publishes a tentative entry,
//    then scans the chain; if it finds another entry with its tag it withdraws and retries.
//  - Records whose keys share a bucket and tag are chained through the records' previous-address field in the
//    log; the index never compares keys.
//  - Growth (doubling) is online: Stable -> Announced (the new table is published; an op that sees it waits,
//    refreshing its epoch, holding nothing) -> Splitting (set by an epoch action: every op that used the old table
//    has finished) -> Stable on the new table. TryFind/FindOrCreate may therefore refresh the caller's epoch: callers
//    must not hold log pointers across them.
//    While Splitting, an op first makes sure the chunk of old buckets its hash maps to is split (splitting it
//    itself or waiting for the thread that is), then uses only the new table. A split that throws is undone and
//    done again; an op whose own splits of its chunk keep failing throws IndexSplitException (HashIndexGrowth.cs).
//    The old table is freed by an epoch action once nobody can hold a slot in it. A slot must not be used after the
//    caller's epoch refreshes.
//  - Reset (the store's Clear, with no writer running) puts a fresh table of the initial size in place; the old table
//    and its overflow buckets are given back by an epoch action, as after a growth, so a reader still walking them is safe.
//  - Doubling a table of 2^16 to 2^29 buckets splits on a tag bit, so each entry moves whole to one half
//    (SplitBucketByTag). A smaller table's split traces each record chain (in memory) to find, for each half, the
//    newest record that hashes there; a chain that reaches the disk tier before both halves are found gives both
//    halves the disk address (lookups compare keys, so a chain holding keys of both halves is still correct, only
//    longer), and UnlinkFloor keeps such shared records from being unlinked.
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Garnet.storage.Epochs;
using Garnet.storage.Log;

namespace Garnet.storage.Index;

/// <summary>Reads the record at address if it is in memory: its key's hash and its previous address. False if on disk.</summary>
public delegate bool ChainTracer(long address, out ulong keyHash, out long previousAddress, out bool invalid);

public sealed unsafe partial class HashIndex : IDisposable
{
    public const int EntriesPerBucket = 7;
    public const int TagBits = 14;
    public const int AddressBits = 48;
    public const ulong AddressMask = (1UL << AddressBits) - 1;
    private const ulong TagMask = (1UL << TagBits) - 1;
    private const ulong TentativeBit = 1UL << 62;
    private const ulong OccupiedBit = 1UL << 63;
    private const int OverflowChunkBuckets = 4096;
    private static readonly int OverflowChunkBytes = OverflowChunkBuckets * sizeof(Bucket);
    private const long SplitChunkBuckets = 16384;

    [StructLayout(LayoutKind.Explicit, Size = 64)]
    public struct Bucket
    {
        [FieldOffset(0)] public fixed ulong Words[8];
    }

    private sealed class Table
    {
        public readonly Bucket* Buckets;
        public readonly long Size;
        public readonly long Mask;
        /// <summary>Overflow buckets linked into this table's chains (the growth trigger).</summary>
        public long OverflowBuckets;

        public Table(long size)
        {
            Size = size;
            Mask = size - 1;
            Buckets = (Bucket*)PageMemory.AllocateRandomAccess(size * sizeof(Bucket)); // zeroed, page-aligned, huge pages
        }

        public void Free() => PageMemory.Free((byte*)Buckets, Size * sizeof(Bucket));
    }

    /// <summary>One growth: the table being split, the doubled one, and how far the split has come.</summary>
    private sealed class Growth(Table old, Table next, long chunks)
    {
        public readonly Table Old = old;
        public readonly Table Next = next;
        /// <summary>Entries move whole, chosen by a tag bit (no chain tracing, no entry in both halves).</summary>
        public readonly bool ByTag = SplitsByTag(old.Size);
        public readonly int[] ChunkStatus = new int[chunks]; // ChunkNotSplit, ChunkSplitting, ChunkSplit
        public long ChunksLeft = chunks;
        /// <summary>Set by the epoch action once every op that used the old table has finished.</summary>
        public volatile bool Splitting;
    }

    private volatile Table _current;
    private readonly long _initialBuckets;
    private volatile Growth? _growth;   // non-null from Prepare until the split is finished
    private int _growing;
    private readonly EpochProtection? _epoch;
    private readonly ChainTracer? _tracer;
    private readonly Func<long>? _beginAddress;

    private readonly List<nint> _overflowChunks = new();
    private int _overflowChunkCount;
    private Bucket*[] _overflowChunkTable = new Bucket*[16];
    private long _overflowCount; // overflow buckets handed out (index 1..count)
    private long _overflowInUse;
    private long _entriesCreated; // entries FindOrCreate has made (never decreases; splits do not count)
    private readonly Stack<ulong> _freeOverflow = new();
    // Per 4 KB memory page of overflow buckets (64 buckets): given back by DiscardFreePages, none handed out since.
    private readonly List<bool> _pageDiscarded = new();
    private int _discardedPages;
    private const int BucketsPerMemoryPage = 4096 / 64;
    private readonly object _overflowLock = new();
    private bool _disposed;

    /// <summary>A fixed-size index (no growth).</summary>
    public HashIndex(long buckets) : this(buckets, null, null, null) { }

    /// <summary>An index that doubles online when overflow buckets pass a quarter of its buckets (with more than four entries per bucket).</summary>
    public HashIndex(long buckets, EpochProtection? epoch, ChainTracer? tracer, Func<long>? beginAddress)
    {
        if (buckets < 1 || !BitOperations.IsPow2(buckets)) throw new ArgumentException("bucket count must be a power of two", nameof(buckets));
        _current = new Table(buckets);
        _initialBuckets = buckets;
        _tableBuckets = _current.Size;
        _epoch = epoch;
        _tracer = tracer;
        _beginAddress = beginAddress;
    }

    public long BucketCount => _current.Size;
    public long OverflowBucketCount => Interlocked.Read(ref _overflowInUse);
    /// <summary>4 KB pages of overflow buckets whose memory was given back after a growth and not handed out since.</summary>
    public int DiscardedOverflowPages => Volatile.Read(ref _discardedPages);
    public bool IsGrowing => Volatile.Read(ref _growing) != 0;

    private long _unlinkFloor;

    /// <summary>Gives the log's tail, so that a finished growth can tell which records were there before it.</summary>
    public Func<long>? TailAddress { get; set; }

    /// <summary>
    /// Records below this address may sit inside the chain of both halves of a split bucket, so no chain may unlink
    /// them (it would cut the other half's chain). Records created after the last growth finished are referenced only
    /// by their own chain. long.MaxValue while a growth runs.
    /// </summary>
    public long UnlinkFloor => Volatile.Read(ref _growing) != 0 ? long.MaxValue : Volatile.Read(ref _unlinkFloor);
    /// <summary>How many times the index has doubled.</summary>
    public int Generation { get; private set; }

    /// <summary>
    /// Asked before a doubling allocates its new table (WantedBytes says how large): false puts the growth off (a later
    /// overflow bucket asks again). The store uses it to make the log give back pages first, so that the memory budget
    /// holds while the old and new tables both exist. Null: grow at once.
    /// </summary>
    public Func<bool>? MayGrow { get; set; }

    private long _wantedBytes;

    /// <summary>Bytes a doubling that is waiting for room (MayGrow) will allocate; 0 when none waits.</summary>
    public long WantedBytes => Volatile.Read(ref _wantedBytes);

    // Buckets of the current table, of a growth's new table, and of old tables a finished growth has not freed yet: one
    // counter, so that MemoryBytes never sees a table twice or not at all while a growth finishes on another thread
    // (reading _current and _growth apart once counted the new table twice: 21.8 MB where 13.3 MB were held).
    private long _tableBuckets;

    /// <summary>Native memory held by the index, in bytes.</summary>
    public long MemoryBytes
    {
        get
        {
            long buckets = Volatile.Read(ref _tableBuckets);
            // Lock-free: the budget reads it often. Discarded pages are not resident until a bucket is handed out again.
            buckets += Volatile.Read(ref _overflowChunkCount) * (long)OverflowChunkBuckets - Volatile.Read(ref _discardedPages) * (long)BucketsPerMemoryPage;
            return buckets * sizeof(Bucket);
        }
    }

    /// <summary>The tag is hash bits [TagShift, TagShift + TagBits). A table of 2^n buckets with TagShift <= n <
    /// TagShift + TagBits splits on hash bit n, which is tag bit n - TagShift: every key of an entry's chain goes to the
    /// same half, so a split moves the entry whole, without reading its records (SplitsByTag).</summary>
    public const int TagShift = 16;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ushort TagOf(ulong hash) => (ushort)((hash >> TagShift) & TagMask);

    /// <summary>True when doubling a table of this many buckets can place each entry by its tag alone.</summary>
    public static bool SplitsByTag(long buckets)
    {
        int n = BitOperations.Log2((ulong)buckets);
        return n >= TagShift && n < TagShift + TagBits;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong MakeEntry(ushort tag, long address) => OccupiedBit | ((ulong)tag << AddressBits) | ((ulong)address & AddressMask);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ushort EntryTag(ulong entry) => (ushort)((entry >> AddressBits) & TagMask);

    /// <summary>A slot in a bucket chain: where an entry lives, for a later CAS. Valid until the caller's epoch refreshes.</summary>
    public readonly struct Slot
    {
        internal readonly ulong* Word;
        internal Slot(ulong* word) => Word = word;
        public bool IsValid => Word != null;
        /// <summary>The address stored in the entry now (0 = none).</summary>
        public long Address => (long)(Volatile.Read(ref *Word) & AddressMask);
    }

    private Bucket* Overflow(ulong link)
    {
        long index = (long)(link & AddressMask) - 1;
        return Volatile.Read(ref _overflowChunkTable)[index / OverflowChunkBuckets] + index % OverflowChunkBuckets;
    }

    /// <summary>The bucket the hash maps to, after making sure a split in progress has reached it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private Bucket* HomeBucket(ulong hash) => HomeBucket(hash, out _);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private Bucket* HomeBucket(ulong hash, out Table table)
    {
        var g = _growth;
        if (g is null)
        {
            var t = _current;
            table = t;
            return t.Buckets + (long)(hash & (ulong)t.Mask);
        }
        table = g.Next;
        return HomeBucketDuringGrowth(g, hash, out table);
    }

    private Bucket* HomeBucketDuringGrowth(Growth g, ulong hash, out Table table)
    {
        if (!g.Splitting)
        {
            // Announced: wait for the ops that still use the old table to finish. We must refresh, or the epoch
            // action that starts the split would wait for us too.
            var spin = new SpinWait();
            while (!g.Splitting)
            {
                if (_epoch!.ThisThreadProtected) _epoch.Refresh();
                else _epoch.WaitForPendingActions(TimeSpan.FromMilliseconds(1));
                spin.SpinOnce(-1);
            }
        }
        EnsureSplit(g, (long)(hash & (ulong)g.Old.Mask) / ChunkSize(g.Old));
        table = g.Next;
        return g.Next.Buckets + (long)(hash & (ulong)g.Next.Mask);
    }

    private static long ChunkSize(Table old) => Math.Min(old.Size, SplitChunkBuckets);

    /// <summary>Finds the entry for hash's tag. Returns false (and an invalid slot) when there is none.</summary>
    public bool TryFind(ulong hash, out Slot slot, out long address)
    {
        ushort tag = TagOf(hash);
        Bucket* b = HomeBucket(hash);
        while (true)
        {
            for (int i = 0; i < EntriesPerBucket; i++)
            {
                ulong e = Volatile.Read(ref b->Words[i]);
                if (e != 0 && (e & TentativeBit) == 0 && EntryTag(e) == tag)
                {
                    slot = new Slot(&b->Words[i]);
                    address = (long)(e & AddressMask);
                    return true;
                }
            }
            ulong link = Volatile.Read(ref b->Words[EntriesPerBucket]);
            if (link == 0) break;
            b = Overflow(link);
        }
        slot = default;
        address = 0;
        return false;
    }

    /// <summary>
    /// Reads the entry address for hash's tag without ever waiting for a growth (for epoch actions, which must not
    /// wait): during a split, an unsplit chunk's old bucket is still the authoritative one.
    /// </summary>
    public long PeekAddress(ulong hash)
    {
        Bucket* b;
        var g = _growth;
        if (g is null || !g.Splitting) b = _current.Buckets + (long)(hash & (ulong)_current.Mask);
        else
        {
            long chunk = (long)(hash & (ulong)g.Old.Mask) / ChunkSize(g.Old);
            b = Volatile.Read(ref g.ChunkStatus[chunk]) == ChunkSplit
                ? g.Next.Buckets + (long)(hash & (ulong)g.Next.Mask)
                : g.Old.Buckets + (long)(hash & (ulong)g.Old.Mask);
        }
        ushort tag = TagOf(hash);
        while (true)
        {
            for (int i = 0; i < EntriesPerBucket; i++)
            {
                ulong e = Volatile.Read(ref b->Words[i]);
                if (e != 0 && (e & TentativeBit) == 0 && EntryTag(e) == tag) return (long)(e & AddressMask);
            }
            ulong link = Volatile.Read(ref b->Words[EntriesPerBucket]);
            if (link == 0) return 0;
            b = Overflow(link);
        }
    }

    /// <summary>Finds the entry for hash's tag, creating an empty one (address 0) when there is none.</summary>
    public Slot FindOrCreate(ulong hash, out long address)
    {
        ushort tag = TagOf(hash);
        while (true)
        {
            if (TryFind(hash, out var found, out address)) return found;
            Bucket* home = HomeBucket(hash, out var table);
            ulong* claimed = ClaimFreeWord(home, MakeEntry(tag, 0) | TentativeBit, table);
            if (HasOtherEntryWithTag(home, tag, claimed))
            {
                Volatile.Write(ref *claimed, 0UL);
                Thread.SpinWait(4);
                continue;
            }
            Volatile.Write(ref *claimed, MakeEntry(tag, 0));
            Interlocked.Increment(ref _entriesCreated);
            address = 0;
            return new Slot(claimed);
        }
    }

    private static bool IsDeadEntry(ulong e, long begin)
    {
        if ((e & TentativeBit) != 0) return false;
        long address = (long)(e & AddressMask);
        return address == 0 ? (e & ~(OccupiedBit | (TagMask << AddressBits))) == 0 : address < begin;
    }

    private bool HasOtherEntryWithTag(Bucket* b, ushort tag, ulong* mine)
    {
        while (true)
        {
            for (int i = 0; i < EntriesPerBucket; i++)
            {
                ulong* w = &b->Words[i];
                if (w == mine) continue;
                ulong e = Volatile.Read(ref *w);
                if (e != 0 && EntryTag(e) == tag) return true;
            }
            ulong link = Volatile.Read(ref b->Words[EntriesPerBucket]);
            if (link == 0) return false;
            b = Overflow(link);
        }
    }

    private ulong* ClaimFreeWord(Bucket* b, ulong entry, Table table)
    {
        // Dead entries are reused: an entry whose chain lies wholly below the log's begin address, or that points at no
        // record (address 0: its key's only record was unlinked). Without this, a workload of ever-new keys (short TTLs)
        // would grow the index without bound. Taking such a word is safe: every user of an entry changes it only by a CAS
        // from the exact (tag, address) it read, so one that still holds the word fails and retries.
        long begin = _beginAddress?.Invoke() ?? 0;
        while (true)
        {
            for (int i = 0; i < EntriesPerBucket; i++)
            {
                ulong* w = &b->Words[i];
                ulong e = Volatile.Read(ref *w);
                if ((e == 0 || IsDeadEntry(e, begin)) && Interlocked.CompareExchange(ref *w, entry, e) == e) return w;
            }
            ulong link = Volatile.Read(ref b->Words[EntriesPerBucket]);
            if (link == 0)
            {
                ulong fresh = AllocateOverflow();
                link = Interlocked.CompareExchange(ref b->Words[EntriesPerBucket], fresh, 0UL);
                if (link == 0)
                {
                    link = fresh;
                    // Grow when a quarter of the buckets have spilled into overflow and there are more than four entries per
                    // bucket (4). The second condition stops a cascade: a split that meets a chain on disk keeps the entry in
                    // both halves, so overflow alone need not shrink after a doubling; entries created only grow with new keys.
                    if (Interlocked.Increment(ref table.OverflowBuckets) > table.Size / 4 && ReferenceEquals(table, _current)
                        && Interlocked.Read(ref _entriesCreated) > table.Size * 4) RequestGrowth();
                }
                else ReturnOverflow(fresh);
            }
            b = Overflow(link);
        }
    }

    private ulong AllocateOverflow()
    {
        ulong link;
        lock (_overflowLock)
        {
            // While the index grows, the new table's overflow comes from fresh chunks, not from free buckets of chunks
            // the old table still uses: once the old table's buckets come back, whole chunks are free to be discarded.
            if (_freeOverflow.Count > 0 && _growth is null)
            {
                link = _freeOverflow.Pop();
                int page = (int)((long)(link - 1) / BucketsPerMemoryPage);
                if (_pageDiscarded[page]) { _pageDiscarded[page] = false; Interlocked.Decrement(ref _discardedPages); }
                NativeMemory.Clear(Overflow(link), (nuint)sizeof(Bucket));
            }
            else
            {
                long index = _overflowCount;
                if (index % OverflowChunkBuckets == 0)
                {
                    var chunk = (Bucket*)PageMemory.Allocate(OverflowChunkBytes); // zeroed, page-aligned
                    _overflowChunks.Add((nint)chunk);
                    for (int p = 0; p < OverflowChunkBuckets / BucketsPerMemoryPage; p++) _pageDiscarded.Add(false);
                    Volatile.Write(ref _overflowChunkCount, _overflowChunks.Count);
                    int c = (int)(index / OverflowChunkBuckets);
                    if (c >= _overflowChunkTable.Length)
                    {
                        // Readers may hold the old table array: publish a copy (chunks themselves never move).
                        var bigger = new Bucket*[_overflowChunkTable.Length * 2];
                        Array.Copy(_overflowChunkTable, bigger, _overflowChunkTable.Length);
                        bigger[c] = chunk;
                        Volatile.Write(ref _overflowChunkTable, bigger);
                    }
                    else _overflowChunkTable[c] = chunk;
                }
                _overflowCount++;
                link = (ulong)(index + 1);
            }
        }
        Interlocked.Increment(ref _overflowInUse);
        return link;
    }

    private void ReturnOverflow(ulong link)
    {
        Interlocked.Decrement(ref _overflowInUse);
        lock (_overflowLock) _freeOverflow.Push(link);
    }

    /// <summary>Atomically replaces the address in slot if it still holds expected. False if another thread changed it.</summary>
    public static bool TryUpdate(Slot slot, ushort tag, long expectedAddress, long newAddress)
    {
        ulong expected = MakeEntry(tag, expectedAddress);
        return Interlocked.CompareExchange(ref *slot.Word, MakeEntry(tag, newAddress), expected) == expected;
    }

    /// <summary>Visits every non-empty entry's address (for tests and recovery; not while the index grows).</summary>
    public void ForEachAddress(Action<long> visit)
    {
        var t = _current;
        for (long i = 0; i < t.Size; i++)
        {
            Bucket* b = t.Buckets + i;
            while (true)
            {
                for (int k = 0; k < EntriesPerBucket; k++)
                {
                    ulong e = Volatile.Read(ref b->Words[k]);
                    if (e != 0 && (e & TentativeBit) == 0 && (e & AddressMask) != 0) visit((long)(e & AddressMask));
                }
                ulong link = Volatile.Read(ref b->Words[EntriesPerBucket]);
                if (link == 0) break;
                b = Overflow(link);
            }
        }
    }

    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        _current.Free();
        var g = _growth;
        if (g is not null && !ReferenceEquals(g.Next, _current)) g.Next.Free();
        lock (_overflowLock)
        {
            foreach (var c in _overflowChunks) PageMemory.Free((byte*)c, OverflowChunkBytes);
            _overflowChunks.Clear();
        }
    }
}
