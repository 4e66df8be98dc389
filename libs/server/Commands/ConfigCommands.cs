// CONFIG GET / SET / RESETSTAT / REWRITE / HELP.
using Garnet.server.Config;
using Garnet.server.Session;
using Garnet.server.Util;

namespace Garnet.server.Commands;

public static class ConfigCommands
{
    public static void Get(RespServerSession s)
    {
        var found = new List<ConfigParameter>();
        for (int i = 2; i < s.Argc; i++)
        {
            string pattern = s.ArgString(i);
            foreach (var p in ConfigParameters.All)
                if (!found.Contains(p) && GlobPattern.Matches(pattern, p.Name, ignoreCase: true)) found.Add(p);
        }
        s.Writer.WriteMapHeader(found.Count);
        foreach (var p in found)
        {
            s.Writer.WriteBulkString(p.Name);
            s.Writer.WriteBulkString(p.Get(s.Server));
        }
    }

    public static void Set(RespServerSession s)
    {
        if ((s.Argc - 2) % 2 != 0)
        {
            s.WriteError("ERR syntax error"); // as Redis: a name without a value
            return;
        }
        var seen = new List<ConfigParameter>();
        var changes = new List<Action>();
        string? unknown = null, failedArg = null, error = null;
        for (int i = 2; i < s.Argc; i += 2)
        {
            string name = s.ArgString(i);
            var p = ConfigParameters.Find(name);
            if (p is null) { unknown ??= name; continue; }
            if (seen.Contains(p)) { failedArg ??= name; error ??= "duplicate parameter"; continue; }
            seen.Add(p);
            if (p.Prepare is null) { failedArg ??= name; error ??= "can't set immutable config"; continue; }
            var (apply, err) = p.Prepare(s.Server, s.ArgString(i + 1));
            if (apply is null) { failedArg ??= p.Name; error ??= err; continue; }
            changes.Add(apply);
        }
        if (unknown is not null) { s.WriteError($"ERR Unknown option or number of arguments for CONFIG SET - '{unknown}'"); return; }
        if (failedArg is not null) { s.WriteError($"ERR CONFIG SET failed (possibly related to argument '{failedArg}') - {error}"); return; }
        foreach (var c in changes) c();
        s.Writer.WriteOk();
    }

    public static void ResetStat(RespServerSession s)
    {
        s.Server.Stats.Reset(s.Server.Store.ExpiredKeys);
        s.Server.CommandStats.Reset();
        s.Writer.WriteOk();
    }

    /// <summary>CONFIG REWRITE: the changes made with CONFIG SET are not written back to a file (see docs/configuration.md).</summary>
    public static void Rewrite(RespServerSession s)
    {
        if (s.Settings.ConfigFile is null) { s.WriteError("ERR The server is running without a config file"); return; }
        s.WriteError("ERR Rewriting config file: not supported by this server (CONFIG SET changes last until restart)");
    }

    public static void Help(RespServerSession s) => HelpText.Write(s, "CONFIG",
    [
        "GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
        "SET <directive> <value>", "    Set the configuration <directive> to <value>.",
        "RESETSTAT", "    Reset statistics reported by the INFO command.",
        "REWRITE", "    Rewrite the configuration file.",
    ]);
}
