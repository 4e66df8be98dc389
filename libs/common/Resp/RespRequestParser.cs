// RespRequestParser: incremental parser for client requests (RESP multibulk and inline commands).
// Invariants:
//  - Input is always the unconsumed bytes of the receive buffer, starting at the first byte of the
//    request being parsed. Everything the parser remembers between calls (position, arguments) is an
//    offset relative to that start, so the caller may move or grow the buffer between calls.
//  - A request split across receives resumes where it stopped: bytes already parsed are never re-read.
//  - Multibulk arguments are zero-copy (offset, length) slices of the input; inline arguments (which
//    may carry escapes) are unescaped into a scratch buffer owned by the parser.
//  - Error texts match Redis 7.2 (networking.c); after an error the connection must be closed.
using System.Buffers.Text;

namespace Garnet.common.Resp;

public enum ParseStatus
{
    /// <summary>A whole request is parsed; its arguments are available until the next TryParse.</summary>
    Complete,
    /// <summary>More bytes are needed; MinBytesHint may tell how many at least.</summary>
    Incomplete,
    /// <summary>An empty request (blank inline line, or *0 / *-1) was consumed: nothing to run.</summary>
    Empty,
    /// <summary>The request is malformed; Error holds the reply text. Close the connection after replying.</summary>
    ProtocolError,
}

public readonly record struct ArgSlice(int Offset, int Length);

public sealed class RespRequestParser
{
    private readonly RespLimits _limits;

    private ArgSlice[] _args = new ArgSlice[8];
    private int _argCount;
    private int _expected;      // arguments announced by the multibulk header, 0 when not inside one
    private int _pos;           // next unparsed byte, relative to the request start
    private long _bulkLen = -1; // length of the bulk being read, -1 when at a '$' header
    private int _inlineScan;    // bytes of an inline request already searched for '\n'
    private byte[] _scratch = Array.Empty<byte>();

    public RespRequestParser(RespLimits limits) => _limits = limits;

    /// <summary>Whether the client has authenticated (or needs not); decides the tighter limits.</summary>
    public bool Authenticated { get; set; } = true;

    /// <summary>After ProtocolError: the error reply (without the leading '-').</summary>
    public string? Error { get; private set; }

    /// <summary>After Incomplete: total bytes (from the request start) needed before parsing can progress; 0 if unknown.</summary>
    public long MinBytesHint { get; private set; }

    public int ArgCount => _argCount;

    /// <summary>True when the arguments of the last request live in the scratch buffer (inline request).</summary>
    public bool ArgsInScratch { get; private set; }

    /// <summary>Bytes that the arguments of the last completed request refer to, given the input passed to TryParse.</summary>
    public ReadOnlySpan<byte> GetArg(int index, ReadOnlySpan<byte> input)
    {
        var a = _args[index];
        return ArgsInScratch ? _scratch.AsSpan(a.Offset, a.Length) : input.Slice(a.Offset, a.Length);
    }

    public ArgSlice GetSlice(int index) => _args[index];

    public ReadOnlySpan<byte> Scratch => _scratch;

    /// <summary>Releases memory held for one large request (called when the connection goes idle).</summary>
    public void Trim()
    {
        if (_args.Length > 64 && _expected == 0) _args = new ArgSlice[8];
        if (_scratch.Length > 4096) _scratch = Array.Empty<byte>();
    }

    /// <summary>Forgets a request parsed in part (after a look ahead that met an incomplete one): the next TryParse starts
    /// at a request boundary.</summary>
    public void Reset()
    {
        _expected = 0;
        _pos = 0;
        _bulkLen = -1;
        _inlineScan = 0;
        MinBytesHint = 0;
    }

