// Persistence commands: SAVE, BGSAVE, LASTSAVE (checkpoints are Persistence/Checkpointer's).
using Garnet.server.Session;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

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

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>SAVE, BGSAVE, BGREWRITEAOF, COMPACT, LASTSAVE.</summary>
    internal static CommandDefinition[] Declarations()
    {
        return
        [
            new()
            {
                Name = "save", Arity = 1, Flags = Admin | NoScript | NoAsyncLoading | NoMulti,
                Group = "server", Summary = "Synchronously saves the database(s) to disk.",
                Complexity = "O(N) where N is the total number of keys in all databases",
                Handler = Save,
            },
            new()
            {
                Name = "bgsave", Arity = -1, Flags = Admin | NoScript | NoAsyncLoading,
                Group = "server", Summary = "Asynchronously saves the database(s) to disk.",
                Complexity = "O(1)",
                Handler = BgSave,
            },
            new()
            {
                Name = "bgrewriteaof", Arity = 1, Flags = Admin | NoScript | NoAsyncLoading,
                Group = "server", Summary = "Asynchronously rewrites the append-only file to disk.",
                Complexity = "O(1)",
                Handler = BgRewriteAof,
            },
            new()
            {
                Name = "compact", Arity = 1, Flags = Admin | NoScript | NoMulti,
                Group = "server", Since = "0.1.0",
                Summary = "Compacts the oldest on-disk part of the log now (this server's extension; it also runs every --compaction-interval " +
                    "seconds).",
                Complexity = "O(N) where N is the number of records in the compacted segments",
                Handler = Compact,
            },
            new()
            {
                Name = "lastsave", Arity = 1, Flags = Loading | Stale | Fast, Acl = A.Admin | A.Dangerous,
                Group = "server", Summary = "Returns the Unix timestamp of the last successful save to disk.",
                Tips = ["nondeterministic_output"],
                Handler = LastSave,
            },
        ];
    }
}
