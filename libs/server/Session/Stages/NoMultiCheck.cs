// NoMultiCheck: commands flagged NoMulti (WATCH, SUBSCRIBE, MONITOR, ...) are refused while MULTI queues.
using Garnet.server.Commands;

namespace Garnet.server.Session.Stages;

internal sealed class NoMultiCheck : AdmissionCheck
{
    public override bool Admit(RespServerSession session, CommandDefinition cmd)
    {
        if ((cmd.Flags & CommandFlags.NoMulti) == 0 || session.TransactionIfAny is not { InMulti: true }) return true;
        session.WriteError("ERR Command not allowed inside a transaction");
        return false;
    }
}
