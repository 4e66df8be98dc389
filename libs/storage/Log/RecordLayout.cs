// RecordLayout: where things are inside a record. All records are 8-byte aligned and contiguous:
//   [0]  RecordInfo (8)
//   [8]  key length (bits 0..28) + value slack in 8-byte units (bits 29..31) | value length (int32)
//        (one 8-byte word, written atomically, so a scan never sees a length without its slack)
//   [16] expiration (int64, Unix ms) when HasExpiration, else absent
//   [A]  last access, Unix seconds (uint32, AccessClock), at A = 16 or 24 (4-aligned)
//   [A+4] kind tag (1): the serializer's KindOf for an object record, the writer's kind for a byte record, 0 = none
//   [A+5] key bytes, then padding to 8, then value bytes (capacity padded to 8)
// The key starts right after the kind byte, not at an 8-byte boundary: the fixed fields take 21 (29) bytes, so up to 3
// bytes of a key share the header's last word and a record is Align8(21 + exp + key) + Align8(value capacity) bytes.
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
    /// <summary>The smallest record (the fixed fields, rounded up to 8): every record starts with at least this many
    /// bytes, and they tell its total size.</summary>
    public const int HeaderSize = 24;
    /// <summary>Bytes before the key in a record without an expiration: RecordInfo, lengths, access time, kind.</summary>
    public const int FixedFieldsSize = 21;
    private const int ExpirationOffset = 16;
    public const int ExpirationSize = 8;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Align8(int n) => (n + 7) & ~7;

    public static int Size(int keyLength, int valueCapacity, bool hasExpiration) =>
        Align8(FixedFieldsSize + (hasExpiration ? ExpirationSize : 0) + keyLength) + Align8(valueCapacity);

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

    /// <summary>Offset of the access time: 16, or 24 after an expiration field (branch-free: one flag bit times 8).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int AccessOffset(byte* record) =>
        ExpirationOffset + (int)((*(ulong*)record >> RecordInfo.HasExpirationShift) & 1) * ExpirationSize;

    /// <summary>Unix seconds of the last access (creation, write, or a read that touched it).</summary>
    public static uint AccessTime(byte* record) => Volatile.Read(ref *(uint*)(record + AccessOffset(record)));

    /// <summary>Marks the record accessed now; stores only when the second changed, so hot reads do not dirty the line.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Touch(byte* record)
    {
        uint now = AccessClock.NowSeconds;
        uint* access = (uint*)(record + AccessOffset(record));
        if (*access != now) Volatile.Write(ref *access, now);
    }

    public static void SetAccessTime(byte* record, uint unixSeconds) => Volatile.Write(ref *(uint*)(record + AccessOffset(record)), unixSeconds);

    /// <summary>The kind tag of an object record's value (IObjectSerializer.KindOf), 0 when unknown: readable from the
    /// record alone, so a record read from disk tells its value's type without its object.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static byte ObjectKind(byte* record) => record[AccessOffset(record) + 4];

    /// <summary>Sets the kind tag: by the writer of a new record before it is published, or under the exclusive lock
    /// together with the object (one byte store; a reader sees the old or the new kind).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void SetObjectKind(byte* record, byte kind) => Volatile.Write(ref record[AccessOffset(record) + 4], kind);

    public static long Expiration(byte* record) => HasExpiration(record) ? *(long*)(record + ExpirationOffset) : 0;

    public static void SetExpiration(byte* record, long unixMs) => *(long*)(record + ExpirationOffset) = unixMs;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int KeyOffset(byte* record) => AccessOffset(record) + 5;

    public static Span<byte> Key(byte* record) => new(record + KeyOffset(record), KeyLength(record));

    public static byte* ValuePointer(byte* record) => record + Align8(KeyOffset(record) + KeyLength(record));

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
        if (hasExp) *(long*)(record + ExpirationOffset) = expiration;
        WriteAccessAndKind(record);
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
        if (hasExp) *(long*)(record + ExpirationOffset) = expiration;
        WriteAccessAndKind(record);
        key.CopyTo(new Span<byte>(record + KeyOffset(record), key.Length));
    }

    /// <summary>A new record's access time (now) and kind (0), written before its key: the key follows the kind byte.</summary>
    private static void WriteAccessAndKind(byte* record)
    {
        int at = AccessOffset(record);
        *(uint*)(record + at) = AccessClock.NowSeconds;
        record[at + 4] = 0;
    }
}
