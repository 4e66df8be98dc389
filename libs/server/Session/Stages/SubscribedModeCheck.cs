// SubscribedModeCheck: a RESP2 client with a subscription may run only the pub/sub commands, PING, QUIT and RESET
// (PubSubCommands.AllowedWhileSubscribed); RESP3 clients may run anything.
using Garnet.server.Commands;

namespace Garnet.server.Session.Stages;

internal sealed class SubscribedModeCheck : AdmissionCheck
{
    public override bool Admit(RespServerSession session, CommandDefinition cmd)
    {
        if (!session.IsSubscribed || session.Protocol != 2 || PubSubCommands.AllowedWhileSubscribed(cmd)) return true;
        PubSubCommands.RefuseWhileSubscribed(session.Context, cmd);
        return false;
    }
}
