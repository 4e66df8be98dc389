// PropagationEffect: a write that succeeded goes to the AOF in the form its handler stated (Propagation: as sent,
// rewritten, several commands in one block, or nothing), while its keys are still locked, so that the AOF has each
// key's writes in the order they ran. Inside EXEC or a script the records join the transaction's batch instead, which
// is appended as one MULTI ... EXEC block when it ends.
using Garnet.server.Commands;

namespace Garnet.server.Session.Stages;

internal sealed class PropagationEffect : CommandEffect
{
    public override void After(RespServerSession session, CommandDefinition cmd)
    {
        if ((cmd.Flags & CommandFlags.Write) == 0 || session.Server.Aof is null) return;
        var p = session.Propagation;
        if (p.IsNothing) return;
        if (session.Aof.Batch is { } batch) p.Materialize(session, batch);
        else if (p.Several is { } several) session.Aof.AppendMany(several);
        else session.Aof.Append(p.Rewrite);
    }
}
