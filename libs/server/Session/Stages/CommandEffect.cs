// CommandEffect: what follows a command that succeeded (no error reply), while its key locks are still held: a write is
// propagated, WATCHes on its keys break, tracking clients are told. RequestPath lists them in their order.
// Invariants: an effect runs on the connection's thread with the command's arguments still valid; it writes nothing to
// the reply (what it publishes to this client goes after the reply).
using Garnet.server.Commands;

namespace Garnet.server.Session.Stages;

internal abstract class CommandEffect
{
    public abstract void After(RespServerSession session, CommandDefinition cmd);
}
