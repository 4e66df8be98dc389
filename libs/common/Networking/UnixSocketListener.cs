// UnixSocketListener: accepts clients on a Unix domain socket (redis.conf's unixsocket / unixsocketperm) through
// AcceptLoop, the loop TcpListenerLoop uses too.
// Invariants:
//  - A socket file left by a server that is gone (nothing accepts on it) is replaced; one that a live server accepts on is
//    not touched: the start fails with a one-line SocketException naming the path.
//  - The file gets the requested permissions (0: left as the umask made it) before clients are accepted, and is deleted
//    by Dispose.
using System.Net.Sockets;
using Microsoft.Extensions.Logging;

namespace Garnet.common.Networking;

public sealed class UnixSocketListener : IDisposable
{
    private readonly Socket _listener;
    private readonly AcceptLoop _accept;

    public UnixSocketListener(string path, int permissions, Action<Socket> onAccept, ILogger? logger, int backlog = 511)
    {
        Path = path;
        if (File.Exists(path) || Directory.Exists(path))
        {
            if (Directory.Exists(path)) throw Error(path, "bind", "the path is a directory");
            if (SomeoneListens(path)) throw Error(path, "bind", "another server is accepting connections on it");
            try { File.Delete(path); }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { throw Error(path, "unlink", ex.Message); }
        }
        _listener = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        try
        {
            try { _listener.Bind(new UnixDomainSocketEndPoint(path)); }
            catch (SocketException ex) { throw Error(path, "bind", ex.Message); }
            if (permissions != 0 && !OperatingSystem.IsWindows())
                File.SetUnixFileMode(path, (UnixFileMode)permissions);
            try { _listener.Listen(backlog); }
            catch (SocketException ex) { throw Error(path, "listen", ex.Message); }
        }
        catch
        {
            _listener.Dispose();
            TryDelete(path);
            throw;
        }
        _accept = new AcceptLoop(_listener, onAccept, logger, path);
    }

    public string Path { get; }

    private static bool SomeoneListens(string path)
    {
        using var probe = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        try { probe.Connect(new UnixDomainSocketEndPoint(path)); return true; }
        catch (SocketException) { return false; }
    }

    private static SocketException Error(string path, string call, string reason) =>
        new((int)SocketError.AddressAlreadyInUse, $"Could not create server Unix socket {path}: {call}: {reason}");

    public void Start() => _accept.Start();

    private static void TryDelete(string path)
    {
        try { File.Delete(path); } catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { }
    }

    public void Dispose()
    {
        _accept.Stop();
        TryDelete(Path);
    }
}
