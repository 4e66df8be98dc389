// LoopLikeChannel: a socketless channel that, like the epoll connection, runs the session's request loop
// (CanFinishLater), so an in-process session takes the path the server takes for its clients: plain reads
// (RespServerSession's plain-read path) and disk reads that finish later. Pushes are dropped (benchmarks use none).
using System.Net;
using Garnet.common.Networking;
using Garnet.common.Resp;

namespace BDN.benchmark.Server;

public sealed class LoopLikeChannel : ISessionChannel
{
    private volatile bool _closed;

    public bool CanFinishLater => true;
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

    public bool Push(ReadOnlySpan<byte> message) => !_closed;

    public bool PushDeferred(ReadOnlySpan<byte> message, out bool mustSend)
    {
        mustSend = false;
        return !_closed;
    }

    public void SendPushes() { }

    public void DrainPushes(RespWriter replies) { }

    public void Close(bool force = false) => _closed = true;
}
