// SLOWLOG GET [count] / LEN / RESET / HELP (Metrics/SlowLog), with Redis 7.2's replies and errors.
using Garnet.server.Session;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class SlowLogCommands
{
    public static void Get(CommandContext s)
    {
        long count = 10;
        if (s.Argc == 3)
        {
            if (!long.TryParse(s.ArgString(2), System.Globalization.NumberStyles.AllowLeadingSign, System.Globalization.CultureInfo.InvariantCulture, out count))
            { s.WriteError("ERR value is not an integer or out of range"); return; }
            if (count < -1) { s.WriteError("ERR count should be greater than or equal to -1"); return; }
        }
        else if (s.Argc > 3) { s.WriteError($"ERR unknown subcommand or wrong number of arguments for '{s.ArgString(1)}'. Try SLOWLOG HELP."); return; }
        var entries = s.Server.SlowLog.Newest(count);
        var w = s.Writer;
        w.WriteArrayHeader(entries.Count);
        foreach (var e in entries)
        {
            w.WriteArrayHeader(6);
            w.WriteInteger(e.Id);
            w.WriteInteger(e.UnixSeconds);
            w.WriteInteger(e.DurationUsec);
            w.WriteArrayHeader(e.Args.Length);
            foreach (var a in e.Args) w.WriteBulkString(a);
            w.WriteBulkString(e.ClientAddress);
            w.WriteBulkString(e.ClientName);
        }
    }

    public static void Len(CommandContext s) => s.Writer.WriteInteger(s.Server.SlowLog.Count);

    public static void Reset(CommandContext s)
    {
        s.Server.SlowLog.Reset();
        s.Writer.WriteOk();
    }

    public static void Help(CommandContext s) => HelpText.Write(s, "SLOWLOG",
    [
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
    ]);

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>SLOWLOG.</summary>
    internal static CommandDefinition[] Declarations()
    {
        return
        [
            new()
            {
                Name = "slowlog", Arity = -2, Acl = A.Slow,
                Group = "server", Since = "2.2.12", Summary = "A container for slow log commands.",
                Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new()
                    {
                        Name = "get", Arity = -2, Flags = Admin | Loading | Stale,
                        Since = "2.2.12", Summary = "Returns the slow log's entries.",
                        Complexity = "O(N) where N is the number of entries returned",
                        Tips = ["request_policy:all_nodes", "nondeterministic_output"],
                        Handler = Get,
                    },
                    new()
                    {
                        Name = "len", Arity = 2, Flags = Admin | Loading | Stale,
                        Since = "2.2.12", Summary = "Returns the number of entries in the slow log.",
                        Tips = ["request_policy:all_nodes", "response_policy:agg_sum", "nondeterministic_output"],
                        Handler = Len,
                    },
                    new()
                    {
                        Name = "reset", Arity = 2, Flags = Admin | Loading | Stale,
                        Since = "2.2.12", Summary = "Clears all entries from the slow log.",
                        Complexity = "O(N) where N is the number of entries in the slowlog",
                        Tips = ["request_policy:all_nodes", "response_policy:all_succeeded"],
                        Handler = Reset,
                    },
                    new()
                    {
                        Name = "help", Arity = 2, Flags = Loading | Stale,
                        Since = "6.2.0", Summary = "Show helpful text about the different subcommands",
                        Handler = Help,
                    },
                ],
            },
        ];
    }
}
