// LargeValue: a string value too large to sit inside a log record (more than InlineLimit bytes). It is stored as an
// object record: the bytes live on the managed heap while in memory, and in the object log once flushed. Commands see
// it as an ordinary string (StringFunctions.TryGetString).
// Invariants:
//  - The value is held in its serialized form: a byte SerializedType, then the string's bytes, in one array. Flushing
//    writes that form as it is and reading back adopts the array read, so neither copies the value.
//  - Usually the form is the whole array. A value taken from a request (Wrap: a SET whose large argument was received
//    into a buffer of its own, see RespServerSession.TakeLargeArgument) lies inside the receive buffer instead, the
//    type byte written over the last byte of its bulk header; the few bytes around it count in HeapBytes.
//  - The array never changes once the LargeValue is built (changes to a large string make a new one), so it may be
//    shared with flushes, iterators and other LargeValues.
namespace Garnet.server.Storage;

public sealed class LargeValue
{
    /// <summary>Values longer than this are stored as LargeValue objects (a log page is 4 MB).</summary>
    public const int InlineLimit = 1 << 20;

    /// <summary>The first byte of the serialized form (ServerObjectSerializer's type code for a large string).</summary>
    public const byte SerializedType = 1;

    /// <summary>Bytes of managed heap a LargeValue of length bytes takes (array and object headers included).</summary>
    public static long HeapBytes(int length) => length + 1L + 48;

    private readonly byte[] _array;
    private readonly int _offset; // where the serialized form starts in _array
    private readonly int _length; // of the string

    private LargeValue(byte[] serialized) : this(serialized, 0, serialized.Length - 1) { }

    private LargeValue(byte[] array, int offset, int length)
    {
        _array = array;
        _offset = offset;
        _length = length;
    }

    /// <summary>Takes array[typeOffset + 1 .. + length) as the value, without copying: array[typeOffset] becomes the type
    /// byte. The caller gives the array up (nobody may write into it afterwards).</summary>
    public static LargeValue Wrap(byte[] array, int typeOffset, int length)
    {
        if ((uint)typeOffset > (uint)array.Length || (uint)length > (uint)(array.Length - typeOffset - 1))
            throw new ArgumentOutOfRangeException(nameof(length));
        array[typeOffset] = SerializedType;
        return new LargeValue(array, typeOffset, length);
    }

    /// <summary>A copy of value.</summary>
    public static LargeValue Copy(ReadOnlySpan<byte> value)
    {
        var a = GC.AllocateUninitializedArray<byte>(value.Length + 1);
        a[0] = SerializedType;
        value.CopyTo(a.AsSpan(1));
        return new LargeValue(a);
    }

    /// <summary>A value of length bytes for the caller to fill (through content) before anyone else sees it.</summary>
    public static LargeValue Create(int length, out Span<byte> content)
    {
        var a = new byte[length + 1];
        a[0] = SerializedType;
        content = a.AsSpan(1);
        return new LargeValue(a);
    }

    /// <summary>Takes an array that holds the serialized form (SerializedType, then the bytes), without copying it.</summary>
    public static LargeValue Adopt(byte[] serialized)
    {
        if (serialized.Length == 0 || serialized[0] != SerializedType) throw new InvalidDataException("not a serialized large string");
        return new LargeValue(serialized);
    }

    public int Length => _length;
    public ReadOnlySpan<byte> Span => _array.AsSpan(_offset + 1, _length);
    public ReadOnlyMemory<byte> Memory => _array.AsMemory(_offset + 1, _length);

    /// <summary>Bytes of managed heap this value holds (its whole array).</summary>
    public long HeapSize => _array.Length + 48L;

    /// <summary>The serialized form (do not modify).</summary>
    internal ReadOnlyMemory<byte> Serialized => _array.AsMemory(_offset, _length + 1);

    /// <summary>The serialized form when it is a whole array (else null).</summary>
    internal byte[]? SerializedArray => _offset == 0 && _array.Length == _length + 1 ? _array : null;
}
