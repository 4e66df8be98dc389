// AuthenticationCheck: while a password is required, a connection that has not authenticated may run only the
// commands flagged NoAuth (AUTH, HELLO, QUIT, ...): NOAUTH otherwise.
using Garnet.server.Commands;

namespace Garnet.server.Session.Stages;

internal sealed class AuthenticationCheck : AdmissionCheck
{
    public override bool Admit(RespServerSession session, CommandDefinition cmd)
    {
        if (session.Authenticated || (cmd.Flags & CommandFlags.NoAuth) != 0 || !session.Settings.PasswordRequired) return true;
        session.WriteError("NOAUTH Authentication required.");
        return false;
    }
}
