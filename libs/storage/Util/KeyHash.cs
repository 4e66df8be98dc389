// KeyHash: a seeded 64-bit hash of key bytes. The seed is random per process, so keys chosen by an attacker
// cannot be made to pile into one bucket. Mixing is a 64x64->128 multiply-fold (wyhash-style), 8 bytes a step.
// WritePrefixed builds a key that is hashed right away (a 2-byte prefix and the client's key) with one 8-byte store per
// 8 bytes the hash then loads: a load that spans two stores still in flight is not forwarded and waits for them to reach
// the cache (a byte-wise prefix and a copy cost a GET about 4 ns, its largest single cost in a profile).
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics.X86;
using System.Security.Cryptography;

namespace Garnet.storage.Util;

public static class KeyHash
{
    private static readonly ulong s_seed = BitConverter.ToUInt64(RandomNumberGenerator.GetBytes(8)) | 1;
    private const ulong P0 = 0xa0761d6478bd642f, P1 = 0xe7037ed1a0b428db, P2 = 0x8ebc6af09c88c6e3;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Mix(ulong a, ulong b)
    {
        // Math.BigMul's out parameter goes through the stack (a store and a reload per step); mulx and imul need not.
        if (Bmi2.X64.IsSupported) return Bmi2.X64.MultiplyNoFlags(a, b) ^ (a * b);
        ulong hi = Math.BigMul(a, b, out ulong lo);
        return hi ^ lo;
    }

    /// <summary>The room WritePrefixed needs for a key of keyLength bytes: its prefixed length rounded up to 8.</summary>
    public static int PrefixedRoom(int keyLength) => (keyLength + 2 + 7) & ~7;

    /// <summary>Writes the 2-byte big-endian prefix and then key into dest (at least PrefixedRoom bytes; bytes past the
    /// prefixed length are overwritten with zeros) in 8-byte little-endian words at the offsets Hash reads. Returns the
    /// prefixed length.</summary>
    public static int WritePrefixed(Span<byte> dest, ushort prefix, ReadOnlySpan<byte> key)
    {
        int length = key.Length + 2;
        dest = dest.Slice(0, PrefixedRoom(key.Length));
        ulong first = (uint)(prefix >> 8) | (ulong)(byte)prefix << 8;
        first |= Partial(key, 0, Math.Min(6, key.Length)) << 16;
        BinaryPrimitives.WriteUInt64LittleEndian(dest, first);
        for (int at = 8; at < length; at += 8)
        {
            int from = at - 2, count = Math.Min(8, key.Length - from);
            ulong word = count == 8 ? BinaryPrimitives.ReadUInt64LittleEndian(key.Slice(from)) : Partial(key, from, count);
            BinaryPrimitives.WriteUInt64LittleEndian(dest.Slice(at), word);
        }
        return length;
    }

    /// <summary>count (0..8) bytes of key from start (start + count within the key) as a little-endian word, zero above
    /// them.</summary>
    private static ulong Partial(ReadOnlySpan<byte> key, int start, int count)
    {
        if (count == 0) return 0;
        ulong mask = count == 8 ? ulong.MaxValue : (1UL << (8 * count)) - 1;
        if (start + 8 <= key.Length) return BinaryPrimitives.ReadUInt64LittleEndian(key.Slice(start)) & mask;
        if (key.Length >= 8)
        {
            // Near the end: the key's last 8 bytes hold them at their top, one load and a shift.
            ulong last = BinaryPrimitives.ReadUInt64LittleEndian(key.Slice(key.Length - 8));
            return (last >> (8 * (start - (key.Length - 8)))) & mask;
        }
        ulong w = 0;
        for (int i = 0; i < count; i++) w |= (ulong)key[start + i] << (8 * i);
        return w;
    }

    public static ulong Hash(ReadOnlySpan<byte> key) => Hash(key, s_seed);

    public static ulong Hash(ReadOnlySpan<byte> key, ulong seed)
    {
        ulong h = seed ^ P0 ^ (ulong)key.Length * P1;
        while (key.Length >= 8)
        {
            h = Mix(h ^ BinaryPrimitives.ReadUInt64LittleEndian(key), P1 ^ (ulong)key.Length);
            key = key.Slice(8);
        }
        ulong tail = 0;
        for (int i = 0; i < key.Length; i++) tail |= (ulong)key[i] << (8 * i);
        h = Mix(h ^ tail ^ P2, P0 ^ ((ulong)key.Length << 56));
        return Mix(h, P2) ^ (h >> 29);
    }
}
