// HashObject: a Redis hash. Fields map to values; both are byte strings. Two forms, as Redis's two encodings:
//  - "listpack": while the hash has at most hash-max-listpack-entries fields and every field and value is at most
//    hash-max-listpack-value bytes, the pairs are packed in one byte[] (see Listpack: field entry, value entry, ...) in
//    insertion order; lookups walk it (at most the limit's pairs);
//  - "hashtable": past a limit, a dictionary (HashTable) for good (as Redis converts once and never back).
// Invariants:
//  - _data is the packed byte[] (listpack) or a HashTable; _count is the number of fields in either form.
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

    private object _data = Array.Empty<byte>();
    private int _count;

    public HashObject() { }

    public override ObjectKind Kind => ObjectKind.Hash;
    public override long Count => _count;
    public override long HeapBytes => _data is byte[] packed ? BaseBytes + ElementBytes(packed.Length) : BaseBytes + ((HashTable)_data).HeapBytes;
    public override string Encoding => _data is byte[] ? "listpack" : "hashtable";

    /// <summary>The pairs (insertion order while packed); the arrays are the caller's (copies while packed).</summary>
    public IEnumerable<KeyValuePair<byte[], byte[]>> Entries
    {
        get
        {
            if (_data is HashTable table) return table;
            var packed = (byte[])_data;
            var result = new KeyValuePair<byte[], byte[]>[_count];
            int pos = 0;
            for (int i = 0; i < result.Length; i++)
            {
                var f = Listpack.Next(packed, ref pos).ToArray();
                result[i] = new(f, Listpack.Next(packed, ref pos).ToArray());
            }
            return result;
        }
    }

    /// <summary>Offsets in packed of field's entry and of its value's entry, and the end of the value; false when absent.</summary>
    private static bool FindPacked(ReadOnlySpan<byte> packed, ReadOnlySpan<byte> field, out int fieldAt, out int valueAt, out int end)
    {
        int pos = 0;
        while (pos < packed.Length)
        {
            fieldAt = pos;
            bool match = Listpack.Next(packed, ref pos).SequenceEqual(field);
            valueAt = pos;
            Listpack.Skip(packed, ref pos);
            end = pos;
            if (match) return true;
        }
        fieldAt = valueAt = end = -1;
        return false;
    }

    public byte[]? Get(ReadOnlySpan<byte> field)
    {
        if (_data is HashTable table) return table.Lookup.TryGetValue(field, out var v) ? v : null;
        var packed = (byte[])_data;
        if (!FindPacked(packed, field, out _, out int valueAt, out _)) return null;
        return Listpack.Next(packed, ref valueAt).ToArray();
    }

    public bool Contains(ReadOnlySpan<byte> field) =>
        _data is HashTable table ? table.Lookup.ContainsKey(field) : FindPacked((byte[])_data, field, out _, out _, out _);

    /// <summary>Sets field to value; true when the field is new.</summary>
    public bool Set(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value)
    {
        if (_data is byte[] packed)
        {
            int maxValue = EncodingLimits.HashMaxListpackValue;
            if (field.Length <= maxValue && value.Length <= maxValue)
            {
                if (FindPacked(packed, field, out _, out int valueAt, out int end))
                {
                    int at = valueAt;
                    if (Listpack.Next(packed, ref at).SequenceEqual(value)) return false;
                    var changed = Listpack.Splice(packed, valueAt, end - valueAt, Listpack.EntrySize(value.Length));
                    Listpack.WriteEntry(changed.AsSpan(valueAt), value);
                    _data = changed;
                    return false;
                }
                var grown = Listpack.Splice(packed, packed.Length, 0, Listpack.EntrySize(field.Length) + Listpack.EntrySize(value.Length));
                int w = packed.Length;
                w += Listpack.WriteEntry(grown.AsSpan(w), field);
                Listpack.WriteEntry(grown.AsSpan(w), value);
                _data = grown;
                _count++;
                if (_count > EncodingLimits.HashMaxListpackEntries) ToTable();
                return true;
            }
            ToTable(); // a field or value too long for the listpack: convert first, as Redis does
        }
        var t = (HashTable)_data;
        ref byte[] slot = ref CollectionsMarshal.GetValueRefOrAddDefault(t.Lookup, field, out bool exists)!;
        if (exists) t.HeapBytes -= ElementBytes(slot.Length);
        else t.HeapBytes += ElementBytes(field.Length) + 32; // the field's array and its dictionary entry
        slot = value.ToArray();
        t.HeapBytes += ElementBytes(value.Length);
        if (!exists) _count++;
        return !exists;
    }

    /// <summary>Removes field; true when it was there.</summary>
    public bool Remove(ReadOnlySpan<byte> field)
    {
        if (_data is HashTable table)
        {
            if (!table.Lookup.Remove(field, out var key, out var value)) return false;
            table.HeapBytes -= HashTable.EntryBytes(key.Length, value.Length);
            _count--;
            return true;
        }
        var packed = (byte[])_data;
        if (!FindPacked(packed, field, out int fieldAt, out _, out int end)) return false;
        _data = Listpack.Splice(packed, fieldAt, end - fieldAt, 0);
        _count--;
        return true;
    }

    /// <summary>Converts the listpack form to the hashtable form (for good).</summary>
    private void ToTable()
    {
        var packed = (byte[])_data;
        var table = new HashTable(_count);
        int pos = 0;
        while (pos < packed.Length)
        {
            var f = Listpack.Next(packed, ref pos).ToArray();
            var v = Listpack.Next(packed, ref pos).ToArray();
            table.Add(f, v);
            table.HeapBytes += HashTable.EntryBytes(f.Length, v.Length);
        }
        _data = table;
    }

    public override CollectionObject Clone() =>
        // The packed array is never written once held, and a table's arrays never change once stored: both shared.
        new HashObject { _data = _data is HashTable table ? new HashTable(table) : _data, _count = _count };

    public override void WritePayload(IBufferWriter<byte> output)
    {
        PayloadWriter.WriteVarint(output, _data is byte[] ? 1UL : 0UL);
        PayloadWriter.WriteVarint(output, (ulong)_count);
        if (_data is byte[] packed)
        {
            // The packed pairs are already (varint length, bytes) entries, as the payload writes them.
            output.Write(packed);
            return;
        }
        foreach (var (k, v) in (HashTable)_data)
        {
            PayloadWriter.WriteBytes(output, k);
            PayloadWriter.WriteBytes(output, v);
        }
    }

    internal static HashObject ReadPayload(ref PayloadReader reader)
    {
        bool listpack = reader.ReadVarint() == 1;
        int count = reader.ReadCount();
        var h = new HashObject();
        if (listpack)
        {
            var seen = new HashSet<byte[]>(Math.Min(count, 1 << 16), ByteArrayComparer.Instance);
            var pairs = new List<(byte[], byte[])>(Math.Min(count, 1 << 16));
            int bytes = 0;
            for (int i = 0; i < count; i++)
            {
                var k = reader.ReadBytes();
                var v = reader.ReadBytes();
                if (!seen.Add(k)) throw new InvalidDataException("a hash payload repeats a field");
                pairs.Add((k, v));
                bytes += Listpack.EntrySize(k.Length) + Listpack.EntrySize(v.Length);
            }
            var packed = GC.AllocateUninitializedArray<byte>(bytes);
            int w = 0;
            foreach (var (k, v) in pairs)
            {
                w += Listpack.WriteEntry(packed.AsSpan(w), k);
                w += Listpack.WriteEntry(packed.AsSpan(w), v);
            }
            h._data = packed;
            h._count = count;
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
        h._count = count;
        return h;
    }
}
