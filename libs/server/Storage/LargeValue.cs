// LargeValue: a string value too large to sit inside a log record (more than InlineLimit bytes). It is stored as an
// object record: the bytes live on the managed heap while in memory, and in the object log once flushed. Commands see
// it as an ordinary string (StringFunctions.TryGetString).
// Invariants:
//  - The value is held in its serialized form: one array whose first byte is SerializedType, then the string's bytes.
//    Flushing writes that array as it is and reading back adopts the array read, so neither copies the value.
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

    private readonly byte[] _serialized;

    private LargeValue(byte[] serialized) => _serialized = serialized;

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

    public int Length => _serialized.Length - 1;
    public ReadOnlySpan<byte> Span => _serialized.AsSpan(1);
    public ReadOnlyMemory<byte> Memory => _serialized.AsMemory(1);

    /// <summary>The serialized form (do not modify).</summary>
    internal byte[] Serialized => _serialized;
}
