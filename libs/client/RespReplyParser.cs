// RespReplyParser: parses one whole RESP2/RESP3 reply from a byte span. Returns false when the span does not
// yet hold a whole reply (nothing consumed). Nesting is bounded so that a hostile server cannot overflow the stack.
using System.Buffers.Text;

namespace Garnet.client;

public static class RespReplyParser
{
    public const int MaxDepth = 512;

    public static bool TryParse(ReadOnlySpan<byte> input, out RespValue? value, out int consumed)
    {
        consumed = 0;
        value = null;
        int pos = 0;
        if (!TryParse(input, ref pos, 0, out value)) return false;
        consumed = pos;
        return true;
    }

    private static bool TryReadLine(ReadOnlySpan<byte> input, ref int pos, out ReadOnlySpan<byte> line)
    {
        line = default;
        int cr = input.Slice(pos).IndexOf("\r\n"u8);
        if (cr < 0) return false;
        line = input.Slice(pos, cr);
        pos += cr + 2;
        return true;
    }

    private static long ParseLong(ReadOnlySpan<byte> s)
    {
        if (!Utf8Parser.TryParse(s, out long v, out int used) || used != s.Length) throw new FormatException("bad RESP integer: " + System.Text.Encoding.ASCII.GetString(s));
        return v;
    }

    private static bool TryParse(ReadOnlySpan<byte> input, ref int pos, int depth, out RespValue? value)
    {
        value = null;
        if (depth > MaxDepth) throw new FormatException("RESP nesting too deep");
        if (pos >= input.Length) return false;
        byte type = input[pos++];
        if (!TryReadLine(input, ref pos, out var line)) return false;
        switch (type)
        {
            case (byte)'+': value = new RespValue { Type = RespType.SimpleString, Bytes = line.ToArray() }; return true;
            case (byte)'-': value = new RespValue { Type = RespType.Error, Bytes = line.ToArray() }; return true;
            case (byte)':': value = new RespValue { Type = RespType.Integer, Integer = ParseLong(line) }; return true;
            case (byte)',': value = new RespValue { Type = RespType.Double, Bytes = line.ToArray() }; return true;
            case (byte)'(': value = new RespValue { Type = RespType.BigNumber, Bytes = line.ToArray() }; return true;
            case (byte)'#': value = new RespValue { Type = RespType.Boolean, Integer = line.Length == 1 && line[0] == 't' ? 1 : 0 }; return true;
            case (byte)'_': value = new RespValue { Type = RespType.Null, IsNullArray = true }; return true;
            case (byte)'$':
            case (byte)'=':
            case (byte)'!':
            {
                long len = ParseLong(line);
                if (len < 0) { value = new RespValue { Type = RespType.Null }; return true; }
                if (input.Length - pos < len + 2) return false;
                var data = input.Slice(pos, (int)len);
                pos += (int)len + 2;
                if (type == '=') value = new RespValue { Type = RespType.Verbatim, Bytes = data.Slice(Math.Min(4, data.Length)).ToArray() };
                else value = new RespValue { Type = type == '!' ? RespType.BulkError : RespType.BulkString, Bytes = data.ToArray() };
                return true;
            }
            case (byte)'*':
            case (byte)'~':
            case (byte)'>':
            case (byte)'%':
            {
                long n = ParseLong(line);
                if (n < 0) { value = new RespValue { Type = RespType.Null, IsNullArray = true }; return true; }
                long count = type == '%' ? n * 2 : n;
                var items = new RespValue?[count];
                for (long i = 0; i < count; i++)
                    if (!TryParse(input, ref pos, depth + 1, out items[i])) return false;
                var t = type switch { (byte)'~' => RespType.Set, (byte)'>' => RespType.Push, (byte)'%' => RespType.Map, _ => RespType.Array };
                value = new RespValue { Type = t, Elements = items! };
                return true;
            }
            default:
                throw new FormatException($"unknown RESP type byte '{(char)type}'");
        }
    }
}
