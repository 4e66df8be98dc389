// HashObject: a Redis hash. Fields map to values; both are byte strings. Two forms, as Redis's two encodings:
//  - "listpack": while the hash has at most hash-max-listpack-entries fields and every field and value is at most
//    hash-max-listpack-value bytes, the count and the pairs are packed in one byte[] (see Listpack) in insertion order,
//    a pair being one header with both lengths (one byte for a field under 8 bytes and a value under 16), the field's
//    bytes and the value's; lookups walk it (at most the limit's pairs);
//  - "hashtable": past a limit, a dictionary (HashTable) for good (as Redis converts once and never back).
// Invariants:
//  - _data is the packed byte[] (listpack) or a HashTable (one field: the object takes the .NET minimum, 24 bytes).
//  - The packed array is never written once held (a change builds a new one), so Clone shares it; the table's field
//    and value arrays are never changed once stored, so a table's Clone shares them too.
//  - HeapBytes: listpack = fixed cost + the packed array; hashtable = fixed cost + per entry its two arrays and its
//    dictionary entry, kept by every change (O(1) to read).
using System.Buffers;
using System.Runtime.InteropServices;

namespace Garnet.server.Objects;

public sealed class HashObject : CollectionObject
{
    /// <summary>The hashtable form: a dictionary that knows its heap cost.</summary>
    private sealed class HashTable : Dictionary<byte[], byte[]>
    {
        public long HeapBytes;
        public HashTable(int capacity) : base(capacity, ByteArrayComparer.Instance) { }
        public HashTable(HashTable other) : base(other, ByteArrayComparer.Instance) => HeapBytes = other.HeapBytes;
        public AlternateLookup<ReadOnlySpan<byte>> Lookup => GetAlternateLookup<ReadOnlySpan<byte>>();
        public static long EntryBytes(int fieldLength, int valueLength) => ElementBytes(fieldLength) + 32 + ElementBytes(valueLength);
    }

    /// <summary>The packed array (listpack form: count, then pairs) or the HashTable.</summary>
    private object _data = Array.Empty<byte>();

    public HashObject() { }

    public override ObjectKind Kind => ObjectKind.Hash;
    public override long Count => _data is byte[] packed ? Listpack.CountOf(packed) : ((HashTable)_data).Count;
    public override long HeapBytes => _data is byte[] packed ? BaseBytes + ElementBytes(packed.Length) : BaseBytes + ((HashTable)_data).HeapBytes;
    public override string Encoding => _data is byte[] ? "listpack" : "hashtable";

    // ---- pairs: a header, the field's bytes, the value's bytes. The header is one byte 0fffvvvv when the field is
    // shorter than 8 bytes and the value shorter than 16; else 1fffffff (a field of 0..126 bytes) and the value's length
    // as a varint; else 0xFF and both lengths as varints.

    private static int PairSize(int f, int v) => (f < 8 && v < 16 ? 1 : f < 127 ? 1 + Listpack.VarintSize(v) : 1 + Listpack.VarintSize(f) + Listpack.VarintSize(v)) + f + v;

    private static int WritePair(Span<byte> dst, ReadOnlySpan<byte> f, ReadOnlySpan<byte> v)
    {
        int n;
        if (f.Length < 8 && v.Length < 16) { dst[0] = (byte)(f.Length << 4 | v.Length); n = 1; }
        else if (f.Length < 127) { dst[0] = (byte)(0x80 | f.Length); n = 1 + Listpack.WriteVarint(dst[1..], v.Length); }
        else { dst[0] = 0xFF; n = 1 + Listpack.WriteVarint(dst[1..], f.Length); n += Listpack.WriteVarint(dst[n..], v.Length); }
        f.CopyTo(dst[n..]);
        v.CopyTo(dst[(n + f.Length)..]);
        return n + f.Length + v.Length;
    }

