// ProtectedCommandCheck: DEBUG (and the other Protected rows) only as enable-debug-command allows: from any client,
// from local clients, or never. As Redis's processCommand, it comes right after the arity check, before NOAUTH.
using Garnet.server.Commands;

namespace Garnet.server.Session.Stages;

internal sealed class ProtectedCommandCheck : AdmissionCheck
{
    public override bool Admit(RespServerSession session, CommandDefinition cmd)
    {
        if ((cmd.Flags & CommandFlags.Protected) == 0
            || Config.ProtectedActions.Allows(session.Settings.EnableDebugCommand, session.Connection)) return true;
        session.WriteError(Config.ProtectedActions.DebugNotAllowedError);
        return false;
    }
}
