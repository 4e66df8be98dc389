// RecordLayout: where things are inside a record. All records are 8-byte aligned and contiguous, and come in two
// formats, told apart by bit 0 of byte 8 (a scan reads the 8-byte word at offset 8 once to learn a record's size):
//  Compact (bit 0 = 1), for a key of at most 127 bytes and a value of at most 511 (most small records):
//   [0]  RecordInfo (8)
//   [8]  one 48-bit word: bit 0 = 1 | bits 1..3 value slack (8-byte units) | 4..7 kind tag | 8..31 last access
//        (low 24 bits of the AccessClock second) | 32..38 key length | 39..47 value length
//   [14] key bytes (or, with an expiration: [14] 2 zero bytes, [16] expiration (int64, Unix ms), [24] key bytes)
//  Long (bit 0 = 0), for everything else:
//   [8]  bit 0 = 0 | bits 1..28 key length | 29..31 value slack, then [12] value length (int32): one 8-byte word
//   [16] expiration (int64, Unix ms) when HasExpiration, else absent
//   [A]  last access, Unix seconds (uint32), at A = 16 or 24 (4-aligned); [A+4] kind tag (1); [A+5] key bytes
//  Both: then padding to 8, then value bytes (capacity padded to 8). A record is never smaller than HeaderSize (24).
// The format is chosen when a record is written (Size and Initialize agree) and never changes afterwards; the word at
// offset 8 is written with single 8-byte stores (compact: by CAS, since the access time is stored without the lock),
// so a scan never sees a length without its slack, and a record's total size never changes once written.
// An object record (RecordInfo.ObjectValue) has a 16-byte value: [0] slot of its object in the page's ObjectHeap
// frame (int32), [4] length of the serialized object in the object log (int32, -1: no object), [8] its address
// there (int64). The slot means something only in memory; length and address are set when the page is flushed.
// The value capacity (Align8(length) + slack*8) is what an in-place update may grow into without moving the
// record; slack lets a value shrink in place by up to 56 bytes. Keys are limited to 2^28-1 bytes, kind tags to 0..15.
// The last-access time is the one field written without the record's lock (also in the read-only region): readers
// take either value, and a page flushed meanwhile keeps either one. A compact record keeps 24 bits of it, so idle
// times wrap after 194 days, as Redis's LRU clock does.
using System.Runtime.CompilerServices;

namespace Garnet.storage.Log;

public static unsafe class RecordLayout
{
    /// <summary>The smallest record: every record starts with at least this many bytes, and they tell its total size.</summary>
    public const int HeaderSize = 24;
    /// <summary>Bytes before the key in a long-format record without an expiration: RecordInfo, lengths, access, kind.</summary>
    public const int FixedFieldsSize = 21;
    /// <summary>Bytes before the key in a compact record without an expiration: RecordInfo and the 48-bit word.</summary>
    public const int CompactFieldsSize = 14;
    /// <summary>Where a compact record with an expiration keeps its key (after the expiration at 16).</summary>
    private const int CompactKeyOffsetWithExpiration = 24;
    public const int MaxCompactKeyLength = 127;
    public const int MaxCompactValueLength = 511;
    private const int ExpirationOffset = 16;
    public const int ExpirationSize = 8;
    /// <summary>Kind tags are 0..15 (4 bits in a compact record).</summary>
    public const int MaxKind = 15;

    private const ulong CompactBit = 1;
    private const int SlackShift = 1, KindShift = 4, AccessShift = 8, CompactKeyShift = 32, CompactValueShift = 39;
    private const ulong AccessMask = 0xFF_FFFF;
    private const ulong CompactFieldsMask = (1UL << 48) - 1;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Align8(int n) => (n + 7) & ~7;

    /// <summary>True when a record of this key and value length is written in the compact format.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsCompactShape(int keyLength, int valueLength) =>
        (uint)keyLength <= MaxCompactKeyLength && (uint)valueLength <= MaxCompactValueLength;

    /// <summary>Bytes of a new record with this key and value capacity (the format follows from the lengths).</summary>
    public static int Size(int keyLength, int valueCapacity, bool hasExpiration) =>
        SizeOf(IsCompactShape(keyLength, valueCapacity), keyLength, Align8(valueCapacity), hasExpiration);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int KeyOffsetOf(bool compact, bool hasExpiration) =>
        compact ? (hasExpiration ? CompactKeyOffsetWithExpiration : CompactFieldsSize) : FixedFieldsSize + (hasExpiration ? ExpirationSize : 0);

    private static int SizeOf(bool compact, int keyLength, int alignedCapacity, bool hasExpiration) =>
        Math.Max(HeaderSize, Align8(KeyOffsetOf(compact, hasExpiration) + keyLength) + alignedCapacity);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ref ulong Info(byte* record) => ref *(ulong*)record;

    public const int MaxKeyLength = (1 << 28) - 1;
    private const int MaxSlackUnits = 7;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ref ulong Word(byte* record) => ref *(ulong*)(record + 8);

