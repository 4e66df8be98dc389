// StreamBlock: a run of up to MaxEntries consecutive stream entries packed in one byte[] (the idea of Redis's stream
// listpack nodes): the block's master ID and master fields are kept once; each entry is
//   flags (1 byte: 1 = deleted, 2 = same fields as the master), varint ms - master.ms,
//   varint (seq - master.seq when ms equals master.ms, else seq),
//   then either the values (same fields) or a varint field count and field/value pairs. A string is a varint header h
//   then its bytes: h = length << 1 for text; h = zigzag(v) << 1 | 1 (no bytes) for text that is a canonical 64-bit
//   integer (as Redis's listpacks store "12345" as an integer), read back as the same text.
// Invariants:
//  - Entries are in ID order, all >= Master; Count counts entries written (deleted ones too), Live those not deleted.
//  - Bytes [0, Used) of Data are entries; a Shared block's Data is never written (a clone may read it): a change copies it.
//  - A spilled block (Spill set) keeps only its metadata in memory (Data is empty): its Used bytes are at SpillOffset in
//    the spill file and never change. Read it through Readable(); change it only after StreamEntries made it hot again.
namespace Garnet.server.Objects.Streams;

internal sealed class StreamBlock
{
    public const int MaxEntries = 100, MaxBytes = 4096;
    public const byte FlagDeleted = 1, FlagSameFields = 2;

    public StreamId Master;
    public byte[][] MasterFields = [];
    public byte[] Data = [];
    public int Used;
    public int Count;
    public int Live;
    public StreamId Last;
    public bool Shared;
    public StreamSpillFile? Spill;
    public long SpillOffset;
    /// <summary>Of a spilled block: its first and last live entries' IDs (so the stream's ends need no read).</summary>
    public StreamId FirstLive, LastLive;

    public bool IsSpilled => Spill is not null;
    public long HeapBytes => 96 + 24 + (IsSpilled ? 16 : Data.Length) + MasterFields.Sum(f => 32L + f.Length);
    /// <summary>The bytes of entries this block keeps in memory (0 when spilled).</summary>
    public long DataBytes => IsSpilled ? 0 : Data.Length;

    public StreamBlock ShallowCopy()
    {
        Shared = true;
        return new StreamBlock { Master = Master, MasterFields = MasterFields, Data = Data, Used = Used, Count = Count, Live = Live, Last = Last, Shared = true, Spill = Spill, SpillOffset = SpillOffset, FirstLive = FirstLive, LastLive = LastLive };
    }

    /// <summary>This block when in memory; else a read-only copy with its bytes read from the spill file.</summary>
    /// Bytes that do not decode to exactly this block's entries (a freed extent reads as zeros) throw
    /// InvalidDataException: a reclaiming bug shows as an error, never as wrong entries.
    public StreamBlock Readable()
    {
        if (Spill is null) return this;
        var b = WithData(Spill.Read(SpillOffset, Used));
        if (!b.Decodes()) throw new InvalidDataException($"stream block at {SpillOffset} ({Used} bytes) in {Spill.Path} does not hold the block's entries (its space was freed or overwritten)");
        return b;
    }

    // A read-only view of this block over data (the bytes of its entries).
    private StreamBlock WithData(byte[] data) =>
        new() { Master = Master, MasterFields = MasterFields, Data = data, Used = Used, Count = Count, Live = Live, Last = Last, Shared = true };

    /// <summary>The live entries with start &lt;= ID &lt;= end among this block's entries, decoded from data (its bytes:
    /// Data, or those of its extent read from the spill file); 0 when they do not decode.</summary>
    public int LiveBetween(byte[] data, StreamId start, StreamId end)
    {
        if (data.Length < Used) return 0;
        var b = WithData(data);
        int at = 0, n = 0;
        try
        {
            for (int i = 0; i < Count; i++)
            {
                var id = b.ReadHeader(at, out byte flags, out int body);
                if (id > end) break;
                at = b.ReadBody(body, flags, null);
                if ((flags & FlagDeleted) == 0 && id >= start) n++;
            }
        }
        catch (Exception ex) when (ex is IndexOutOfRangeException or ArgumentOutOfRangeException or OverflowException) { return 0; }
        return n;
    }

    // Whether Data decodes to Count entries, ending at Used, with IDs strictly increasing from Master to Last, each with
    // at least one field, and Live of them not deleted (zeros decode as entries of ID Master with no fields: they fail).
    private bool Decodes()
    {
        try
        {
            int at = 0, live = 0;
            StreamId previous = default;
            for (int i = 0; i < Count; i++)
            {
                var id = ReadHeader(at, out byte flags, out int body);
                if (i == 0 ? id != Master : id <= previous) return false;
                if ((flags & FlagSameFields) == 0 && (body >= Used || Data[body] == 0)) return false;
                if ((flags & FlagSameFields) != 0 && MasterFields.Length == 0) return false;
                at = ReadBody(body, flags, null);
                if (at > Used) return false;
                if ((flags & FlagDeleted) == 0) live++;
                previous = id;
            }
            return at == Used && previous == Last && live == Live;
        }
        catch (Exception ex) when (ex is IndexOutOfRangeException or ArgumentOutOfRangeException or OverflowException) { return false; }
    }

