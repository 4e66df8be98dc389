// TrackedReadsEffect: with CLIENT TRACKING on (default mode, or OPTIN after CLIENT CACHING yes), the keys a read
// command read are remembered, so that a later change of them sends this client an invalidation.
using Garnet.server.Commands;

namespace Garnet.server.Session.Stages;

internal sealed class TrackedReadsEffect : CommandEffect
{
    public override void After(RespServerSession session, CommandDefinition cmd)
    {
        if (session.TrackingIfAny is not { RemembersReads: true } || (cmd.Flags & CommandFlags.Write) != 0
            || (cmd.Flags & CommandFlags.ReadOnly) == 0 || !cmd.HasStoreKeys) return;
        var keys = cmd.KeysOf(session.Context);
        for (int i = keys.First, last = keys.LastIndex(session.Argc); i <= last; i += keys.Stride) session.Server.Tracking.Remember(session, session.Arg(i));
    }
}
