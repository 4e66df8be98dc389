// Server commands: TIME, INFO, SHUTDOWN.
using Garnet.server.Metrics;
using Garnet.server.Session;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class ServerCommands
{
    public static void Time(CommandContext s)
    {
        long micros = (DateTimeOffset.UtcNow - DateTimeOffset.UnixEpoch).Ticks / 10;
        s.Writer.WriteArrayHeader(2);
        s.Writer.WriteBulkString(micros / 1_000_000);
        s.Writer.WriteBulkString(micros % 1_000_000);
    }

    public static void Info(CommandContext s)
    {
        var sections = new List<string>();
        for (int i = 1; i < s.Argc; i++) sections.Add(s.ArgString(i));
        s.Writer.WriteVerbatimString(InfoBuilder.Build(s.Server, sections));
    }

    public static void Shutdown(CommandContext s)
    {
        bool save = false, nosave = false, abort = false, force = false;
        for (int i = 1; i < s.Argc; i++)
        {
            if (s.ArgEquals(i, "NOSAVE"u8)) nosave = true;
            else if (s.ArgEquals(i, "SAVE"u8)) save = true;
            else if (s.ArgEquals(i, "NOW"u8)) { }
            else if (s.ArgEquals(i, "FORCE"u8)) force = true;
            else if (s.ArgEquals(i, "ABORT"u8)) abort = true;
            else { s.WriteError("ERR syntax error"); return; }
        }
        if ((save && nosave) || (abort && s.Argc != 2))
        {
            s.WriteError("ERR syntax error");
            return;
        }
        if (abort)
        {
            s.WriteError("ERR No shutdown in progress.");
            return;
        }
        // Save first, so that a failure can still be answered (and the server keeps running, as Redis does unless FORCE).
        // Writes that land after this save are saved again when the server stops, after the last client has gone. The save
        // runs off this connection's thread.
        bool saving = save || (!nosave && s.Settings.SaveRules.Length > 0);
        if (!saving) { Stop(s, saving: false, force); return; }
        s.ReplyWhenDone(s.Server.Checkpoints.SaveAsync("shutdown", waitForRunning: true), (s, work) =>
        {
            if (work.IsFaulted && !force) { s.WriteError("ERR Errors trying to SHUTDOWN. Check logs."); return; }
            Stop(s, saving: true, force);
        });
    }

    private static void Stop(CommandContext s, bool saving, bool force)
    {
        s.Server.Scripts.StopForShutdown();
        s.Server.SaveOnStop = saving;
        s.Server.ForceStop = force;
        // No reply on success: the server goes away, as Redis does.
        s.Server.RequestShutdown();
        s.CloseAfterReply();
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>TIME, INFO.</summary>
    internal static CommandDefinition[] Declarations()
    {
        return
        [
            new()
            {
                Name = "time", Arity = 1, Flags = Loading | Stale | Fast,
                Group = "server", Since = "2.6.0", Summary = "Returns the server time.",
                Tips = ["nondeterministic_output"],
                Handler = Time,
            },
            new()
            {
                Name = "info", Arity = -1, Flags = Loading | Stale | Sentinel, Acl = A.Dangerous,
                Group = "server", Summary = "Returns information and statistics about the server.",
                Tips = ["nondeterministic_output", "request_policy:all_shards", "response_policy:special"],
                Handler = Info,
            },
        ];
    }

    /// <summary>SHUTDOWN: apart from Declarations() because the table lists it after the persistence commands.</summary>
    internal static CommandDefinition[] ShutdownDeclarations()
    {
        return
        [
            new()
            {
                Name = "shutdown", Arity = -1, Flags = Admin | NoScript | Loading | Stale | NoMulti | Sentinel | AllowBusy,
                Group = "server", Summary = "Synchronously saves the database(s) to disk and shuts down the Redis server.",
                Complexity = "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)",
                Handler = Shutdown,
            },
        ];
    }
}