    /// <summary>True for a compact-format record.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsCompact(byte* record) => (record[8] & 1) != 0;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int KeyLengthOf(ulong word) =>
        (word & CompactBit) != 0 ? (int)(word >> CompactKeyShift) & MaxCompactKeyLength : (int)((uint)word >> 1) & MaxKeyLength;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int ValueLengthOf(ulong word) =>
        (word & CompactBit) != 0 ? (int)(word >> CompactValueShift) & MaxCompactValueLength : (int)(word >> 32);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int SlackUnitsOf(ulong word) =>
        (word & CompactBit) != 0 ? (int)(word >> SlackShift) & MaxSlackUnits : (int)((uint)word >> 29);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int KeyLength(byte* record) => KeyLengthOf(Word(record));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int ValueLength(byte* record) => ValueLengthOf(Word(record));

    /// <summary>The length bits of a word with new slack and value length (format, key length, access, kind and the key's
    /// first bytes in a compact word kept).</summary>
    private static ulong WithLengths(ulong word, int slackUnits, int valueLength)
    {
        if ((word & CompactBit) == 0)
            return (word & ((1UL << 29) - 1)) | ((ulong)slackUnits << 29) | ((ulong)(uint)valueLength << 32);
        const ulong cleared = ~((7UL << SlackShift) | ((ulong)MaxCompactValueLength << CompactValueShift));
        return (word & cleared) | ((ulong)slackUnits << SlackShift) | ((ulong)valueLength << CompactValueShift);
    }

    /// <summary>True when a value of length bytes fits the record in place (its capacity, the slack limit, and the compact
    /// format's 511-byte value field).</summary>
    public static bool CanHoldValue(byte* record, int length)
    {
        ulong word = Word(record);
        int capacity = Align8(ValueLengthOf(word)) + SlackUnitsOf(word) * 8;
        int aligned = Align8(length);
        if (length < 0 || aligned > capacity || (capacity - aligned) / 8 > MaxSlackUnits) return false;
        return (word & CompactBit) == 0 || length <= MaxCompactValueLength;
    }

