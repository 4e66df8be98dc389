// RequestPath: the stages every command goes through, in this order (RespServerSession.ExecuteCore runs them):
//   1. Resolve         the name (and subcommand) in the command table, and the arity: Redis's unknown-command,
//                      unknown-subcommand and wrong-number-of-arguments errors.
//   2. Admission       Admission below, in order; the first refusal answers and the command neither queues nor runs.
//   3. Hold or queue   CLIENT PAUSE holds it; in MULTI it is queued; while another client's script runs it waits
//                      (then BUSY); keys on disk are read ahead first. Each leaves the request to run again later.
//   4. Key locks       CommandKeyLocks: the command's keys in order (an optimistic read for a read of one key).
//   5. Handler         the row's handler, with the connection's CommandContext.
//   6. Effects         Effects below, in order, for a command that succeeded, while its locks are still held.
//   7. After the locks clients blocked on a written key are woken; MONITOR is fed; pushes for this client follow.
// Adding a check (ACL, cluster slot, replica read-only, out of memory) or an effect (replicas) is one line in a list
// below and one file in this folder.
namespace Garnet.server.Session.Stages;

internal static class RequestPath
{
    /// <summary>Admission checks, in Redis's processCommand order.</summary>
    public static readonly AdmissionCheck[] Admission =
    [
        new ProtectedCommandCheck(),
        new AuthenticationCheck(),
        new MonitorKeyspaceCheck(),
        new NoMultiCheck(),
        new WritesRefusedCheck(),
        new SubscribedModeCheck(),
    ];

    /// <summary>Effects of a command that succeeded, in order.</summary>
    public static readonly CommandEffect[] Effects =
    [
        new PropagationEffect(),
        new KeysChangedEffect(),
        new TrackedReadsEffect(),
    ];
}
