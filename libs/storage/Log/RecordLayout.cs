// RecordLayout: where things are inside a record. All records are 8-byte aligned and contiguous:
//   [0]  RecordInfo (8)
//   [8]  key length (bits 0..28) + value slack in 8-byte units (bits 29..31) | value length (int32)
//        (one 8-byte word, written atomically, so a scan never sees a length without its slack)
//   [16] access word: [0..3] last access, Unix seconds (AccessClock); [4] object kind (the serializer's KindOf, 0 =
//        unknown or a byte value), set with the record's object; [5..7] reserved, zero
//   [24] expiration (int64, Unix ms) when HasExpiration, else absent
//   then key bytes (padded to 8), then value bytes (capacity padded to 8)
// An object record (RecordInfo.ObjectValue) has a 16-byte value: [0] slot of its object in the page's ObjectHeap
// frame (int32), [4] length of the serialized object in the object log (int32, -1: no object), [8] its address
// there (int64). The slot means something only in memory; length and address are set when the page is flushed.
// The value capacity (Align8(length) + slack*8) is what an in-place update may grow into without moving the
// record; slack lets a value shrink in place by up to 56 bytes. Keys are limited to 2^29-1 bytes.
// The last-access time is the one field written without the record's lock (a 4-byte aligned store, also in the
// read-only region): readers take either value, and a page flushed meanwhile keeps either one.
using System.Runtime.CompilerServices;

namespace Garnet.storage.Log;

public static unsafe class RecordLayout
{
    public const int HeaderSize = 24;
    private const int AccessOffset = 16;
    public const int ExpirationSize = 8;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Align8(int n) => (n + 7) & ~7;

    public static int Size(int keyLength, int valueCapacity, bool hasExpiration) =>
        HeaderSize + (hasExpiration ? ExpirationSize : 0) + Align8(keyLength) + Align8(valueCapacity);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ref ulong Info(byte* record) => ref *(ulong*)record;

    public const int MaxKeyLength = (1 << 29) - 1;
    private const int MaxSlackUnits = 7;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int KeyLength(byte* record) => *(int*)(record + 8) & MaxKeyLength;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int SlackUnits(byte* record) => (int)((uint)*(int*)(record + 8) >> 29);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int ValueLength(byte* record) => *(int*)(record + 12);