    /// <summary>Writes the (sealed) bytes to the spill file and drops them from memory.</summary>
    public void SpillTo(StreamSpillFile spill)
    {
        bool first = true;
        int at = 0;
        for (int i = 0; i < Count; i++)
        {
            var id = ReadHeader(at, out byte flags, out int body);
            at = ReadBody(body, flags, null);
            if ((flags & FlagDeleted) != 0) continue;
            if (first) { FirstLive = id; first = false; }
            LastLive = id;
        }
        SpillOffset = spill.Append(Data.AsSpan(0, Used));
        Spill = spill;
        Data = [];
        Shared = false;
    }

    private void Own()
    {
        if (!Shared) return;
        Data = Data.AsSpan(0, Used).ToArray();
        Shared = false;
    }

    /// <summary>Whether an entry of these fields and values fits (within the byte and entry limits).</summary>
    public bool Fits(int entryBytes) => Count < MaxEntries && (Count == 0 || Used + entryBytes <= MaxBytes);

    public static int EncodedSize(StreamId master, byte[][] masterFields, StreamId id, ReadOnlySpan<byte[]> pairs, out bool same)
    {
        same = SameFields(masterFields, pairs);
        ulong msDelta = id.Ms - master.Ms;
        ulong seqPart = msDelta == 0 ? id.Seq - master.Seq : id.Seq;
        int n = 1 + VarintSize(msDelta) + VarintSize(seqPart);
        if (same) for (int i = 1; i < pairs.Length; i += 2) n += StringSize(pairs[i]);
        else
        {
            n += VarintSize((ulong)(pairs.Length / 2));
            foreach (var p in pairs) n += StringSize(p);
        }
        return n;
    }

    private static bool SameFields(byte[][] masterFields, ReadOnlySpan<byte[]> pairs)
    {
        if (masterFields.Length * 2 != pairs.Length) return false;
        for (int i = 0; i < masterFields.Length; i++) if (!masterFields[i].AsSpan().SequenceEqual(pairs[2 * i])) return false;
        return true;
    }

    /// <summary>Appends an entry (id greater than every ID in the block); returns the bytes the block grew by.</summary>
    public long Append(StreamId id, ReadOnlySpan<byte[]> pairs)
    {
        if (Count == 0)
        {
            Master = id;
            var fields = new byte[pairs.Length / 2][];
            for (int i = 0; i < fields.Length; i++) fields[i] = pairs[2 * i];
            MasterFields = fields;
        }
        int size = EncodedSize(Master, MasterFields, id, pairs, out bool same);
        Own();
        long before = Data.Length;
        if (Used + size > Data.Length)
        {
            int cap = Math.Max(Math.Min(Math.Max(Data.Length * 2, 256), MaxBytes), Used + size);
            Array.Resize(ref Data, cap);
        }
        var d = Data.AsSpan(Used);
        int at = 0;
        d[at++] = same ? FlagSameFields : (byte)0;
        ulong msDelta = id.Ms - Master.Ms;
        at += WriteVarint(d[at..], msDelta);
        at += WriteVarint(d[at..], msDelta == 0 ? id.Seq - Master.Seq : id.Seq);
        if (same) for (int i = 1; i < pairs.Length; i += 2) at += WriteString(d[at..], pairs[i]);
        else
        {
            at += WriteVarint(d[at..], (ulong)(pairs.Length / 2));
            foreach (var p in pairs) at += WriteString(d[at..], p);
        }
        Used += at;
        Count++;
        Live++;
        Last = id;
        return Data.Length - before + (Count == 1 ? MasterFields.Sum(f => 32L + f.Length) : 0);
    }

    /// <summary>Gives back unused capacity (a block that will take no more entries); returns the bytes freed.</summary>
    public long Seal()
    {
        if (Data.Length == Used) return 0;
        long freed = Data.Length - Used;
        Data = Data.AsSpan(0, Used).ToArray();
        Shared = false;
        return freed;
    }

    /// <summary>Marks the entry at offset deleted.</summary>
    public void MarkDeleted(int offset)
    {
        Own();
        Data[offset] |= FlagDeleted;
        Live--;
    }

