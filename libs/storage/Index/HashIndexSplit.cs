// HashIndex split: moving the entries of one chunk of the old table's buckets into the doubled table, and undoing that
// when the split failed part way.
// Invariants:
//  - A chunk's split writes only that chunk's buckets of the new table (old bucket b goes to new buckets b and
//    b + old size) and the overflow buckets it links to them; nobody else reads or writes those until the chunk is
//    marked split (ops that need it wait in EnsureSplit), so the thread splitting it may clear them again.
//  - The old table is only read here: a failed split leaves it as it was.
using System.Numerics;
using System.Runtime.InteropServices;

namespace Garnet.storage.Index;

public sealed unsafe partial class HashIndex
{
    private void SplitBucket(Table old, Table next, long b)
    {
        Bucket* bucket = old.Buckets + b;
        long low = b, high = b + old.Size;
        long begin = _beginAddress?.Invoke() ?? 0;
        while (true)
        {
            for (int i = 0; i < EntriesPerBucket; i++)
            {
                ulong e = Volatile.Read(ref bucket->Words[i]);
                long address = (long)(e & AddressMask);
                if (e == 0 || (e & TentativeBit) != 0 || address == 0) continue;
                ushort tag = EntryTag(e);
                long forLow = 0, forHigh = 0;
                long a = address;
                while (a >= begin && a != 0 && (forLow == 0 || forHigh == 0))
                {
                    if (!_tracer!(a, out ulong h, out long prev, out bool invalid))
                    {
                        // On disk: we cannot tell which half without I/O; both halves continue there.
                        if (forLow == 0) forLow = a;
                        if (forHigh == 0) forHigh = a;
                        break;
                    }
                    if (!invalid)
                    {
                        long target = (long)(h & (ulong)next.Mask);
                        if (target == low && forLow == 0) forLow = a;
                        else if (target == high && forHigh == 0) forHigh = a;
                    }
                    a = prev;
                }
                if (forLow != 0) InsertDuringSplit(next.Buckets + low, MakeEntry(tag, forLow), next);
                if (forHigh != 0) InsertDuringSplit(next.Buckets + high, MakeEntry(tag, forHigh), next);
            }
            ulong link = Volatile.Read(ref bucket->Words[EntriesPerBucket]);
            if (link == 0) break;
            bucket = Overflow(link);
        }
    }

    /// <summary>
    /// Splits old bucket b when the split bit is a tag bit: all records of an entry's chain share the tag, so they all
    /// belong to the same half, and the entry moves there whole (same tag, same address). Nothing is read from the log,
    /// so a chain that reaches the disk is never given to both halves. Entries of chains that begin below BeginAddress
    /// are dropped, as in SplitBucket.
    /// </summary>
    private void SplitBucketByTag(Table old, Table next, long b)
    {
        Bucket* bucket = old.Buckets + b;
        int bit = BitOperations.Log2((ulong)old.Size) - TagShift;
        long begin = _beginAddress?.Invoke() ?? 0;
        while (true)
        {
            for (int i = 0; i < EntriesPerBucket; i++)
            {
                ulong e = Volatile.Read(ref bucket->Words[i]);
                long address = (long)(e & AddressMask);
                if (e == 0 || (e & TentativeBit) != 0 || address == 0 || address < begin) continue;
                ushort tag = EntryTag(e);
                long target = ((tag >> bit) & 1) != 0 ? b + old.Size : b;
                InsertDuringSplit(next.Buckets + target, MakeEntry(tag, address), next);
            }
            ulong link = Volatile.Read(ref bucket->Words[EntriesPerBucket]);
            if (link == 0) break;
            bucket = Overflow(link);
        }
    }

    /// <summary>Inserts into a new-table bucket nobody else can touch yet (its chunk is being split by us).</summary>
    private void InsertDuringSplit(Bucket* b, ulong entry, Table table) => ClaimFreeWord(b, entry, table);

    /// <summary>
    /// Undoes a split of the chunk of old buckets [first, first + count) that failed part way: its buckets of the new
    /// table are zeroed again and the overflow buckets linked to them are given back (one that cannot be is left out of
    /// use: a leak, never a bucket in two chains). Does not throw.
    /// </summary>
    private void ClearSplitChunk(Growth g, long first, long count)
    {
        ClearNewBuckets(g.Next, first, count);
        ClearNewBuckets(g.Next, first + g.Old.Size, count);
    }

    private void ClearNewBuckets(Table next, long first, long count)
    {
        for (long b = first; b < first + count; b++)
        {
            Bucket* home = next.Buckets + b;
            ulong link = home->Words[EntriesPerBucket];
            NativeMemory.Clear(home, (nuint)sizeof(Bucket));
            while (link != 0)
            {
                ulong following = Overflow(link)->Words[EntriesPerBucket];
                Interlocked.Decrement(ref next.OverflowBuckets);
                try { ReturnOverflow(link); }
                catch (Exception ex) { Util.StorageFaults.Report("the hash index's split undo (an overflow bucket is left out of use)", ex); }
                link = following;
            }
        }
    }
}
