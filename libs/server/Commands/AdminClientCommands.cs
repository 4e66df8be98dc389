// MONITOR and the CLIENT subcommands that change how the server treats a client: REPLY, PAUSE, UNPAUSE, NO-EVICT,
// NO-TOUCH (Redis 7.2 replies and errors). The session does the work: reply muting in RespServerSession.Execute, pauses
// in Clients/ClientPause, the monitor feed in Clients/MonitorFeed, no-touch in the store functions.
using Garnet.common.Resp;
using Garnet.server.Session;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class AdminClientCommands
{
    private const string SyntaxError = "ERR syntax error";

    /// <summary>MONITOR: +OK, then every command the server runs; a second MONITOR is ignored (no reply), as Redis's.</summary>
    public static void Monitor(CommandContext s)
    {
        if (s.InExec) { s.WriteError("ERR MONITOR isn't allowed for DENY BLOCKING client"); return; }
        if (s.Client.IsMonitor) return;
        s.Client.IsMonitor = true;
        s.Server.Monitors.Add(s.Client);
        s.Writer.WriteOk();
    }

    /// <summary>RESET leaves MONITOR mode.</summary>
    public static void StopMonitoring(CommandContext s)
    {
        if (!s.Client.IsMonitor) return;
        s.Client.IsMonitor = false;
        s.Server.Monitors.Remove(s.Client);
    }

    /// <summary>CLIENT REPLY ON|OFF|SKIP (only ON replies).</summary>
    public static void Reply(CommandContext s)
    {
        if (s.ArgEquals(2, "ON"u8))
        {
            s.Client.ReplyOff = s.Client.ReplySkip = false;
            s.Writer.WriteOk();
        }
        else if (s.ArgEquals(2, "OFF"u8)) s.Client.ReplyOff = true;
        else if (s.ArgEquals(2, "SKIP"u8)) { if (!s.Client.ReplyOff) s.Client.ReplySkipNext = true; }
        else s.WriteError(SyntaxError);
    }

    /// <summary>CLIENT PAUSE timeout [WRITE|ALL].</summary>
    public static void Pause(CommandContext s)
    {
        if (s.Argc > 4) { s.WriteError($"ERR unknown subcommand or wrong number of arguments for '{s.ArgString(1)}'. Try CLIENT HELP."); return; }
        bool all = true;
        if (s.Argc == 4)
        {
            if (s.ArgEquals(3, "WRITE"u8)) all = false;
            else if (!s.ArgEquals(3, "ALL"u8)) { s.WriteError("ERR CLIENT PAUSE mode must be WRITE or ALL"); return; }
        }
        if (!RespRequestParser.TryParseLong(s.Arg(2), out long ms)) { s.WriteError("ERR timeout is not an integer or out of range"); return; }
        if (ms < 0) { s.WriteError("ERR timeout is negative"); return; }
        s.Server.Pause.Pause(Math.Min(ms, long.MaxValue / 4), all);
        s.Writer.WriteOk();
    }

    public static void Unpause(CommandContext s)
    {
        s.Server.Pause.Unpause();
        s.Writer.WriteOk();
    }

    public static void NoEvict(CommandContext s)
    {
        if (!OnOff(s, out bool on)) return;
        s.Client.NoEvict = on;
        s.Writer.WriteOk();
    }

    public static void NoTouch(CommandContext s)
    {
        if (!OnOff(s, out bool on)) return;
        s.Client.NoTouch = on;
        s.Writer.WriteOk();
    }

    private static bool OnOff(CommandContext s, out bool on)
    {
        on = s.ArgEquals(2, "ON"u8);
        if (on || s.ArgEquals(2, "OFF"u8)) return true;
        s.WriteError(SyntaxError);
        return false;
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>MONITOR.</summary>
    internal static CommandDefinition[] MonitorDeclarations()
    {
        return
        [
            new()
            {
                Name = "monitor", Arity = 1, Flags = Admin | NoScript | Loading | Stale,
                Group = "server", Since = "1.0.0", Summary = "Listens for all requests received by the server in real-time.",
                Handler = Monitor,
            },
        ];
    }

    /// <summary>CLIENT REPLY, CLIENT PAUSE, CLIENT UNPAUSE, CLIENT NO-EVICT, CLIENT NO-TOUCH.</summary>
    internal static CommandDefinition[] ClientSubcommandDeclarations()
    {
        const CommandFlags connFlags = NoScript | Loading | Stale;
        return
        [
            new()
            {
                Name = "reply", Arity = 3, Flags = connFlags, Acl = A.Connection,
                Since = "3.2.0", Summary = "Instructs the server whether to reply to commands.",
                Handler = Reply,
            },
            new()
            {
                Name = "pause", Arity = -3, Flags = Admin | connFlags, Acl = A.Connection,
                Since = "3.0.0", Summary = "Suspends commands processing.",
                Handler = Pause,
            },
            new()
            {
                Name = "unpause", Arity = 2, Flags = Admin | connFlags, Acl = A.Connection,
                Since = "6.2.0", Summary = "Resumes processing commands from paused clients.",
                Complexity = "O(N) Where N is the number of paused clients",
                Handler = Unpause,
            },
            new()
            {
                Name = "no-evict", Arity = 3, Flags = Admin | connFlags, Acl = A.Connection,
                Since = "7.0.0", Summary = "Sets the client eviction mode of the connection.",
                Handler = NoEvict,
            },
            new()
            {
                Name = "no-touch", Arity = 3, Flags = connFlags, Acl = A.Connection,
                Since = "7.2.0", Summary = "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.",
                Handler = NoTouch,
            },
        ];
    }
}
