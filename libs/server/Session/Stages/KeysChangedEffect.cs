// KeysChangedEffect: a write that changed its keys breaks the WATCHes on them and tells the tracking clients that may
// cache them (Redis's signalModifiedKey). A write that propagates nothing changed nothing.
using Garnet.server.Commands;

namespace Garnet.server.Session.Stages;

internal sealed class KeysChangedEffect : CommandEffect
{
    public override void After(RespServerSession session, CommandDefinition cmd)
    {
        if ((cmd.Flags & CommandFlags.Write) == 0 || session.Propagation.IsNothing || !cmd.HasStoreKeys) return;
        var server = session.Server;
        if (!server.Watches.Any && !server.Tracking.Active) return;
        var keys = cmd.KeysOf(session.Context);
        for (int i = keys.First, last = keys.LastIndex(session.Argc); i <= last; i += keys.Stride) session.KeyChanged(session.Database, session.Arg(i));
    }
}
