// Persistence commands: SAVE, BGSAVE, LASTSAVE (checkpoints are Persistence/Checkpointer's).
using Garnet.server.Session;

namespace Garnet.server.Commands;

public static class PersistenceCommands
{
    /// <summary>SAVE: the checkpoint runs off the connection's thread; the reply comes when it is durable.</summary>
    public static void Save(CommandContext s) =>
        s.ReplyWhenDone(s.Server.Checkpoints.SaveAsync("SAVE"), static (s, work) =>
        {
            if (work.IsFaulted) s.WriteError("ERR"); // the reason is in the log, as with Redis
            else if (!((Task<bool>)work).Result) s.WriteError("ERR Background save already in progress");
            else s.Writer.WriteOk();
        });

    public static void BgSave(CommandContext s)
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
    public static void BgRewriteAof(CommandContext s)
    {
        var checkpoints = s.Server.Checkpoints;
        if (checkpoints.TryStartBackground("BGREWRITEAOF")) { s.Writer.WriteSimpleString("Background append only file rewriting started"); return; }
        if (checkpoints.CurrentReason == "BGREWRITEAOF") { s.WriteError("ERR Background append only file rewriting already in progress"); return; }
        checkpoints.ScheduleAfterCurrent("BGREWRITEAOF");
        s.Writer.WriteSimpleString("Background append only file rewriting scheduled");
    }

    /// <summary>COMPACT (our extension): compacts the oldest on-disk part of the log now (or joins the run in progress);
    /// replies with the bytes of log reclaimed. The run does not hold the connection's thread.</summary>
    public static void Compact(CommandContext s) =>
        s.ReplyWhenDone(s.Server.Store.Compaction.RunAsync(), static (s, work) =>
        {
            if (work.IsFaulted) s.WriteError("ERR compaction failed: " + work.Exception!.InnerException!.Message);
            else if (work.IsCanceled) s.WriteError("ERR compaction was cancelled (the server is shutting down)");
            else s.Writer.WriteInteger(((Task<Storage.CompactionResult>)work).Result.BytesReclaimed);
        });

    public static void LastSave(CommandContext s) => s.Writer.WriteInteger(s.Server.Checkpoints.LastSaveUnixSeconds);
}
