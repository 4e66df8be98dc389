// RecordLayout: where things are inside a record. All records are 8-byte aligned and contiguous:
//   [0]  RecordInfo (8)
//   [8]  key length (int32) | value length (int32)
//   [16] expiration (int64, Unix ms) when HasExpiration, else absent
//   then key bytes (padded to 8), then value bytes (capacity padded to 8)
// The value capacity (ValueCapacity) is what an in-place update may grow into without moving the record.
using System.Runtime.CompilerServices;

namespace Garnet.storage.Log;

public static unsafe class RecordLayout
{
    public const int HeaderSize = 16;
    public const int ExpirationSize = 8;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Align8(int n) => (n + 7) & ~7;

    public static int Size(int keyLength, int valueCapacity, bool hasExpiration) =>
        HeaderSize + (hasExpiration ? ExpirationSize : 0) + Align8(keyLength) + Align8(valueCapacity);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ref ulong Info(byte* record) => ref *(ulong*)record;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int KeyLength(byte* record) => *(int*)(record + 8);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int ValueLength(byte* record) => *(int*)(record + 12);

    public static void SetValueLength(byte* record, int length) => Volatile.Write(ref *(int*)(record + 12), length);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool HasExpiration(byte* record) => RecordInfo.Is(*(ulong*)record, RecordInfo.HasExpiration);

    public static long Expiration(byte* record) => HasExpiration(record) ? *(long*)(record + HeaderSize) : 0;

    public static void SetExpiration(byte* record, long unixMs) => *(long*)(record + HeaderSize) = unixMs;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int KeyOffset(byte* record) => HeaderSize + (HasExpiration(record) ? ExpirationSize : 0);

    public static Span<byte> Key(byte* record) => new(record + KeyOffset(record), KeyLength(record));

    public static byte* ValuePointer(byte* record) => record + KeyOffset(record) + Align8(KeyLength(record));

    public static Span<byte> Value(byte* record) => new(ValuePointer(record), ValueLength(record));

    /// <summary>Total bytes of the record, from its header.</summary>
    public static int TotalSize(byte* record, int valueCapacity) =>
        Size(KeyLength(record), valueCapacity, HasExpiration(record));

    /// <summary>Value capacity is stored implicitly: the aligned value length, unless the record was allocated larger.</summary>
    public static int ValueCapacity(byte* record) => Align8(ValueLength(record));

    public static int TotalSize(byte* record) => TotalSize(record, ValueCapacity(record));

    /// <summary>Writes a fresh record's header, key and (optionally) expiration; the value is filled by the caller.</summary>
    public static void Initialize(byte* record, long previousAddress, ReadOnlySpan<byte> key, int valueLength, long expiration, ulong flags)
    {
        bool hasExp = expiration != 0;
        *(ulong*)record = ((ulong)previousAddress & RecordInfo.AddressMask) | flags | (hasExp ? RecordInfo.HasExpiration : 0);
        *(int*)(record + 8) = key.Length;
        *(int*)(record + 12) = valueLength;
        if (hasExp) *(long*)(record + HeaderSize) = expiration;
        key.CopyTo(new Span<byte>(record + KeyOffset(record), key.Length));
    }
}