    /// <summary>Reads the pair at pos (field at fieldAt, its value right after it) and moves pos past it.</summary>
    private static void ReadPair(ReadOnlySpan<byte> p, ref int pos, out int fieldAt, out int fieldLength, out int valueLength)
    {
        byte h = p[pos++];
        if (h < 0x80) { fieldLength = h >> 4; valueLength = h & 15; }
        else if (h != 0xFF) { fieldLength = h & 0x7f; valueLength = Listpack.ReadVarint(p, ref pos); }
        else { fieldLength = Listpack.ReadVarint(p, ref pos); valueLength = Listpack.ReadVarint(p, ref pos); }
        fieldAt = pos;
        pos += fieldLength + valueLength;
    }

    /// <summary>The pairs (insertion order while packed); the arrays are the caller's (copies while packed).</summary>
    public IEnumerable<KeyValuePair<byte[], byte[]>> Entries
    {
        get
        {
            if (_data is HashTable table) return table;
            var packed = (byte[])_data;
            var result = new KeyValuePair<byte[], byte[]>[Listpack.CountOf(packed)];
            int pos = Listpack.FirstEntry(packed);
            for (int i = 0; i < result.Length; i++)
            {
                ReadPair(packed, ref pos, out int at, out int fl, out int vl);
                result[i] = new(packed.AsSpan(at, fl).ToArray(), packed.AsSpan(at + fl, vl).ToArray());
            }
            return result;
        }
    }

    /// <summary>Where field's pair is in packed (offset, size, value offset and length); false when absent.</summary>
    private static bool FindPacked(ReadOnlySpan<byte> packed, ReadOnlySpan<byte> field, out int pairAt, out int size, out int valueAt, out int valueLength)
    {
        int pos = Listpack.FirstEntry(packed);
        while (pos < packed.Length)
        {
            pairAt = pos;
            ReadPair(packed, ref pos, out int at, out int fl, out valueLength);
            if (packed.Slice(at, fl).SequenceEqual(field)) { size = pos - pairAt; valueAt = at + fl; return true; }
        }
        pairAt = size = valueAt = valueLength = -1;
        return false;
    }

    public byte[]? Get(ReadOnlySpan<byte> field)
    {
        if (_data is HashTable table) return table.Lookup.TryGetValue(field, out var v) ? v : null;
        var packed = (byte[])_data;
        return FindPacked(packed, field, out _, out _, out int valueAt, out int valueLength) ? packed.AsSpan(valueAt, valueLength).ToArray() : null;
    }

    public bool Contains(ReadOnlySpan<byte> field) =>
        _data is HashTable table ? table.Lookup.ContainsKey(field) : FindPacked((byte[])_data, field, out _, out _, out _, out _);

    /// <summary>Sets field to value; true when the field is new.</summary>
    public bool Set(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value) => Set(field, value, null);

    /// <summary>Set with a value array the caller gives up (HSET's own copy of its argument): the hashtable form keeps it
    /// instead of copying it again (a 100 MB field was copied twice on the loop's thread).</summary>
    public bool SetOwned(byte[] field, byte[] value) => Set(field, value, value);

    private bool Set(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value, byte[]? ownedValue)
    {
        if (_data is byte[] packed)
        {
            int maxValue = EncodingLimits.HashMaxListpackValue;
            if (field.Length <= maxValue && value.Length <= maxValue)
            {
                int count = Listpack.CountOf(packed);
                bool exists = FindPacked(packed, field, out int at, out int size, out int valueAt, out int valueLength);
                if (exists && packed.AsSpan(valueAt, valueLength).SequenceEqual(value)) return false;
                if (!exists) { at = packed.Length; size = 0; count++; }
                var changed = Listpack.SpliceCounted(packed, count, at, size, PairSize(field.Length, value.Length), out int w);
                WritePair(changed.AsSpan(w), field, value);
                _data = changed;
                if (count > EncodingLimits.HashMaxListpackEntries) ToTable();
                return !exists;
            }
            ToTable(); // a field or value too long for the listpack: convert first, as Redis does
        }
        var t = (HashTable)_data;
        ref byte[] slot = ref CollectionsMarshal.GetValueRefOrAddDefault(t.Lookup, field, out bool found)!;
        if (found) t.HeapBytes -= ElementBytes(slot.Length);
        else t.HeapBytes += ElementBytes(field.Length) + 32; // the field's array and its dictionary entry
        slot = ownedValue ?? value.ToArray();
        t.HeapBytes += ElementBytes(value.Length);
        return !found;
    }

