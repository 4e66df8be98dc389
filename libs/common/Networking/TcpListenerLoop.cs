// TcpListenerLoop: accepts TCP clients on one endpoint and hands each socket to a callback.
// Invariant: the callback must not block; it starts the connection's own loop and returns.
using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;

namespace Garnet.common.Networking;

public sealed class TcpListenerLoop : IDisposable
{
    private readonly Socket _listener;
    private readonly Action<Socket> _onAccept;
    private readonly ILogger? _logger;
    private Task? _loop;
    private volatile bool _stopped;

    public TcpListenerLoop(IPEndPoint endPoint, Action<Socket> onAccept, ILogger? logger, int backlog = 511)
    {
        _onAccept = onAccept;
        _logger = logger;
        _listener = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        if (endPoint.AddressFamily == AddressFamily.InterNetworkV6)
            _listener.DualMode = false; // IPv6 only, as Redis does, so "* ::*" binds both families
        try
        {
            _listener.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
            _listener.Bind(endPoint);
            _listener.Listen(backlog);
        }
        catch
        {
            _listener.Dispose();
            throw;
        }
        LocalEndPoint = (IPEndPoint)_listener.LocalEndPoint!;
    }

    public IPEndPoint LocalEndPoint { get; }

    public void Start() => _loop = Task.Run(AcceptLoopAsync);

    private async Task AcceptLoopAsync()
    {
        while (!_stopped)
        {
            Socket client;
            try
            {
                client = await _listener.AcceptAsync().ConfigureAwait(false);
            }
            catch (ObjectDisposedException) { return; }
            catch (SocketException ex)
            {
                if (_stopped) return;
                _logger?.LogWarning("Accept failed: {Error}", ex.SocketErrorCode);
                await Task.Delay(10).ConfigureAwait(false);
                continue;
            }
            try
            {
                client.NoDelay = true;
                _onAccept(client);
            }
            catch (Exception ex)
            {
                _logger?.LogError(ex, "Failed to start a client connection");
                client.Dispose();
            }
        }
    }

    public void Dispose()
    {
        _stopped = true;
        _listener.Dispose();
        try { _loop?.Wait(TimeSpan.FromSeconds(5)); } catch { }
    }
}
