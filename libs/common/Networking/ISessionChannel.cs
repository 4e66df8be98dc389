// ISessionChannel: what a protocol session needs from the connection under it: who the peer is, byte counters, a push
// of bytes from any thread (pub/sub messages, invalidations), and close. ClientConnection is the TCP one; DetachedChannel
// runs a session with no socket (AOF replay, scripts, in-process benchmarks).
// Invariants: Push may be called from any thread at any time, also after close (then it does nothing and returns false);
// pushed messages go out whole, in push order, never inside a reply batch of the session's own receive loop. DrainPushes
// is called only by the session while it runs a request (its receive loop holds the send gate then): it moves the
// pending pushes into the replies at a command boundary, so messages that came in before a command go out before its reply.
using System.Net;
using Garnet.common.Resp;

namespace Garnet.common.Networking;

public interface ISessionChannel
{
    IPEndPoint? RemoteEndPoint { get; }
    IPEndPoint? LocalEndPoint { get; }
    /// <summary>The server's Unix socket path when the client connected through it (the endpoints are then null).</summary>
    string? UnixSocketPath => null;
    /// <summary>True when the channel runs the session's request loop, so a command may finish later (the session's
    /// ReplyWhenDone: replies wait, the loop's thread serves others meanwhile).</summary>
    bool CanFinishLater => false;
    /// <summary>True when the continuation this channel registers on a parked batch's ValueTask (IRequestHandler.
    /// BeforeSendAsync) only posts the connection back to its own loop, so the ValueTask may be completed inline on any
    /// thread, even one that must never block (a disk reader's). False: it must be completed on the thread pool.</summary>
    bool ResumesInline => false;
    /// <summary>The socket's handle (CLIENT LIST fd=); -1 without a socket.</summary>
    long Handle { get; }
    long BytesIn { get; }
    long BytesOut { get; }
    int QueryBufferLength { get; }
    int QueryBufferCapacity { get; }
    bool IsClosed { get; }
    /// <summary>True when the peer has gone (checked without reading).</summary>
    bool PeerHasClosed { get; }
    /// <summary>Last time bytes moved in either direction (Environment.TickCount64).</summary>
    long LastActivityMs { get; }
    /// <summary>Pushed bytes not yet handed to the socket (CLIENT LIST omem).</summary>
    long PendingPushBytes { get; }

    /// <summary>Queues message to be sent as soon as no reply batch is being sent; false when the channel is closed, or
    /// closes now because the pending pushes passed the push limits (see PushLimits).</summary>
    bool Push(ReadOnlySpan<byte> message);

    /// <summary>Push without sending now: an idle connection is sent to when someone calls SendPushes. mustSend is true
    /// when this message is the first pending one: then the caller must call SendPushes soon (a publisher does when its
    /// batch of requests is done); otherwise whoever queued the first one will, and sends this one too. So a publisher
    /// writes once per subscriber per batch, not once per message.</summary>
    bool PushDeferred(ReadOnlySpan<byte> message, out bool mustSend);

    /// <summary>Sends the pending pushes now if the connection is idle (after PushDeferred); any thread.</summary>
    void SendPushes();

    /// <summary>Moves the pending pushes (whole messages, in order) to the end of replies; only from the session's own
    /// request processing, between two commands.</summary>
    void DrainPushes(RespWriter replies);

    /// <summary>Closes from any thread; graceful lets a running batch finish first.</summary>
    void Close(bool force = false);
}

/// <summary>
/// Bounds for pushed bytes not yet sent, as Redis's client-output-buffer-limit pubsub class: past Hard, or past Soft for
/// more than SoftSeconds without a break (seen at a later push, as Redis checks when it adds output), the client is
/// disconnected and its pending pushes dropped. 0 = no limit.
/// </summary>
public sealed class PushLimits
{
    public long Hard { get; set; } = 32L * 1024 * 1024;
    public long Soft { get; set; } = 8L * 1024 * 1024;
    public int SoftSeconds { get; set; } = 60;

    /// <summary>Whether pending bytes break the limits, given since when they have been over Soft (0: not over before;
    /// updated).</summary>
    public bool Exceeded(long pending, ref long overSoftSinceMs, long nowMs)
    {
        if (Hard > 0 && pending > Hard) return true;
        if (Soft <= 0 || pending <= Soft) { overSoftSinceMs = 0; return false; }
        if (overSoftSinceMs == 0) { overSoftSinceMs = Math.Max(1, nowMs); return false; }
        return nowMs - overSoftSinceMs > SoftSeconds * 1000L;
    }
}

/// <summary>A channel with no socket: the session's replies are read by its owner from the session's writer; pushes go to
/// onPush (or nowhere). runsRequestLoop: the owner feeds the session as a connection's request loop does and awaits what
/// it leaves to finish later (CanFinishLater), as the in-process benchmarks do to take the server's paths.</summary>
public sealed class DetachedChannel(Action<ReadOnlyMemory<byte>>? onPush = null, bool runsRequestLoop = false) : ISessionChannel
{
    private volatile bool _closed;

    public bool CanFinishLater => runsRequestLoop;

    public IPEndPoint? RemoteEndPoint => null;
    public IPEndPoint? LocalEndPoint => null;
    public long Handle => -1;
    public long BytesIn => 0;
    public long BytesOut => 0;
    public int QueryBufferLength => 0;
    public int QueryBufferCapacity => 0;
    public bool IsClosed => _closed;
    public bool PeerHasClosed => _closed;
    public long LastActivityMs { get; } = Environment.TickCount64;
    public long PendingPushBytes => 0;

    public bool Push(ReadOnlySpan<byte> message)
    {
        if (_closed) return false;
        onPush?.Invoke(message.ToArray());
        return true;
    }

    public bool PushDeferred(ReadOnlySpan<byte> message, out bool mustSend)
    {
        mustSend = false;
        return Push(message);
    }

    public void SendPushes() { }

    public void DrainPushes(RespWriter replies) { }

    public void Close(bool force = false) => _closed = true;
}
