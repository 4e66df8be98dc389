// KeyHash: a seeded 64-bit hash of key bytes. The seed is random per process, so keys chosen by an attacker
// cannot be made to pile into one bucket. Mixing is a 64x64->128 multiply-fold (wyhash-style), 8 bytes a step.
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;

namespace Garnet.storage.Util;

public static class KeyHash
{
    private static readonly ulong s_seed = BitConverter.ToUInt64(RandomNumberGenerator.GetBytes(8)) | 1;
    private const ulong P0 = 0xa0761d6478bd642f, P1 = 0xe7037ed1a0b428db, P2 = 0x8ebc6af09c88c6e3;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Mix(ulong a, ulong b)
    {
        ulong hi = Math.BigMul(a, b, out ulong lo);
        return hi ^ lo;
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
