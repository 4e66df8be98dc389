// Bitmaps: bit operations on string values, as Redis defines them. Bit 0 is the most significant bit of byte 0.
// Ranges are inclusive, negative indexes count from the end, and BIT mode measures them in bits instead of bytes.
using System.Numerics;

namespace Garnet.server.Storage;

[Flags]
public enum BitFlags : byte { None = 0, BitMode = 1, HasStart = 2, HasEnd = 4, Bit = 8 }

public static class Bitmaps
{
    public static long GetBit(ReadOnlySpan<byte> v, long offset)
    {
        long b = offset >> 3;
        if (b >= v.Length) return 0;
        return (v[(int)b] >> (7 - (int)(offset & 7))) & 1;
    }

    /// <summary>Sets or clears the bit (v must be long enough); returns its old value.</summary>
    public static long SetBit(Span<byte> v, long offset, bool on)
    {
        int b = (int)(offset >> 3);
        int mask = 1 << (7 - (int)(offset & 7));
        long old = (v[b] & mask) != 0 ? 1 : 0;
        v[b] = on ? (byte)(v[b] | mask) : (byte)(v[b] & ~mask);
        return old;
    }

    /// <summary>
    /// Redis's range rule for GETRANGE and BITCOUNT: false (empty) when both ends are negative and start is after end,
    /// else as Normalize.
    /// </summary>
    public static bool Clamp(long length, ref long start, ref long end) =>
        !(start < 0 && end < 0 && start > end) && Normalize(length, ref start, ref end);

    /// <summary>Clamps [start, end] (negative counts from the end) to [0, length-1]; false when empty. BITPOS uses it as is.</summary>
    private static bool Normalize(long length, ref long start, ref long end)
    {
        if (start < 0) start = length + start;
        if (end < 0) end = length + end;
        if (start < 0) start = 0;
        if (end < 0) end = 0;
        if (end >= length) end = length - 1;
        return length > 0 && start <= end;
    }

    public static long Count(ReadOnlySpan<byte> v, long start, long end, BitFlags flags)
    {
        if ((flags & BitFlags.HasStart) == 0) return PopCount(v);
        bool bits = (flags & BitFlags.BitMode) != 0;
        long length = bits ? (long)v.Length * 8 : v.Length;
        if (!Clamp(length, ref start, ref end)) return 0;
        if (!bits) return PopCount(v.Slice((int)start, (int)(end - start + 1)));
        long n = 0;
        for (long i = start; i <= end; i++) n += GetBit(v, i);
        return n;
    }

    private static long PopCount(ReadOnlySpan<byte> v)
    {
        long n = 0;
        while (v.Length >= 8) { n += BitOperations.PopCount(BitConverter.ToUInt64(v)); v = v[8..]; }
        foreach (byte b in v) n += BitOperations.PopCount(b);
        return n;
    }

    /// <summary>BITPOS on an existing value: first position of the wanted bit in the range, or -1 (see Redis's rules).</summary>
    public static long Position(ReadOnlySpan<byte> v, long start, long end, BitFlags flags)
    {
        bool want = (flags & BitFlags.Bit) != 0;
        bool bits = (flags & BitFlags.BitMode) != 0;
        bool endGiven = (flags & BitFlags.HasEnd) != 0;
        long length = bits ? (long)v.Length * 8 : v.Length;
        if ((flags & BitFlags.HasStart) == 0) { start = 0; end = length - 1; }
        else if (!endGiven) end = length - 1;
        if (!Normalize(length, ref start, ref end)) return -1;
        long first = bits ? start : start * 8, last = bits ? end : end * 8 + 7;
        for (long i = first; i <= last; i++)
            if ((GetBit(v, i) == 1) == want) return i;
        // Looking for a clear bit with no explicit end: the string is seen as padded with zeros on the right.
        if (!want && !endGiven) return last + 1;
        return -1;
    }
}