    public ParseStatus TryParse(ReadOnlySpan<byte> input, out int consumed)
    {
        consumed = 0;
        MinBytesHint = 0;
        if (_expected == 0)
        {
            if (input.IsEmpty) return ParseStatus.Incomplete;
            ArgsInScratch = false;
            if (input[0] != (byte)'*') return ParseInline(input, out consumed);
            if (TryParseWhole(input, out consumed)) return ParseStatus.Complete;

            if (!TryDigitsToCr(input, 1, out long count, out int cr))
            {
                cr = input.IndexOf((byte)'\r');
                if (cr < 0)
                    return input.Length > RespLimits.InlineMaxSize ? Fail("Protocol error: too big mult bulk count string") : ParseStatus.Incomplete;
                if (cr + 1 >= input.Length) return ParseStatus.Incomplete;
                if (!TryParseLong(input.Slice(1, cr - 1), out count))
                    return Fail("Protocol error: invalid multibulk length");
            }
            else if (cr + 1 >= input.Length) return ParseStatus.Incomplete;
            if (count > int.MaxValue) return Fail("Protocol error: invalid multibulk length");
            if (count > RespLimits.UnauthenticatedMaxMultibulk && !Authenticated)
                return Fail("Protocol error: unauthenticated multibulk length");
            if (count <= 0)
            {
                consumed = cr + 2;
                return ParseStatus.Empty;
            }
            _expected = (int)count;
            _argCount = 0;
            _pos = cr + 2;
            _bulkLen = -1;
        }

        while (_argCount < _expected)
        {
            if (_bulkLen < 0)
            {
                var rest = input.Slice(_pos);
                if (rest.Length > 1 && rest[0] == (byte)'$' && TryDigitsToCr(rest, 1, out long len, out int cr))
                {
                    if (cr + 1 >= rest.Length) return ParseStatus.Incomplete;
                }
                else
                {
                    cr = rest.IndexOf((byte)'\r');
                    if (cr < 0)
                        return rest.Length > RespLimits.InlineMaxSize ? Fail("Protocol error: too big bulk count string") : ParseStatus.Incomplete;
                    if (cr + 1 >= rest.Length) return ParseStatus.Incomplete;
                    if (rest[0] != (byte)'$')
                        return Fail($"Protocol error: expected '$', got '{(char)rest[0]}'");
                    if (!TryParseLong(rest.Slice(1, cr - 1), out len) || len < 0)
                        return Fail("Protocol error: invalid bulk length");
                }
                if (len > _limits.ProtoMaxBulkLen || len > RespLimits.AbsoluteMaxBuffer - 2)
                    return Fail("Protocol error: invalid bulk length");
                if (len > RespLimits.UnauthenticatedMaxBulk && !Authenticated)
                    return Fail("Protocol error: unauthenticated bulk length");
                _pos += cr + 2;
                _bulkLen = len;
            }
            long needed = (long)_pos + _bulkLen + 2;
            if (input.Length < needed)
            {
                MinBytesHint = needed;
                return ParseStatus.Incomplete;
            }
            AddArg(_pos, (int)_bulkLen);
            _pos = (int)needed;
            _bulkLen = -1;
        }

        consumed = _pos;
        _expected = 0;
        _pos = 0;
        return ParseStatus.Complete;
    }

    /// <summary>
    /// The common case in one pass with locals only: a whole request of 1 to 9 arguments (no more than _args holds), each
    /// with a length of 1 to 3 digits (no leading zero) within ProtoMaxBulkLen, so no limit can refuse it. False for
    /// anything else (a request split across receives among them), which the general path then parses from its start.
    /// As there, the two bytes after each argument are skipped, not checked (Redis does the same). The 1-3 digits are read
    /// inline: TryDigitsToCr (up to 18 digits, then the limits to check) measured 2-3% slower per in-process GET.
    /// </summary>
    private bool TryParseWhole(ReadOnlySpan<byte> input, out int consumed)
    {
        consumed = 0;
        if (input.Length < 4) return false;
        int count = input[1] - '0';
        if ((uint)(count - 1) > 8 || input[2] != (byte)'\r' || input[3] != (byte)'\n' || count > _args.Length) return false;
        var args = _args.AsSpan(0, count);
        int pos = 4;
        for (int i = 0; i < args.Length; i++)
        {
            if (pos + 4 > input.Length || input[pos] != (byte)'$') return false; // '$', a digit, "\r\n" at least
            int len = input[pos + 1] - '0', p = pos + 2;
            if ((uint)len > 9) return false;
            for (int digits = 1; p < input.Length && (uint)(input[p] - '0') <= 9; digits++, p++)
            {
                if (digits == 3 || len == 0) return false; // 4 digits or more, or a leading zero: the general path
                len = len * 10 + (input[p] - '0');
            }
            if (p + 1 >= input.Length || input[p] != (byte)'\r' || len > _limits.ProtoMaxBulkLen) return false;
            int start = p + 2, end = start + len + 2;
            if (end > input.Length) return false;
            args[i] = new ArgSlice(start, len);
            pos = end;
        }
        _argCount = count;
        consumed = pos;
        return true;
    }

    private ParseStatus Fail(string error)
    {
        Error = error;
        _expected = 0;
        _pos = 0;
        _bulkLen = -1;
        _inlineScan = 0;
        return ParseStatus.ProtocolError;
    }

    private void AddArg(int offset, int length)
    {
        if (_argCount == _args.Length) Array.Resize(ref _args, _args.Length * 2);
        _args[_argCount++] = new ArgSlice(offset, length);
    }

    /// <summary>The common case of a count line, without a search: 1 to 18 digits (no sign, no leading zero) from start,
    /// then '\r' at cr. False for anything else, which the general path (IndexOf, TryParseLong) then parses or rejects.</summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    private static bool TryDigitsToCr(ReadOnlySpan<byte> s, int start, out long value, out int cr)
    {
        value = 0;
        cr = -1;
        int i = start, end = Math.Min(s.Length, start + 18);
        for (; i < end; i++)
        {
            uint digit = (uint)(s[i] - '0');
            if (digit > 9) break;
            value = value * 10 + digit;
        }
        int digits = i - start;
        if (digits == 0 || i >= s.Length || s[i] != (byte)'\r' || (digits > 1 && s[start] == (byte)'0')) return false;
        cr = i;
        return true;
    }