    /// <summary>Removes field; true when it was there.</summary>
    public bool Remove(ReadOnlySpan<byte> field)
    {
        if (_data is HashTable table)
        {
            if (!table.Lookup.Remove(field, out var key, out var value)) return false;
            table.HeapBytes -= HashTable.EntryBytes(key.Length, value.Length);
            return true;
        }
        var packed = (byte[])_data;
        if (!FindPacked(packed, field, out int at, out int size, out _, out _)) return false;
        _data = Listpack.SpliceCounted(packed, Listpack.CountOf(packed) - 1, at, size, 0, out _);
        return true;
    }

    /// <summary>Converts the listpack form to the hashtable form (for good).</summary>
    private void ToTable()
    {
        var table = new HashTable((int)Count);
        foreach (var (f, v) in Entries)
        {
            table.Add(f, v);
            table.HeapBytes += HashTable.EntryBytes(f.Length, v.Length);
        }
        _data = table;
    }

    public override CollectionObject Clone() =>
        // The packed array is never written once held, and a table's arrays never change once stored: both shared.
        new HashObject { _data = _data is HashTable table ? new HashTable(table) : _data };

    public override void WritePayload(IBufferWriter<byte> output)
    {
        PayloadWriter.WriteVarint(output, _data is byte[] ? 1UL : 0UL);
        PayloadWriter.WriteVarint(output, (ulong)Count);
        if (_data is byte[] packed)
        {
            int pos = Listpack.FirstEntry(packed);
            while (pos < packed.Length)
            {
                ReadPair(packed, ref pos, out int at, out int fl, out int vl);
                PayloadWriter.WriteBytes(output, packed.AsSpan(at, fl));
                PayloadWriter.WriteBytes(output, packed.AsSpan(at + fl, vl));
            }
            return;
        }
        foreach (var (k, v) in (HashTable)_data)
        {
            PayloadWriter.WriteBytes(output, k);
            PayloadWriter.WriteBytes(output, v);
        }
    }

    // ---- inline form (see InlineCollection): the listpack array itself, as its record's value bytes.

    /// <summary>Bytes of the inline form; -1 in the hashtable form (never inline).</summary>
    internal int InlineLength => _data is byte[] packed ? packed.Length : -1;

    internal void WriteInline(Span<byte> destination) => ((byte[])_data).CopyTo(destination);

    internal static HashObject ReadInline(ReadOnlySpan<byte> bytes) => new() { _data = bytes.ToArray() };

    internal static HashObject ReadPayload(ref PayloadReader reader)
    {
        bool listpack = reader.ReadVarint() == 1;
        int count = reader.ReadCount();
        var h = new HashObject();
        if (listpack)
        {
            var seen = new HashSet<byte[]>(Math.Min(count, 1 << 16), ByteArrayComparer.Instance);
            var pairs = new List<(byte[], byte[])>(Math.Min(count, 1 << 16));
            int bytes = count == 0 ? 0 : Listpack.VarintSize(count);
            for (int i = 0; i < count; i++)
            {
                var k = reader.ReadBytes();
                var v = reader.ReadBytes();
                if (!seen.Add(k)) throw new InvalidDataException("a hash payload repeats a field");
                pairs.Add((k, v));
                bytes += PairSize(k.Length, v.Length);
            }
            var packed = GC.AllocateUninitializedArray<byte>(bytes);
            int w = count == 0 ? 0 : Listpack.WriteVarint(packed, count);
            foreach (var (k, v) in pairs) w += WritePair(packed.AsSpan(w), k, v);
            h._data = packed;
            return h;
        }
        var table = new HashTable(Math.Min(count, 1 << 16));
        for (int i = 0; i < count; i++)
        {
            var k = reader.ReadBytes();
            var v = reader.ReadBytes();
            if (!table.TryAdd(k, v)) throw new InvalidDataException("a hash payload repeats a field");
            table.HeapBytes += HashTable.EntryBytes(k.Length, v.Length);
        }
        h._data = table;
        return h;
    }
}