    /// <summary>One entry decoded at offset: its ID, flags, and where the next entry starts.</summary>
    public StreamId ReadHeader(int offset, out byte flags, out int bodyAt)
    {
        var d = Data.AsSpan(0, Used);
        int at = offset;
        flags = d[at++];
        ulong msDelta = ReadVarint(d, ref at);
        ulong seqPart = ReadVarint(d, ref at);
        bodyAt = at;
        return msDelta == 0 ? new StreamId(Master.Ms, Master.Seq + seqPart) : new StreamId(Master.Ms + msDelta, seqPart);
    }

    /// <summary>The field/value pairs of the entry whose body starts at bodyAt; returns the offset after it.</summary>
    public int ReadBody(int bodyAt, byte flags, List<byte[]>? pairs)
    {
        var d = Data.AsSpan(0, Used);
        int at = bodyAt;
        if ((flags & FlagSameFields) != 0)
        {
            foreach (var f in MasterFields)
            {
                if (pairs is null) { SkipString(d, ref at); continue; }
                pairs.Add(f);
                pairs.Add(ReadString(d, ref at).ToArray());
            }
            return at;
        }
        int n = (int)ReadVarint(d, ref at);
        for (int i = 0; i < 2 * n; i++)
        {
            if (pairs is null) SkipString(d, ref at);
            else pairs.Add(ReadString(d, ref at).ToArray());
        }
        return at;
    }

    /// <summary>Offsets of every entry (deleted ones too), in order.</summary>
    public int[] Offsets()
    {
        var result = new int[Count];
        int at = 0;
        for (int i = 0; i < Count; i++)
        {
            result[i] = at;
            ReadHeader(at, out byte flags, out int body);
            at = ReadBody(body, flags, null);
        }
        return result;
    }

    public static int VarintSize(ulong v)
    {
        int n = 1;
        while (v >= 0x80) { v >>= 7; n++; }
        return n;
    }

    private static int WriteVarint(Span<byte> d, ulong v)
    {
        int i = 0;
        while (v >= 0x80) { d[i++] = (byte)(v | 0x80); v >>= 7; }
        d[i++] = (byte)v;
        return i;
    }

    /// <summary>The integer a canonical decimal text stands for (no sign but '-', no leading zeros, no "-0").</summary>
    private static bool TryCanonicalInteger(ReadOnlySpan<byte> s, out long v)
    {
        v = 0;
        if (s.Length == 0 || s.Length > 20) return false;
        bool neg = s[0] == '-';
        var digits = neg ? s[1..] : s;
        if (digits.Length == 0 || (digits[0] == '0' && (digits.Length > 1 || neg))) return false;
        ulong acc = 0;
        foreach (byte b in digits)
        {
            if (b < '0' || b > '9') return false;
            ulong d = (ulong)(b - '0');
            if (acc > (ulong.MaxValue - d) / 10) return false;
            acc = acc * 10 + d;
        }
        if (neg) { if (acc > (ulong)long.MaxValue + 1) return false; v = (long)(0 - acc); }
        else { if (acc > long.MaxValue) return false; v = (long)acc; }
        return true;
    }

    private static ulong IntegerHeader(long v) => ((ulong)((v << 1) ^ (v >> 63)) << 1) | 1;

    private static int StringSize(byte[] s)
    {
        if (TryCanonicalInteger(s, out long v) && IntegerHeader(v) >> 1 == (ulong)((v << 1) ^ (v >> 63))) return VarintSize(IntegerHeader(v));
        return VarintSize((ulong)s.Length << 1) + s.Length;
    }

    private static int WriteString(Span<byte> d, byte[] s)
    {
        if (TryCanonicalInteger(s, out long v) && IntegerHeader(v) >> 1 == (ulong)((v << 1) ^ (v >> 63))) return WriteVarint(d, IntegerHeader(v));
        int n = WriteVarint(d, (ulong)s.Length << 1);
        s.CopyTo(d[n..]);
        return n + s.Length;
    }

    private static ulong ReadVarint(ReadOnlySpan<byte> d, ref int at)
    {
        ulong v = 0;
        for (int shift = 0; ; shift += 7)
        {
            byte b = d[at++];
            v |= (ulong)(b & 0x7f) << shift;
            if (b < 0x80) return v;
        }
    }

    private static void SkipString(ReadOnlySpan<byte> d, ref int at)
    {
        ulong h = ReadVarint(d, ref at);
        if ((h & 1) == 0) at = checked(at + (int)(h >> 1));
    }

    private static ReadOnlySpan<byte> ReadString(ReadOnlySpan<byte> d, ref int at)
    {
        ulong h = ReadVarint(d, ref at);
        if ((h & 1) != 0)
        {
            ulong zz = h >> 1;
            long v = (long)(zz >> 1) ^ -(long)(zz & 1);
            return System.Text.Encoding.ASCII.GetBytes(v.ToString(System.Globalization.CultureInfo.InvariantCulture));
        }
        int n = checked((int)(h >> 1));
        var s = d.Slice(at, n);
        at += n;
        return s;
    }
}
