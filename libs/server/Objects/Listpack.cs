// Listpack: the packed form of small hashes, sets and sorted sets (Redis's listpack idea): one byte[] holding the
// element count and then the entries back to back. The count, and an entry's length, are varints (7 bits a byte, low
// bits first, the high bit set on every byte but the last): one byte up to 127, two up to 16383. An entry is its length
// and then its bytes (hashes pack a field and its value behind one shared header, see HashObject). Lookups walk the
// entries (the collections that use this form are small: their limits are Redis's *-max-listpack-* settings).
// Invariants:
//  - An empty collection's packed array is empty (no count); otherwise it starts with the count.
//  - A packed array is exactly as long as its contents (no slack) and is never written once a collection holds it: a
//    change builds a new array (SpliceCounted). So a Clone shares it, and an array handed out stays as it was.
//  - Every walk stays inside the array (payloads are checked when read; arrays are written only by this code).
// Lists use entries with the length repeated backwards after the bytes (see ListObject), so that a node can be walked
// from either end.
namespace Garnet.server.Objects;

internal static class Listpack
{
    /// <summary>Bytes of a varint holding n (n &gt;= 0).</summary>
    public static int VarintSize(int n) => n < 1 << 7 ? 1 : n < 1 << 14 ? 2 : n < 1 << 21 ? 3 : n < 1 << 28 ? 4 : 5;

    /// <summary>Bytes an entry of length bytes takes.</summary>
    public static int EntrySize(int length) => VarintSize(length) + length;

    /// <summary>Writes n as a varint at dst; returns the bytes written.</summary>
    public static int WriteVarint(Span<byte> dst, int n)
    {
        uint v = (uint)n;
        int i = 0;
        while (v >= 0x80) { dst[i++] = (byte)(v | 0x80); v >>= 7; }
        dst[i++] = (byte)v;
        return i;
    }

    /// <summary>Reads the varint at pos and moves pos past it.</summary>
    public static int ReadVarint(ReadOnlySpan<byte> src, ref int pos)
    {
        byte b = src[pos++];
        if (b < 0x80) return b;
        int v = b & 0x7f, shift = 7;
        while (true)
        {
            b = src[pos++];
            v |= (b & 0x7f) << shift;
            if (b < 0x80) return v;
            shift += 7;
        }
    }

    /// <summary>Writes an entry (length, bytes) at dst; returns the bytes written.</summary>
    public static int WriteEntry(Span<byte> dst, ReadOnlySpan<byte> value)
    {
        int n = WriteVarint(dst, value.Length);
        value.CopyTo(dst[n..]);
        return n + value.Length;
    }

    /// <summary>The entry at pos; pos moves past it.</summary>
    public static ReadOnlySpan<byte> Next(ReadOnlySpan<byte> packed, scoped ref int pos)
    {
        int length = ReadVarint(packed, ref pos);
        var value = packed.Slice(pos, length);
        pos += length;
        return value;
    }

    /// <summary>Moves pos past the entry there.</summary>
    public static void Skip(ReadOnlySpan<byte> packed, ref int pos)
    {
        int length = ReadVarint(packed, ref pos);
        pos += length;
    }

    /// <summary>The element count of a counted packed array (0 for an empty array).</summary>
    public static int CountOf(ReadOnlySpan<byte> packed)
    {
        if (packed.Length == 0) return 0;
        int pos = 0;
        return ReadVarint(packed, ref pos);
    }

    /// <summary>Offset of the first entry of a counted packed array (after the count).</summary>
    public static int FirstEntry(ReadOnlySpan<byte> packed) => packed.Length == 0 ? 0 : VarintSize(CountOf(packed));

    /// <summary>
    /// A copy of the counted packed array src holding count elements, with the remove bytes at offset at (an offset in
    /// src, at or after its first entry) replaced by insert bytes, left for the caller to fill at newAt. Exact size; an
    /// empty array when count is 0.
    /// </summary>
    public static byte[] SpliceCounted(ReadOnlySpan<byte> src, int count, int at, int remove, int insert, out int newAt)
    {
        newAt = 0;
        if (count == 0) return [];
        int oldPrefix = FirstEntry(src), newPrefix = VarintSize(count);
        if (src.Length == 0) at = 0;
        var result = GC.AllocateUninitializedArray<byte>(newPrefix + src.Length - oldPrefix - remove + insert);
        WriteVarint(result, count);
        src[oldPrefix..at].CopyTo(result.AsSpan(newPrefix));
        newAt = newPrefix + at - oldPrefix;
        src[(at + remove)..].CopyTo(result.AsSpan(newAt + insert));
        return result;
    }
}
