// ExpiredRecordSweeper: drops expired keys whose records are on disk, and tells the segment reclaimer which on-disk pages
// hold nothing live. It reads whole on-disk pages, newest first, and for each expired record that is its key's only live
// version (RecordInfo.SoleVersion) and the head of its index chain, moves the index entry past it (to the record's
// previous address) and counts the key out, without writing. The record becomes garbage that SegmentReclaimer deletes
// with its segment; no tombstone is needed, because nothing of the key is left below it. Every other expired record's key
// is handed to the caller (buried), which deletes it with a tombstone if its newest record has expired
// (StoreSession.DeleteIfExpired with lookOnDisk).
// Invariants:
//  - The entry moves only by a CAS from exactly that record's address: a writer that published a newer record of the key
//    first wins (the CAS fails and the key stays), and a writer that built on the record's address retries after it.
//  - A record above its chain's index entry (entry < address) is garbage for good: an entry only ever takes the address
//    of a new record or the previous address of its current head, so it can never come back up to that record.
//  - Records on disk are immutable, so what the sweep read is what the chain holds. In-memory records are ActiveExpiry's.
//  - Newest first (pages, records): dropping a chain's expired head makes the next older record the head by the time the
//    sweep reaches it; oldest first, that record would be found buried and get a tombstone (disk growth).
//  - Work is proportional to what can have expired: a page once swept is skipped until the earliest expiration among its
//    records has passed (records there never change), so an idle store with long TTLs reads nothing. A buried record is
//    handed out once; one that did not fit in this sweep's hand-out makes its page due again after RevisitDelayMs.
//  - Each swept page keeps a verdict (PageVerdict) for the reclaimer: Resolved means every record in it is garbage except
//    the listed suspects (buried records whose chains must still be walked).
using System.Buffers;
using Garnet.storage.Log;

namespace Garnet.storage.Store;

internal sealed class ExpiredRecordSweeper
{
    /// <summary>How long a page holding a buried record that did not fit in a sweep's hand-out waits for the next look.</summary>
    public const long RevisitDelayMs = 5000;
    /// <summary>At most this many buried keys are handed out per sweep (the rest at the next one).</summary>
    public const int MaxBuriedPerSweep = 4096;
    /// <summary>A page with more suspects than this is left to the reclaimer's full check.</summary>
    public const int MaxSuspectsPerPage = 1024;

    /// <summary>What the last sweep of a page found.</summary>
    internal sealed class PageVerdict
    {
        /// <summary>Earliest expiration among its records not expired at the sweep (long.MaxValue: none); due again then.</summary>
        public long NextExpiry = long.MaxValue;
        /// <summary>A record that may be live and is not a suspect (no expiration and reachable, or too many suspects).</summary>
        public bool Unknown;
        /// <summary>Expired records still reachable below a newer record of their chain: live unless something newer of
        /// their key hides them (a tombstone from the hand-out, or a new value).</summary>
        public List<(long Address, byte[] Key)>? Suspects;
    }

    private readonly KVStore _store;
    private readonly Dictionary<long, PageVerdict> _pages = new(); // on-disk page -> verdict; under its own lock
    private readonly SemaphoreSlim _one = new(1, 1);
    private readonly List<int> _expiredOffsets = new();

    public ExpiredRecordSweeper(KVStore store) => _store = store;

    private long _sweeps, _pagesRead, _handedOut, _lastSweepMs, _runningSince;
    /// <summary>Sweeps done, pages they read, buried keys handed out, the last sweep's length, and when the sweep in
    /// progress began (Environment.TickCount64; 0: none). For INFO and the slow-sweep warning.</summary>
    public (long Sweeps, long PagesRead, long HandedOut, long LastSweepMs, long RunningSince) Figures =>
        (Interlocked.Read(ref _sweeps), Interlocked.Read(ref _pagesRead), Interlocked.Read(ref _handedOut),
         Interlocked.Read(ref _lastSweepMs), Interlocked.Read(ref _runningSince));

    /// <summary>Sweeps every whole on-disk page not known to hold nothing that has expired by now; returns the keys dropped.
    /// Keys of expired records that are not their chain's head are added to buried (when given).</summary>
    public async Task<long> SweepAsync(List<byte[]>? buried, bool waitForSweep, CancellationToken cancellation)
    {
        // One sweep at a time: the periodic one skips while another runs; a compaction run waits for it.
        if (waitForSweep) await _one.WaitAsync(cancellation).ConfigureAwait(false);
        else if (!_one.Wait(0)) return 0;
        long started = Environment.TickCount64;
        Interlocked.Exchange(ref _runningSince, started);
        try { return await SweepCoreAsync(buried, cancellation).ConfigureAwait(false); }
        finally
        {
            Interlocked.Exchange(ref _runningSince, 0);
            Interlocked.Exchange(ref _lastSweepMs, Environment.TickCount64 - started);
            Interlocked.Increment(ref _sweeps);
            _one.Release();
        }
    }

    /// <summary>
    /// For the reclaimer: true when every page of [from, to) was swept, none holds a record that has expired since, and
    /// none holds a possibly live record other than its suspects (added to suspects). False: the caller checks every record.
    /// </summary>
    public bool TryGetSuspects(long from, long to, long now, List<(long Address, byte[] Key)> suspects)
    {
        var log = _store.Log;
        lock (_pages)
        {
            for (long page = log.PageOf(from); log.PageStart(page) < to; page++)
            {
                if (!_pages.TryGetValue(page, out var v) || v.Unknown || v.NextExpiry != long.MaxValue) return false;
                if (v.Suspects is not null) suspects.AddRange(v.Suspects);
            }
        }
        return true;
    }

