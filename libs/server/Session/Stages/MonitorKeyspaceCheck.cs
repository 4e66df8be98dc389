// MonitorKeyspaceCheck: as in Redis, a client in MONITOR mode is a replica to the server, and replicas may not touch
// the keyspace (reads, writes or commands that may replicate).
using Garnet.server.Commands;

namespace Garnet.server.Session.Stages;

internal sealed class MonitorKeyspaceCheck : AdmissionCheck
{
    public override bool Admit(RespServerSession session, CommandDefinition cmd)
    {
        if (!session.IsMonitor || (cmd.Flags & (CommandFlags.Write | CommandFlags.ReadOnly | CommandFlags.MayReplicate)) == 0) return true;
        session.WriteError("ERR Replica can't interact with the keyspace");
        return false;
    }
}
