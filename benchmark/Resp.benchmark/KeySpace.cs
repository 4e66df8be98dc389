// KeySpace: the bytes of key number i and of the value: keys are i in zero-padded decimal, KeyLength bytes long
// (so every thread and the load phase agree on names, and a key can be read back as its index); the value is
// ValueLength bytes of a fixed letter pattern.
// Invariants: KeyLength >= the digits of DbSize - 1 (checked by BenchmarkSettings); WriteKey writes exactly
// KeyLength bytes and allocates nothing.
namespace Resp.benchmark;

public sealed class KeySpace
{
    public KeySpace(long dbSize, int keyLength, int valueLength)
    {
        DbSize = dbSize;
        KeyLength = keyLength;
        Value = new byte[valueLength];
        for (int i = 0; i < valueLength; i++) Value[i] = (byte)('a' + i % 26);
    }

    public long DbSize { get; }
    public int KeyLength { get; }
    public byte[] Value { get; }

    /// <summary>Writes key <paramref name="index"/> into <paramref name="destination"/> (KeyLength bytes).</summary>
    public void WriteKey(long index, Span<byte> destination)
    {
        var key = destination.Slice(0, KeyLength);
        for (int i = key.Length - 1; i >= 0; i--)
        {
            key[i] = (byte)('0' + index % 10);
            index /= 10;
        }
    }

    public string KeyText(long index)
    {
        Span<byte> buffer = KeyLength <= 256 ? stackalloc byte[KeyLength] : new byte[KeyLength];
        WriteKey(index, buffer);
        return System.Text.Encoding.ASCII.GetString(buffer);
    }
}
