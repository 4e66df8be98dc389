// StreamRdb: streams in RDB files and DUMP payloads in Redis's encoding. We write RDB_TYPE_STREAM_LISTPACKS_2 (19,
// Redis 7.0), which redis-server 7.0 and later load; we read 15 (Redis 5/6), 19 and 21 (Redis 7.2, with consumers'
// active time). Layout: node count, then per node its master ID (16 bytes big-endian) and a listpack; the length, last
// ID, [first ID, max deleted ID, entries added]; the groups, each with its name, last ID, [entries read], its PEL
// (16-byte ID, 8-byte delivery time, delivery count) and its consumers (name, seen time, [active time], their PEL IDs).
// A node's listpack: count, deleted, master field count, the master fields, 0; then per entry flags, ms and seq
// differences to the master ID, the values (flag SAMEFIELDS) or field count and pairs, and the entry's element count.
// Invariants: what is read is checked (IDs increasing, PEL entries owned by one consumer); malformed input throws
// InvalidDataException and builds nothing.
using System.Buffers;
using System.Buffers.Binary;
using System.Globalization;
using System.Text;
using Garnet.server.Objects;
using Garnet.server.Objects.Streams;

namespace Garnet.server.Persistence;

public static class StreamRdb
{
    public const byte TypeStream = 15, TypeStream2 = 19, TypeStream3 = 21;

    public static bool Reads(byte type) => type is TypeStream or TypeStream2 or TypeStream3;

    /// <summary>Writes the value (after the type byte and key): type 19.</summary>
    public static void WriteValue(IBufferWriter<byte> output, StreamObject st, Action? spill = null)
    {
        var blocks = st.Entries.Blocks;
        RdbEncoding.WriteLength(output, blocks.Count);
        Span<byte> key = stackalloc byte[16];
        foreach (var b in blocks)
        {
            b.Master.WriteBigEndian(key);
            RdbEncoding.WriteLength(output, 16);
            output.Write(key);
            var lp = NodeListpack(b.Readable());
            RdbEncoding.WriteLength(output, lp.Length);
            output.Write(lp);
            spill?.Invoke();
        }
        RdbEncoding.WriteLength(output, st.Length);
        WriteId(output, st.LastId);
        WriteId(output, st.FirstId);
        WriteId(output, st.MaxDeletedId);
        RdbEncoding.WriteLength(output, st.EntriesAdded);
        RdbEncoding.WriteLength(output, st.Groups.Count);
        Span<byte> raw = stackalloc byte[24];
        foreach (var g in st.Groups.Values)
        {
            RdbEncoding.WriteLength(output, g.Name.Length);
            output.Write(g.Name);
            WriteId(output, g.LastId);
            RdbEncoding.WriteULength(output, unchecked((ulong)g.EntriesRead)); // -1 (unknown) is saved as 2^64-1, as Redis does
            RdbEncoding.WriteLength(output, g.Pending.Count);
            foreach (var e in g.Pending.All)
            {
                e.Id.WriteBigEndian(raw);
                BinaryPrimitives.WriteInt64LittleEndian(raw[16..], e.DeliveryTime);
                output.Write(raw);
                RdbEncoding.WriteLength(output, e.DeliveryCount);
            }
            RdbEncoding.WriteLength(output, g.Consumers.Count);
            foreach (var c in g.Consumers.Values)
            {
                RdbEncoding.WriteLength(output, c.Name.Length);
                output.Write(c.Name);
                BinaryPrimitives.WriteInt64LittleEndian(raw, c.SeenTime);
                output.Write(raw[..8]);
                RdbEncoding.WriteLength(output, c.Pending.Count);
                foreach (var e in c.Pending.All)
                {
                    e.Id.WriteBigEndian(raw);
                    output.Write(raw[..16]);
                }
            }
            spill?.Invoke();
        }
    }

    private static void WriteId(IBufferWriter<byte> output, StreamId id)
    {
        RdbEncoding.WriteULength(output, id.Ms);
        RdbEncoding.WriteULength(output, id.Seq);
    }

    private static byte[] NodeListpack(StreamBlock b)
    {
        var lp = new ListpackWriter();
        lp.AddInteger(b.Live);
        lp.AddInteger(b.Count - b.Live);
        lp.AddInteger(b.MasterFields.Length);
        foreach (var f in b.MasterFields) lp.AddString(f);
        lp.AddInteger(0);
        int at = 0;
        var pairs = new List<byte[]>();
        for (int i = 0; i < b.Count; i++)
        {
            var id = b.ReadHeader(at, out byte flags, out int body);
            pairs.Clear();
            at = b.ReadBody(body, flags, pairs);
            lp.AddInteger(flags);
            lp.AddInteger(unchecked((long)(id.Ms - b.Master.Ms)));
            lp.AddInteger(unchecked((long)(id.Seq - b.Master.Seq)));
            if ((flags & StreamBlock.FlagSameFields) != 0)
            {
                for (int k = 1; k < pairs.Count; k += 2) lp.AddString(pairs[k]);
                lp.AddInteger(3 + pairs.Count / 2);
            }
            else
            {
                lp.AddInteger(pairs.Count / 2);
                foreach (var p in pairs) lp.AddString(p);
                lp.AddInteger(4 + pairs.Count);
            }
        }
        return lp.Finish();
    }

