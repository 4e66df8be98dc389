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
        if (session.Aof.Batch is { } batch) p.Materialize(session, batch);
        else if (p.Several is not null) session.Aof.RepliesWaitFor(aof.AppendTransaction(Materialized(session, p)));
        else session.Aof.RepliesWaitFor(aof.Append(session.Database, session, p.Rewrite));
    }

    // Its own method: a lambda over session in After would allocate its closure on every call, write or not.
    private static List<(int Db, byte[][] Args)> Materialized(RespServerSession session, Propagation p)
    {
        var records = new List<(int Db, byte[][] Args)>();
        p.Materialize(session, records);
        return records;
    }
}
