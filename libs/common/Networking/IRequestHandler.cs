// The contract between a connection (bytes in, bytes out) and the protocol session that runs requests.
using Garnet.common.Resp;

namespace Garnet.common.Networking;

public enum ProcessResult
{
    /// <summary>Every complete request was run; wait for more bytes.</summary>
    NeedMoreData,
    /// <summary>The reply buffer is full enough: send it, then call Process again on the same input.</summary>
    FlushAndContinue,
    /// <summary>Send what was written, then close the connection (QUIT, protocol error, kill).</summary>
    Close,
}

/// <summary>Unconsumed received bytes: Data[Start..End). Handlers advance Start past whole requests only.</summary>
public sealed class InputBuffer
{
    public byte[] Data = Array.Empty<byte>();
    public int Start;
    public int End;
    public int Count => End - Start;
    public ReadOnlySpan<byte> Unconsumed => Data.AsSpan(Start, End - Start);
}

public interface IRequestHandler
{
    /// <summary>Replies are written here; the connection sends and resets it.</summary>
    RespWriter Output { get; }

    /// <summary>Runs every complete request in input (on the calling thread, to completion).</summary>
    ProcessResult Process(InputBuffer input);

    /// <summary>After NeedMoreData: bytes from input.Start the pending request needs at least (0 if unknown).</summary>
    long MinBytesHint { get; }

    /// <summary>Called before the replies written so far are sent: completes when they may go out (e.g. once the writes
    /// they acknowledge are durable). Completed at once in the common case.</summary>
    ValueTask BeforeSendAsync() => default;

    /// <summary>Called when every received byte has been processed: release memory held for large requests.</summary>
    void OnIdle();

    /// <summary>Called once when the connection has closed, from the connection's thread.</summary>
    void OnClosed();
}
