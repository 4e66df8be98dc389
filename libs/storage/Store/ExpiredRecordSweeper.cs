// ExpiredRecordSweeper: drops expired keys whose records are on disk. It reads the on-disk part of the log sequentially
// and, for each expired record that is its key's only live version (RecordInfo.SoleVersion) and the head of its index
// chain, moves the index entry past it (to the record's previous address) and counts the key out, without writing. The
// record itself becomes garbage that SegmentReclaimer deletes with its segment; no tombstone is needed, because nothing of
// the key is left below it. Every other expired record's key is handed to the caller (buried), which deletes it with a
// tombstone if its newest record has expired (StoreSession.DeleteIfExpired with lookOnDisk).
// Invariants:
//  - The entry moves only by a CAS from exactly that record's address: a writer that published a newer record of the key
//    first wins (the CAS fails and the key stays), and a writer that built on the record's address retries after it.
//  - Records on disk are immutable, so what the sweep read is what the chain holds. In-memory records are ActiveExpiry's.
//  - Work is proportional to what can have expired: a segment once swept is skipped until the earliest expiration among
//    its remaining candidates has passed (records there never change), so an idle store with long TTLs reads nothing. An
//    expired record is handed out once (when it is first seen expired); only one that did not fit in this sweep's
//    hand-out makes its segment due again, after RevisitDelayMs. One no chain reaches any more is garbage: no look.
using System.Buffers;
using Garnet.storage.Log;

namespace Garnet.storage.Store;

internal sealed class ExpiredRecordSweeper
{
    /// <summary>How long a segment holding an expired record that is not its chain's head waits for the next look.</summary>
    public const long RevisitDelayMs = 5000;
    /// <summary>At most this many buried keys are handed out per sweep (the rest at the next one).</summary>
    public const int MaxBuriedPerSweep = 4096;

    private readonly KVStore _store;
    private readonly Dictionary<long, long> _segmentNextExpiry = new(); // segment -> earliest expiration still there (ms)
    private readonly SemaphoreSlim _one = new(1, 1);

    public ExpiredRecordSweeper(KVStore store) => _store = store;

    /// <summary>Sweeps every whole on-disk page not known to hold nothing that has expired by now; returns the keys dropped.
    /// Keys of expired records that are not their chain's head are added to buried (when given).</summary>
    public async Task<long> SweepAsync(List<byte[]>? buried, CancellationToken cancellation)
    {
        if (!_one.Wait(0)) return 0; // one sweep at a time (callers are compaction runs)
        try { return await SweepCoreAsync(buried, cancellation).ConfigureAwait(false); }
        finally { _one.Release(); }
    }

    private async Task<long> SweepCoreAsync(List<byte[]>? buried, CancellationToken cancellation)
    {
        var log = _store.Log;
        if (!_store.Device.Persistent) return 0;
        int segmentBits = _store.Settings.SegmentBits;
        long begin = log.BeginAddress, head = log.HeadAddress;
        long now = _store.Clock();
        foreach (var s in _segmentNextExpiry.Keys.Where(s => (s + 1) << segmentBits <= begin).ToList()) _segmentNextExpiry.Remove(s);
        long dropped = 0;
        byte[] buffer = ArrayPool<byte>.Shared.Rent(log.PageSize);
        try
        {
            for (long segment = begin >> segmentBits; segment << segmentBits < head; segment++)
            {
                long segmentStart = Math.Max(segment << segmentBits, begin);
                long segmentEnd = Math.Min((segment + 1) << segmentBits, log.PageStart(log.PageOf(head)));
                if (segmentEnd <= segmentStart) break;
                if (_segmentNextExpiry.TryGetValue(segment, out long next) && next > now) continue;
                long earliest = long.MaxValue;
                for (long page = log.PageOf(segmentStart); log.PageStart(page) < segmentEnd; page++)
                {
                    cancellation.ThrowIfCancellationRequested();
                    long start = Math.Max(log.PageStart(page), segmentStart);
                    int length = (int)(Math.Min(log.PageStart(page + 1), segmentEnd) - start);
                    int n = await log.Device.ReadAsync(start, buffer.AsMemory(0, length)).ConfigureAwait(false);
                    if (n <= 0) continue;
                    dropped += SweepPage(buffer, n, start, now, buried, ref earliest);
                }
                // A segment that was not whole on disk is swept again next time.
                if (segmentEnd == (segment + 1) << segmentBits) _segmentNextExpiry[segment] = earliest;
            }
        }
        finally { ArrayPool<byte>.Shared.Return(buffer); }
        return dropped;
    }

    private unsafe long SweepPage(byte[] bytes, int length, long baseAddress, long now, List<byte[]>? buried, ref long earliest)
    {
        long dropped = 0;
        _store.Epoch.Acquire();
        try
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
                    ulong info = RecordInfo.Persistent(*(ulong*)r);
                    if ((info & (RecordInfo.Invalid | RecordInfo.Tombstone | RecordInfo.HasExpiration)) == RecordInfo.HasExpiration)
                    {
                        long expiration = RecordLayout.Expiration(r);
                        if (expiration > now) earliest = Math.Min(earliest, expiration);
                        else
                        {
                            // A sole version heading its chain is unlinked here. Any other expired record (below another
                            // record of its chain, or with older versions below it that unlinking would bring back) is
                            // handed out once, for a delete that checks the key's newest record; only when the hand-out is
                            // full is its segment looked at again (later, not at every sweep).
                            var outcome = (info & RecordInfo.SoleVersion) != 0
                                ? _store.TryDropExpiredHead(RecordLayout.Key(r), baseAddress + offset, RecordInfo.PreviousAddress(info))
                                : KVStore.DropOutcome.NotHead;
                            if (outcome == KVStore.DropOutcome.Dropped) dropped++;
                            else if (outcome == KVStore.DropOutcome.NotHead)
                            {
                                if (buried is not null && buried.Count < MaxBuriedPerSweep) buried.Add(RecordLayout.Key(r).ToArray());
                                else earliest = Math.Min(earliest, now + RevisitDelayMs);
                            }
                        }
                    }
                    offset += size;
                }
            }
        }
        finally { _store.Epoch.Release(); }
        return dropped;
    }
}
