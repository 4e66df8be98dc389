// DumpFormat: Redis's DUMP/RESTORE payload for the value types we have (strings, which include HyperLogLogs):
//   [RDB type 0 = string][RDB string encoding][RDB version, 2 bytes little-endian][CRC64 of all before, 8 bytes LE]
// String encodings read: plain (length + bytes), integers (INT8/16/32) and LZF-compressed; written: integers where
// Redis would use them, else plain (LZF is optional for a writer). Lengths use RDB's 6/14/32/64-bit forms. The CRC is
// Redis's CRC-64 (Jones polynomial, reflected). We write RDB version 10 (Redis 7.0) so older servers accept our
// payloads, and accept up to 11 (Redis 7.2).
using System.Buffers.Binary;
using System.Text;

namespace Garnet.server.Storage;

public static class DumpFormat
{
    public const int WriteVersion = 10, MaxReadVersion = 11;
    private const byte TypeString = 0;

    public static byte[] Dump(ReadOnlySpan<byte> value)
    {
        var b = new List<byte>(value.Length + 16) { TypeString };
        WriteString(b, value);
        b.Add(WriteVersion & 0xff);
        b.Add(WriteVersion >> 8);
        ulong crc = Crc64(0, b.ToArray());
        Span<byte> c = stackalloc byte[8];
        BinaryPrimitives.WriteUInt64LittleEndian(c, crc);
        b.AddRange(c.ToArray());
        return b.ToArray();
    }

    /// <summary>Checks footer and CRC and decodes the value; null for a wrong version/checksum or unsupported data.</summary>
    public static byte[]? Restore(ReadOnlySpan<byte> payload, out string? error)
    {
        error = "ERR DUMP payload version or checksum are wrong";
        if (payload.Length < 10) return null;
        int version = payload[^10] | (payload[^9] << 8);
        if (version > MaxReadVersion) return null;
        ulong crc = BinaryPrimitives.ReadUInt64LittleEndian(payload[^8..]);
        if (Crc64(0, payload[..^8]) != crc) return null;
        error = "ERR Bad data format";
        var body = payload[..^10];
        if (body.Length < 1 || body[0] != TypeString) return null;
        int at = 1;
        var value = ReadString(body, ref at);
        if (value is null || at != body.Length) return null;
        error = null;
        return value;
    }

    private static void WriteLength(List<byte> b, long n)
    {
        if (n < 64) b.Add((byte)n);
        else if (n < 16384) { b.Add((byte)(0x40 | (n >> 8))); b.Add((byte)n); }
        else if (n <= uint.MaxValue) { b.Add(0x80); for (int s = 24; s >= 0; s -= 8) b.Add((byte)(n >> s)); }
        else { b.Add(0x81); for (int s = 56; s >= 0; s -= 8) b.Add((byte)(n >> s)); }
    }

    private static void WriteString(List<byte> b, ReadOnlySpan<byte> v)
    {
        // Redis stores strings that are canonical integers of up to 11 characters as INT8/16/32.
        if (v.Length <= 11 && NumberParsing.TryParseInt64(v, out long n))
        {
            if (n >= sbyte.MinValue && n <= sbyte.MaxValue) { b.Add(0xC0); b.Add((byte)(sbyte)n); return; }
            if (n >= short.MinValue && n <= short.MaxValue) { b.Add(0xC1); b.Add((byte)n); b.Add((byte)(n >> 8)); return; }
            if (n >= int.MinValue && n <= int.MaxValue) { b.Add(0xC2); for (int s = 0; s < 32; s += 8) b.Add((byte)(n >> s)); return; }
        }
        WriteLength(b, v.Length);
        b.AddRange(v.ToArray());
    }

