// Listpack: the packed form of small hashes, sets and sorted sets (Redis's listpack idea): entries back to back in one
// byte[], each a length and then that many bytes. The length is a varint (7 bits a byte, low bits first, the high bit
// set on every byte but the last): one byte up to 127, two up to 16383. Lookups walk the entries (the collections that
// use this form are small: their limits are Redis's *-max-listpack-* settings).
// Invariants:
//  - A packed array is exactly as long as its entries (no slack) and is never written once a collection holds it: a
//    change builds a new array (Splice). So a Clone shares it, and an array handed out stays as it was.
//  - Every walk stays inside the array (lengths are checked when a payload is read, and written only by this code).
// Lists use the same entries with the length repeated backwards after the bytes (see ListObject), so that a node can
// be walked from either end.
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

    /// <summary>
    /// A copy of src with the remove bytes at offset at replaced by insert bytes (left for the caller to fill:
    /// result[at..at+insert]). Exact size.
    /// </summary>
    public static byte[] Splice(ReadOnlySpan<byte> src, int at, int remove, int insert)
    {
        var result = GC.AllocateUninitializedArray<byte>(src.Length - remove + insert);
        src[..at].CopyTo(result);
        src[(at + remove)..].CopyTo(result.AsSpan(at + insert));
        return result;
    }
}