    /// <summary>Changes the value length in place; false when it does not fit the record's capacity (or would leave too much slack).</summary>
    public static bool TrySetValueLength(byte* record, int length)
    {
        int capacity = ValueCapacity(record);
        int aligned = Align8(length);
        if (length < 0 || aligned > capacity || (capacity - aligned) / 8 > MaxSlackUnits) return false;
        uint keyWord = (uint)KeyLength(record) | ((uint)((capacity - aligned) / 8) << 29);
        Volatile.Write(ref *(ulong*)(record + 8), keyWord | ((ulong)(uint)length << 32));
        return true;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool HasExpiration(byte* record) => RecordInfo.Is(*(ulong*)record, RecordInfo.HasExpiration);

    /// <summary>Unix seconds of the last access (creation, write, or a read that touched it).</summary>
    public static uint AccessTime(byte* record) => Volatile.Read(ref *(uint*)(record + AccessOffset));

    /// <summary>Marks the record accessed now; stores only when the second changed, so hot reads do not dirty the line.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Touch(byte* record)
    {
        uint now = AccessClock.NowSeconds;
        if (*(uint*)(record + AccessOffset) != now) Volatile.Write(ref *(uint*)(record + AccessOffset), now);
    }

    public static void SetAccessTime(byte* record, uint unixSeconds) => Volatile.Write(ref *(uint*)(record + AccessOffset), unixSeconds);

    private const int KindOffset = 20;

    /// <summary>The kind tag of an object record's value (IObjectSerializer.KindOf), 0 when unknown: readable from the
    /// record alone, so a record read from disk tells its value's type without its object.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static byte ObjectKind(byte* record) => record[KindOffset];

    /// <summary>Sets the kind tag: by the writer of a new record before it is published, or under the exclusive lock
    /// together with the object (one byte store; a reader sees the old or the new kind).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void SetObjectKind(byte* record, byte kind) => Volatile.Write(ref record[KindOffset], kind);

    public static long Expiration(byte* record) => HasExpiration(record) ? *(long*)(record + HeaderSize) : 0;

    public static void SetExpiration(byte* record, long unixMs) => *(long*)(record + HeaderSize) = unixMs;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int KeyOffset(byte* record) => HeaderSize + (HasExpiration(record) ? ExpirationSize : 0);

    public static Span<byte> Key(byte* record) => new(record + KeyOffset(record), KeyLength(record));

    public static byte* ValuePointer(byte* record) => record + KeyOffset(record) + Align8(KeyLength(record));

    public static Span<byte> Value(byte* record) => new(ValuePointer(record), ValueLength(record));

    /// <summary>Bytes the value may occupy without moving the record.</summary>
    public static int ValueCapacity(byte* record) => Align8(ValueLength(record)) + SlackUnits(record) * 8;

    /// <summary>True when a record starts here (the always-set Present bit).</summary>
    public static bool IsPresent(byte* record) => (*(ulong*)record & RecordInfo.Present) != 0;

    /// <summary>
    /// Total bytes of the record, from its header. The length word is read once: writers change it with one 8-byte store
    /// (value length and slack together), so a scan that races a writer sees the old or the new word, never a mix, and
    /// the total size is the same in both.
    /// </summary>
    public static int TotalSize(byte* record)
    {
        ulong word = Volatile.Read(ref *(ulong*)(record + 8));
        int keyLength = (int)(word & MaxKeyLength);
        int slack = (int)((uint)word >> 29);
        int valueLength = (int)(word >> 32);
        return Size(keyLength, Align8(valueLength) + slack * 8, HasExpiration(record));
    }

    public const int ObjectValueSize = 16;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsObject(byte* record) => RecordInfo.Is(*(ulong*)record, RecordInfo.ObjectValue);

    public static int ObjectSlot(byte* record) => *(int*)ValuePointer(record);
    public static void SetObjectSlot(byte* record, int slot) => *(int*)ValuePointer(record) = slot;
    public static int ObjectDiskLength(byte* record) => *(int*)(ValuePointer(record) + 4);
    public static long ObjectDiskAddress(byte* record) => *(long*)(ValuePointer(record) + 8);

    public static void SetObjectDiskLocation(byte* record, long address, int length)
    {
        *(long*)(ValuePointer(record) + 8) = address;
        *(int*)(ValuePointer(record) + 4) = length;
    }

    /// <summary>
    /// Rewrites a free (invalid, unreachable) record of totalSize bytes for a new key and value, keeping its total size:
    /// the difference goes to value slack. The header stays invalid until Publish. The record's expiration field must
    /// match (HasExpiration == (expiration != 0)).
    /// </summary>
    public static void InitializeReused(byte* record, int totalSize, ReadOnlySpan<byte> key, int valueLength, long expiration)
    {
        bool hasExp = expiration != 0;
        int slack = (totalSize - Size(key.Length, valueLength, hasExp)) / 8;
        if (slack < 0 || slack > MaxSlackUnits || HasExpiration(record) != hasExp) throw new InvalidOperationException("free record of the wrong shape");
        uint keyWord = (uint)key.Length | ((uint)slack << 29);
        Volatile.Write(ref *(ulong*)(record + 8), keyWord | ((ulong)(uint)valueLength << 32));
        *(ulong*)(record + AccessOffset) = AccessClock.NowSeconds;
        if (hasExp) *(long*)(record + HeaderSize) = expiration;
        key.CopyTo(new Span<byte>(record + KeyOffset(record), key.Length));
    }

    /// <summary>Makes a reused record valid (one write of its header), once key and value are in place.</summary>
    public static void Publish(byte* record, long previousAddress, ulong flags)
    {
        ulong exp = *(ulong*)record & RecordInfo.HasExpiration;
        Volatile.Write(ref *(ulong*)record, ((ulong)previousAddress & RecordInfo.AddressMask) | flags | RecordInfo.Present | exp);
    }

    /// <summary>Writes a fresh record's header, key and (optionally) expiration; the value is filled by the caller.</summary>
    public static void Initialize(byte* record, long previousAddress, ReadOnlySpan<byte> key, int valueLength, long expiration, ulong flags)
    {
        if (key.Length > MaxKeyLength) throw new ArgumentOutOfRangeException(nameof(key), "key too long");
        bool hasExp = expiration != 0;
        *(ulong*)record = ((ulong)previousAddress & RecordInfo.AddressMask) | flags | RecordInfo.Present | (hasExp ? RecordInfo.HasExpiration : 0);
        *(int*)(record + 8) = key.Length;
        *(int*)(record + 12) = valueLength;
        *(ulong*)(record + AccessOffset) = AccessClock.NowSeconds;
        if (hasExp) *(long*)(record + HeaderSize) = expiration;
        key.CopyTo(new Span<byte>(record + KeyOffset(record), key.Length));
    }
}
