// StreamObject: a Redis stream (ObjectKind.Stream): its entries (StreamEntries, packed blocks), the stream's metadata
// (last generated ID, max deleted ID, entries added) and its consumer groups. Unlike the other collections an empty
// stream is kept (XDEL/XTRIM of every entry, XGROUP CREATE MKSTREAM leave the key), so IsEmpty is always false.
// Invariants:
//  - LastId >= every entry's ID; MaxDeletedId <= LastId; EntriesAdded >= Length.
//  - The payload (WritePayload/ReadPayload) holds everything, so the object log round-trips a stream exactly; a spilled
//    block is written as a reference to its bytes in the store's StreamSpillFile (valid for the run, as the object log).
using System.Buffers;
using Garnet.server.Objects.Streams;

namespace Garnet.server.Objects;

public sealed class StreamObject : CollectionObject
{
    internal StreamEntries Entries { get; private set; } = new();
    public StreamId LastId { get; set; }
    public StreamId MaxDeletedId { get; set; }
    public long EntriesAdded { get; set; }
    public SortedDictionary<byte[], ConsumerGroup> Groups { get; private set; } = new(ByteArrayComparer.Instance);

    public override ObjectKind Kind => ObjectKind.Stream;
    public override long Count => Entries.Length;
    public override bool IsEmpty => false;
    public long Length => Entries.Length;
    public override long HeapBytes => BaseBytes + 64 + Entries.HeapBytes + Groups.Values.Sum(g => g.HeapBytes);
    public override long SpilledBytes => Entries.SpilledBytes;
    public override string Encoding => "stream";

    public StreamId FirstId => Entries.FirstId() ?? StreamId.Min;

    public override CollectionObject Clone()
    {
        var c = new StreamObject { Entries = Entries.Clone(), LastId = LastId, MaxDeletedId = MaxDeletedId, EntriesAdded = EntriesAdded };
        foreach (var (name, g) in Groups) c.Groups[name] = g.DeepCopy();
        return c;
    }

    /// <summary>Appends an entry with a valid new ID (greater than LastId).</summary>
    public void Add(StreamId id, ReadOnlySpan<byte[]> pairs)
    {
        Entries.Append(id, pairs);
        LastId = id;
        EntriesAdded++;
    }

    /// <summary>Moves the oldest blocks out of memory when this stream keeps more than hotLimit bytes of entries in it.</summary>
    public int SpillColdBlocks(StreamSpillFile spill, long hotLimit) => Entries.SpillColdBlocks(spill, hotLimit);

    public bool Delete(StreamId id)
    {
        if (!Entries.Delete(id)) return false;
        if (id > MaxDeletedId) MaxDeletedId = id;
        return true;
    }

    public long Trim(bool byMinId, long maxLen, StreamId minId, bool approx, long limit) => Entries.Trim(byMinId, maxLen, minId, approx, limit);

    public IEnumerable<StreamEntry> Range(StreamId start, StreamId end, bool reverse) => Entries.Range(start, end, reverse);

    public StreamEntry? Get(StreamId id) => Entries.Get(id);

    public ConsumerGroup? FindGroup(ReadOnlySpan<byte> name)
    {
        foreach (var (n, g) in Groups) if (n.AsSpan().SequenceEqual(name)) return g;
        return null;
    }

    // ---- Redis 7.2's logical-read counters (entries_read, lag) ----
    public bool RangeHasTombstones(StreamId start, StreamId end)
    {
        if (Length == 0 || MaxDeletedId.IsZero) return false;
        return start <= MaxDeletedId && MaxDeletedId <= end;
    }

    public long EstimateDistanceFromFirstEverEntry(StreamId id)
    {
        if (EntriesAdded == 0) return 0;
        if (Length == 0 && id <= LastId) return EntriesAdded;
        int cmpLast = id.CompareTo(LastId);
        if (cmpLast == 0) return EntriesAdded;
        if (cmpLast > 0) return ConsumerGroup.InvalidEntriesRead;
        var first = FirstId;
        int cmpFirst = id.CompareTo(first);
        if (MaxDeletedId.IsZero || MaxDeletedId < first)
        {
            if (cmpFirst < 0) return EntriesAdded - Length;
            if (cmpFirst == 0) return EntriesAdded - Length + 1;
        }
        return ConsumerGroup.InvalidEntriesRead;
    }

    /// <summary>XINFO's lag of a group; null when unknown.</summary>
    public long? Lag(ConsumerGroup g)
    {
        if (EntriesAdded == 0) return 0;
        if (g.EntriesRead != ConsumerGroup.InvalidEntriesRead && !RangeHasTombstones(g.LastId, StreamId.Max)) return EntriesAdded - g.EntriesRead;
        long read = EstimateDistanceFromFirstEverEntry(g.LastId);
        return read == ConsumerGroup.InvalidEntriesRead ? null : EntriesAdded - read;
    }

    /// <summary>A group delivered id (greater than its last ID): moves its last ID and entries-read counter.</summary>
    public void Advance(ConsumerGroup g, StreamId id)
    {
        if (id <= g.LastId) return;
        if (g.EntriesRead != ConsumerGroup.InvalidEntriesRead && !RangeHasTombstones(id, StreamId.Max)) g.EntriesRead++;
        else if (EntriesAdded != 0) g.EntriesRead = EstimateDistanceFromFirstEverEntry(id);
        g.LastId = id;
    }

