// TestPorts: loopback ports for the servers tests start on an explicit port (a child process, redis-server, a metrics
// listener). A port the kernel hands out for port 0 and that the test then frees lies in the ephemeral range, where any
// socket's connect (another test's client, in this process or a parallel test assembly) may take it as its local port
// before the server binds it: a rare "address already in use". These ports come from below the ephemeral range
// instead, which no connect takes.
// Invariants: a process hands each port out at most once per pass over the range, starting at an offset of its own so
// parallel test assemblies walk different parts of it; a port is handed out only if a listener could bind it just
// before. Where the ephemeral range leaves no room below it, the kernel's port 0 is the fallback (the old behaviour).
using System.Net;
using System.Net.Sockets;

namespace Garnet.test.shared;

internal static class TestPorts
{
    private const int Low = 20000;
    private static readonly int s_high = EphemeralLow() - 1; // the last port below the ephemeral range
    private static int s_next = Random.Shared.Next(0, 1 << 20);

    /// <summary>A loopback port that is free now and outside the ephemeral range.</summary>
    public static int Free()
    {
        int span = s_high - Low + 1;
        if (span >= 1000)
        {
            for (int attempt = 0; attempt < span; attempt++)
            {
                int port = Low + (int)((uint)Interlocked.Increment(ref s_next) % (uint)span);
                if (CanBind(port)) return port;
            }
        }
        var l = new TcpListener(IPAddress.Loopback, 0);
        l.Start();
        int any = ((IPEndPoint)l.LocalEndpoint).Port;
        l.Stop();
        return any;
    }

    private static bool CanBind(int port)
    {
        try
        {
            using var s = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            s.Bind(new IPEndPoint(IPAddress.Loopback, port));
            s.Listen(1);
            return true;
        }
        catch (SocketException) { return false; }
    }

    // The low end of the kernel's ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range; elsewhere 49152, the
    // IANA range's start, as Windows and macOS use).
    private static int EphemeralLow()
    {
        try
        {
            var first = File.ReadAllText("/proc/sys/net/ipv4/ip_local_port_range").Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries)[0];
            return int.Parse(first);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException or IndexOutOfRangeException)
        {
            return 49152;
        }
    }
}
