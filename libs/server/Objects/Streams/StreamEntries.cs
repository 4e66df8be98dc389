// StreamEntries: a stream's entries as an ordered list of StreamBlocks (Redis keeps listpacks under a radix tree keyed
// by master ID; a sorted list of blocks searched by binary search gives the same O(log n) seek). Appends go to the
// last block; a full block is sealed (trimmed to size) and a new one started.
// Invariants:
//  - Blocks are in ID order and never empty of live entries (a block whose last live entry goes is removed).
//  - Length is the number of live entries; HeapBytes the bytes the blocks hold; HotDataBytes the entry bytes of the
//    blocks in memory (not spilled). The last block is never spilled; a spilled block is made hot again before a change.
//  - Every block below index _hotFrom is spilled (a lower bound of the first hot block).
namespace Garnet.server.Objects.Streams;

public readonly record struct StreamEntry(StreamId Id, List<byte[]> Pairs);

internal sealed class StreamEntries
{
    private readonly List<StreamBlock> _blocks = [];

    public long Length { get; private set; }
    public long HeapBytes { get; private set; }
    public long HotDataBytes { get; private set; }
    /// <summary>Entry bytes of the spilled blocks (in the spill file).</summary>
    public long SpilledBytes { get; private set; }
    public int BlockCount => _blocks.Count;
    internal IReadOnlyList<StreamBlock> Blocks => _blocks;
    private int _hotFrom;

    public StreamEntries Clone()
    {
        var c = new StreamEntries { Length = Length, HeapBytes = HeapBytes, HotDataBytes = HotDataBytes, SpilledBytes = SpilledBytes, _hotFrom = _hotFrom };
        foreach (var b in _blocks)
        {
            c._blocks.Add(b.ShallowCopy());
            b.Spill?.NoteReference(b.SpillOffset); // a new version refers to it (kept by a mark round in progress)
        }
        return c;
    }

    public void Append(StreamId id, ReadOnlySpan<byte[]> pairs)
    {
        var last = _blocks.Count > 0 ? _blocks[^1] : null;
        if (last is null || last.IsSpilled || !last.Fits(StreamBlock.EncodedSize(last.Master, last.MasterFields, id, pairs, out _)))
        {
            if (last is { IsSpilled: false })
            {
                long freed = last.Seal();
                HeapBytes -= freed;
                HotDataBytes -= freed;
            }
            last = new StreamBlock();
            _blocks.Add(last);
            HeapBytes += 120;
        }
        long before = last.Data.Length;
        HeapBytes += last.Append(id, pairs);
        HotDataBytes += last.Data.Length - before;
        Length++;
    }

    /// <summary>Adds a block read whole (loading); its entries are above every present one.</summary>
    internal void AddBlock(StreamBlock b)
    {
        if (b.Live == 0) return;
        _blocks.Add(b);
        HeapBytes += b.HeapBytes;
        HotDataBytes += b.DataBytes;
        if (b.IsSpilled) SpilledBytes += b.Used;
        Length += b.Live;
    }

    /// <summary>
    /// When the blocks in memory hold more than hotLimit bytes of entries, writes the oldest ones (never the last) to the
    /// spill file until at most half of it is left; returns the blocks spilled. A write the disk refuses leaves the rest in
    /// memory (the stream stays correct, only larger).
    /// </summary>
    public int SpillColdBlocks(StreamSpillFile spill, long hotLimit)
    {
        if (HotDataBytes <= hotLimit || _blocks.Count < 2) return 0;
        int i = Math.Min(_hotFrom, _blocks.Count - 1), spilled = 0;
        for (; i < _blocks.Count - 1 && HotDataBytes > hotLimit / 2; i++)
        {
            var b = _blocks[i];
            if (b.IsSpilled) continue;
            long heapBefore = b.HeapBytes, data = b.DataBytes;
            try { b.SpillTo(spill); }
            catch (IOException) { return spilled; }
            HeapBytes += b.HeapBytes - heapBefore;
            HotDataBytes -= data;
            SpilledBytes += b.Used;
            spilled++;
        }
        _hotFrom = i;
        return spilled;
    }