    // ---- the object log's payload ----
    public override void WritePayload(IBufferWriter<byte> output)
    {
        WriteId(output, LastId);
        WriteId(output, MaxDeletedId);
        PayloadWriter.WriteVarint(output, (ulong)EntriesAdded);
        var blocks = Entries.Blocks;
        PayloadWriter.WriteVarint(output, (ulong)blocks.Count);
        foreach (var b in blocks)
        {
            WriteId(output, b.Master);
            WriteId(output, b.Last);
            PayloadWriter.WriteVarint(output, (ulong)b.Count);
            PayloadWriter.WriteVarint(output, (ulong)b.Live);
            PayloadWriter.WriteVarint(output, (ulong)b.MasterFields.Length);
            foreach (var f in b.MasterFields) PayloadWriter.WriteBytes(output, f);
            if (b.IsSpilled)
            {
                // 0 then the reference (bytes of a block are never empty, so a 0 length cannot be a block's own bytes).
                PayloadWriter.WriteVarint(output, 0);
                PayloadWriter.WriteVarint(output, (ulong)b.SpillOffset);
                PayloadWriter.WriteVarint(output, (ulong)b.Used);
                WriteId(output, b.FirstLive);
                WriteId(output, b.LastLive);
            }
            else PayloadWriter.WriteBytes(output, b.Data.AsSpan(0, b.Used));
        }
        PayloadWriter.WriteVarint(output, (ulong)Groups.Count);
        foreach (var g in Groups.Values)
        {
            PayloadWriter.WriteBytes(output, g.Name);
            WriteId(output, g.LastId);
            PayloadWriter.WriteVarint(output, (ulong)(g.EntriesRead + 1));
            PayloadWriter.WriteVarint(output, (ulong)g.Consumers.Count);
            foreach (var c in g.Consumers.Values)
            {
                PayloadWriter.WriteBytes(output, c.Name);
                PayloadWriter.WriteVarint(output, (ulong)c.SeenTime);
                PayloadWriter.WriteVarint(output, (ulong)(c.ActiveTime + 1));
                PayloadWriter.WriteVarint(output, (ulong)c.Pending.Count);
                foreach (var e in c.Pending.All)
                {
                    WriteId(output, e.Id);
                    PayloadWriter.WriteVarint(output, (ulong)e.DeliveryTime);
                    PayloadWriter.WriteVarint(output, (ulong)e.DeliveryCount);
                }
            }
        }
    }

    private static void WriteId(IBufferWriter<byte> output, StreamId id)
    {
        PayloadWriter.WriteVarint(output, id.Ms);
        PayloadWriter.WriteVarint(output, id.Seq);
    }

    private static StreamId ReadId(ref PayloadReader r) => new(r.ReadVarint(), r.ReadVarint());

    internal static StreamObject ReadPayload(ref PayloadReader r, StreamSpillFile? spill)
    {
        var s = new StreamObject { LastId = ReadId(ref r), MaxDeletedId = ReadId(ref r), EntriesAdded = (long)r.ReadVarint() };
        int blocks = r.ReadCount();
        for (int i = 0; i < blocks; i++)
        {
            var b = new StreamBlock { Master = ReadId(ref r), Last = ReadId(ref r), Count = r.ReadCount(), Live = r.ReadCount() };
            var fields = new byte[r.ReadCount()][];
            for (int f = 0; f < fields.Length; f++) fields[f] = r.ReadBytes();
            b.MasterFields = fields;
            b.Data = r.ReadBytes();
            b.Used = b.Data.Length;
            if (b.Live > b.Count || b.Count > StreamBlock.MaxEntries * 4 || b.Live == 0) throw new InvalidDataException("malformed stream block");
            if (b.Used == 0)
            {
                if (spill is null) throw new InvalidDataException("a spilled stream block without the store's spill file");
                b.Spill = spill;
                b.SpillOffset = (long)r.ReadVarint();
                b.Used = r.ReadCount();
                b.FirstLive = ReadId(ref r);
                b.LastLive = ReadId(ref r);
                if (b.Used <= 0 || b.SpillOffset < 0 || b.SpillOffset + b.Used > spill.Bytes) throw new InvalidDataException("malformed stream block reference");
                spill.NoteReference(b.SpillOffset); // a version read back refers to it (kept by a mark round in progress)
                s.Entries.AddBlock(b);
                continue;
            }
            try { if (b.Offsets().Length != b.Count) throw new InvalidDataException("malformed stream block"); }
            catch (IndexOutOfRangeException) { throw new InvalidDataException("malformed stream block"); }
            catch (ArgumentOutOfRangeException) { throw new InvalidDataException("malformed stream block"); }
            catch (OverflowException) { throw new InvalidDataException("malformed stream block"); }
            s.Entries.AddBlock(b);
        }
        int groups = r.ReadCount();
        for (int i = 0; i < groups; i++)
        {
            var g = new ConsumerGroup(r.ReadBytes(), ReadId(ref r), (long)r.ReadVarint() - 1);
            int consumers = r.ReadCount();
            for (int j = 0; j < consumers; j++)
            {
                var c = new Consumer(r.ReadBytes(), (long)r.ReadVarint(), (long)r.ReadVarint() - 1);
                g.Consumers[c.Name] = c;
                int pending = r.ReadCount();
                for (int k = 0; k < pending; k++)
                {
                    var e = new PendingEntry(ReadId(ref r), c, (long)r.ReadVarint(), (long)r.ReadVarint());
                    c.Pending.Add(e);
                    g.Pending.Add(e);
                }
            }
            s.Groups[g.Name] = g;
        }
        return s;
    }
}
