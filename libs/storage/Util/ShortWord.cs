// ShortWord: up to 8 bytes as one little-endian word (zero above them), loaded and stored in the same pieces: a whole
// word for 8 bytes, else chunks of 4, 2 and 1 at rising offsets. Invariant: Store writes exactly the pieces Load reads,
// so a load right after a store of the same bytes is forwarded from single stores (KeyHash relies on it) and never reads
// outside the span.
using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace Garnet.storage.Util;

public static class ShortWord
{
    /// <summary>bytes (0 to 8 of them) as a little-endian word, zero above them.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong Load(ReadOnlySpan<byte> bytes)
    {
        int n = bytes.Length;
        if (n == 8) return BinaryPrimitives.ReadUInt64LittleEndian(bytes);
        ulong w = 0;
        int at = 0, shift = 0;
        if ((n & 4) != 0) { w = BinaryPrimitives.ReadUInt32LittleEndian(bytes); at = 4; shift = 32; }
        if ((n & 2) != 0) { w |= (ulong)BinaryPrimitives.ReadUInt16LittleEndian(bytes.Slice(at)) << shift; at += 2; shift += 16; }
        if ((n & 1) != 0) w |= (ulong)bytes[at] << shift;
        return w;
    }

    /// <summary>Copies source (0 to 8 bytes) to dest in the pieces Load reads.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Store(Span<byte> dest, ReadOnlySpan<byte> source)
    {
        int n = source.Length;
        if (n == 8) { BinaryPrimitives.WriteUInt64LittleEndian(dest, BinaryPrimitives.ReadUInt64LittleEndian(source)); return; }
        int at = 0;
        if ((n & 4) != 0) { BinaryPrimitives.WriteUInt32LittleEndian(dest, BinaryPrimitives.ReadUInt32LittleEndian(source)); at = 4; }
        if ((n & 2) != 0) { BinaryPrimitives.WriteUInt16LittleEndian(dest.Slice(at), BinaryPrimitives.ReadUInt16LittleEndian(source.Slice(at))); at += 2; }
        if ((n & 1) != 0) dest[at] = source[at];
    }
}
