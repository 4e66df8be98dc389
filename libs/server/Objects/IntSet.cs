// IntSet: a set of integers as Redis's intset: sorted ascending, each in the smallest width (2, 4 or 8 bytes, little
// endian) that holds every member, packed in one byte[] with no header (the width is kept by its SetObject).
// Invariants: exact size (count * width bytes); never written once a set holds it (a change builds a new array, so a
// Clone shares it); members strictly ascending. Membership is a binary search.
namespace Garnet.server.Objects;

internal static class IntSet
{
    public static int WidthOf(long v) => v >= short.MinValue && v <= short.MaxValue ? 2 : v >= int.MinValue && v <= int.MaxValue ? 4 : 8;

    public static long Get(ReadOnlySpan<byte> s, int width, int i) => width switch
    {
        2 => System.Buffers.Binary.BinaryPrimitives.ReadInt16LittleEndian(s[(i * 2)..]),
        4 => System.Buffers.Binary.BinaryPrimitives.ReadInt32LittleEndian(s[(i * 4)..]),
        _ => System.Buffers.Binary.BinaryPrimitives.ReadInt64LittleEndian(s[(i * 8)..]),
    };

    private static void Put(Span<byte> s, int width, int i, long v)
    {
        switch (width)
        {
            case 2: System.Buffers.Binary.BinaryPrimitives.WriteInt16LittleEndian(s[(i * 2)..], (short)v); break;
            case 4: System.Buffers.Binary.BinaryPrimitives.WriteInt32LittleEndian(s[(i * 4)..], (int)v); break;
            default: System.Buffers.Binary.BinaryPrimitives.WriteInt64LittleEndian(s[(i * 8)..], v); break;
        }
    }

    /// <summary>The index of v, or the bitwise complement of where it would go.</summary>
    public static int Search(ReadOnlySpan<byte> s, int width, long v)
    {
        int lo = 0, hi = s.Length / width - 1;
        while (lo <= hi)
        {
            int mid = (lo + hi) >>> 1;
            long m = Get(s, width, mid);
            if (m == v) return mid;
            if (m < v) lo = mid + 1; else hi = mid - 1;
        }
        return ~lo;
    }

    /// <summary>A copy of s with v inserted at index, every member in newWidth (at least width).</summary>
    public static byte[] Insert(ReadOnlySpan<byte> s, int width, int newWidth, int index, long v)
    {
        int count = s.Length / width;
        var result = GC.AllocateUninitializedArray<byte>((count + 1) * newWidth);
        if (newWidth == width)
        {
            s[..(index * width)].CopyTo(result);
            s[(index * width)..].CopyTo(result.AsSpan((index + 1) * width));
        }
        else
        {
            for (int i = 0; i < count; i++) Put(result, newWidth, i < index ? i : i + 1, Get(s, width, i));
        }
        Put(result, newWidth, index, v);
        return result;
    }

    /// <summary>A copy of s without the member at index.</summary>
    public static byte[] RemoveAt(ReadOnlySpan<byte> s, int width, int index) => Listpack.Splice(s, index * width, width, 0);

    /// <summary>Builds an intset of the given ascending, distinct values.</summary>
    public static byte[] Build(ReadOnlySpan<long> sorted, out int width)
    {
        width = 2;
        foreach (long v in sorted) width = Math.Max(width, WidthOf(v));
        var result = GC.AllocateUninitializedArray<byte>(sorted.Length * width);
        for (int i = 0; i < sorted.Length; i++) Put(result, width, i, sorted[i]);
        return result;
    }
}
