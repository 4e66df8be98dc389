// ListpackWriter: builds a Redis listpack (the blob of RDB types 16-21): a 4-byte total length and a 2-byte element
// count (65535 when larger), the elements, then 0xFF. Each element is its encoding and data, then its length written
// backwards (lpEncodeBacklen). Integers take Redis's smallest integer encoding; strings are always written as strings
// (Redis reads a numeric string back as the same text).
using System.Buffers.Binary;

namespace Garnet.server.Persistence;

public sealed class ListpackWriter
{
    private byte[] _buf = new byte[256];
    private int _len = 6;
    private int _count;

    /// <summary>Bytes of the backwards length of an element of length bytes (Redis's thresholds).</summary>
    public static int BacklenSize(int length) => length <= 127 ? 1 : length < 16383 ? 2 : length < 2097151 ? 3 : length < 268435455 ? 4 : 5;

    private Span<byte> Reserve(int n)
    {
        if (_len + n > _buf.Length) Array.Resize(ref _buf, Math.Max(_buf.Length * 2, _len + n));
        return _buf.AsSpan(_len, n);
    }

    private void Backlen(int l)
    {
        int n = BacklenSize(l);
        var d = Reserve(n);
        switch (n)
        {
            case 1: d[0] = (byte)l; break;
            case 2: d[0] = (byte)(l >> 7); d[1] = (byte)((l & 127) | 128); break;
            case 3: d[0] = (byte)(l >> 14); d[1] = (byte)(((l >> 7) & 127) | 128); d[2] = (byte)((l & 127) | 128); break;
            case 4: d[0] = (byte)(l >> 21); d[1] = (byte)(((l >> 14) & 127) | 128); d[2] = (byte)(((l >> 7) & 127) | 128); d[3] = (byte)((l & 127) | 128); break;
            default: d[0] = (byte)(l >> 28); d[1] = (byte)(((l >> 21) & 127) | 128); d[2] = (byte)(((l >> 14) & 127) | 128); d[3] = (byte)(((l >> 7) & 127) | 128); d[4] = (byte)((l & 127) | 128); break;
        }
        _len += n;
        _count++;
    }

    public void AddInteger(long v)
    {
        int n;
        if (v >= 0 && v <= 127) { Reserve(1)[0] = (byte)v; n = 1; }
        else if (v >= -4096 && v <= 4095)
        {
            var d = Reserve(2);
            int uv = v < 0 ? (1 << 13) + (int)v : (int)v;
            d[0] = (byte)((uv >> 8) | 0xC0);
            d[1] = (byte)(uv & 0xff);
            n = 2;
        }
        else if (v >= short.MinValue && v <= short.MaxValue) { var d = Reserve(3); d[0] = 0xF1; BinaryPrimitives.WriteInt16LittleEndian(d[1..], (short)v); n = 3; }
        else if (v >= -(1 << 23) && v < (1 << 23))
        {
            var d = Reserve(4);
            uint uv = (uint)(int)v;
            d[0] = 0xF2; d[1] = (byte)uv; d[2] = (byte)(uv >> 8); d[3] = (byte)(uv >> 16);
            n = 4;
        }
        else if (v >= int.MinValue && v <= int.MaxValue) { var d = Reserve(5); d[0] = 0xF3; BinaryPrimitives.WriteInt32LittleEndian(d[1..], (int)v); n = 5; }
        else { var d = Reserve(9); d[0] = 0xF4; BinaryPrimitives.WriteInt64LittleEndian(d[1..], v); n = 9; }
        _len += n;
        Backlen(n);
    }

    public void AddString(ReadOnlySpan<byte> s)
    {
        int n;
        if (s.Length < 64) { var d = Reserve(1 + s.Length); d[0] = (byte)(0x80 | s.Length); s.CopyTo(d[1..]); n = 1 + s.Length; }
        else if (s.Length < 4096) { var d = Reserve(2 + s.Length); d[0] = (byte)(0xE0 | (s.Length >> 8)); d[1] = (byte)(s.Length & 0xff); s.CopyTo(d[2..]); n = 2 + s.Length; }
        else { var d = Reserve(5 + s.Length); d[0] = 0xF0; BinaryPrimitives.WriteUInt32LittleEndian(d[1..], (uint)s.Length); s.CopyTo(d[5..]); n = 5 + s.Length; }
        _len += n;
        Backlen(n);
    }

    public byte[] Finish()
    {
        Reserve(1)[0] = 0xFF;
        _len++;
        var result = _buf.AsSpan(0, _len).ToArray();
        BinaryPrimitives.WriteUInt32LittleEndian(result, (uint)_len);
        BinaryPrimitives.WriteUInt16LittleEndian(result.AsSpan(4), (ushort)Math.Min(_count, 65535));
        return result;
    }
}
