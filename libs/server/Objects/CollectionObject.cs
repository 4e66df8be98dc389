// CollectionObject: a value of one of Redis's collection types (list, hash, set, zset), held as an object record of
// the store. The engine moves it between memory and the object log through ServerObjectSerializer (one kind byte, then
// the payload each type writes), and asks its HeapBytes for the memory budget.
// Invariants:
//  - An object is changed only by an ObjectOperation running under its record's exclusive lock in the mutable region;
//    anywhere else (read-only region, on disk) a change works on a Clone, so a page being flushed never sees it change.
//  - HeapBytes is kept up to date by every change (O(1) to read).
//  - An empty collection is never stored: the operation that empties it deletes the key (as Redis does); streams are
//    the exception (IsEmpty is false: Redis keeps an empty stream).
using System.Buffers;

namespace Garnet.server.Objects;

/// <summary>The serialized type codes of objects (1 is a large string, see LargeValue).</summary>
public enum ObjectKind : byte { List = 2, Hash = 3, Set = 4, SortedSet = 5, Stream = 6 }

public abstract class CollectionObject
{
    /// <summary>Fixed cost of an object and its record's bookkeeping, before its elements.</summary>
    protected const long BaseBytes = 64;

    public abstract ObjectKind Kind { get; }

    /// <summary>Number of elements (list items, hash fields, set members).</summary>
    public abstract long Count { get; }

    /// <summary>An empty collection is deleted (streams are kept empty, as Redis keeps them).</summary>
    public virtual bool IsEmpty => Count == 0;

    /// <summary>Approximate managed bytes the object holds.</summary>
    public abstract long HeapBytes { get; }
    /// <summary>Bytes of the value kept out of memory (a large stream's spilled blocks); MEMORY USAGE adds them.</summary>
    public virtual long SpilledBytes => 0;

    /// <summary>OBJECT ENCODING's answer (Redis's names).</summary>
    public abstract string Encoding { get; }

    /// <summary>A deep copy that can change without the original changing.</summary>
    public abstract CollectionObject Clone();

    /// <summary>Writes the payload (after the kind byte).</summary>
    public abstract void WritePayload(IBufferWriter<byte> output);

    /// <summary>TYPE's answer.</summary>
    public string TypeName => TypeNameOf(Kind);

    public static string TypeNameOf(ObjectKind kind) => kind switch
    {
        ObjectKind.List => "list",
        ObjectKind.Hash => "hash",
        ObjectKind.Set => "set",
        ObjectKind.SortedSet => "zset",
        ObjectKind.Stream => "stream",
        _ => "none",
    };

    /// <summary>An empty object of kind.</summary>
    public static CollectionObject Create(ObjectKind kind) => kind switch
    {
        ObjectKind.List => new ListObject(),
        ObjectKind.Hash => new HashObject(),
        ObjectKind.Set => new SetObject(),
        ObjectKind.SortedSet => new SortedSetObject(),
        ObjectKind.Stream => new StreamObject(),
        _ => throw new NotSupportedException("no collection of kind " + kind),
    };

    /// <summary>Reads an object written by WritePayload; throws InvalidDataException on malformed bytes.</summary>
    public static CollectionObject Read(ObjectKind kind, ReadOnlySpan<byte> payload, Streams.StreamSpillFile? spill = null)
    {
        var reader = new PayloadReader(payload);
        CollectionObject result = kind switch
        {
            ObjectKind.List => ListObject.ReadPayload(ref reader),
            ObjectKind.Hash => HashObject.ReadPayload(ref reader),
            ObjectKind.Set => SetObject.ReadPayload(ref reader),
            ObjectKind.SortedSet => SortedSetObject.ReadPayload(ref reader),
            ObjectKind.Stream => StreamObject.ReadPayload(ref reader, spill),
            _ => throw new InvalidDataException("unknown object kind " + (byte)kind),
        };
        if (!reader.AtEnd) throw new InvalidDataException("trailing bytes after a " + TypeNameOf(kind));
        return result;
    }

