// RespReplyScanner: walks RESP2/RESP3 replies in a receive buffer and counts them without materializing values.
// Invariants:
// - Resumable: Scan consumes every byte it has fully processed and remembers where it is (open aggregates, the
//   unread part of a bulk body). Only an unfinished header line ("$12\r", "-ERR unkn") is left unconsumed; the
//   caller keeps those bytes and passes them again, followed by the next bytes received.
// - Bulk bodies are skipped, never buffered: a 512 MB value needs no more receive buffer than a 10-byte one.
// - Replies counts top-level replies; ErrorReplies counts those that are or contain an error (- or !);
//   NullReplies counts top-level nulls ($-1, *-1, _). Top-level push messages (>) are counted in Pushes only,
//   and RESP3 attributes (|) are skipped: neither is a reply to a request.
// - No allocation while scanning, except the nesting stack growing past 16 levels and the one-time copy of the
//   first error's text. Malformed input throws FormatException; the connection is then unusable.
using System.Text;

namespace Garnet.client;

public sealed class RespReplyScanner
{
    /// <summary>Deepest nesting accepted (as RespReplyParser), so that a hostile server cannot exhaust memory.</summary>
    public const int MaxDepth = 512;

    /// <summary>Longest header or simple line accepted before the reply is declared malformed.</summary>
    public const int MaxLineLength = 1 << 20;

    private const int MaxErrorTextLength = 256;

    // Open aggregates: elements still expected at each level, and whether the level is an attribute (|).
    private long[] _remaining = new long[16];
    private bool[] _isAttribute = new bool[16];
    private int _depth;

    // Inside a bulk body: bytes still to skip, including the final CRLF (the last two bytes are checked).
    private long _bulkRemaining;
    private bool _captureBulkError;
    private bool _currentHasError;
    private bool _currentIsPush;

    private byte[]? _firstError;
    private int _firstErrorLength;

    public long Replies { get; private set; }
    public long ErrorReplies { get; private set; }
    public long NullReplies { get; private set; }
    public long Pushes { get; private set; }

    /// <summary>True when the last reply completed was (or contained) an error.</summary>
    public bool LastReplyWasError { get; private set; }

    /// <summary>True when the scanner is between replies (nothing half-read).</summary>
    public bool AtReplyBoundary => _depth == 0 && _bulkRemaining == 0;

    /// <summary>Text of the first error seen (at most 256 bytes), or null.</summary>
    public string? FirstError => _firstError is null ? null : Encoding.UTF8.GetString(_firstError, 0, _firstErrorLength);

    /// <summary>Forgets all state and counters.</summary>
    public void Reset()
    {
        _depth = 0;
        _bulkRemaining = 0;
        _captureBulkError = _currentHasError = _currentIsPush = false;
        Replies = ErrorReplies = NullReplies = Pushes = 0;
        LastReplyWasError = false;
        _firstError = null;
        _firstErrorLength = 0;
    }

    /// <summary>
    /// Scans <paramref name="data"/> and returns how many bytes were consumed. Stops early once
    /// <paramref name="maxReplies"/> replies have completed in this call. Bytes not consumed are an unfinished
    /// line when the call stopped for lack of data.
    /// </summary>
    public int Scan(ReadOnlySpan<byte> data, long maxReplies = long.MaxValue)
    {
        int pos = 0;
        long stopAt = maxReplies == long.MaxValue ? long.MaxValue : Replies + maxReplies;
        while (pos < data.Length && Replies < stopAt)
        {
            if (_bulkRemaining > 0)
            {
                pos += SkipBulk(data.Slice(pos));
                if (_bulkRemaining == 0) CompleteValue(isNull: false);
                continue;
            }

            var rest = data.Slice(pos);
            int cr = rest.IndexOf((byte)'\r');
            if (cr < 0 || cr + 1 >= rest.Length)
            {
                if (rest.Length > MaxLineLength) throw new FormatException("RESP reply line too long");
                break;
            }
            if (rest[cr + 1] != (byte)'\n') throw new FormatException("RESP reply line not ended by CRLF");
            byte type = rest[0];
            var line = rest.Slice(1, cr - 1);
            pos += cr + 2;
            ProcessLine(type, line);
        }
        return pos;
    }

