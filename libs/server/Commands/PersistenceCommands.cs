// Persistence commands: SAVE, BGSAVE, LASTSAVE (checkpoints are Persistence/Checkpointer's).
using Garnet.server.Session;

namespace Garnet.server.Commands;

public static class PersistenceCommands
{
    public static void Save(RespServerSession s)
    {
        var checkpoints = s.Server.Checkpoints;
        bool ran;
        try { ran = checkpoints.SaveAsync("SAVE").GetAwaiter().GetResult(); }
        catch (Exception) { s.WriteError("ERR"); return; } // the reason is in the log, as with Redis
        if (!ran) { s.WriteError("ERR Background save already in progress"); return; }
        s.Writer.WriteOk();
    }

    public static void BgSave(RespServerSession s)
    {
        bool schedule = false;
        if (s.Argc > 1)
        {
            if (s.Argc == 2 && s.ArgEquals(1, "SCHEDULE"u8)) schedule = true;
            else { s.WriteError("ERR syntax error"); return; }
        }
        var checkpoints = s.Server.Checkpoints;
        if (checkpoints.TryStartBackground("BGSAVE")) { s.Writer.WriteSimpleString("Background saving started"); return; }
        // As Redis: a save in progress is an error even with SCHEDULE; a rewrite in progress (BGREWRITEAOF) can be waited for.
        if (!schedule || checkpoints.CurrentReason != "BGREWRITEAOF") { s.WriteError("ERR Background save already in progress"); return; }
        checkpoints.ScheduleAfterCurrent("BGSAVE SCHEDULE");
        s.Writer.WriteSimpleString("Background saving scheduled");
    }

    /// <summary>BGREWRITEAOF: a checkpoint, which starts a new AOF file and drops the files it covers.</summary>
    public static void BgRewriteAof(RespServerSession s)
    {
        var checkpoints = s.Server.Checkpoints;
        if (checkpoints.TryStartBackground("BGREWRITEAOF")) { s.Writer.WriteSimpleString("Background append only file rewriting started"); return; }
        if (checkpoints.CurrentReason == "BGREWRITEAOF") { s.WriteError("ERR Background append only file rewriting already in progress"); return; }
        checkpoints.ScheduleAfterCurrent("BGREWRITEAOF");
        s.Writer.WriteSimpleString("Background append only file rewriting scheduled");
    }

    /// <summary>COMPACT (our extension): compacts the oldest on-disk part of the log now; replies with the bytes of log reclaimed.</summary>
    public static void Compact(RespServerSession s)
    {
        var result = s.Server.Store.Compaction.RunAsync().GetAwaiter().GetResult();
        s.Writer.WriteInteger(result.BytesReclaimed);
    }

    public static void LastSave(RespServerSession s) => s.Writer.WriteInteger(s.Server.Checkpoints.LastSaveUnixSeconds);
}