    /// <summary>Bytes an element of length bytes takes on the heap (array header and padding included).</summary>
    protected internal static long ElementBytes(int length) => 24 + ((length + 7) & ~7L);
}

/// <summary>Length-prefixed element bytes of object payloads: a varint length, then the bytes.</summary>
public ref struct PayloadReader
{
    private readonly ReadOnlySpan<byte> _bytes;
    private int _at;

    public PayloadReader(ReadOnlySpan<byte> bytes) { _bytes = bytes; _at = 0; }

    public readonly bool AtEnd => _at == _bytes.Length;

    public ulong ReadVarint()
    {
        ulong value = 0;
        for (int shift = 0; shift < 64; shift += 7)
        {
            if (_at >= _bytes.Length) throw new InvalidDataException("object payload ends inside a number");
            byte b = _bytes[_at++];
            value |= (ulong)(b & 0x7f) << shift;
            if (b < 0x80) return value;
        }
        throw new InvalidDataException("object payload holds a number that is too long");
    }

    public int ReadCount()
    {
        ulong n = ReadVarint();
        if (n > int.MaxValue) throw new InvalidDataException("object payload holds an impossible count");
        return (int)n;
    }

    /// <summary>The next element's bytes, in place.</summary>
    public ReadOnlySpan<byte> ReadSpan()
    {
        int n = ReadCount();
        if (n > _bytes.Length - _at) throw new InvalidDataException("object payload ends inside an element");
        var v = _bytes.Slice(_at, n);
        _at += n;
        return v;
    }

    public byte[] ReadBytes()
    {
        int n = ReadCount();
        if (n > _bytes.Length - _at) throw new InvalidDataException("object payload ends inside an element");
        var v = _bytes.Slice(_at, n).ToArray();
        _at += n;
        return v;
    }

    public double ReadDouble()
    {
        if (_bytes.Length - _at < 8) throw new InvalidDataException("object payload ends inside a number");
        double d = BitConverter.Int64BitsToDouble(System.Buffers.Binary.BinaryPrimitives.ReadInt64LittleEndian(_bytes[_at..]));
        _at += 8;
        return d;
    }
}

public static class PayloadWriter
{
    public static void WriteVarint(IBufferWriter<byte> output, ulong value)
    {
        var s = output.GetSpan(10);
        int n = 0;
        while (value >= 0x80) { s[n++] = (byte)(value | 0x80); value >>= 7; }
        s[n++] = (byte)value;
        output.Advance(n);
    }

    public static void WriteBytes(IBufferWriter<byte> output, ReadOnlySpan<byte> value)
    {
        WriteVarint(output, (ulong)value.Length);
        output.Write(value);
    }

    public static void WriteDouble(IBufferWriter<byte> output, double value)
    {
        var s = output.GetSpan(8);
        System.Buffers.Binary.BinaryPrimitives.WriteInt64LittleEndian(s, BitConverter.DoubleToInt64Bits(value));
        output.Advance(8);
    }
}

/// <summary>Compares byte arrays by content (hash fields, set members).</summary>
public sealed class ByteArrayComparer : IEqualityComparer<byte[]>, IComparer<byte[]>, IAlternateEqualityComparer<ReadOnlySpan<byte>, byte[]>
{
    public static readonly ByteArrayComparer Instance = new();

    public bool Equals(byte[]? x, byte[]? y) => ReferenceEquals(x, y) || (x is not null && y is not null && x.AsSpan().SequenceEqual(y));

    public int GetHashCode(byte[] obj) => GetHashCode((ReadOnlySpan<byte>)obj);

    public int GetHashCode(ReadOnlySpan<byte> span)
    {
        var h = new HashCode();
        h.AddBytes(span);
        return h.ToHashCode();
    }

    public bool Equals(ReadOnlySpan<byte> alternate, byte[] other) => alternate.SequenceEqual(other);

    public byte[] Create(ReadOnlySpan<byte> alternate) => alternate.ToArray();

    public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);
}
