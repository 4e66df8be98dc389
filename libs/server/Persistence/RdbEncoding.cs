// RdbEncoding: Redis's RDB value encodings, shared by DUMP/RESTORE payloads and checkpoint files.
//  - Lengths: 6-bit (00xxxxxx), 14-bit (01xxxxxx xxxxxxxx), 32-bit (0x80 + 4 bytes BE), 64-bit (0x81 + 8 bytes BE);
//    11xxxxxx marks a special string encoding instead (0-2: INT8/16/32 little-endian, 3: LZF).
//  - Strings are written as integers where Redis would (canonical integers of up to 11 characters that fit in 32 bits),
//    else plain; LZF is read but never written (it is optional for a writer).
//  - The checksum is Redis's CRC-64 (Jones polynomial, reflected, no final xor).
// Readers return null (or -1) when the bytes do not hold a whole, valid item: callers with more bytes coming retry.
using System.Buffers;
using System.Buffers.Binary;
using System.Text;
using Garnet.server.Storage;

namespace Garnet.server.Persistence;

public static class RdbEncoding
{
    /// <summary>A length of the full unsigned 64-bit range (stream IDs, counters Redis saves as uint64).</summary>
    public static void WriteULength(IBufferWriter<byte> w, ulong n)
    {
        if (n <= long.MaxValue) { WriteLength(w, (long)n); return; }
        var s = w.GetSpan(9);
        s[0] = 0x81;
        BinaryPrimitives.WriteUInt64BigEndian(s[1..], n);
        w.Advance(9);
    }

    /// <summary>Reads a length of the full unsigned range: 1 read, 0 incomplete, -1 invalid (a special encoding).</summary>
    public static int ReadULength(ReadOnlySpan<byte> d, ref int at, out ulong n)
    {
        n = 0;
        if (at >= d.Length) return 0;
        if (d[at] == 0x81)
        {
            if (at + 9 > d.Length) return 0;
            n = BinaryPrimitives.ReadUInt64BigEndian(d[(at + 1)..]);
            at += 9;
            return 1;
        }
        long v = ReadLength(d, ref at, out bool special);
        if (v < 0) return 0;
        if (special) return -1;
        n = (ulong)v;
        return 1;
    }

    public static void WriteLength(IBufferWriter<byte> w, long n)
    {
        if (n < 0) throw new ArgumentOutOfRangeException(nameof(n));
        if (n < 64) { w.GetSpan(1)[0] = (byte)n; w.Advance(1); }
        else if (n < 16384) { var s = w.GetSpan(2); s[0] = (byte)(0x40 | (n >> 8)); s[1] = (byte)n; w.Advance(2); }
        else if (n <= uint.MaxValue) { var s = w.GetSpan(5); s[0] = 0x80; BinaryPrimitives.WriteUInt32BigEndian(s[1..], (uint)n); w.Advance(5); }
        else { var s = w.GetSpan(9); s[0] = 0x81; BinaryPrimitives.WriteUInt64BigEndian(s[1..], (ulong)n); w.Advance(9); }
    }

    public static void WriteString(IBufferWriter<byte> w, ReadOnlySpan<byte> v)
    {
        if (v.Length <= 11 && NumberParsing.TryParseInt64(v, out long n))
        {
            if (n >= sbyte.MinValue && n <= sbyte.MaxValue) { var s = w.GetSpan(2); s[0] = 0xC0; s[1] = (byte)(sbyte)n; w.Advance(2); return; }
            if (n >= short.MinValue && n <= short.MaxValue) { var s = w.GetSpan(3); s[0] = 0xC1; BinaryPrimitives.WriteInt16LittleEndian(s[1..], (short)n); w.Advance(3); return; }
            if (n >= int.MinValue && n <= int.MaxValue) { var s = w.GetSpan(5); s[0] = 0xC2; BinaryPrimitives.WriteInt32LittleEndian(s[1..], (int)n); w.Advance(5); return; }
        }
        WriteLength(w, v.Length);
        w.Write(v);
    }

