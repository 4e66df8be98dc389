// CommandArguments: the arguments of the command running on a connection: slices of the receive buffer the parser
// found them in, the parser's scratch (an inline request), or a queued command's own arrays (EXEC, a script's
// redis.call, AOF replay) in place of the parser's while it runs.
// Invariants:
//  - Valid only while the command runs: whoever keeps an argument copies it, or takes a large one with its buffer
//    (TakeLarge, after which the connection receives into a new buffer).
//  - Reading an argument allocates nothing.
using System.Runtime.CompilerServices;
using Garnet.common.Networking;
using Garnet.common.Resp;

namespace Garnet.server.Session;

internal sealed class CommandArguments
{
    private readonly RespRequestParser _parser;
    private byte[] _input = [];
    private int _inputStart;
    private byte[][]? _queued;          // a queued command's arguments while it runs (null: the parser's)
    private InputBuffer? _currentInput; // the input the running request was parsed from

    /// <summary>Most bytes of a receive buffer besides the argument that TakeLarge lets a value keep.</summary>
    private const int TakeSlack = 64 * 1024;

    public CommandArguments(RespRequestParser parser) => _parser = parser;

    /// <summary>The running request's buffer went to TakeLarge's value (the input is a new, empty one).</summary>
    public bool InputTaken { get; set; }

    /// <summary>Bytes of later requests follow the running one in the input (a pipeline).</summary>
    public bool RequestsBehind { get; private set; }

    /// <summary>The arguments are a queued command's (EXEC, a script, AOF replay), not the parser's.</summary>
    public bool Queued => _queued is not null;

    /// <summary>The parser found a request of consumed bytes at the start of input's unconsumed bytes.</summary>
    public void Parsed(InputBuffer input, int consumed)
    {
        _input = input.Data;
        _inputStart = input.Start;
        RequestsBehind = consumed < input.Count;
        _currentInput = input;
    }

    /// <summary>For ReadAhead's look at later requests: the parser's arguments now lie at offset of the input.</summary>
    public void ParsedAt(int offset) => _inputStart = offset;

    /// <summary>Runs with args in place of the parser's until the returned value is passed to EndQueued.</summary>
    public byte[][]? BeginQueued(byte[][] args)
    {
        var saved = _queued;
        _queued = args;
        return saved;
    }

    public void EndQueued(byte[][]? saved) => _queued = saved;

    /// <summary>Number of arguments including the command name.</summary>
    public int Count
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => _queued?.Length ?? _parser.ArgCount;
    }

    public ReadOnlySpan<byte> this[int index]
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get
        {
            if (_queued is not null) return _queued[index];
            if (_parser.ArgsInScratch) return _parser.GetArg(index, default);
            var s = _parser.GetSlice(index);
            return new ReadOnlySpan<byte>(_input, _inputStart + s.Offset, s.Length);
        }
    }

    /// <summary>Where argument index lies (array, offset, length), for inputs that outlive a span (pending store ops).</summary>
    public void Location(int index, out byte[] data, out int offset, out int length)
    {
        if (_queued is not null)
        {
            data = _queued[index];
            offset = 0;
            length = data.Length;
            return;
        }
        if (_parser.ArgsInScratch)
        {
            data = this[index].ToArray();
            offset = 0;
            length = data.Length;
            return;
        }
        var sl = _parser.GetSlice(index);
        data = _input;
        offset = _inputStart + sl.Offset;
        length = sl.Length;
    }

    /// <summary>
    /// Argument index (a large value, over LargeValue.InlineLimit) as a LargeValue that keeps the receive buffer it was
    /// received into, instead of a copy of it: null when that cannot be done, and the caller copies. It can when the
    /// request is the last one received, came from a connection (fromConnection: not a script, EXEC or AOF replay) and its
    /// buffer is about its own size (a large request's buffer grows to exactly what it needs: ReceiveBuffer). The
    /// connection then receives into a new buffer; the request's arguments stay readable until the command ends.
    /// </summary>
    public Storage.LargeValue? TakeLarge(int index, bool fromConnection)
    {
        if (_queued is not null || _parser.ArgsInScratch || InputTaken || RequestsBehind || !fromConnection
            || _currentInput is not { } input || !ReferenceEquals(input.Data, _input))
            return null;
        var slice = _parser.GetSlice(index);
        if (slice.Length <= Storage.LargeValue.InlineLimit || _input.Length - slice.Length > TakeSlack) return null;
        var value = Storage.LargeValue.Wrap(_input, _inputStart + slice.Offset - 1, slice.Length); // over the header's '\n'
        input.Data = Garnet.common.Util.LargeBuffers.Rent(ReceiveBuffer.InitialReceiveSize);
        input.Start = input.End = 0;
        InputTaken = true;
        return value;
    }
}
