// RespWriter: writes RESP2/RESP3 replies into one growable, pooled byte buffer.
// Invariants:
//  - Buffer[0..Length) holds complete replies in order; nothing is ever written past Length.
//  - The buffer comes from LargeBuffers and goes back on Reset(releaseBuffer) / Dispose: up to 1 MB it is pooled;
//    a larger one (a large reply) is dropped and reported to MemoryReclaimer, so it does not stay in the pool.
//  - Growth doubles while the buffer is small; past LargeBuffers.PoolLimit it grows to exactly what is needed the first
//    time, then by at least a quarter, so one 512 MB bulk string takes 512 MB, not 1 GB. A bulk string reserves its header, bytes and CRLF at once.
//  - Protocol decides how aggregate and null types are encoded (RESP2 fallbacks for RESP3 types).
//  - With a Limit, the buffer never grows past it: the write that would throws ReplyLimitException (the session then
//    drops the client, as Redis's client-output-buffer-limit), so a huge reply takes at most the limit.
//  - References (WriteBulkReference, only when AllowReferences): a large bulk string's bytes are not copied; the writer
//    keeps the memory (which must never change: a LargeValue's) and the position in the buffer it goes before. The
//    replies are then the Segments in order, not Written: only a connection's sender may allow them. Every segment is
//    non-empty (a reference always has its header before it and its CRLF after it in the buffer). Length counts the
//    buffer only (marks and Truncate are buffer positions); TotalLength counts the references too.
using System.Buffers.Binary;
using System.Buffers.Text;
using System.Text;
using Garnet.common.Util;

namespace Garnet.common.Resp;

public sealed class RespWriter : IDisposable
{
    /// <summary>Size a fresh buffer starts at; an idle connection holds none.</summary>
    public const int InitialSize = 4096;

    private byte[] _buffer = Array.Empty<byte>();
    private int _length;

    /// <summary>2 or 3 (HELLO switches it).</summary>
    public int Protocol { get; set; } = 2;

    public int Length => _length;

    /// <summary>Bytes of replies written: the buffer's and the references'.</summary>
    public long TotalLength => _length + _referencedBytes;

    // References: (position in the buffer they go before, the bytes), in position order.
    private List<(int position, ReadOnlyMemory<byte> bytes)>? _references;
    private long _referencedBytes;

    /// <summary>Whether WriteBulkReference may keep references (set by a connection's session; see the header).</summary>
    public bool AllowReferences { get; set; }

    /// <summary>Bulk strings at least this long are written as references when allowed.</summary>
    public const int ReferenceMin = 1 << 20;

    /// <summary>The replies as pieces to send in order: buffer parts and references (see the header).</summary>
    public int SegmentCount => _references is { Count: > 0 } r ? 2 * r.Count + 1 : (_length > 0 ? 1 : 0);

    public ReadOnlyMemory<byte> Segment(int index)
    {
        if (_references is not { Count: > 0 } refs) return _buffer.AsMemory(0, _length);
        if ((index & 1) == 1) return refs[index / 2].bytes;
        int start = index == 0 ? 0 : refs[index / 2 - 1].position;
        int end = index / 2 < refs.Count ? refs[index / 2].position : _length;
        return _buffer.AsMemory(start, end - start);
    }

    /// <summary>$len, then bytes without copying them (when AllowReferences and they are at least ReferenceMin long; else
    /// copied as WriteBulkString does). bytes must never change afterwards.</summary>
    public void WriteBulkReference(ReadOnlyMemory<byte> bytes)
    {
        if (!AllowReferences || bytes.Length < ReferenceMin) { WriteBulkString(bytes.Span); return; }
        if (Limit > 0 && TotalLength + bytes.Length + 32 > Limit) throw new ReplyLimitException(TotalLength + bytes.Length + 32, Limit);
        WritePrefixedInteger((byte)'$', bytes.Length);
        (_references ??= new()).Add((_length, bytes));
        _referencedBytes += bytes.Length;
        WriteCrlf();
    }

