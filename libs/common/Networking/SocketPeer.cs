// SocketPeer: checks on a connected socket shared by both network engines.
using System.Net.Sockets;

namespace Garnet.common.Networking;

internal static class SocketPeer
{
    /// <summary>True when the peer has closed its side, checked without reading (readable with nothing to read): for a
    /// connection whose requests are not being read now (a client blocked in a command).</summary>
    public static bool HasClosed(Socket socket)
    {
        try { return socket.Poll(0, SelectMode.SelectRead) && socket.Available == 0; }
        catch (ObjectDisposedException) { return true; }
        catch (SocketException) { return true; }
        catch (NotSupportedException) { return false; }
    }
}