    /// <summary>Block bi, read back into memory first when it was spilled (before a change).</summary>
    private StreamBlock Hot(int bi)
    {
        var b = _blocks[bi];
        if (!b.IsSpilled) return b;
        var h = b.Readable(); // stays Shared: its bytes may be the spill file's cached ones (a change copies them)
        HeapBytes += h.HeapBytes - b.HeapBytes;
        HotDataBytes += h.DataBytes;
        SpilledBytes -= b.Used;
        _blocks[bi] = h;
        if (bi < _hotFrom) _hotFrom = bi;
        return h;
    }

    /// <summary>Index of the last block whose master is &lt;= id (-1: none).</summary>
    private int BlockAtOrBefore(StreamId id)
    {
        int lo = 0, hi = _blocks.Count - 1, found = -1;
        while (lo <= hi)
        {
            int mid = (lo + hi) >>> 1;
            if (_blocks[mid].Master <= id) { found = mid; lo = mid + 1; }
            else hi = mid - 1;
        }
        return found;
    }

    /// <summary>The spilled blocks Range(start, end, reverse) reads to give count (-1: all) live entries, at most max of
    /// them (StreamBlockReadAhead reads them before the command runs). known gives the bytes of a spilled block when
    /// they are at hand (pinned or cached), else null. The first block the range only partly covers (the scan's start)
    /// gives an unknown number of entries: unless its bytes are known (then they are counted), the plan stops after it
    /// and returns false (the caller plans again once it has been read); true when the plan is complete.</summary>
    internal bool SpilledBlocksOfRange(StreamId start, StreamId end, bool reverse, long count, List<StreamBlock> into, int max, Func<StreamBlock, byte[]?> known)
    {
        if (start > end || _blocks.Count == 0) return true;
        long live = 0;
        int bi = reverse ? BlockAtOrBefore(end) : Math.Max(0, BlockAtOrBefore(start));
        for (; bi >= 0 && bi < _blocks.Count && into.Count < max; bi += reverse ? -1 : 1)
        {
            var b = _blocks[bi];
            if (reverse ? b.Last < start : b.Master > end) return true;
            if (b.Last < start) continue;
            byte[]? bytes = b.IsSpilled ? known(b) : b.Data;
            if (b.IsSpilled) into.Add(b);
            if (count <= 0) continue;
            if (b.Master >= start && b.Last <= end) live += b.Live;
            else if (bytes is null) return false; // a partly covered block not read yet: plan the rest after it
            else live += b.LiveBetween(bytes, start, end);
            if (live >= count) return true;
        }
        return true;
    }

    /// <summary>The spilled block that would hold id, if any.</summary>
    internal StreamBlock? SpilledBlockHolding(StreamId id)
    {
        int bi = BlockAtOrBefore(id);
        return bi >= 0 && _blocks[bi] is { IsSpilled: true } b && b.Last >= id ? b : null;
    }

    public StreamId? FirstId()
    {
        if (_blocks.Count > 0 && _blocks[0].IsSpilled) return _blocks[0].FirstLive;
        foreach (var e in Range(StreamId.Min, StreamId.Max, false, withPairs: false)) return e.Id;
        return null;
    }

    public StreamId? LastLiveId()
    {
        if (_blocks.Count > 0 && _blocks[^1].IsSpilled) return _blocks[^1].LastLive;
        foreach (var e in Range(StreamId.Min, StreamId.Max, true, withPairs: false)) return e.Id;
        return null;
    }