    private void ForgetReferences()
    {
        _references?.Clear();
        _referencedBytes = 0;
    }

    /// <summary>Most bytes the buffer may grow to (0: no limit); see the header.</summary>
    public long Limit { get; set; }
    public ReadOnlyMemory<byte> Written => _buffer.AsMemory(0, _length);
    public ReadOnlySpan<byte> WrittenSpan => _buffer.AsSpan(0, _length);

    /// <summary>Forget written bytes; return a large buffer to the pool so idle connections stay small.</summary>
    public void Reset(bool releaseBuffer)
    {
        _length = 0;
        ForgetReferences();
        if (releaseBuffer && _buffer.Length > 0)
        {
            LargeBuffers.Return(_buffer);
            _buffer = Array.Empty<byte>();
        }
    }

    public void Dispose() => Reset(true);

    /// <summary>Whether the writer holds a buffer now.</summary>
    public bool HasBuffer => _buffer.Length > 0;

    /// <summary>Forgets written bytes and hands the buffer to the caller, who pools it (a connection's loop keeps a stash
    /// of them: a round holds many at once, more than the shared pool keeps per core).</summary>
    public byte[] DetachBuffer()
    {
        var b = _buffer;
        _buffer = Array.Empty<byte>();
        _length = 0;
        ForgetReferences();
        return b;
    }

    /// <summary>Writes into buffer (from DetachBuffer) from now on; only when the writer holds none.</summary>
    public void AdoptBuffer(byte[] buffer)
    {
        if (_buffer.Length != 0) throw new InvalidOperationException("the writer holds a buffer already");
        _buffer = buffer;
        _length = 0;
    }

    /// <summary>Rolls back to an earlier length (used to discard a partially written reply).</summary>
    public void Truncate(int length)
    {
        if ((uint)length > (uint)_length) throw new ArgumentOutOfRangeException(nameof(length));
        _length = length;
        // A reference written after the mark lies past it (its header came first); one at the mark was written before.
        while (_references is { Count: > 0 } refs && refs[^1].position > length)
        {
            _referencedBytes -= refs[^1].bytes.Length;
            refs.RemoveAt(refs.Count - 1);
        }
    }

    /// <summary>Makes room for bytes more in one step (a reply whose size is known before it is written: one allocation
    /// of exactly that, instead of regrowing and copying as it is written). Same limits as any write.</summary>
    public void EnsureFree(long bytes)
    {
        if (_buffer.Length - _length < bytes) Grow((int)Math.Min(bytes, int.MaxValue));
    }

    private Span<byte> Reserve(int size)
    {
        if (_buffer.Length - _length < size) Grow(size);
        return _buffer.AsSpan(_length);
    }

    private void Grow(int size)
    {
        long needed = (long)_length + size;
        if (Limit > 0 && needed + _referencedBytes > Limit) throw new ReplyLimitException(needed + _referencedBytes, Limit);
        if (needed > Array.MaxLength) throw new InvalidOperationException("reply too large");
        long newSize = Math.Max(InitialSize, _buffer.Length);
        while (newSize < needed) newSize *= 2;
        // Large: exactly what is needed the first time (one large reply), then by at least a quarter (many of them).
        if (newSize > LargeBuffers.PoolLimit)
            newSize = _buffer.Length <= LargeBuffers.PoolLimit ? needed : Math.Max(needed, _buffer.Length + _buffer.Length / 4L);
        newSize = Math.Min(newSize, Array.MaxLength);
        var nb = LargeBuffers.Rent((int)newSize);
        _buffer.AsSpan(0, _length).CopyTo(nb);
        LargeBuffers.Return(_buffer);
        _buffer = nb;
    }

    public void WriteRaw(ReadOnlySpan<byte> bytes)
    {
        bytes.CopyTo(Reserve(bytes.Length));
        _length += bytes.Length;
    }

    private void WriteByte(byte b)
    {
        Reserve(1)[0] = b;
        _length++;
    }

    private void WriteCrlf()
    {
        var s = Reserve(2);
        s[0] = (byte)'\r';
        s[1] = (byte)'\n';
        _length += 2;
    }

