// CONFIG GET / SET / RESETSTAT / REWRITE / HELP.
using Garnet.server.Config;
using Garnet.server.Metrics;
using Garnet.server.Session;
using Garnet.server.Util;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class ConfigCommands
{
    public static void Get(CommandContext s)
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

    /// <summary>
    /// CONFIG SET name value [name value ...], all or nothing, as Redis 7.2's configSetCommand: first every name is checked
    /// (the first unknown, immutable or repeated one is reported), then the values are
    /// checked in order (the first bad one is reported), and only then applied; a change that fails while being applied
    /// (e.g. appendonly yes on a failing disk) undoes the ones applied before it.
    /// </summary>
    public static void Set(CommandContext s)
    {
        if ((s.Argc - 2) % 2 != 0)
        {
            s.WriteError("ERR syntax error"); // as Redis: a name without a value
            return;
        }
        var chosen = new List<(ConfigParameter p, string arg, string value)>();
        string? unknown = null, failedArg = null, error = null;
        for (int i = 2; i < s.Argc; i += 2)
        {
            string name = s.ArgString(i);
            var p = ConfigParameters.Find(name);
            if (p is null) { unknown = name; break; }
            if (p.Prepare is null) { failedArg = name; error = "can't set immutable config"; break; }
            if (chosen.Any(c => c.p == p)) { failedArg = name; error = "duplicate parameter"; break; }
            chosen.Add((p, name, s.ArgString(i + 1)));
        }
        if (unknown is not null) { s.WriteError($"ERR Unknown option or number of arguments for CONFIG SET - '{unknown}'"); return; }
        if (failedArg is not null) { s.WriteError($"ERR CONFIG SET failed (possibly related to argument '{failedArg}') - {error}"); return; }
        var changes = new List<(ConfigParameter p, Action apply)>();
        foreach (var (p, arg, value) in chosen)
        {
            var (apply, err) = p.Prepare!(s.Server, value);
            if (apply is null) { s.WriteError($"ERR CONFIG SET failed (possibly related to argument '{arg}') - {err}"); return; }
            changes.Add((p, apply));
        }
        var undo = new List<Action>();
        foreach (var (p, apply) in changes)
        {
            string old = p.Get(s.Server);
            try { apply(); }
            catch (Exception ex)
            {
                for (int i = undo.Count - 1; i >= 0; i--)
                {
                    try { undo[i](); } catch { /* best effort, as Redis's restoreBackupConfig */ }
                }
                s.WriteError($"ERR CONFIG SET failed (possibly related to argument '{p.Name}') - {ex.GetBaseException().Message}");
                return;
            }
            if (p.Prepare!(s.Server, old).apply is { } restore) undo.Add(restore);
        }
        s.Writer.WriteOk();
    }

    public static void ResetStat(CommandContext s)
    {
        s.Server.Stats.Reset(s.Server.Store.ExpiredKeys);
        s.Server.CommandStats.Reset();
        s.Writer.WriteOk();
    }

    /// <summary>CONFIG REWRITE: the file the server was started with gets the run-time parameters' values now (Config/ConfigRewrite).</summary>
    public static void Rewrite(CommandContext s)
    {
        if (s.Settings.ConfigFile is null) { s.WriteError("ERR The server is running without a config file"); return; }
        if (ConfigRewrite.Rewrite(s.Server, s.Settings.ConfigFile) is { } error)
        {
            s.WriteError(error);
            return;
        }
        s.Writer.WriteOk();
    }

    public static void Help(CommandContext s) => HelpText.Write(s, "CONFIG",
    [
        "GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
        "SET <directive> <value>", "    Set the configuration <directive> to <value>.",
        "RESETSTAT", "    Reset statistics reported by the INFO command.",
        "REWRITE", "    Rewrite the configuration file.",
    ]);

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>CONFIG.</summary>
    internal static CommandDefinition[] Declarations()
    {
        const CommandFlags connFlags = NoScript | Loading | Stale;
        return
        [
            new()
            {
                Name = "config", Arity = -2, Acl = A.Slow,
                Group = "server", Since = "2.0.0", Summary = "A container for server configuration commands.",
                Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new()
                    {
                        Name = "get", Arity = -3, Flags = Admin | connFlags,
                        Since = "2.0.0", Summary = "Returns the effective values of configuration parameters.",
                        Complexity = "O(N) when N is the number of configuration parameters provided",
                        Handler = Get,
                    },
                    new()
                    {
                        Name = "set", Arity = -4, Flags = Admin | connFlags,
                        Since = "2.0.0", Summary = "Sets configuration parameters in-flight.",
                        Complexity = "O(N) when N is the number of configuration parameters provided",
                        Tips = ["request_policy:all_nodes", "response_policy:all_succeeded"],
                        Redacts = SetSecrets, Handler = Set,
                    },
                    new()
                    {
                        Name = "rewrite", Arity = 2, Flags = Admin | NoScript | Loading | Stale,
                        Since = "2.8.0", Summary = "Persists the effective configuration to file.",
                        Tips = ["request_policy:all_nodes", "response_policy:all_succeeded"],
                        Handler = Rewrite,
                    },
                    new()
                    {
                        Name = "resetstat", Arity = 2, Flags = Admin | connFlags,
                        Since = "2.0.0", Summary = "Resets the server's statistics.",
                        Tips = ["request_policy:all_nodes", "response_policy:all_succeeded"],
                        Handler = ResetStat,
                    },
                    new()
                    {
                        Name = "help", Arity = 2, Flags = Loading | Stale,
                        Since = "5.0.0", Summary = "Returns helpful text about the different subcommands.",
                        Handler = Help,
                    },
                ],
            },
        ];
    }

    /// <summary>CONFIG SET parameters whose value is a secret (Redis's SENSITIVE_CONFIG).</summary>
    private static readonly byte[][] s_sensitiveConfigs =
        ["REQUIREPASS"u8.ToArray(), "MASTERAUTH"u8.ToArray(), "MASTERUSER"u8.ToArray(), "TLS-KEY-FILE-PASS"u8.ToArray(),
         "TLS-CLIENT-KEY-FILE-PASS"u8.ToArray()];

    /// <summary>CONFIG SET's secrets: the value after a sensitive parameter, every pair checked (even when the command fails).</summary>
    private static bool SetSecrets(int argc, ArgumentRedaction.ArgReader arg, int i)
    {
        if (i < 3 || (i - 3) % 2 != 0) return false;
        var param = arg(i - 1);
        foreach (var p in s_sensitiveConfigs)
            if (System.Text.Ascii.EqualsIgnoreCase(param, p)) return true;
        return false;
    }
}
