// CommandObserver: what happens after every command ran (RespServerSession.RunHandler): its figures (commandstats,
// latencystats), the slow log and the latency monitor's "command" / "fast-command" events.
// Invariants:
//  - Called once per executed command, also for commands inside EXEC and scripts, never for refused ones.
//  - The common case (not slow, latency monitor off) costs the counters' Interlocked adds and two comparisons.
//  - Arguments that carry a secret (AUTH, HELLO ... AUTH, CONFIG SET requirepass, ...: ArgumentRedaction) are logged
//    as "(redacted)", as Redis does.
using Garnet.server.Commands;
using Garnet.server.Session;

namespace Garnet.server.Metrics;

internal static class CommandObserver
{
    public static void Ran(RespServerSession s, CommandDefinition cmd, long ticks, bool failed)
    {
        var server = s.Server;
        server.CommandStats.Executed(cmd.Id, ticks, failed);
        var slow = server.SlowLog;
        int threshold = slow.ThresholdUsec, monitor = server.Latency.ThresholdMs;
        if ((threshold < 0 || ticks < threshold) && monitor == 0) return; // ticks >= µs: a quick exit before the conversion
        long usec = CommandStatistics.TicksToNs(ticks) / 1000;
        if (slow.ShouldLog(usec) && (cmd.Flags & CommandFlags.SkipSlowlog) == 0) Log(s, cmd, usec);
        server.Latency.AddIfNeeded((cmd.Flags & CommandFlags.Fast) != 0 ? "fast-command" : "command", usec / 1000);
    }

    private static void Log(RespServerSession s, CommandDefinition cmd, long usec)
    {
        s.Server.SlowLog.Add(s.Argc, i => ArgumentRedaction.IsRedacted(s, i) ? ArgumentRedaction.Redacted : s.Arg(i), usec,
            ClientCommands.FormatPeer(s.Connection, local: false), s.Name ?? "");
    }
}
