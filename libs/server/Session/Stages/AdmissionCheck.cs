// AdmissionCheck: one check a resolved command passes before it is queued (MULTI) or run: refusing, it writes Redis's
// error and the command neither runs nor queues (in MULTI the EXEC then fails). RequestPath lists them in their order.
// Invariants: a check reads connection and server state only; it changes nothing but the reply (and the counters that
// WriteError keeps).
using Garnet.server.Commands;

namespace Garnet.server.Session.Stages;

internal abstract class AdmissionCheck
{
    /// <summary>True when cmd may run now; otherwise writes why not (through session.WriteError) and returns false.</summary>
    public abstract bool Admit(RespServerSession session, CommandDefinition cmd);
}
