// HashObject: a Redis hash. Fields map to values; both are byte strings.
// Encoding: reported "listpack" while the hash is within hash-max-listpack-entries fields and every field and value is
// within hash-max-listpack-value bytes, then "hashtable" for good (as Redis converts once and never back). Both are held
// in one dictionary for now (see docs/objects.md: the packed small form is still to come).
// Invariants: HeapBytes is the sum over entries plus a fixed cost, updated by every change.
using System.Buffers;
using System.Runtime.InteropServices;

namespace Garnet.server.Objects;

public sealed class HashObject : CollectionObject
{
    private readonly Dictionary<byte[], byte[]> _fields;
    private readonly Dictionary<byte[], byte[]>.AlternateLookup<ReadOnlySpan<byte>> _lookup;
    private long _heapBytes = BaseBytes;
    private bool _listpack = true;

    public HashObject() : this(0) { }

    private HashObject(int capacity)
    {
        _fields = new Dictionary<byte[], byte[]>(capacity, ByteArrayComparer.Instance);
        _lookup = _fields.GetAlternateLookup<ReadOnlySpan<byte>>();
    }

    public override ObjectKind Kind => ObjectKind.Hash;
    public override long Count => _fields.Count;
    public override long HeapBytes => _heapBytes;
    public override string Encoding => _listpack ? "listpack" : "hashtable";

    public IEnumerable<KeyValuePair<byte[], byte[]>> Entries => _fields;

    public byte[]? Get(ReadOnlySpan<byte> field) => _lookup.TryGetValue(field, out var v) ? v : null;

    public bool Contains(ReadOnlySpan<byte> field) => _lookup.ContainsKey(field);

    /// <summary>Sets field to value; true when the field is new.</summary>
    public bool Set(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value)
    {
        ref byte[] slot = ref CollectionsMarshal.GetValueRefOrAddDefault(_lookup, field, out bool exists)!;
        if (exists) _heapBytes -= ElementBytes(slot.Length);
        else _heapBytes += ElementBytes(field.Length) + 32; // the field's array and its dictionary entry
        slot = value.ToArray();
        _heapBytes += ElementBytes(value.Length);
        CheckEncoding(field.Length, value.Length);
        return !exists;
    }

    /// <summary>Removes field; true when it was there.</summary>
    public bool Remove(ReadOnlySpan<byte> field)
    {
        if (!_lookup.Remove(field, out var key, out var value)) return false;
        _heapBytes -= ElementBytes(key.Length) + 32 + ElementBytes(value.Length);
        return true;
    }

    private void CheckEncoding(int fieldLength, int valueLength)
    {
        if (!_listpack) return;
        int maxValue = EncodingLimits.HashMaxListpackValue;
        if (_fields.Count > EncodingLimits.HashMaxListpackEntries || fieldLength > maxValue || valueLength > maxValue) _listpack = false;
    }

    public override CollectionObject Clone()
    {
        var copy = new HashObject(_fields.Count) { _heapBytes = _heapBytes, _listpack = _listpack };
        foreach (var (k, v) in _fields) copy._fields.Add(k, v); // element arrays never change once stored: shared
        return copy;
    }

    public override void WritePayload(IBufferWriter<byte> output)
    {
        PayloadWriter.WriteVarint(output, _listpack ? 1UL : 0UL);
        PayloadWriter.WriteVarint(output, (ulong)_fields.Count);
        foreach (var (k, v) in _fields)
        {
            PayloadWriter.WriteBytes(output, k);
            PayloadWriter.WriteBytes(output, v);
        }
    }

    internal static HashObject ReadPayload(ref PayloadReader reader)
    {
        bool listpack = reader.ReadVarint() == 1;
        int count = reader.ReadCount();
        var h = new HashObject(Math.Min(count, 1 << 16));
        for (int i = 0; i < count; i++)
        {
            var k = reader.ReadBytes();
            var v = reader.ReadBytes();
            if (!h._fields.TryAdd(k, v)) throw new InvalidDataException("a hash payload repeats a field");
            h._heapBytes += ElementBytes(k.Length) + 32 + ElementBytes(v.Length);
        }
        h._listpack = listpack;
        return h;
    }
}
