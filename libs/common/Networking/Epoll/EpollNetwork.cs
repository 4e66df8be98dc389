// EpollNetwork: the epoll network engine's loops; a new connection goes to the loop that serves the fewest.
// Invariants: the loops live as long as the server object (a server that failed to stop serves on with the same loops);
// Dispose stops them after the server has closed its clients, and closes whatever is still open.
using System.Net.Sockets;
using Garnet.common.Resp;
using Microsoft.Extensions.Logging;

namespace Garnet.common.Networking.Epoll;

public sealed class EpollNetwork : IDisposable
{
    private readonly EpollLoop[] _loops;

    /// <summary>Starts threads loops (at least 1). Linux only (EpollNative.IsSupported). loopIo: makes each loop's own
    /// I/O (ILoopIo: the store's disk reads through a ring of the loop's), or returns null for none.</summary>
    public EpollNetwork(int threads, ILogger? logger, Func<ILoopIo?>? loopIo = null)
    {
        if (!EpollNative.IsSupported) throw new PlatformNotSupportedException("the epoll network engine needs Linux");
        _loops = new EpollLoop[Math.Max(1, threads)];
        for (int i = 0; i < _loops.Length; i++) _loops[i] = new EpollLoop(i, logger, loopIo?.Invoke());
    }

    public static bool IsSupported => EpollNative.IsSupported;

    public int Threads => _loops.Length;

    /// <summary>A connection for an accepted socket, on the least busy loop; Start it with its session.</summary>
    public EpollConnection Accept(Socket socket, RespLimits limits, ILogger? logger, string? unixSocketPath)
    {
        var loop = _loops[0];
        for (int i = 1; i < _loops.Length; i++)
            if (_loops[i].Connections < loop.Connections) loop = _loops[i];
        return new EpollConnection(socket, loop, limits, logger) { UnixSocketPath = unixSocketPath };
    }

    public void Dispose()
    {
        foreach (var loop in _loops) loop.Dispose();
    }
}
