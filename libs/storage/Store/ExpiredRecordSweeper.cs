// ExpiredRecordSweeper: drops expired keys whose records are on disk without writing anything. It reads the on-disk part of
// the log sequentially and, for each expired record that is its key's only live version (RecordInfo.SoleVersion) and the
// head of its index chain, moves the index entry past it (to the record's previous address) and counts the key out. The
// record itself becomes garbage that SegmentReclaimer deletes with its segment; no tombstone is needed, because nothing of
// the key is left below it.
// Invariants:
//  - The entry moves only by a CAS from exactly that record's address: a writer that published a newer record of the key
//    first wins (the CAS fails and the key stays), and a writer that built on the record's address retries after it.
//  - Records on disk are immutable, so what the sweep read is what the chain holds. In-memory records are ActiveExpiry's.
//  - Work is proportional to what can have expired: a segment once swept is skipped until the earliest expiration among
//    its remaining candidates has passed (records there never change), so an idle store with long TTLs reads nothing. An
//    expired candidate that is not its chain's head makes its segment due again after RevisitDelayMs (the head above it
//    may go first); one no chain reaches any more is garbage and needs no look.
using System.Buffers;
using Garnet.storage.Log;

namespace Garnet.storage.Store;

internal sealed class ExpiredRecordSweeper
{
    /// <summary>How long a segment holding an expired record that is not its chain's head waits for the next look.</summary>
    public const long RevisitDelayMs = 5000;

    private readonly KVStore _store;
    private readonly Dictionary<long, long> _segmentNextExpiry = new(); // segment -> earliest expiration still there (ms)
    private readonly SemaphoreSlim _one = new(1, 1);

    public ExpiredRecordSweeper(KVStore store) => _store = store;

    /// <summary>Sweeps every whole on-disk page not known to hold nothing that has expired by now; returns the keys dropped.</summary>
    public async Task<long> SweepAsync(CancellationToken cancellation)
    {
        if (!_one.Wait(0)) return 0; // one sweep at a time (callers are compaction runs)
        try { return await SweepCoreAsync(cancellation).ConfigureAwait(false); }
        finally { _one.Release(); }
    }

    private async Task<long> SweepCoreAsync(CancellationToken cancellation)
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
                    dropped += SweepPage(buffer, n, start, now, ref earliest);
                }
                // A segment that was not whole on disk is swept again next time.
                if (segmentEnd == (segment + 1) << segmentBits) _segmentNextExpiry[segment] = earliest;
            }
        }
        finally { ArrayPool<byte>.Shared.Return(buffer); }
        return dropped;
    }

    private unsafe long SweepPage(byte[] bytes, int length, long baseAddress, long now, ref long earliest)
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
                    const ulong candidate = RecordInfo.SoleVersion | RecordInfo.HasExpiration;
                    if ((info & (RecordInfo.Invalid | RecordInfo.Tombstone | candidate)) == candidate)
                    {
                        long expiration = RecordLayout.Expiration(r);
                        if (expiration > now) earliest = Math.Min(earliest, expiration);
                        else switch (_store.TryDropExpiredHead(RecordLayout.Key(r), baseAddress + offset, RecordInfo.PreviousAddress(info)))
                        {
                            case KVStore.DropOutcome.Dropped: dropped++; break;
                            // A newer record heads its chain (of another key, which may go first, or a newer version of this
                            // one): look again later, not at every sweep.
                            case KVStore.DropOutcome.NotHead: earliest = Math.Min(earliest, now + RevisitDelayMs); break;
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
