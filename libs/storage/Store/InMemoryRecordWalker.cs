// InMemoryRecordWalker: walks the records of the in-memory log pages in address order and hands each live-looking one
// (neither Invalid nor a tombstone) to a struct visitor, in place: no copy, no allocation. For background jobs that look
// at many records' headers and keys (active expiry, INFO's expiry estimates); KeyIterator is the walker that copies.
// Invariants:
//  - One walk runs under epoch protection, entered once: no page at or above the HeadAddress read at its start can be
//    closed (nor its frame reused or freed) until it returns. Records below that head have left memory: the walk starts
//    at the head instead.
//  - end must be an address below which every record is completely written (TryGetWrittenEnd: a tail read before an
//    epoch barrier). The walk never reads at or above the log's current tail.
//  - A walk starts at a record boundary (a page start, the head, or a Cursor a walk returned) and steps by each record's
//    size, which never changes once written. A page ends at its first header without Present, at a size that does not fit
//    what is left of the page, or with fewer than HeaderSize bytes left; the walk goes on at the next page start.
//  - Every step costs one unit of maxSteps: a record visited, a record skipped, or the end of a page crossed.
//  - A page's frame is looked up once, when the walk enters the page (it cannot change while the epoch is held).
//  - The visitor sees one record at a time (WalkedRecord, valid only during Visit), runs under epoch protection, and
//    must not block, keep pointers, or call into the store. Nothing is locked: the key and header fields are read as
//    they are (a record's key never changes; its expiration may be changed in place, read whole, old or new).
using System.Runtime.CompilerServices;
using Garnet.storage.Log;

namespace Garnet.storage.Store;

/// <summary>What a walk sees of one record: its address, size, flags, expiration and key. Valid only during Visit.</summary>
public readonly unsafe ref struct WalkedRecord
{
    private readonly byte* _record;

    internal WalkedRecord(byte* record, long address, int size, ulong info)
    {
        _record = record;
        Address = address;
        Size = size;
        Info = info;
    }

    public long Address { get; }

    /// <summary>Bytes the record takes in the log.</summary>
    public int Size { get; }

    /// <summary>The RecordInfo word, read once when the walk reached the record (flags, previous address, lock bits).</summary>
    public ulong Info { get; }

    /// <summary>Superseded by a newer record of its key (as of the Info read).</summary>
    public bool IsSealed => (Info & RecordInfo.Sealed) != 0;

    public bool IsObject => (Info & RecordInfo.ObjectValue) != 0;

    public bool HasExpiration
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => RecordLayout.HasExpiration(_record);
    }

    /// <summary>Unix ms at which the record expires; 0 = never.</summary>
    public long Expiration => RecordLayout.Expiration(_record);

    public int KeyLength => RecordLayout.KeyLength(_record);

    public ReadOnlySpan<byte> Key => RecordLayout.Key(_record);

    /// <summary>The record's kind tag (RecordRef.ObjectKind).</summary>
    public byte Kind => RecordLayout.ObjectKind(_record);
}

/// <summary>Called by a walk for each record that is neither Invalid nor a tombstone. Implement it on a struct: the walk is
/// specialized for it, so a visit is a direct call, inlined into the loop when small (AggressiveInlining on a hot Visit:
/// a call per record was ~20% of active expiry's walk).</summary>
public interface IRecordVisitor
{
    void Visit(in WalkedRecord record);
}

/// <summary>Where a walk stopped. Cursor: where the next walk goes on; Steps: the steps it took (see the header);
/// ReachedEnd: it got to end.</summary>
public readonly record struct WalkProgress(long Cursor, int Steps, bool ReachedEnd);

public static unsafe class InMemoryRecordWalker
{
    /// <summary>The log's tail, once every operation in flight has finished: every record below it is completely written,
    /// so it is an end for a walk. False when the operations did not finish within timeout (end is then not safe).</summary>
    public static bool TryGetWrittenEnd(KVStore store, TimeSpan timeout, out long end)
    {
        end = store.Log.TailAddress;
        return store.WaitForOperationsInFlight(timeout);
    }

    /// <summary>Visits the records in [from, end) that are still in memory, at most maxSteps steps. from must be a record
    /// boundary; below the head, the walk starts at the head.</summary>
    public static WalkProgress Walk<TVisitor>(KVStore store, long from, long end, int maxSteps, ref TVisitor visitor)
        where TVisitor : struct, IRecordVisitor => Run(store, from, end, maxSteps, wrap: false, ref visitor);

    /// <summary>As Walk from a resume cursor that goes round the in-memory log: a cursor that has left memory, or has
    /// reached end, starts over at the head.</summary>
    public static WalkProgress Resume<TVisitor>(KVStore store, long cursor, long end, int maxSteps, ref TVisitor visitor)
        where TVisitor : struct, IRecordVisitor => Run(store, cursor, end, maxSteps, wrap: true, ref visitor);

    private static WalkProgress Run<TVisitor>(KVStore store, long cursor, long end, int maxSteps, bool wrap, ref TVisitor visitor)
        where TVisitor : struct, IRecordVisitor
    {
        var log = store.Log;
        store.Epoch.Acquire();
        try
        {
            long head = log.HeadAddress;
            end = Math.Min(end, log.TailAddress);
            if (cursor < head || (wrap && cursor >= end)) cursor = Math.Max(head, HybridLog.FirstValidAddress);
            int steps = 0;
            long pageStart = 0, pageEnd = 0;
            byte* frame = null;
            while (steps < maxSteps && cursor < end)
            {
                steps++;
                if (cursor >= pageEnd)
                {
                    // A new page: its frame is fixed while the walk holds the epoch, so it is looked up once.
                    pageStart = log.PageStart(log.PageOf(cursor));
                    pageEnd = pageStart + log.PageSize;
                    frame = log.GetPhysical(pageStart);
                }
                if (pageEnd - cursor < RecordLayout.HeaderSize) { cursor = pageEnd; continue; }
                byte* r = frame + (cursor - pageStart);
                if (!RecordLayout.IsPresent(r)) { cursor = pageEnd; continue; }
                int size = RecordLayout.TotalSize(r);
                if (size <= 0 || size > pageEnd - cursor) { cursor = pageEnd; continue; }
                ulong info = Volatile.Read(ref RecordLayout.Info(r));
                if ((info & (RecordInfo.Invalid | RecordInfo.Tombstone)) == 0)
                    visitor.Visit(new WalkedRecord(r, cursor, size, info));
                cursor += size;
            }
            return new WalkProgress(cursor, steps, cursor >= end);
        }
        finally { store.Epoch.Release(); }
    }
}
