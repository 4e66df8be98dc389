// StoreClear: KVStore.Clear, which drops every key at once (the server's FLUSHALL) without a tombstone per key: the log
// restarts at a fresh page, the pages below leave memory unwritten, and the index starts again at its initial size.
// Invariants:
//  - Writes are paused and drained (an epoch barrier) before anything changes, and stay paused until the key counts are
//    zero: no write lands below the cut, and no write counts a key against the old index after the counts are reset.
//  - The cut is the start of a fresh page (the tail page is closed first): every record below it is dropped, none above.
//  - BeginAddress moves to the cut before the index is replaced, so a walk that still starts from an old entry stops
//    there, and pages below it are never flushed (HybridLog skips them) and give their frames back as they close.
//  - The key counts go to zero only after a second barrier (every thread that could still use the old index has left
//    it: an expiry sweep's unlink, a read's second-chance copy) and while no page closes (a null device's count-out).
//  - One Clear at a time per store.
namespace Garnet.storage.Store;

internal static class StoreClear
{
    public static void Run(KVStore store)
    {
        if (store.Epoch.ThisThreadProtected) throw new InvalidOperationException("Clear must not be called under epoch protection: it waits for every operation in flight");
        var log = store.Log;
        lock (store.ClearLock)
        {
            store.PauseWrites();
            try
            {
                Barrier(store);
                long cut = log.CloseTailPageForSnapshot();
                store.CountClear();
                store.DropLogBelow(cut);
                log.ShiftReadOnly(cut);
                log.ShiftHead(cut);
                store.Index.Reset();
                Barrier(store);
                log.WhilePagesCannotClose(store.ZeroKeyCounts);
            }
            finally { store.ResumeWrites(); }
        }
        // The head moves as the dropped pages count as flushed (epoch actions): run what is due now (one pass, no wait:
        // the caller holds every key lock), so the frames are mostly given back before this returns; the rest follows as
        // other threads refresh, or when a page write that was under way completes.
        store.Epoch.WaitForPendingActions(TimeSpan.Zero);
    }

    /// <summary>Returns once every thread that was inside an operation has left it (this thread holds no protection).</summary>
    private static void Barrier(KVStore store)
    {
        var done = new ManualResetEventSlim(false, spinCount: 0); // not disposed: Set may still be returning on another thread
        store.Epoch.BumpCurrentEpoch(done.Set);
        while (!done.Wait(1)) store.Epoch.WaitForPendingActions(TimeSpan.Zero);
    }
}
