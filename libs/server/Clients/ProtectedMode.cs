// ProtectedMode: Redis's protected mode. While it is on and the default user has no password, only clients from the
// loopback interface are served; any other client is sent DeniedReply and closed (and counted as a rejected
// connection). The decision is a pure function of the settings and the client's address, so it is tested alone.
// Invariants:
//  - Loopback means 127.0.0.0/8 or ::1 (an IPv4-mapped IPv6 address counts as its IPv4 address); an unknown address
//    (null) is not loopback, so it is denied while protected mode applies.
//  - Settings are read at each accept: CONFIG SET protected-mode / requirepass take effect for the next connection.
using System.Net;
using System.Text;

namespace Garnet.server.Clients;

public static class ProtectedMode
{
    /// <summary>Redis 7.2's reply to a refused client (networking.c), sent as is before the connection is closed.</summary>
    public const string DeniedText =
        "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. " +
        "In this mode connections are only accepted from the loopback interface. " +
        "If you want to connect from external computers to Redis you may adopt one of the following solutions: " +
        "1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface " +
        "by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible " +
        "from internet if you do so. Use CONFIG REWRITE to make this change permanent. " +
        "2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected " +
        "mode option to 'no', and then restarting the server. " +
        "3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. " +
        "4) Set up an authentication password for the default user. " +
        "NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n";

    public static readonly byte[] DeniedReply = Encoding.ASCII.GetBytes(DeniedText);

    /// <summary>True when a client connecting from remote may be served.</summary>
    public static bool Allows(bool protectedMode, bool passwordRequired, IPAddress? remote) =>
        !protectedMode || passwordRequired || IsLoopback(remote);

    public static bool Allows(ServerSettings settings, IPAddress? remote) =>
        Allows(settings.ProtectedMode, settings.PasswordRequired, remote);

    public static bool IsLoopback(IPAddress? address)
    {
        if (address is null) return false;
        if (address.IsIPv4MappedToIPv6) address = address.MapToIPv4();
        return IPAddress.IsLoopback(address);
    }

    /// <summary>True for a bind address other than a loopback one (a wildcard counts: it includes external interfaces).</summary>
    public static bool IsExternalBind(string bind)
    {
        var a = bind.TrimStart('-');
        if (a is "*" or "::*") return true;
        return !IPAddress.TryParse(a, out var ip) || !IsLoopback(ip);
    }

    /// <summary>The warning to log at start when the server is reachable from outside with no protection, else null.</summary>
    public static string? StartupWarning(ServerSettings settings)
    {
        if (settings.ProtectedMode || settings.PasswordRequired) return null;
        var external = settings.Bind.Where(IsExternalBind).ToList();
        if (external.Count == 0) return null;
        return $"WARNING: protected mode is off and no password is set, and the server listens on {string.Join(' ', external)}: " +
               "any client that can reach it can read and change all data. Set --requirepass, or bind only loopback addresses.";
    }
}