    private void WritePrefixedInteger(byte prefix, long value)
    {
        var s = Reserve(24);
        s[0] = prefix;
        Utf8Formatter.TryFormat(value, s.Slice(1), out int n);
        s[1 + n] = (byte)'\r';
        s[2 + n] = (byte)'\n';
        _length += n + 3;
    }

    /// <summary>+text\r\n. The text must not hold CR or LF.</summary>
    public void WriteSimpleString(ReadOnlySpan<byte> text)
    {
        WriteByte((byte)'+');
        WriteRaw(text);
        WriteCrlf();
    }

    public void WriteSimpleString(string text) => WriteAscii((byte)'+', text);

    public void WriteOk() => WriteRaw("+OK\r\n"u8);

    /// <summary>-message\r\n; the message must start with the error code (ERR, WRONGTYPE, ...). CR/LF are replaced by spaces.</summary>
    public void WriteError(string message) => WriteAscii((byte)'-', message);

    public void WriteError(ReadOnlySpan<byte> message)
    {
        WriteByte((byte)'-');
        int start = _length;
        WriteRaw(message);
        SanitizeLine(start);
        WriteCrlf();
    }

    private void WriteAscii(byte prefix, string text)
    {
        WriteByte(prefix);
        int start = _length;
        int max = Encoding.UTF8.GetMaxByteCount(text.Length);
        int n = Encoding.UTF8.GetBytes(text, Reserve(max));
        _length += n;
        SanitizeLine(start);
        WriteCrlf();
    }

    private void SanitizeLine(int start)
    {
        var span = _buffer.AsSpan(start, _length - start);
        for (int i = 0; i < span.Length; i++)
            if (span[i] == '\r' || span[i] == '\n') span[i] = (byte)' ';
    }

    public void WriteInteger(long value) => WritePrefixedInteger((byte)':', value);

    public void WriteBulkString(ReadOnlySpan<byte> value)
    {
        Reserve((int)Math.Min(value.Length + 26L, int.MaxValue)); // header (at most 24), bytes, CRLF: a large value grows the buffer once
        WritePrefixedInteger((byte)'$', value.Length);
        WriteRaw(value);
        WriteCrlf();
    }

    public void WriteBulkString(string value)
    {
        int n = Encoding.UTF8.GetByteCount(value);
        WritePrefixedInteger((byte)'$', n);
        Encoding.UTF8.GetBytes(value, Reserve(n));
        _length += n;
        WriteCrlf();
    }

    public void WriteBulkString(long value)
    {
        Span<byte> tmp = stackalloc byte[24];
        Utf8Formatter.TryFormat(value, tmp, out int n);
        WriteBulkString(tmp.Slice(0, n));
    }

    /// <summary>RESP3 verbatim string (=len\r\ntxt:...); a bulk string in RESP2.</summary>
    public void WriteVerbatimString(string value, string format = "txt")
    {
        if (Protocol < 3) { WriteBulkString(value); return; }
        int n = Encoding.UTF8.GetByteCount(value);
        WritePrefixedInteger((byte)'=', n + 4);
        WriteRaw(Encoding.ASCII.GetBytes(format));
        WriteByte((byte)':');
        Encoding.UTF8.GetBytes(value, Reserve(n));
        _length += n;
        WriteCrlf();
    }

