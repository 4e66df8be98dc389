// PropagationEffect: a write that succeeded goes to the AOF in the form its handler stated (Propagation: as sent,
// rewritten, several commands in one block, or nothing), while its keys are still locked, so that the AOF has each
// key's writes in the order they ran. Inside EXEC or a script the records join the transaction's batch instead, which
// is appended as one MULTI ... EXEC block when it ends.
using Garnet.server.Commands;
using Garnet.server.Persistence;

namespace Garnet.server.Session.Stages;

internal sealed class PropagationEffect : CommandEffect
{
    public override void After(RespServerSession session, CommandDefinition cmd)
    {
        if ((cmd.Flags & CommandFlags.Write) == 0 || session.Server.Aof is not { } aof) return;
        var p = session.Propagation;
        if (p.IsNothing) return;
        if (session.TransactionLog is { } batch) p.Materialize(session, batch);
        else if (p.Several is { } many)
            session.RepliesWaitFor(aof.AppendTransaction(many.Select(c => (session.Database, AofLog.Materialize(session, c))).ToList()));
        else session.RepliesWaitFor(aof.Append(session.Database, session, p.Rewrite));
    }
}
