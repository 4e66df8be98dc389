// TcpListenerLoop: accepts TCP clients on one endpoint and hands each socket to a callback (AcceptLoop).
// Invariants:
//  - The callback must not block; it starts the connection's own loop and returns.
//  - One listener per address and port: only SO_REUSEADDR is set (a restart binds while old connections sit in
//    TIME_WAIT), never SO_REUSEPORT, so a second server on a port in use fails to bind instead of sharing it.
//  - A bind or listen failure is a SocketException (same SocketErrorCode) whose message is one line naming the
//    address, as Redis prints it: "Could not create server TCP listening socket 127.0.0.1:6379: bind: Address already in use".
using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;

namespace Garnet.common.Networking;

public sealed class TcpListenerLoop : IDisposable
{
    private readonly Socket _listener;
    private readonly AcceptLoop _accept;

    public TcpListenerLoop(IPEndPoint endPoint, Action<Socket> onAccept, ILogger? logger, int backlog = 511)
    {
        _listener = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        if (endPoint.AddressFamily == AddressFamily.InterNetworkV6)
            _listener.DualMode = false; // IPv6 only, as Redis does, so "* ::*" binds both families
        try
        {
            SetReuseAddressOnly(_listener);
            try { _listener.Bind(endPoint); }
            catch (SocketException ex) { throw ListenError(endPoint, "bind", ex); }
            try { _listener.Listen(backlog); }
            catch (SocketException ex) { throw ListenError(endPoint, "listen", ex); }
        }
        catch
        {
            _listener.Dispose();
            throw;
        }
        LocalEndPoint = (IPEndPoint)_listener.LocalEndPoint!;
        _accept = new AcceptLoop(_listener, onAccept, logger, LocalEndPoint.ToString());
    }

    public IPEndPoint LocalEndPoint { get; }

    /// <summary>
    /// SO_REUSEADDR without SO_REUSEPORT. .NET's SocketOptionName.ReuseAddress sets both on Unix, and SO_REUSEPORT lets a
    /// second process listen on the same port (the kernel then splits connections between them), so the raw option is set.
    /// Windows: nothing (its SO_REUSEADDR lets another socket take over a port in use).
    /// (.NET's Bind also sets SO_REUSEADDR on Unix TCP sockets by itself, as strace shows; setting it here states the intent.)
    /// </summary>
    private static void SetReuseAddressOnly(Socket socket)
    {
        Span<byte> on = stackalloc byte[sizeof(int)];
        BitConverter.TryWriteBytes(on, 1);
        if (OperatingSystem.IsLinux()) socket.SetRawSocketOption(1 /* SOL_SOCKET */, 2 /* SO_REUSEADDR */, on);
        else if (OperatingSystem.IsMacOS() || OperatingSystem.IsFreeBSD()) socket.SetRawSocketOption(0xffff /* SOL_SOCKET */, 4 /* SO_REUSEADDR */, on);
    }

    private static SocketException ListenError(IPEndPoint endPoint, string call, SocketException ex) =>
        new((int)ex.SocketErrorCode, $"Could not create server TCP listening socket {endPoint}: {call}: {ex.Message}");

    public void Start() => _accept.Start();

    public void Dispose() => _accept.Stop();
}
