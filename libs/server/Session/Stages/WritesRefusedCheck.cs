// WritesRefusedCheck: Redis's MISCONF. While data cannot be persisted (the AOF or the log device failing, the disk guard
// refusing, or a failed checkpoint under save rules with stop-writes-on-bgsave-error), writes are refused and reads go
// on; writes resume by themselves once persisting works again.
using Garnet.server.Commands;

namespace Garnet.server.Session.Stages;

internal sealed class WritesRefusedCheck : AdmissionCheck
{
    public override bool Admit(RespServerSession session, CommandDefinition cmd)
    {
        if ((cmd.Flags & CommandFlags.Write) == 0 || RefusalNow(session.Server) is not { } refusal) return true;
        session.WriteError(refusal);
        return false;
    }

    /// <summary>Why writes are refused now, or null when they are accepted.</summary>
    public static string? RefusalNow(RespServer server)
    {
        if (server.Aof is { LastWriteOk: false }) return "MISCONF Errors writing to the AOF file: see the server log";
        if (server.Store.Store.Log.DeviceFailing)
            return "MISCONF Errors writing to the log device (disk full or failing): writes are refused until it can be written again; see the server log";
        if (server.Store.DiskGuard.Refusing) return server.Store.DiskGuard.Refusal();
        // stop-writes-on-bgsave-error: with save rules, a failed checkpoint refuses writes until one succeeds (retried every 5 s).
        if (server.Checkpoints.Rules.Count > 0 && !server.Checkpoints.LastSaveOk)
            return "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.";
        return null;
    }
}