    /// <summary>Reads a stream value of type (15, 19 or 21).</summary>
    public static StreamObject Read(byte type, Func<long> takeLength, Func<ulong> takeULength, Func<byte[]> takeString, Func<int, byte[]> takeRaw)
    {
        var st = new StreamObject();
        long nodes = takeLength();
        StreamId? prev = null;
        for (long n = 0; n < nodes; n++)
        {
            var nodeKey = takeString();
            if (nodeKey.Length != 16) throw Bad("stream node key");
            var master = StreamId.ReadBigEndian(nodeKey);
            var items = RdbCompact.Listpack(takeString());
            ReadNode(st, master, items, ref prev);
        }
        long length = takeLength();
        if (length != st.Length) throw Bad("stream length");
        st.LastId = ReadId(takeULength);
        bool v2 = type >= TypeStream2;
        if (v2)
        {
            ReadId(takeULength); // the first ID is recomputed from the entries
            st.MaxDeletedId = ReadId(takeULength);
            st.EntriesAdded = takeLength();
        }
        else st.EntriesAdded = st.Length;
        if (prev is { } last && last > st.LastId) throw Bad("stream last ID");
        long groups = takeLength();
        for (long gi = 0; gi < groups; gi++)
        {
            var name = takeString();
            var lastId = ReadId(takeULength);
            long entriesRead = v2 ? unchecked((long)takeULength()) : st.EstimateDistanceFromFirstEverEntry(lastId);
            if (entriesRead < 0) entriesRead = ConsumerGroup.InvalidEntriesRead;
            var g = new ConsumerGroup(name, lastId, entriesRead);
            if (!st.Groups.TryAdd(name, g)) throw Bad("stream with a repeated group");
            var unowned = new Dictionary<StreamId, (long Time, long Count)>();
            long pel = takeLength();
            for (long i = 0; i < pel; i++)
            {
                var raw = takeRaw(16);
                var id = StreamId.ReadBigEndian(raw);
                long time = BinaryPrimitives.ReadInt64LittleEndian(takeRaw(8));
                long count = takeLength();
                if (!unowned.TryAdd(id, (time, count))) throw Bad("stream PEL with a repeated ID");
            }
            long consumers = takeLength();
            for (long ci = 0; ci < consumers; ci++)
            {
                var cname = takeString();
                long seen = BinaryPrimitives.ReadInt64LittleEndian(takeRaw(8));
                long active = type >= TypeStream3 ? BinaryPrimitives.ReadInt64LittleEndian(takeRaw(8)) : seen;
                var c = new Consumer(cname, seen, active);
                if (!g.Consumers.TryAdd(cname, c)) throw Bad("stream group with a repeated consumer");
                long owned = takeLength();
                for (long i = 0; i < owned; i++)
                {
                    var id = StreamId.ReadBigEndian(takeRaw(16));
                    if (!unowned.Remove(id, out var nack)) throw Bad("stream consumer PEL entry not in the group PEL");
                    var e = new PendingEntry(id, c, nack.Time, nack.Count);
                    c.Pending.Add(e);
                    g.Pending.Add(e);
                }
            }
            if (unowned.Count > 0) throw Bad("stream group PEL entry without a consumer");
        }
        return st;
    }

    private static void ReadNode(StreamObject st, StreamId master, List<byte[]> items, ref StreamId? prev)
    {
        int at = 0;
        byte[] Next() => at < items.Count ? items[at++] : throw Bad("stream node (too short)");
        long Int() => long.TryParse(Encoding.ASCII.GetString(Next()), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long v) ? v : throw Bad("stream node integer");
        long live = Int(), deleted = Int(), nf = Int();
        if (live < 0 || deleted < 0 || nf < 0 || nf > items.Count) throw Bad("stream node header");
        var masterFields = new byte[nf][];
        for (int i = 0; i < nf; i++) masterFields[i] = Next();
        if (Int() != 0) throw Bad("stream node master terminator");
        long seenLive = 0, seenDeleted = 0;
        while (at < items.Count)
        {
            long flags = Int();
            var id = new StreamId(unchecked(master.Ms + (ulong)Int()), unchecked(master.Seq + (ulong)Int()));
            var pairs = new List<byte[]>();
            if ((flags & StreamBlock.FlagSameFields) != 0)
                foreach (var f in masterFields) { pairs.Add(f); pairs.Add(Next()); }
            else
            {
                long fields = Int();
                if (fields < 0 || fields > items.Count) throw Bad("stream entry field count");
                for (long i = 0; i < 2 * fields; i++) pairs.Add(Next());
            }
            Int(); // lp-count
            if (prev is { } p && id <= p) throw Bad("stream entries out of order");
            prev = id;
            if ((flags & StreamBlock.FlagDeleted) != 0) { seenDeleted++; continue; }
            if (pairs.Count == 0) throw Bad("stream entry without fields");
            seenLive++;
            st.Entries.Append(id, pairs.ToArray());
        }
        if (seenLive != live || seenDeleted != deleted) throw Bad("stream node counts");
        if (live == 0) throw Bad("empty stream node");
    }

    private static StreamId ReadId(Func<ulong> takeULength) => new(takeULength(), takeULength());

    private static InvalidDataException Bad(string what) => new("malformed " + what);
}
