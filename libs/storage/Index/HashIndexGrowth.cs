// HashIndex growth: doubling the table online (the protocol is in HashIndex.cs's header), the split of the old table
// chunk by chunk, and the freeing of the old table once nobody can hold a slot in it.
using System.Numerics;
using System.Runtime.InteropServices;
using Garnet.storage.Log;

namespace Garnet.storage.Index;

public sealed unsafe partial class HashIndex
{
    /// <summary>Starts doubling the index (no-op while a growth is under way or without epoch support).</summary>
    public void RequestGrowth()
    {
        if (_epoch is null || _tracer is null) return;
        if (Interlocked.CompareExchange(ref _growing, 1, 0) != 0) return;
        var old = _current;
        Volatile.Write(ref _wantedBytes, old.Size * 2 * sizeof(Bucket));
        if (MayGrow is { } mayGrow && !mayGrow())
        {
            Volatile.Write(ref _growing, 0);
            return;
        }
        var g = new Growth(old, new Table(old.Size * 2), old.Size / ChunkSize(old));
        Interlocked.Add(ref _tableBuckets, g.Next.Size);
        _growth = g;
        Volatile.Write(ref _wantedBytes, 0); // counted in MemoryBytes now (both for a moment: errs on the safe side)
        // Every op that saw Prepare uses the old table; once they are all done, splitting may begin.
        _epoch.BumpCurrentEpoch(() =>
        {
            g.Splitting = true;
            ThreadPool.UnsafeQueueUserWorkItem(_ => SplitAll(g), null);
        });
    }

    private void SplitAll(Growth g)
    {
        for (long c = 0; c < g.ChunkStatus.Length; c++)
        {
            _epoch!.Acquire();
            try { EnsureSplit(g, c); }
            finally { _epoch.Release(); }
        }
    }

    private void EnsureSplit(Growth g, long chunk)
    {
        ref int status = ref g.ChunkStatus[chunk];
        if (Volatile.Read(ref status) == 2) return;
        if (Interlocked.CompareExchange(ref status, 1, 0) == 0)
        {
            long size = ChunkSize(g.Old);
            for (long b = chunk * size; b < (chunk + 1) * size; b++)
                if (g.ByTag) SplitBucketByTag(g.Old, g.Next, b);
                else SplitBucket(g.Old, g.Next, b);
            Volatile.Write(ref status, 2);
            if (Interlocked.Decrement(ref g.ChunksLeft) == 0) FinishGrowth(g.Old, g.Next);
            return;
        }
        var spin = new SpinWait();
        while (Volatile.Read(ref status) != 2) spin.SpinOnce(-1);
    }

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

    private void FinishGrowth(Table old, Table next)
    {
        bool byTag = SplitsByTag(old.Size);
        // The old table stays counted in _tableBuckets until the action below frees it.
        _current = next;
        _growth = null;
        Generation++;
        // A split by tag puts no record in two chains, so it leaves the floor where the last traced split put it.
        if (!byTag) Volatile.Write(ref _unlinkFloor, TailAddress?.Invoke() ?? long.MaxValue); // before growing = 0 (read in that order)
        Volatile.Write(ref _growing, 0);
        // Free the old table (and give back its overflow buckets) once no op can still hold a slot in it.
        _epoch!.BumpCurrentEpoch(() =>
        {
            // Returned while walking (no list of them: a large table's would be megabytes of garbage).
            for (long i = 0; i < old.Size; i++)
            {
                ulong link = old.Buckets[i].Words[EntriesPerBucket];
                while (link != 0)
                {
                    ulong next = Overflow(link)->Words[EntriesPerBucket];
                    ReturnOverflow(link);
                    link = next;
                }
            }
            old.Free();
            Interlocked.Add(ref _tableBuckets, -old.Size);
            DiscardFreePages();
        });
    }

    /// <summary>
    /// After a growth the old table's overflow buckets are all free: every 4 KB page of them that holds no bucket in use
    /// is given back (it reads as zero again), and its buckets go to the bottom of the free stack, so they are handed out
    /// again only when the pages still in use have none left.
    /// </summary>
    private void DiscardFreePages()
    {
        lock (_overflowLock)
        {
            int pages = _pageDiscarded.Count;
            var free = new int[pages];
            foreach (ulong link in _freeOverflow) free[PageOfOverflow(link)]++;
            bool any = false;
            for (int page = 0; page < pages; page++)
            {
                if (free[page] != BucketsPerMemoryPage) continue; // some bucket in use, or not all handed out yet
                any = true;
                if (!_pageDiscarded[page])
                {
                    long first = (long)page * BucketsPerMemoryPage; // bucket index, link = index + 1
                    PageMemory.Discard((byte*)Overflow((ulong)first + 1), BucketsPerMemoryPage * sizeof(Bucket));
                    _pageDiscarded[page] = true;
                    Interlocked.Increment(ref _discardedPages);
                }
            }
            if (!any) return;
            // Rebuild the stack: the wholly free pages' buckets at the bottom (page by page), the others on top, in the
            // order they had. One array of the free links; no set (a page is wholly free when free[page] says so).
            ulong[] topFirst = _freeOverflow.ToArray();
            _freeOverflow.Clear();
            for (int page = pages - 1; page >= 0; page--)
                if (free[page] == BucketsPerMemoryPage)
                    for (int i = 1; i <= BucketsPerMemoryPage; i++) _freeOverflow.Push((ulong)((long)page * BucketsPerMemoryPage + i));
            for (int i = topFirst.Length - 1; i >= 0; i--)
                if (free[PageOfOverflow(topFirst[i])] != BucketsPerMemoryPage) _freeOverflow.Push(topFirst[i]);
        }
    }

    private static int PageOfOverflow(ulong link) => (int)((long)(link - 1) / BucketsPerMemoryPage);

    /// <summary>Waits until a growth in progress has finished (tests; the caller must not hold epoch protection).</summary>
    public bool WaitForGrowth(TimeSpan timeout)
    {
        long deadline = Environment.TickCount64 + (long)timeout.TotalMilliseconds;
        while (IsGrowing)
        {
            if (Environment.TickCount64 > deadline) return false;
            _epoch?.WaitForPendingActions(TimeSpan.FromMilliseconds(10));
            Thread.Sleep(1);
        }
        return true;
    }
}