    /// <summary>Changes the value length in place; false when it does not fit (see CanHoldValue).</summary>
    public static bool TrySetValueLength(byte* record, int length)
    {
        if (!CanHoldValue(record, length)) return false;
        ref ulong w = ref Word(record);
        while (true)
        {
            ulong word = Volatile.Read(ref w);
            int capacity = Align8(ValueLengthOf(word)) + SlackUnitsOf(word) * 8;
            ulong next = WithLengths(word, (capacity - Align8(length)) / 8, length);
            if ((word & CompactBit) == 0) { Volatile.Write(ref w, next); return true; } // long: the access time is elsewhere
            if (Interlocked.CompareExchange(ref w, next, word) == word) return true; // compact: a Touch may race
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool HasExpiration(byte* record) => RecordInfo.Is(*(ulong*)record, RecordInfo.HasExpiration);

    /// <summary>Offset of a long record's access time: 16, or 24 after an expiration field (one flag bit times 8).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int LongAccessOffset(byte* record) =>
        ExpirationOffset + (int)((*(ulong*)record >> RecordInfo.HasExpirationShift) & 1) * ExpirationSize;

    /// <summary>Unix seconds of the last access (creation, write, or a read that touched it). A compact record's 24 bits
    /// are read as the latest second at or before now with those low bits.</summary>
    public static uint AccessTime(byte* record)
    {
        if (!IsCompact(record)) return Volatile.Read(ref *(uint*)(record + LongAccessOffset(record)));
        uint stored = (uint)((Volatile.Read(ref Word(record)) >> AccessShift) & AccessMask);
        uint now = AccessClock.NowSeconds;
        return now - ((now - stored) & (uint)AccessMask);
    }

    /// <summary>Marks the record accessed now; stores only when the second changed, so hot reads do not dirty the line.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Touch(byte* record)
    {
        uint now = AccessClock.NowSeconds;
        if (IsCompact(record))
        {
            if (((Word(record) >> AccessShift) & AccessMask) != (now & AccessMask)) SetAccessTime(record, now);
            return;
        }
        uint* access = (uint*)(record + LongAccessOffset(record));
        if (*access != now) Volatile.Write(ref *access, now);
    }

    public static void SetAccessTime(byte* record, uint unixSeconds)
    {
        if (!IsCompact(record)) { Volatile.Write(ref *(uint*)(record + LongAccessOffset(record)), unixSeconds); return; }
        UpdateCompactBits(record, AccessMask << AccessShift, (unixSeconds & AccessMask) << AccessShift);
    }

    /// <summary>Replaces the bits under mask in a compact record's word, keeping the rest (a racing Touch or length change).</summary>
    private static void UpdateCompactBits(byte* record, ulong mask, ulong bits)
    {
        ref ulong w = ref Word(record);
        while (true)
        {
            ulong word = Volatile.Read(ref w);
            if (Interlocked.CompareExchange(ref w, (word & ~mask) | bits, word) == word) return;
        }
    }

    /// <summary>The kind tag of the record's value (IObjectSerializer.KindOf for objects, the writer's for bytes), 0 when
    /// unknown: readable from the record alone, so a record read from disk tells its value's type without its object.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static byte ObjectKind(byte* record) =>
        IsCompact(record) ? (byte)((record[8] >> KindShift) & MaxKind) : record[LongAccessOffset(record) + 4];

    /// <summary>Sets the kind tag (0..15): by the writer of a new record before it is published, or under the exclusive
    /// lock together with the object (a reader sees the old or the new kind).</summary>
    public static void SetObjectKind(byte* record, byte kind)
    {
        if (kind > MaxKind) throw new ArgumentOutOfRangeException(nameof(kind), $"kind tags are 0..{MaxKind}");
        if (IsCompact(record)) UpdateCompactBits(record, (ulong)MaxKind << KindShift, (ulong)kind << KindShift);
        else Volatile.Write(ref record[LongAccessOffset(record) + 4], kind);
    }

    public static long Expiration(byte* record) => HasExpiration(record) ? *(long*)(record + ExpirationOffset) : 0;

    public static void SetExpiration(byte* record, long unixMs) => *(long*)(record + ExpirationOffset) = unixMs;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int KeyOffset(byte* record) => KeyOffsetOf(IsCompact(record), HasExpiration(record));

    public static Span<byte> Key(byte* record) => new(record + KeyOffset(record), KeyLength(record));

    public static byte* ValuePointer(byte* record) => record + Align8(KeyOffset(record) + KeyLength(record));

    public static Span<byte> Value(byte* record) => new(ValuePointer(record), ValueLength(record));

    /// <summary>Bytes the value may occupy without moving the record (at most 511 in a compact record).</summary>
    public static int ValueCapacity(byte* record)
    {
        ulong word = Word(record);
        int capacity = Align8(ValueLengthOf(word)) + SlackUnitsOf(word) * 8;
        return (word & CompactBit) != 0 ? Math.Min(capacity, MaxCompactValueLength) : capacity;
    }

    /// <summary>True when a record starts here (the always-set Present bit).</summary>
    public static bool IsPresent(byte* record) => (*(ulong*)record & RecordInfo.Present) != 0;

    /// <summary>
    /// Total bytes of the record, from its header. The length word is read once: writers change it with one 8-byte store
    /// (value length and slack together), so a scan that races a writer sees the old or the new word, never a mix, and
    /// the total size is the same in both.
    /// </summary>
    public static int TotalSize(byte* record)
    {
        ulong word = Volatile.Read(ref Word(record));
        int capacity = Align8(ValueLengthOf(word)) + SlackUnitsOf(word) * 8;
        return SizeOf((word & CompactBit) != 0, KeyLengthOf(word), capacity, HasExpiration(record));
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
    /// match (HasExpiration == (expiration != 0)). The format follows the new lengths, as for a new record.
    /// </summary>
    public static void InitializeReused(byte* record, int totalSize, ReadOnlySpan<byte> key, int valueLength, long expiration)
    {
        bool hasExp = expiration != 0;
        int slack = (totalSize - Size(key.Length, valueLength, hasExp)) / 8;
        if (slack < 0 || slack > MaxSlackUnits || HasExpiration(record) != hasExp) throw new InvalidOperationException("free record of the wrong shape");
        if (hasExp) *(long*)(record + ExpirationOffset) = expiration;
        WriteFields(record, key, valueLength, slack, hasExp);
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
        if (hasExp) *(long*)(record + ExpirationOffset) = expiration;
        WriteFields(record, key, valueLength, 0, hasExp);
    }

    /// <summary>The length word (one 8-byte store), access time (now), kind (0) and key of a new or reused record.</summary>
    private static void WriteFields(byte* record, ReadOnlySpan<byte> key, int valueLength, int slack, bool hasExp)
    {
        uint now = AccessClock.NowSeconds;
        if (IsCompactShape(key.Length, valueLength))
        {
            ulong word = CompactBit | ((ulong)slack << SlackShift) | ((now & AccessMask) << AccessShift)
                         | ((ulong)key.Length << CompactKeyShift) | ((ulong)valueLength << CompactValueShift);
            Volatile.Write(ref Word(record), word); // bytes 14-15: zero here, then the key's first bytes (or padding)
        }
        else
        {
            Volatile.Write(ref Word(record), ((ulong)key.Length << 1) | ((ulong)slack << 29) | ((ulong)(uint)valueLength << 32));
            int at = LongAccessOffset(record);
            *(uint*)(record + at) = now;
            record[at + 4] = 0;
        }
        key.CopyTo(new Span<byte>(record + KeyOffset(record), key.Length));
    }
}
