// MetricsEndpoint: --metrics-port, a minimal HTTP/1.1 server on the bind addresses that answers GET /metrics with the
// Prometheus text format (PrometheusExporter); any other path is 404, any other method 405. One request per connection.
// Invariants:
//  - Binds like the RESP listeners (TcpListenerLoop: one-line bind errors, no SO_REUSEPORT); a failure fails Start.
//  - A scrape never holds a command's thread: it runs on the thread pool and reads counters only.
//  - A request is read up to 8 KB and 5 s; slower or larger ones are dropped.
using System.Net;
using System.Net.Sockets;
using System.Text;
using Garnet.common.Networking;

namespace Garnet.server.Metrics;

public sealed class MetricsEndpoint : IDisposable
{
    private readonly List<TcpListenerLoop> _listeners = new();
    private readonly PrometheusExporter _exporter;
    private readonly SemaphoreSlim _scrapes = new(4, 4);

    public MetricsEndpoint(RespServer server, int port)
    {
        _exporter = server.Prometheus;
        try
        {
            foreach (var address in server.Settings.Bind)
            {
                var ip = address switch
                {
                    "*" => IPAddress.Any,
                    "-::*" or "::*" => IPAddress.IPv6Any,
                    _ => IPAddress.Parse(address.TrimStart('-')),
                };
                try { _listeners.Add(new TcpListenerLoop(new IPEndPoint(ip, _listeners.Count > 0 ? _listeners[0].LocalEndPoint.Port : port), OnAccept, null)); }
                catch (SocketException) when (address.StartsWith('-')) { }
            }
        }
        catch
        {
            Dispose();
            throw;
        }
        Port = _listeners.Count > 0 ? _listeners[0].LocalEndPoint.Port : 0;
    }

    public int Port { get; }

    public void Start()
    {
        foreach (var l in _listeners) l.Start();
    }

    private void OnAccept(Socket socket) => _ = ServeAsync(socket);

    private async Task ServeAsync(Socket socket)
    {
        using var _ = socket;
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(5));
        try
        {
            var buffer = new byte[8192];
            int n = 0;
            while (true)
            {
                int got = await socket.ReceiveAsync(buffer.AsMemory(n), SocketFlags.None, timeout.Token).ConfigureAwait(false);
                if (got == 0) return;
                n += got;
                if (buffer.AsSpan(0, n).IndexOf("\r\n\r\n"u8) >= 0 || buffer.AsSpan(0, n).IndexOf("\n\n"u8) >= 0) break;
                if (n == buffer.Length) { await ReplyAsync(socket, 431, "Request Header Fields Too Large", null, timeout.Token); return; }
            }
            var line = Encoding.ASCII.GetString(buffer, 0, buffer.AsSpan(0, n).IndexOf((byte)'\n')).TrimEnd('\r').Split(' ');
            if (line.Length < 2) { await ReplyAsync(socket, 400, "Bad Request", null, timeout.Token); return; }
            string path = line[1].Split('?')[0];
            if (line[0] != "GET" && line[0] != "HEAD") { await ReplyAsync(socket, 405, "Method Not Allowed", null, timeout.Token); return; }
            if (path != "/metrics" && path != "/metrics/") { await ReplyAsync(socket, 404, "Not Found", null, timeout.Token); return; }
            await _scrapes.WaitAsync(timeout.Token).ConfigureAwait(false);
            try
            {
                using var body = new MemoryStream();
                await _exporter.WriteAsync(body, timeout.Token).ConfigureAwait(false);
                await ReplyAsync(socket, 200, "OK", line[0] == "HEAD" ? [] : body.ToArray(), timeout.Token, body.Length).ConfigureAwait(false);
            }
            finally { _scrapes.Release(); }
        }
        catch (Exception ex) when (ex is SocketException or OperationCanceledException or IOException or ObjectDisposedException) { }
    }

    private static async Task ReplyAsync(Socket socket, int status, string reason, byte[]? body, CancellationToken cancel, long? length = null)
    {
        body ??= Encoding.ASCII.GetBytes(reason + "\n");
        var head = Encoding.ASCII.GetBytes(
            $"HTTP/1.1 {status} {reason}\r\nContent-Type: {(status == 200 ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain")}\r\n" +
            $"Content-Length: {length ?? body.Length}\r\nConnection: close\r\n\r\n");
        await socket.SendAsync(head, SocketFlags.None, cancel).ConfigureAwait(false);
        if (body.Length > 0) await socket.SendAsync(body, SocketFlags.None, cancel).ConfigureAwait(false);
        socket.Shutdown(SocketShutdown.Send);
    }

    public void Dispose()
    {
        foreach (var l in _listeners) l.Dispose();
        _listeners.Clear();
    }
}
