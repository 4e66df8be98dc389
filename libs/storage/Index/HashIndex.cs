// HashIndex: maps a key's hash to the logical address of the newest record for that hash (tag) in the log.
// Layout: buckets of one 64-byte cache line = 7 entries + 1 overflow link; overflow buckets come from a pool.
// Entry (64 bits): [63] unused | [62] tentative | [61..48] tag (14 bits) | [47..0] logical address.
// Invariants:
//  - An entry word of 0 is free. Entries change only by CAS, so readers never lock.
//  - At most one non-tentative entry per tag in a bucket chain: an insert first publishes a tentative entry,
//    then scans the chain; if it finds another entry with its tag it withdraws and retries.
//  - Overflow buckets are never freed while the index lives (they are reused in place), so a reader can follow
//    a link without epoch protection on the bucket itself; callers hold epoch protection for the addresses.
//  - Records whose keys share a tag are chained through the records' previous-address field in the log;
//    the index itself never compares keys.
// Not yet: online growth (doubling while operations go on). The size is fixed at construction for now.
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Garnet.storage.Index;

public sealed unsafe class HashIndex : IDisposable
{
    public const int EntriesPerBucket = 7;
    public const int TagBits = 14;
    public const int AddressBits = 48;
    public const ulong AddressMask = (1UL << AddressBits) - 1;
    private const ulong TagMask = (1UL << TagBits) - 1;
    private const ulong TentativeBit = 1UL << 62;
    private const int OverflowChunkBuckets = 4096;

    [StructLayout(LayoutKind.Explicit, Size = 64)]
    public struct Bucket
    {
        [FieldOffset(0)] public fixed ulong Words[8];
    }

    private readonly Bucket* _buckets;
    private readonly long _mask;
    private readonly List<nint> _overflowChunks = new();
    private Bucket*[] _overflowChunkTable = new Bucket*[16];
    private long _overflowCount; // overflow buckets handed out (index 1..count)
    private readonly object _overflowLock = new();
    private bool _disposed;

    public HashIndex(long buckets)
    {
        if (buckets < 1 || !BitOperations.IsPow2(buckets)) throw new ArgumentException("bucket count must be a power of two", nameof(buckets));
        BucketCount = buckets;
        _mask = buckets - 1;
        _buckets = (Bucket*)NativeMemory.AlignedAlloc((nuint)(buckets * sizeof(Bucket)), 64);
        NativeMemory.Clear(_buckets, (nuint)(buckets * sizeof(Bucket)));
    }

    public long BucketCount { get; }
    public long OverflowBucketCount => Interlocked.Read(ref _overflowCount);

    /// <summary>Native memory held by the index, in bytes.</summary>
    public long MemoryBytes => (BucketCount + _overflowChunks.Count * (long)OverflowChunkBuckets) * sizeof(Bucket);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ushort TagOf(ulong hash) => (ushort)((hash >> 50) & TagMask);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong MakeEntry(ushort tag, long address) => ((ulong)tag << AddressBits) | ((ulong)address & AddressMask);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ushort EntryTag(ulong entry) => (ushort)((entry >> AddressBits) & TagMask);

    /// <summary>A slot in a bucket chain: where an entry lives, for a later CAS.</summary>
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

    /// <summary>Finds the entry for hash's tag. Returns false (and an invalid slot) when there is none.</summary>
    public bool TryFind(ulong hash, out Slot slot, out long address)
    {
        ushort tag = TagOf(hash);
        Bucket* b = _buckets + (long)(hash & (ulong)_mask);
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

    /// <summary>Finds the entry for hash's tag, creating an empty one (address 0) when there is none.</summary>
    public Slot FindOrCreate(ulong hash, out long address)
    {
        ushort tag = TagOf(hash);
        while (true)
        {
            if (TryFind(hash, out var found, out address)) return found;
            // Claim a free word with a tentative entry.
            Bucket* home = _buckets + (long)(hash & (ulong)_mask);
            ulong* claimed = ClaimFreeWord(home, MakeEntry(tag, 0) | TentativeBit);
            // Withdraw if another entry for the same tag (tentative or not) exists elsewhere in the chain.
            if (HasOtherEntryWithTag(home, tag, claimed))
            {
                Volatile.Write(ref *claimed, 0UL);
                Thread.SpinWait(4);
                continue;
            }
            Volatile.Write(ref *claimed, MakeEntry(tag, 0));
            address = 0;
            return new Slot(claimed);
        }
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

    private ulong* ClaimFreeWord(Bucket* b, ulong entry)
    {
        while (true)
        {
            for (int i = 0; i < EntriesPerBucket; i++)
            {
                ulong* w = &b->Words[i];
                if (Volatile.Read(ref *w) == 0 && Interlocked.CompareExchange(ref *w, entry, 0UL) == 0UL) return w;
            }
            ulong link = Volatile.Read(ref b->Words[EntriesPerBucket]);
            if (link == 0)
            {
                ulong fresh = AllocateOverflow();
                link = Interlocked.CompareExchange(ref b->Words[EntriesPerBucket], fresh, 0UL);
                if (link == 0) link = fresh;
                else ReturnOverflow(fresh);
            }
            b = Overflow(link);
        }
    }

    private readonly Stack<ulong> _freeOverflow = new();

    private ulong AllocateOverflow()
    {
        lock (_overflowLock)
        {
            if (_freeOverflow.Count > 0) return _freeOverflow.Pop();
            long index = _overflowCount;
            if (index % OverflowChunkBuckets == 0)
            {
                var chunk = (Bucket*)NativeMemory.AlignedAlloc((nuint)(OverflowChunkBuckets * sizeof(Bucket)), 64);
                NativeMemory.Clear(chunk, (nuint)(OverflowChunkBuckets * sizeof(Bucket)));
                _overflowChunks.Add((nint)chunk);
                int c = (int)(index / OverflowChunkBuckets);
                if (c >= _overflowChunkTable.Length)
                {
                    // Readers may hold the old table: copy into a new one and publish it; never free the old array
                    // contents (they are pointers into chunks that stay alive).
                    var bigger = new Bucket*[_overflowChunkTable.Length * 2];
                    Array.Copy(_overflowChunkTable, bigger, _overflowChunkTable.Length);
                    bigger[c] = chunk;
                    Volatile.Write(ref _overflowChunkTable, bigger);
                }
                else _overflowChunkTable[c] = chunk;
            }
            Interlocked.Increment(ref _overflowCount);
            return (ulong)(index + 1);
        }
    }

    private void ReturnOverflow(ulong link)
    {
        lock (_overflowLock) _freeOverflow.Push(link);
    }

    /// <summary>Atomically replaces the address in slot if it still holds expected. False if another thread changed it.</summary>
    public static bool TryUpdate(Slot slot, ushort tag, long expectedAddress, long newAddress)
    {
        ulong expected = MakeEntry(tag, expectedAddress);
        return Interlocked.CompareExchange(ref *slot.Word, MakeEntry(tag, newAddress), expected) == expected;
    }

    /// <summary>Visits every non-empty entry's address (for recovery, iteration and checkpoints).</summary>
    public void ForEachAddress(Action<long> visit)
    {
        for (long i = 0; i < BucketCount; i++)
        {
            Bucket* b = _buckets + i;
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
        NativeMemory.AlignedFree(_buckets);
        foreach (var c in _overflowChunks) NativeMemory.AlignedFree((void*)c);
        _overflowChunks.Clear();
    }
}