    private async Task<long> SweepCoreAsync(List<byte[]>? buried, CancellationToken cancellation)
    {
        var log = _store.Log;
        if (!_store.Device.Persistent) return 0;
        long begin = log.BeginAddress;
        long end = log.PageStart(log.PageOf(log.HeadAddress)); // whole pages below the head's page only
        long now = _store.Clock();
        var due = new List<long>();
        lock (_pages)
        {
            foreach (var p in _pages.Keys.Where(p => log.PageStart(p + 1) <= begin).ToList()) _pages.Remove(p);
            for (long page = log.PageOf(begin); log.PageStart(page) < end; page++)
                if (!_pages.TryGetValue(page, out var v) || v.NextExpiry <= now) due.Add(page);
        }
        if (due.Count == 0) return 0; // no page buffer taken (a page-sized array would stay in the shared pool)
        long dropped = 0;
        byte[] buffer = ArrayPool<byte>.Shared.Rent(log.PageSize);
        try
        {
            for (int i = due.Count - 1; i >= 0; i--)
            {
                cancellation.ThrowIfCancellationRequested();
                long page = due[i];
                long start = Math.Max(log.PageStart(page), begin);
                int length = (int)(log.PageStart(page + 1) - start);
                int n;
                try { n = await log.Device.ReadAsync(start, buffer.AsMemory(0, length)).ConfigureAwait(false); }
                catch (Exception) when (log.PageStart(page + 1) <= log.BeginAddress)
                {
                    continue; // its segment was deleted meanwhile: nothing there is reachable any more
                }
                if (n <= 0) continue;
                Interlocked.Increment(ref _pagesRead);
                var verdict = new PageVerdict();
                dropped += SweepPage(buffer, n, start, now, buried, verdict);
                if (n == length) lock (_pages) _pages[page] = verdict; // a short read is looked at again next time
            }
        }
        finally { ArrayPool<byte>.Shared.Return(buffer); }
        return dropped;
    }

    private unsafe long SweepPage(byte[] bytes, int length, long baseAddress, long now, List<byte[]>? buried, PageVerdict verdict)
    {
        long dropped = 0;
        var expired = _expiredOffsets;
        expired.Clear();
        _store.Epoch.Acquire();
        try
        {
            fixed (byte* start = bytes)
            {
                // Forward to find the records (sizes chain them), then the expired ones newest first (see the file comment).
                int offset = 0;
                while (offset + RecordLayout.HeaderSize <= length)
                {
                    byte* r = start + offset;
                    if (!RecordLayout.IsPresent(r)) break;
                    int size = RecordLayout.TotalSize(r);
                    if (size <= 0 || offset + size > length) break;
                    ulong info = RecordInfo.Persistent(*(ulong*)r);
                    // Invalid records are never reachable; tombstones hide only older records, which go before them.
                    if ((info & (RecordInfo.Invalid | RecordInfo.Tombstone)) == 0)
                    {
                        long expiration = (info & RecordInfo.HasExpiration) != 0 ? RecordLayout.Expiration(r) : 0;
                        if (expiration != 0 && expiration <= now) expired.Add(offset);
                        else if (expiration != 0) verdict.NextExpiry = Math.Min(verdict.NextExpiry, expiration);
                        else if (!verdict.Unknown && _store.MayReach(RecordLayout.Key(r), baseAddress + offset)) verdict.Unknown = true;
                    }
                    offset += size;
                }
                for (int i = expired.Count - 1; i >= 0; i--)
                {
                    byte* r = start + expired[i];
                    long address = baseAddress + expired[i];
                    ulong info = RecordInfo.Persistent(*(ulong*)r);
                    // A sole version heading its chain is unlinked here. Any other expired record (below another record of
                    // its chain, or with older versions below it that unlinking would bring back) is handed out once, for
                    // a delete that checks the key's newest record, and stays a suspect of its page.
                    var outcome = (info & RecordInfo.SoleVersion) != 0
                        ? _store.TryDropExpiredHead(RecordLayout.Key(r), address, RecordInfo.PreviousAddress(info))
                        : _store.MayReach(RecordLayout.Key(r), address) ? KVStore.DropOutcome.NotHead : KVStore.DropOutcome.Unreachable;
                    if (outcome == KVStore.DropOutcome.Dropped) dropped++;
                    if (outcome != KVStore.DropOutcome.NotHead) continue;
                    byte[] key = RecordLayout.Key(r).ToArray();
                    if (buried is not null && buried.Count < MaxBuriedPerSweep) { buried.Add(key); Interlocked.Increment(ref _handedOut); }
                    else verdict.NextExpiry = Math.Min(verdict.NextExpiry, now + RevisitDelayMs);
                    if (verdict.Suspects is { Count: >= MaxSuspectsPerPage }) verdict.Unknown = true;
                    else (verdict.Suspects ??= new()).Add((address, key));
                }
            }
        }
        finally { _store.Epoch.Release(); }
        return dropped;
    }
}