    /// <summary>Redis's string2ll: optional '-', digits, no leading zeros or '+', no spaces.</summary>
    public static bool TryParseLong(ReadOnlySpan<byte> s, out long value)
    {
        value = 0;
        if (s.IsEmpty || s.Length > 20) return false;
        if (s[0] == '+' || (s.Length > 1 && s[0] == '0') || (s.Length >= 2 && s[0] == '-' && s[1] == '0')) return false;
        return Utf8Parser.TryParse(s, out value, out int used) && used == s.Length;
    }

    private ParseStatus ParseInline(ReadOnlySpan<byte> input, out int consumed)
    {
        consumed = 0;
        int nl = input.Slice(_inlineScan).IndexOf((byte)'\n');
        if (nl < 0)
        {
            _inlineScan = input.Length;
            return input.Length > RespLimits.InlineMaxSize ? Fail("Protocol error: too big inline request") : ParseStatus.Incomplete;
        }
        nl += _inlineScan;
        _inlineScan = 0;
        var line = input.Slice(0, nl);
        if (!line.IsEmpty && line[^1] == (byte)'\r') line = line.Slice(0, line.Length - 1);
        if (!SplitArgs(line)) return Fail("Protocol error: unbalanced quotes in request");
        consumed = nl + 1;
        ArgsInScratch = true;
        return _argCount == 0 ? ParseStatus.Empty : ParseStatus.Complete;
    }

    private static bool IsSpace(byte b) => b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f';

    private static int HexValue(byte b) => b switch
    {
        >= (byte)'0' and <= (byte)'9' => b - '0',
        >= (byte)'a' and <= (byte)'f' => b - 'a' + 10,
        >= (byte)'A' and <= (byte)'F' => b - 'A' + 10,
        _ => -1,
    };

    /// <summary>Splits an inline line as Redis's sdssplitargs does (quotes, escapes, \xHH).</summary>
    private bool SplitArgs(ReadOnlySpan<byte> line)
    {
        _argCount = 0;
        if (_scratch.Length < line.Length) _scratch = new byte[Math.Max(256, line.Length)];
        int w = 0, p = 0;
        // A NUL byte ends the line, as it does for the C string Redis splits.
        int nul = line.IndexOf((byte)0);
        if (nul >= 0) line = line.Slice(0, nul);
        while (true)
        {
            while (p < line.Length && IsSpace(line[p])) p++;
            if (p >= line.Length) return true;
            int start = w;
            bool inDouble = false, inSingle = false;
            while (true)
            {
                if (inDouble)
                {
                    if (p >= line.Length) return false;
                    byte c = line[p];
                    if (c == '\\' && p + 3 < line.Length && line[p + 1] == 'x' && HexValue(line[p + 2]) >= 0 && HexValue(line[p + 3]) >= 0)
                    {
                        _scratch[w++] = (byte)(HexValue(line[p + 2]) * 16 + HexValue(line[p + 3]));
                        p += 4;
                    }
                    else if (c == '\\' && p + 1 < line.Length)
                    {
                        byte e = line[p + 1];
                        _scratch[w++] = e switch { (byte)'n' => (byte)'\n', (byte)'r' => (byte)'\r', (byte)'t' => (byte)'\t', (byte)'b' => (byte)'\b', (byte)'a' => (byte)'\a', _ => e };
                        p += 2;
                    }
                    else if (c == '"')
                    {
                        if (p + 1 < line.Length && !IsSpace(line[p + 1])) return false;
                        p++;
                        break;
                    }
                    else { _scratch[w++] = c; p++; }
                }
                else if (inSingle)
                {
                    if (p >= line.Length) return false;
                    byte c = line[p];
                    if (c == '\\' && p + 1 < line.Length && line[p + 1] == '\'')
                    {
                        _scratch[w++] = (byte)'\'';
                        p += 2;
                    }
                    else if (c == '\'')
                    {
                        if (p + 1 < line.Length && !IsSpace(line[p + 1])) return false;
                        p++;
                        break;
                    }
                    else { _scratch[w++] = c; p++; }
                }
                else
                {
                    if (p >= line.Length) break;
                    byte c = line[p];
                    // Unquoted arguments end at space, tab, CR or LF only (\v and \f belong to the argument, as in sdssplitargs).
                    if (c is (byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n') { p++; break; }
                    if (c == '"') inDouble = true;
                    else if (c == '\'') inSingle = true;
                    else _scratch[w++] = c;
                    p++;
                }
            }
            AddArg(start, w - start);
        }
    }
}