    /// <summary>Writes value as a bulk string only when it fits the buffer as it is (no growth, so no Limit check is due):
    /// false, and nothing written, otherwise. For the plain-read path; WriteBulkString writes the same bytes.</summary>
    public bool TryWriteBulkStringInPlace(ReadOnlySpan<byte> value)
    {
        int n = value.Length, at = _length;
        if (n > 99_999 || _buffer.Length - at < n + 10) return false; // '$', up to 5 digits, CRLF, the bytes, CRLF
        var s = _buffer.AsSpan(at, n + 10);
        s[0] = (byte)'$';
        int digits;
        if (n < 10) { s[1] = (byte)('0' + n); digits = 1; }
        else if (n < 100)
        {
            int tens = (n * 205) >> 11; // n / 10 for n < 1029
            s[1] = (byte)('0' + tens);
            s[2] = (byte)('0' + n - 10 * tens);
            digits = 2;
        }
        else
        {
            digits = n < 1000 ? 3 : n < 10_000 ? 4 : 5;
            for (int i = digits, v = n; i > 0; i--, v /= 10) s[i] = (byte)('0' + v % 10);
        }
        BinaryPrimitives.WriteUInt16LittleEndian(s.Slice(digits + 1), Crlf);
        value.CopyTo(s.Slice(digits + 3));
        BinaryPrimitives.WriteUInt16LittleEndian(s.Slice(digits + 3 + n), Crlf);
        _length = at + digits + 5 + n;
        return true;
    }

    private const ushort Crlf = '\r' | '\n' << 8;

    /// <summary>WriteNull only when it fits the buffer as it is: false, and nothing written, otherwise.</summary>
    public bool TryWriteNullInPlace()
    {
        if (_buffer.Length - _length < 5) return false;
        WriteNull();
        return true;
    }

    /// <summary>Null bulk string: _ in RESP3, $-1 in RESP2.</summary>
    public void WriteNull() => WriteRaw(Protocol >= 3 ? "_\r\n"u8 : "$-1\r\n"u8);

    /// <summary>Null array: _ in RESP3, *-1 in RESP2.</summary>
    public void WriteNullArray() => WriteRaw(Protocol >= 3 ? "_\r\n"u8 : "*-1\r\n"u8);

    public void WriteArrayHeader(int count) => WritePrefixedInteger((byte)'*', count);

    /// <summary>Map of count pairs: %count in RESP3, an array of 2*count in RESP2.</summary>
    public void WriteMapHeader(int count)
    {
        if (Protocol >= 3) WritePrefixedInteger((byte)'%', count);
        else WritePrefixedInteger((byte)'*', count * 2);
    }

    /// <summary>Set: ~count in RESP3, an array in RESP2.</summary>
    public void WriteSetHeader(int count) => WritePrefixedInteger(Protocol >= 3 ? (byte)'~' : (byte)'*', count);

    /// <summary>Push (out-of-band) message: &gt;count in RESP3, an array in RESP2.</summary>
    public void WritePushHeader(int count) => WritePrefixedInteger(Protocol >= 3 ? (byte)'>' : (byte)'*', count);

    /// <summary>Boolean: #t/#f in RESP3, integer 1/0 in RESP2.</summary>
    public void WriteBoolean(bool value)
    {
        if (Protocol >= 3) WriteRaw(value ? "#t\r\n"u8 : "#f\r\n"u8);
        else WriteRaw(value ? ":1\r\n"u8 : ":0\r\n"u8);
    }

    /// <summary>Double: ,value in RESP3, a bulk string in RESP2 (formatted as Redis does: shortest round-trip, inf/-inf/nan).</summary>
    public void WriteDouble(double value)
    {
        Span<byte> tmp = stackalloc byte[40];
        int n = FormatDouble(value, tmp);
        if (Protocol >= 3)
        {
            WriteByte((byte)',');
            WriteRaw(tmp.Slice(0, n));
            WriteCrlf();
        }
        else WriteBulkString(tmp.Slice(0, n));
    }

    public static int FormatDouble(double value, Span<byte> dest)
    {
        if (double.IsPositiveInfinity(value)) { "inf"u8.CopyTo(dest); return 3; }
        if (double.IsNegativeInfinity(value)) { "-inf"u8.CopyTo(dest); return 4; }
        if (double.IsNaN(value)) { "nan"u8.CopyTo(dest); return 3; }
        value.TryFormat(dest, out int n, "R", System.Globalization.CultureInfo.InvariantCulture);
        return n;
    }
}

/// <summary>A reply would grow the writer past its Limit (client-output-buffer-limit).</summary>
public sealed class ReplyLimitException(long needed, long limit)
    : Exception($"a reply of {needed} bytes or more is over client-output-buffer-limit ({limit} bytes)");
