// AuthFailureBound: how many wrong passwords one connection may try (auth-max-failures). Redis has no such count; its
// bound on a guessing client is only the output buffer of an unauthenticated client (a pipelined flood is closed once
// replies pile up), so a client that reads its replies can try thousands of passwords a second there.
// Invariants:
//  - Every failed AUTH and HELLO ... AUTH counts (ConnectionCommands.TryAuthenticate); a success does not reset the count
//    (a client that knows the password has no reason to keep failing).
//  - At the bound the failure's own WRONGPASS reply is sent, then the connection closes: requests pipelined behind it
//    are not run. 0 turns the bound off. The setting is read at each failure, so CONFIG SET applies to open connections.
using Garnet.server.Session;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Commands;

internal static class AuthFailureBound
{
    public static void Failed(CommandContext s)
    {
        int failures = ++s.Client.AuthFailures;
        int max = s.Settings.AuthMaxFailures;
        if (max <= 0 || failures < max) return;
        s.CloseAfterReply();
        s.Server.LoggerFactory.CreateLogger("Garnet.Auth").LogWarning(
            "Client {Address} closed after {Failures} failed authentication attempts (auth-max-failures {Max})",
            ClientCommands.FormatPeer(s.Client.Connection, local: false), failures, max);
    }
}
