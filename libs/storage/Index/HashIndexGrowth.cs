// HashIndex growth: doubling the table online (the protocol is in HashIndex.cs's header), the split of the old table
// chunk by chunk (the background splitter, and any op that needs a chunk first), and the freeing of the old table once
// nobody can hold a slot in it.
// Invariants (failures): what throws here is logged (StorageFaults.Report) and never ends the process or leaves the
// index inconsistent.
//  - Before the new table is published, a failure abandons the growth: the new table is freed, the index stays on the
//    old one, and the next overflow bucket past GrowthRetryMs asks again.
//  - A published growth is never abandoned (ops already use the new table for the chunks that are split). A chunk whose
//    split throws is cleared and marked unsplit again (HashIndexSplit.cs), so whoever needs it next splits it from the
//    start; a thread waiting for it never waits for a chunk nobody splits.
//  - A thread gives up on a chunk after SplitAttempts failed splits of its own: an op then fails (IndexSplitException,
//    its client gets an error), the background splitter tries the chunks left again later, backing off, until the
//    growth finishes.
//  - The epoch actions here (start of the split, freeing of the old table) throw nothing: they run on whichever thread
//    drains, whose own work must not get their exception.
using Garnet.storage.Log;

namespace Garnet.storage.Index;

public sealed unsafe partial class HashIndex
{
    // Growth.ChunkStatus values.
    private const int ChunkNotSplit = 0, ChunkSplitting = 1, ChunkSplit = 2;

    /// <summary>Splits of one chunk one thread tries before it gives up (IndexSplitException).</summary>
    private const int SplitAttempts = 3;

    /// <summary>After a growth that could not start, none is tried again for this long.</summary>
    private const int GrowthRetryMs = 100;
    private long _noGrowthUntilMs;

    /// <summary>Starts doubling the index (no-op while a growth is under way or without epoch support).</summary>
    public void RequestGrowth()
    {
        if (_epoch is null || _tracer is null) return;
        if (Environment.TickCount64 < Volatile.Read(ref _noGrowthUntilMs)) return;
        if (Interlocked.CompareExchange(ref _growing, 1, 0) != 0) return;
        var old = _current;
        Table? next = null;
        Growth g;
        try
        {
            Volatile.Write(ref _wantedBytes, old.Size * 2 * sizeof(Bucket));
            if (MayGrow is { } mayGrow && !mayGrow())
            {
                Volatile.Write(ref _growing, 0);
                return;
            }
            next = new Table(old.Size * 2);
            Util.StorageFaults.Hit("index-grow");
            g = new Growth(old, next, old.Size / ChunkSize(old));
        }
        catch (Exception ex)
        {
            // Nothing is published yet: the index stays on the old table, whole; a later overflow bucket asks again.
            next?.Free();
            Volatile.Write(ref _wantedBytes, 0);
            Volatile.Write(ref _noGrowthUntilMs, Environment.TickCount64 + GrowthRetryMs);
            Volatile.Write(ref _growing, 0);
            Util.StorageFaults.Report("the hash index's growth (not started; tried again later)", ex);
            return;
        }
        Interlocked.Add(ref _tableBuckets, g.Next.Size);
        _growth = g;
        Volatile.Write(ref _wantedBytes, 0); // counted in MemoryBytes now (both for a moment: errs on the safe side)
        // Every op that saw Prepare uses the old table; once they are all done, splitting may begin.
        _epoch.BumpCurrentEpoch(() =>
        {
            g.Splitting = true;
            StartSplitter(g, round: 0);
        });
    }

    /// <summary>Runs SplitAll on the thread pool: at once for round 0, later (backing off) for a retry. Does not throw: a
    /// splitter that cannot be started leaves the chunks to the ops that need them.</summary>
    private void StartSplitter(Growth g, int round)
    {
        try
        {
            if (round == 0) ThreadPool.UnsafeQueueUserWorkItem(static s => s.index.SplitAll(s.g, 0), (index: this, g), preferLocal: false);
            else
                Task.Delay(Math.Min(50 << Math.Min(round - 1, 10), 5000)).ContinueWith(static (_, state) =>
                {
                    var (index, growth, r) = ((HashIndex, Growth, int))state!;
                    index.SplitAll(growth, r);
                }, (this, g, round), CancellationToken.None, TaskContinuationOptions.None, TaskScheduler.Default);
        }
        catch (Exception ex) { Util.StorageFaults.Report("the hash index's splitter (not started)", ex); }
    }

    /// <summary>The background splitter (thread pool): splits every chunk nobody has split yet. Chunks whose split keeps
    /// failing are left to a later round. Does not throw.</summary>
    private void SplitAll(Growth g, int round)
    {
        bool left = false;
        try
        {
            for (long c = 0; c < g.ChunkStatus.Length && !_disposed && _growth == g; c++)
            {
                _epoch!.Acquire();
                try { EnsureSplit(g, c); }
                catch (IndexSplitException) { left = true; } // each failure was reported where it happened
                finally { _epoch.Release(); }
            }
        }
        catch (Exception ex)
        {
            left = true;
            Util.StorageFaults.Report("the hash index's splitter", ex);
        }
        if (left && !_disposed && _growth == g) StartSplitter(g, round + 1);
    }

