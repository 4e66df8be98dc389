// AcceptLoop: the accept-and-hand-off loop over one listening Socket, shared by TcpListenerLoop and UnixSocketListener.
// Invariants:
//  - The callback must not block; it starts the connection's own loop and returns. A callback that throws disposes the
//    client socket and the loop goes on.
//  - A failed accept (EMFILE, ...) is logged and retried after 10 ms; disposing the listening socket (Stop) ends the loop.
//  - TCP clients get TCP_NODELAY before the hand-off (Unix sockets have no such option).
using System.Net.Sockets;
using Microsoft.Extensions.Logging;

namespace Garnet.common.Networking;

internal sealed class AcceptLoop(Socket listener, Action<Socket> onAccept, ILogger? logger, string name)
{
    private Task? _loop;
    private volatile bool _stopped;

    public void Start() => _loop = Task.Run(RunAsync);

    private async Task RunAsync()
    {
        bool tcp = listener.ProtocolType == ProtocolType.Tcp;
        while (!_stopped)
        {
            Socket client;
            try { client = await listener.AcceptAsync().ConfigureAwait(false); }
            catch (ObjectDisposedException) { return; }
            catch (SocketException ex)
            {
                if (_stopped) return;
                logger?.LogWarning("Accept on {Listener} failed: {Error}", name, ex.SocketErrorCode);
                await Task.Delay(10).ConfigureAwait(false);
                continue;
            }
            catch (Exception ex)
            {
                // Anything else must not end the accept loop: the server would stop taking clients.
                if (_stopped) return;
                logger?.LogError(ex, "Accept on {Listener} failed", name);
                await Task.Delay(10).ConfigureAwait(false);
                continue;
            }
            try
            {
                Garnet.common.Util.FaultPoints.Hit("accept"); // test seam
                if (tcp) client.NoDelay = true;
                onAccept(client);
            }
            catch (Exception ex)
            {
                logger?.LogError(ex, "Failed to start a client connection");
                client.Dispose();
            }
        }
    }

    /// <summary>Closes the listening socket and waits (5 s at most) for the loop to end.</summary>
    public void Stop()
    {
        _stopped = true;
        listener.Dispose();
        try { _loop?.Wait(TimeSpan.FromSeconds(5)); } catch { }
    }
}