    /// <summary>A score of the old sorted set type 3: a length byte (253 NaN, 254 +inf, 255 -inf), then that many
    /// digits read by takeDigits; InvalidDataException for digits that are not a number.</summary>
    public static double ReadTextDouble(byte length, Func<int, byte[]> takeDigits) => length switch
    {
        253 => double.NaN,
        254 => double.PositiveInfinity,
        255 => double.NegativeInfinity,
        _ => Garnet.server.Storage.NumberParsing.TryParseDouble(takeDigits(length), out double d) ? d : throw new InvalidDataException("a sorted set score that is not a number"),
    };

    /// <summary>Reads a length; special = true for the 0xC0.. string encodings (then the result is the encoding). -1: not enough bytes or invalid.</summary>
    public static long ReadLength(ReadOnlySpan<byte> d, ref int at, out bool special)
    {
        special = false;
        if (at >= d.Length) return -1;
        byte first = d[at];
        long n;
        switch (first >> 6)
        {
            case 0: n = first & 0x3f; at += 1; return n;
            case 1: if (at + 2 > d.Length) return -1; n = ((first & 0x3f) << 8) | d[at + 1]; at += 2; return n;
            case 2:
                if (first == 0x80) { if (at + 5 > d.Length) return -1; n = BinaryPrimitives.ReadUInt32BigEndian(d[(at + 1)..]); at += 5; return n; }
                if (first == 0x81) { if (at + 9 > d.Length) return -1; n = (long)BinaryPrimitives.ReadUInt64BigEndian(d[(at + 1)..]); at += 9; return n < 0 ? -1 : n; }
                return -1;
            default: special = true; at += 1; return first & 0x3f;
        }
    }

    /// <summary>Reads a string at d[at..]; null when the bytes are incomplete or invalid (at is then unchanged).</summary>
    public static byte[]? ReadString(ReadOnlySpan<byte> d, ref int at)
    {
        int start = at;
        var v = ReadStringCore(d, ref at);
        if (v is null) at = start;
        return v;
    }

    private static byte[]? ReadStringCore(ReadOnlySpan<byte> d, ref int at)
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
                if (len > LzfMaxOutput(clen)) return null; // more than the compressed bytes can produce
                var v = LzfDecode(d.Slice(at, (int)clen), (int)len);
                if (v is null) return null;
                at += (int)clen;
                return v;
            }
            default: return null;
        }
    }

    /// <summary>Most bytes clen bytes of LZF can decode to: a back reference of 3 bytes copies at most 264 bytes (7 + 255 + 2),
    /// and nothing yields more per input byte, so a declared length beyond this is refused before anything is allocated.</summary>
    public static long LzfMaxOutput(long clen) => (clen + 2) / 3 * 264;

    /// <summary>Decodes LZF input into exactly length bytes, null when it does not. The output grows as it is produced (from
    /// a few times the input), so bytes that stop decoding early never cost the declared length.</summary>
    public static byte[]? LzfDecode(ReadOnlySpan<byte> input, int length)
    {
        if (length > LzfMaxOutput(input.Length)) return null;
        var output = new byte[(int)Math.Min(length, 4L * input.Length + 4096)];
        int produced = 0;
        while (true)
        {
            var step = LzfDecompress(input, output, out produced, out bool full);
            if (step) return produced == length ? output : null;
            if (!full || output.Length == length) return null;
            Array.Resize(ref output, (int)Math.Min(length, output.Length * 4L));
        }
    }

    /// <summary>LZF decompression (liblzf's format, as Redis uses it); false when the data does not decode to exactly output.Length bytes.</summary>
    public static bool LzfDecompress(ReadOnlySpan<byte> input, Span<byte> output) =>
        LzfDecompress(input, output, out int produced, out _) && produced == output.Length;

    /// <summary>Decodes all of input into output; false when it is malformed or output is too small (full then says which).</summary>
    private static bool LzfDecompress(ReadOnlySpan<byte> input, Span<byte> output, out int produced, out bool full)
    {
        produced = 0;
        full = false;
        int ip = 0, op = 0;
        while (ip < input.Length)
        {
            int ctrl = input[ip++];
            if (ctrl < 32)
            {
                int len = ctrl + 1;
                if (ip + len > input.Length) return false;
                if (op + len > output.Length) { full = true; return false; }
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
                if (back < 0) return false;
                if (op + len > output.Length) { full = true; return false; }
                for (int i = 0; i < len; i++) output[op++] = output[back++]; // may overlap: byte by byte
            }
        }
        produced = op;
        return true;
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