    /// <summary>Reads a length; special = true for the 0xC0.. string encodings (then the result is the encoding).</summary>
    private static long ReadLength(ReadOnlySpan<byte> d, ref int at, out bool special)
    {
        special = false;
        if (at >= d.Length) return -1;
        byte first = d[at++];
        switch (first >> 6)
        {
            case 0: return first & 0x3f;
            case 1: if (at >= d.Length) return -1; return ((first & 0x3f) << 8) | d[at++];
            case 2:
                if (first == 0x80) { if (at + 4 > d.Length) return -1; long n = BinaryPrimitives.ReadUInt32BigEndian(d[at..]); at += 4; return n; }
                if (first == 0x81) { if (at + 8 > d.Length) return -1; long n = (long)BinaryPrimitives.ReadUInt64BigEndian(d[at..]); at += 8; return n; }
                return -1;
            default: special = true; return first & 0x3f;
        }
    }

    private static byte[]? ReadString(ReadOnlySpan<byte> d, ref int at)
    {
        long n = ReadLength(d, ref at, out bool special);
        if (n < 0) return null;
        if (!special)
        {
            if (n > d.Length - at) return null;
            var v = d.Slice(at, (int)n).ToArray();
            at += (int)n;
            return v;
        }
        switch (n)
        {
            case 0: if (at + 1 > d.Length) return null; return Encoding.ASCII.GetBytes(((sbyte)d[at++]).ToString());
            case 1: { if (at + 2 > d.Length) return null; short v = BinaryPrimitives.ReadInt16LittleEndian(d[at..]); at += 2; return Encoding.ASCII.GetBytes(v.ToString()); }
            case 2: { if (at + 4 > d.Length) return null; int v = BinaryPrimitives.ReadInt32LittleEndian(d[at..]); at += 4; return Encoding.ASCII.GetBytes(v.ToString()); }
            case 3:
            {
                long clen = ReadLength(d, ref at, out bool s1), len = ReadLength(d, ref at, out bool s2);
                if (clen < 0 || len < 0 || s1 || s2 || clen > d.Length - at || len > StringFunctions.MaxValueLength) return null;
                var v = new byte[len];
                if (!LzfDecompress(d.Slice(at, (int)clen), v)) return null;
                at += (int)clen;
                return v;
            }
            default: return null;
        }
    }

    /// <summary>LZF decompression (liblzf's format, as Redis uses it); false when the data does not decode to exactly output.Length bytes.</summary>
    public static bool LzfDecompress(ReadOnlySpan<byte> input, Span<byte> output)
    {
        int ip = 0, op = 0;
        while (ip < input.Length)
        {
            int ctrl = input[ip++];
            if (ctrl < 32)
            {
                int len = ctrl + 1;
                if (op + len > output.Length || ip + len > input.Length) return false;
                input.Slice(ip, len).CopyTo(output[op..]);
                ip += len; op += len;
            }
            else
            {
                int len = ctrl >> 5;
                int back = op - ((ctrl & 0x1f) << 8) - 1;
                if (len == 7) { if (ip >= input.Length) return false; len += input[ip++]; }
                if (ip >= input.Length) return false;
                back -= input[ip++];
                len += 2;
                if (back < 0 || op + len > output.Length) return false;
                for (int i = 0; i < len; i++) output[op++] = output[back++]; // may overlap: byte by byte
            }
        }
        return op == output.Length;
    }

    private static readonly ulong[] s_table = BuildTable();

    private static ulong[] BuildTable()
    {
        const ulong reflectedPoly = 0x95ac9329ac4bc9b5; // 0xad93d23594c935a9 bit-reversed
        var t = new ulong[256];
        for (int i = 0; i < 256; i++)
        {
            ulong c = (ulong)i;
            for (int k = 0; k < 8; k++) c = (c & 1) != 0 ? (c >> 1) ^ reflectedPoly : c >> 1;
            t[i] = c;
        }
        return t;
    }

    /// <summary>Redis's crc64 (Jones, reflected, no final xor): crc64(0, "123456789") = 0xe9c6d914c4b8d9ca.</summary>
    public static ulong Crc64(ulong crc, ReadOnlySpan<byte> data)
    {
        foreach (byte b in data) crc = s_table[(byte)(crc ^ b)] ^ (crc >> 8);
        return crc;
    }
}
