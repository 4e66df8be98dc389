// KeyHash: a seeded 64-bit hash of key bytes. The seed is random per process (the index is rebuilt at recovery, never
// stored), so keys chosen by an attacker cannot be made to pile into one bucket. Mixing is a 64x64->128 multiply-fold
// (wyhash-style), 8 bytes a step.
// Invariants:
//  - A stored key is a 2-byte big-endian prefix (the database's id) and the client's key; its hash is
//    Prefixed(HashKey(client key), prefix), so a caller that holds the client's key hashes it once for both the index
//    and the key's lock stripe (KeyLocks.StripeOfHash), and never needs the stored key's bytes for it.
//  - HashKey loads the key in 8-byte words from its start and its last 0-7 bytes with ShortWord.Load; WritePrefixed
//    stores a key in exactly those pieces (ShortWord.Store), so each load of a key just written is forwarded from
//    one store (a load that spans several stores still in flight waits for them to reach the cache: about 4 ns a GET).
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics.X86;
using System.Security.Cryptography;

namespace Garnet.storage.Util;

public static class KeyHash
{
    private static readonly ulong s_seed = BitConverter.ToUInt64(RandomNumberGenerator.GetBytes(8)) | 1;
    private const ulong P0 = 0xa0761d6478bd642f, P1 = 0xe7037ed1a0b428db, P2 = 0x8ebc6af09c88c6e3;
    private const uint NoPrefix = 0x10000; // stands for the prefix of a stored key shorter than 2 bytes (tests use such keys)

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Mix(ulong a, ulong b)
    {
        // Math.BigMul's out parameter goes through the stack (a store and a reload per step); mulx and imul need not.
        if (Bmi2.X64.IsSupported) return Bmi2.X64.MultiplyNoFlags(a, b) ^ (a * b);
        ulong hi = Math.BigMul(a, b, out ulong lo);
        return hi ^ lo;
    }

    /// <summary>The room WritePrefixed needs for a key of keyLength bytes.</summary>
    public static int PrefixedRoom(int keyLength) => keyLength + 2;

    /// <summary>Writes the 2-byte big-endian prefix and then key into dest (at least PrefixedRoom bytes), in the pieces
    /// HashKey loads (see the header). Returns the prefixed length.</summary>
    public static int WritePrefixed(Span<byte> dest, ushort prefix, ReadOnlySpan<byte> key)
    {
        BinaryPrimitives.WriteUInt16BigEndian(dest, prefix);
        var d = dest.Slice(2, key.Length);
        int at = 0;
        for (; at + 8 <= key.Length; at += 8) BinaryPrimitives.WriteUInt64LittleEndian(d.Slice(at), BinaryPrimitives.ReadUInt64LittleEndian(key.Slice(at)));
        ShortWord.Store(d.Slice(at), key.Slice(at));
        return key.Length + 2;
    }

    /// <summary>The hash of a stored key (prefix and client key): Prefixed(HashKey(client key), prefix).</summary>
    public static ulong Hash(ReadOnlySpan<byte> stored) => Hash(stored, s_seed);

    public static ulong Hash(ReadOnlySpan<byte> stored, ulong seed) => stored.Length >= 2
        ? Prefixed(HashKey(stored.Slice(2), seed), BinaryPrimitives.ReadUInt16BigEndian(stored))
        : Prefixed(HashKey(stored, seed), NoPrefix);

    /// <summary>The hash of a stored key made of prefix and a client key whose HashKey is keyHash.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong Prefixed(ulong keyHash, uint prefix) => Mix(keyHash ^ ((prefix + 1UL) * P0), P2);

    /// <summary>The hash of a client's key (no prefix).</summary>
    public static ulong HashKey(ReadOnlySpan<byte> key) => HashKey(key, s_seed);

    public static ulong HashKey(ReadOnlySpan<byte> key, ulong seed)
    {
        int n = key.Length;
        ulong h = seed ^ P0 ^ (ulong)n * P1;
        int at = 0;
        for (; at + 8 <= n; at += 8) h = Mix(h ^ BinaryPrimitives.ReadUInt64LittleEndian(key.Slice(at)), P1 ^ (ulong)n);
        // The last 0-7 bytes in the pieces WritePrefixed stores them in.
        int rest = n - at;
        ulong tail = ShortWord.Load(key.Slice(at));
        h = Mix(h ^ tail ^ P2, P0 ^ ((ulong)rest << 56));
        return Mix(h, P2) ^ (h >> 29);
    }
}
