// ProtectedAction: Redis 7's enable-debug-command setting (no | yes | local) and the check processCommand makes with it.
// Invariants:
//  - Immutable at run time (Redis's IMMUTABLE_CONFIG): set by option or config file, read on every DEBUG call.
//  - "local" admits clients on the Unix socket, on a loopback address, and in-process sessions without a peer
//    (Redis's connIsLocal); everything else is refused with Redis's exact text (NotAllowedError).
using Garnet.common.Networking;
using Garnet.server.Clients;

namespace Garnet.server.Config;

public enum ProtectedAction { No, Yes, Local }

public static class ProtectedActions
{
    public static bool TryParse(string value, out ProtectedAction action)
    {
        switch (value.ToLowerInvariant())
        {
            case "no": action = ProtectedAction.No; return true;
            case "yes": action = ProtectedAction.Yes; return true;
            case "local": action = ProtectedAction.Local; return true;
            default: action = ProtectedAction.No; return false;
        }
    }

    public static string Name(ProtectedAction action) => action switch
    {
        ProtectedAction.Yes => "yes",
        ProtectedAction.Local => "local",
        _ => "no",
    };

    /// <summary>Redis's connIsLocal: a Unix socket, a loopback peer, or no network peer at all.</summary>
    public static bool IsLocal(ISessionChannel channel) =>
        channel.UnixSocketPath is not null || channel.RemoteEndPoint is not { } remote || ProtectedMode.IsLoopback(remote.Address);

    public static bool Allows(ProtectedAction action, ISessionChannel channel) =>
        action == ProtectedAction.Yes || (action == ProtectedAction.Local && IsLocal(channel));

    /// <summary>Redis 7's rejectCommandFormat text for DEBUG when enable-debug-command does not allow the client.</summary>
    public const string DebugNotAllowedError =
        "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a " +
        "local connection, otherwise you need to set this option in the configuration file, and then restart the server.";
}
