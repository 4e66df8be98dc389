// SLOWLOG GET [count] / LEN / RESET / HELP (Metrics/SlowLog), with Redis 7.2's replies and errors.
using Garnet.server.Session;

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
}