    private int SkipBulk(ReadOnlySpan<byte> data)
    {
        long bodyLeft = _bulkRemaining - 2;
        int take = (int)Math.Min(data.Length, _bulkRemaining);
        if (_captureBulkError && _firstErrorLength < MaxErrorTextLength && bodyLeft > 0)
        {
            int n = (int)Math.Min(Math.Min(take, bodyLeft), MaxErrorTextLength - _firstErrorLength);
            data.Slice(0, n).CopyTo(_firstError!.AsSpan(_firstErrorLength));
            _firstErrorLength += n;
        }
        // Check the CRLF that ends the body: it sits at offsets bodyLeft and bodyLeft + 1 of the remaining bytes.
        for (long i = Math.Max(0, bodyLeft); i < take; i++)
        {
            byte expected = i == bodyLeft ? (byte)'\r' : (byte)'\n';
            if (data[(int)i] != expected) throw new FormatException("RESP bulk string not ended by CRLF");
        }
        _bulkRemaining -= take;
        if (_bulkRemaining == 0) _captureBulkError = false;
        return take;
    }

    private void ProcessLine(byte type, ReadOnlySpan<byte> line)
    {
        switch (type)
        {
            case (byte)'+':
            case (byte)':':
            case (byte)',':
            case (byte)'(':
            case (byte)'#':
                CompleteValue(isNull: false);
                return;
            case (byte)'_':
                CompleteValue(isNull: true);
                return;
            case (byte)'-':
                NoteError(line, isBulk: false);
                CompleteValue(isNull: false);
                return;
            case (byte)'$':
            case (byte)'=':
            case (byte)'!':
            {
                long len = ParseLength(line);
                if (len < 0) { CompleteValue(isNull: true); return; }
                if (type == (byte)'!') NoteError(default, isBulk: true);
                _bulkRemaining = len + 2;
                return;
            }
            case (byte)'*':
            case (byte)'~':
            case (byte)'>':
            case (byte)'%':
            case (byte)'|':
            {
                long n = ParseLength(line);
                if (type == (byte)'>' && _depth == 0) _currentIsPush = true;
                if (n < 0) { CompleteValue(isNull: true); return; }
                long count = type is (byte)'%' or (byte)'|' ? checked(n * 2) : n;
                if (count == 0)
                {
                    if (type == (byte)'|') return; // an empty attribute annotates the value that follows
                    CompleteValue(isNull: false);
                    return;
                }
                Push(count, type == (byte)'|');
                return;
            }
            default:
                throw new FormatException($"unknown RESP type byte 0x{type:x2}");
        }
    }

    private void Push(long count, bool isAttribute)
    {
        if (_depth >= MaxDepth) throw new FormatException("RESP nesting too deep");
        if (_depth == _remaining.Length)
        {
            Array.Resize(ref _remaining, _depth * 2);
            Array.Resize(ref _isAttribute, _depth * 2);
        }
        _remaining[_depth] = count;
        _isAttribute[_depth] = isAttribute;
        _depth++;
    }

    private void CompleteValue(bool isNull)
    {
        while (_depth > 0)
        {
            int top = _depth - 1;
            if (--_remaining[top] > 0) return;
            _depth--;
            // An attribute is not a value: the value it annotates is still to come at the same level.
            if (_isAttribute[top]) return;
            isNull = false;
        }
        if (_currentIsPush)
        {
            Pushes++;
        }
        else
        {
            Replies++;
            if (isNull) NullReplies++;
            if (_currentHasError) ErrorReplies++;
            LastReplyWasError = _currentHasError;
        }
        _currentHasError = false;
        _currentIsPush = false;
    }

    private void NoteError(ReadOnlySpan<byte> text, bool isBulk)
    {
        _currentHasError = true;
        if (_firstError is not null) return;
        _firstError = new byte[MaxErrorTextLength];
        _firstErrorLength = 0;
        _captureBulkError = isBulk;
        if (!isBulk)
        {
            _firstErrorLength = Math.Min(text.Length, MaxErrorTextLength);
            text.Slice(0, _firstErrorLength).CopyTo(_firstError);
        }
    }

    private static long ParseLength(ReadOnlySpan<byte> s)
    {
        if (s.Length == 2 && s[0] == (byte)'-' && s[1] == (byte)'1') return -1;
        if (s.Length == 0 || s.Length > 18) throw new FormatException("bad RESP length");
        long v = 0;
        foreach (byte b in s)
        {
            uint d = (uint)(b - '0');
            if (d > 9) throw new FormatException("bad RESP length");
            v = v * 10 + d;
        }
        return v;
    }
}
