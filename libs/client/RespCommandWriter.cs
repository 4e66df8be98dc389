// RespCommandWriter: encodes commands as RESP arrays of bulk strings into one growable byte buffer.
// Invariants:
// - Buffer[0..Length) holds whole commands only once each command's declared arguments are all written;
//   Commands counts the commands begun.
// - Nothing allocates except the buffer doubling when it is full; integers are formatted in place.
// - The buffer is reused across Reset() calls, so a caller building batch after batch allocates nothing once
//   the buffer has reached its working size.
using System.Buffers.Text;

namespace Garnet.client;

public sealed class RespCommandWriter
{
    private byte[] _buffer;
    private int _length;

    public RespCommandWriter(int initialCapacity = 4096) => _buffer = new byte[Math.Max(64, initialCapacity)];

    /// <summary>The buffer; bytes [0..Length) are the encoded commands.</summary>
    public byte[] Buffer => _buffer;
    public int Length => _length;
    public int Commands { get; private set; }
    public ReadOnlySpan<byte> Written => _buffer.AsSpan(0, _length);
    public ReadOnlyMemory<byte> WrittenMemory => _buffer.AsMemory(0, _length);

    /// <summary>Empties the buffer (keeps its capacity).</summary>
    public void Reset()
    {
        _length = 0;
        Commands = 0;
    }

    /// <summary>Starts a command of <paramref name="argCount"/> arguments (the command name counts as one).</summary>
    public void BeginCommand(int argCount)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(argCount, 1);
        Commands++;
        WriteHeader((byte)'*', argCount);
    }

    public void WriteArg(ReadOnlySpan<byte> value)
    {
        WriteHeader((byte)'$', value.Length);
        Ensure(value.Length + 2);
        value.CopyTo(_buffer.AsSpan(_length));
        _length += value.Length;
        _buffer[_length++] = (byte)'\r';
        _buffer[_length++] = (byte)'\n';
    }

    /// <summary>Writes an integer argument as its decimal text.</summary>
    public void WriteArg(long value)
    {
        Span<byte> digits = stackalloc byte[20];
        Utf8Formatter.TryFormat(value, digits, out int n);
        WriteArg(digits.Slice(0, n));
    }

    /// <summary>A whole command whose arguments are all given.</summary>
    public void WriteCommand(ReadOnlySpan<byte> name)
    {
        BeginCommand(1);
        WriteArg(name);
    }

    public void WriteCommand(ReadOnlySpan<byte> name, ReadOnlySpan<byte> arg1)
    {
        BeginCommand(2);
        WriteArg(name);
        WriteArg(arg1);
    }

    public void WriteCommand(ReadOnlySpan<byte> name, ReadOnlySpan<byte> arg1, ReadOnlySpan<byte> arg2)
    {
        BeginCommand(3);
        WriteArg(name);
        WriteArg(arg1);
        WriteArg(arg2);
    }

    /// <summary>Appends bytes that are already RESP (for example a pre-encoded command).</summary>
    public void WriteRaw(ReadOnlySpan<byte> bytes, int commands)
    {
        Ensure(bytes.Length);
        bytes.CopyTo(_buffer.AsSpan(_length));
        _length += bytes.Length;
        Commands += commands;
    }

    private void WriteHeader(byte type, long count)
    {
        Ensure(22);
        _buffer[_length++] = type;
        Utf8Formatter.TryFormat(count, _buffer.AsSpan(_length), out int n);
        _length += n;
        _buffer[_length++] = (byte)'\r';
        _buffer[_length++] = (byte)'\n';
    }

    private void Ensure(int more)
    {
        if (_buffer.Length - _length >= more) return;
        long needed = (long)_length + more;
        long size = Math.Max(needed, (long)_buffer.Length * 2);
        if (size > Array.MaxLength) size = needed <= Array.MaxLength ? Array.MaxLength : throw new InvalidOperationException("RESP command buffer would exceed the largest array");
        Array.Resize(ref _buffer, (int)size);
    }
}