    /// <summary>Live entries with start &lt;= ID &lt;= end, ascending or (reverse) descending, read lazily.</summary>
    public IEnumerable<StreamEntry> Range(StreamId start, StreamId end, bool reverse, bool withPairs = true)
    {
        if (start > end || _blocks.Count == 0) yield break;
        if (!reverse)
        {
            int bi = Math.Max(0, BlockAtOrBefore(start));
            for (; bi < _blocks.Count; bi++)
            {
                var b = _blocks[bi];
                if (b.Master > end) yield break;
                if (b.Last < start) continue;
                b = b.Readable();
                int at = 0;
                for (int i = 0; i < b.Count; i++)
                {
                    var id = b.ReadHeader(at, out byte flags, out int body);
                    if (id > end) yield break;
                    List<byte[]>? pairs = withPairs && (flags & StreamBlock.FlagDeleted) == 0 && id >= start ? new List<byte[]>() : null;
                    at = b.ReadBody(body, flags, pairs);
                    if ((flags & StreamBlock.FlagDeleted) != 0 || id < start) continue;
                    yield return new StreamEntry(id, pairs ?? []);
                }
            }
        }
        else
        {
            int bi = BlockAtOrBefore(end);
            for (; bi >= 0; bi--)
            {
                var b = _blocks[bi];
                if (b.Last < start) yield break;
                b = b.Readable();
                var offsets = b.Offsets();
                for (int i = offsets.Length - 1; i >= 0; i--)
                {
                    var id = b.ReadHeader(offsets[i], out byte flags, out int body);
                    if (id < start) yield break;
                    if (id > end || (flags & StreamBlock.FlagDeleted) != 0) continue;
                    List<byte[]>? pairs = withPairs ? new List<byte[]>() : null;
                    b.ReadBody(body, flags, pairs);
                    yield return new StreamEntry(id, pairs ?? []);
                }
            }
        }
    }

    /// <summary>The live entry with this ID, or null.</summary>
    public StreamEntry? Get(StreamId id)
    {
        foreach (var e in Range(id, id, false)) return e;
        return null;
    }

    /// <summary>Deletes the live entry id; false when there is none.</summary>
    public bool Delete(StreamId id)
    {
        int bi = BlockAtOrBefore(id);
        if (bi < 0) return false;
        var b = _blocks[bi];
        if (b.Last < id) return false;
        b = b.Readable();
        int at = 0;
        for (int i = 0; i < b.Count; i++)
        {
            var eid = b.ReadHeader(at, out byte flags, out int body);
            if (eid > id) return false;
            if (eid == id)
            {
                if ((flags & StreamBlock.FlagDeleted) != 0) return false;
                b = Hot(bi);
                b.MarkDeleted(at);
                Length--;
                if (b.Live == 0) RemoveBlocks(bi, 1);
                return true;
            }
            at = b.ReadBody(body, flags, null);
        }
        return false;
    }

    private void RemoveBlocks(int index, int count)
    {
        for (int i = index; i < index + count; i++)
        {
            HeapBytes -= _blocks[i].HeapBytes;
            HotDataBytes -= _blocks[i].DataBytes;
            if (_blocks[i].IsSpilled) SpilledBytes -= _blocks[i].Used;
        }
        _blocks.RemoveRange(index, count);
        if (index < _hotFrom) _hotFrom = Math.Max(index, _hotFrom - count);
    }

    /// <summary>
    /// Redis's streamTrim: removes whole blocks from the front while the stream stays at or above maxLen entries (or
    /// their last ID is below minId); approx stops there, else entries of the next block are marked deleted. limit
    /// (0: none) bounds the entries a trim may remove, in whole blocks. Returns the entries removed.
    /// </summary>
    public long Trim(bool byMinId, long maxLen, StreamId minId, bool approx, long limit)
    {
        long deleted = 0;
        while (_blocks.Count > 0)
        {
            if (!byMinId && Length <= maxLen) break;
            var b = _blocks[0];
            long entries = b.Live, dead = b.Count - b.Live;
            if (limit > 0 && deleted + entries > limit) break;
            bool removeNode = byMinId ? b.Last < minId : Length - entries >= maxLen;
            if (removeNode)
            {
                Length -= entries;
                deleted += entries;
                RemoveBlocks(0, 1);
                continue;
            }
            if (approx) break;
            if (byMinId && b.IsSpilled && b.FirstLive >= minId) break;
            b = Hot(0);
            int at = 0;
            for (int i = 0; i < b.Count; i++)
            {
                if (!byMinId && Length <= maxLen) break;
                int here = at;
                var id = b.ReadHeader(at, out byte flags, out int body);
                at = b.ReadBody(body, flags, null);
                if ((flags & StreamBlock.FlagDeleted) != 0) continue;
                if (byMinId && id >= minId) break;
                b.MarkDeleted(here);
                Length--;
                deleted++;
            }
            if (b.Live == 0) RemoveBlocks(0, 1);
            _ = dead;
            break;
        }
        return deleted;
    }
}