    /// <summary>Makes sure the chunk is split: splits it, or waits for the thread that is splitting it (which clears it
    /// again if its split fails: then this thread splits it). Throws IndexSplitException after SplitAttempts failed
    /// splits of its own; the chunk is then unsplit and whole, for the next thread that needs it.</summary>
    private void EnsureSplit(Growth g, long chunk)
    {
        ref int status = ref g.ChunkStatus[chunk];
        if (Volatile.Read(ref status) == ChunkSplit) return;
        int failures = 0;
        var spin = new SpinWait();
        while (true)
        {
            int now = Volatile.Read(ref status);
            if (now == ChunkSplit) return;
            if (now == ChunkNotSplit && Interlocked.CompareExchange(ref status, ChunkSplitting, ChunkNotSplit) == ChunkNotSplit)
            {
                if (SplitChunk(g, chunk) is not { } error)
                {
                    if (Interlocked.Decrement(ref g.ChunksLeft) == 0) FinishGrowth(g.Old, g.Next);
                    return;
                }
                if (++failures >= SplitAttempts) throw new IndexSplitException(error);
                continue;
            }
            spin.SpinOnce(-1);
        }
    }

    /// <summary>Splits the chunk (its status is ChunkSplitting, set by this thread): ChunkSplit and null, or, when the
    /// split throws, its new buckets cleared again, ChunkNotSplit and the exception (reported).</summary>
    private Exception? SplitChunk(Growth g, long chunk)
    {
        long size = ChunkSize(g.Old), first = chunk * size;
        try
        {
            for (long b = first; b < first + size; b++)
            {
                if (b == first + size / 2) Util.StorageFaults.Hit("index-split"); // half way: the undo has work to do
                if (g.ByTag) SplitBucketByTag(g.Old, g.Next, b);
                else SplitBucket(g.Old, g.Next, b);
            }
        }
        catch (Exception ex)
        {
            Util.StorageFaults.Report("the hash index's split (the chunk is cleared and split again)", ex);
            ClearSplitChunk(g, first, size);
            Volatile.Write(ref g.ChunkStatus[chunk], ChunkNotSplit);
            return ex;
        }
        Volatile.Write(ref g.ChunkStatus[chunk], ChunkSplit);
        return null;
    }

    private void FinishGrowth(Table old, Table next)
    {
        bool byTag = SplitsByTag(old.Size);
        // The old table stays counted in _tableBuckets until the action below frees it.
        _current = next;
        _growth = null;
        Generation++;
        // A split by tag puts no record in two chains, so it leaves the floor where the last traced split put it.
        if (!byTag) Volatile.Write(ref _unlinkFloor, TailAfterGrowth()); // before growing = 0 (read in that order)
        Volatile.Write(ref _growing, 0);
        // Free the old table (and give back its overflow buckets) once no op can still hold a slot in it.
        _epoch!.BumpCurrentEpoch(() =>
        {
            // An epoch action runs on whichever thread drains: what it throws must not reach that thread's work. A
            // failure here leaves some of the old table's memory in use (a leak), the index itself whole.
            try { FreeOldTable(old); }
            catch (Exception ex) { Util.StorageFaults.Report("the hash index's freeing of its old table", ex); }
        });
    }

    /// <summary>
    /// Empties the index: a fresh table of the initial size replaces the current one, which is freed (with its overflow
    /// buckets) once no op can still hold a slot in it. A growth in progress is waited for first. The caller makes sure no
    /// writer runs (KVStore.Clear pauses them) and holds no epoch protection. A reader or a second-chance copy still
    /// working on the old table finds its entries or loses its CAS there; nothing it does reaches the new table.
    /// </summary>
    public void Reset()
    {
        var spin = new SpinWait();
        while (Interlocked.CompareExchange(ref _growing, 1, 0) != 0)
        {
            _epoch?.WaitForPendingActions(TimeSpan.FromMilliseconds(1));
            spin.SpinOnce(-1);
        }
        var old = _current;
        var fresh = new Table(_initialBuckets);
        Interlocked.Add(ref _tableBuckets, fresh.Size);
        _current = fresh;
        Interlocked.Exchange(ref _entriesCreated, 0);
        Volatile.Write(ref _wantedBytes, 0); // a doubling of the old table put off for room is not wanted any more
        Volatile.Write(ref _growing, 0);
        if (_epoch is null) FreeOldTable(old);
        else _epoch.BumpCurrentEpoch(() =>
        {
            try { FreeOldTable(old); }
            catch (Exception ex) { Util.StorageFaults.Report("the hash index's freeing of its old table", ex); }
        });
    }

    /// <summary>The log's tail once a traced split is done (the unlink floor); long.MaxValue, which lets nothing be
    /// unlinked, when it cannot be read.</summary>
    private long TailAfterGrowth()
    {
        try { return TailAddress?.Invoke() ?? long.MaxValue; }
        catch (Exception ex)
        {
            Util.StorageFaults.Report("the hash index's growth (reading the log's tail)", ex);
            return long.MaxValue;
        }
    }

    private void FreeOldTable(Table old)
    {
        // Returned while walking (no list of them: a large table's would be megabytes of garbage).
        for (long i = 0; i < old.Size; i++)
        {
            ulong link = old.Buckets[i].Words[EntriesPerBucket];
            while (link != 0)
            {
                ulong following = Overflow(link)->Words[EntriesPerBucket];
                ReturnOverflow(link);
                link = following;
            }
        }
        old.Free();
        Interlocked.Add(ref _tableBuckets, -old.Size);
        DiscardFreePages();
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

/// <summary>A chunk of the hash index's table could not be split (each failure was logged): the operation that needed it
/// fails; the chunk stays whole and unsplit, and the next operation that needs it, or the background splitter, splits it
/// again.</summary>
public sealed class IndexSplitException(Exception inner) : Exception("the hash index could not split a chunk of its table: " + inner.Message, inner);
