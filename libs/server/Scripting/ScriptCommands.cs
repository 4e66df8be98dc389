// ScriptCommands: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT LOAD / EXISTS / FLUSH / KILL / HELP, with Redis 7.2's
// replies and error texts. The run itself is ScriptRunner.Run (one unit under every key lock, one AOF block).
// Invariant: a script's SHA is the SHA1 of its whole body (shebang included), lower-case; EVALSHA accepts any case.
using System.Globalization;
using Garnet.server.Commands;
using Garnet.server.Session;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Scripting;

/// <summary>A script call's keys and arguments: NumKeys keys of the request from KeysAt, then the arguments to the end.</summary>
internal readonly record struct ScriptArgs(int KeysAt, int NumKeys);

public static class ScriptCommands
{
    public static void Eval(CommandContext s) => EvalGeneric(s, sha: false, ro: false);
    public static void EvalSha(CommandContext s) => EvalGeneric(s, sha: true, ro: false);
    public static void EvalRo(CommandContext s) => EvalGeneric(s, sha: false, ro: true);
    public static void EvalShaRo(CommandContext s) => EvalGeneric(s, sha: true, ro: true);

    /// <summary>Reads "numkeys key... arg..." starting at index first; null after writing the error.</summary>
    internal static ScriptArgs? KeysAndArgs(CommandContext s, int first)
    {
        if (!long.TryParse(s.Arg(first), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long numkeys))
        {
            s.WriteError("ERR value is not an integer or out of range");
            return null;
        }
        if (numkeys > s.Argc - first - 1) { s.WriteError("ERR Number of keys can't be greater than number of args"); return null; }
        if (numkeys < 0) { s.WriteError("ERR Number of keys can't be negative"); return null; }
        return new ScriptArgs(first + 1, (int)numkeys);
    }

    private static void EvalGeneric(CommandContext s, bool sha, bool ro)
    {
        var ka = KeysAndArgs(s, 2);
        if (ka is null) return;
        var runner = s.Server.Scripts;
        byte[]? body = sha ? null : s.Arg(1).ToArray();
        string hash;
        if (!sha) hash = ScriptCache.Sha1Hex(body);
        else
        {
            // the stored string when known (no allocation); the cache is looked up again under the gate
            if (!runner.Cache.TryGet(s.Arg(1), out hash, out _)) hash = s.ArgString(1).ToLowerInvariant();
        }
        runner.Run(s.Client, () => runner.EvalRuntime, rt =>
        {
            var entry = Lookup(s, runner, rt, hash, body);
            if (entry is null) return null;
            var flags = entry.Flags;
            if (ro && (flags & (ScriptFlags.Compat | ScriptFlags.NoWrites)) == 0)
            {
                s.WriteError("ERR Can not execute a script with write flag using *_ro command.");
                return null;
            }
            return (entry.Ref!.Value, new ScriptRun(s.Client, isEval: true, readOnly: ro || (flags & ScriptFlags.NoWrites) != 0, hash));
        }, ka.Value, passAsArguments: false);
    }

    /// <summary>The cached script (compiled in rt), compiling body when it is new; null after writing the error.</summary>
    private static ScriptCache.Entry? Lookup(CommandContext s, ScriptRunner runner, LuaRuntime rt, string hash, byte[]? body)
    {
        if (runner.Cache.TryGet(hash, out var entry) && entry.Ref is not null) return entry;
        if (entry is null && body is null)
        {
            s.WriteError("NOSCRIPT No matching script. Please use EVAL.");
            return null;
        }
        body ??= entry!.Body;
        return Compile(s, runner, rt, hash, body);
    }

    private static ScriptCache.Entry? Compile(CommandContext s, ScriptRunner runner, LuaRuntime rt, string hash, byte[] body)
    {
        var flags = ScriptCache.ParseShebang(body, library: false, out int shebang, out _, out string? error);
        if (flags is null) { s.WriteError("ERR " + error); return null; }
        int? reference = rt.Compile(ScriptCache.Compilable(body, shebang), "@user_script", out error);
        if (reference is null) { s.WriteError("ERR Error compiling script (new function): " + error); return null; }
        if (!runner.Cache.TryGet(hash, out var entry))
        {
            entry = new ScriptCache.Entry { Body = body, Flags = flags.Value };
            runner.Cache.Add(hash, entry);
        }
        entry.Ref = reference;
        return entry;
    }

    public static void Load(CommandContext s)
    {
        var runner = s.Server.Scripts;
        var body = s.Arg(2).ToArray();
        string hash = ScriptCache.Sha1Hex(body);
        lock (runner.Gate)
        {
            if (!(runner.Cache.TryGet(hash, out var e) && e.Ref is not null) && Compile(s, runner, runner.EvalRuntime, hash, body) is null) return;
        }
        s.Writer.WriteBulkString(hash);
    }

    public static void Exists(CommandContext s)
    {
        var runner = s.Server.Scripts;
        s.Writer.WriteArrayHeader(s.Argc - 2);
        lock (runner.Gate)
            for (int i = 2; i < s.Argc; i++) s.Writer.WriteInteger(runner.Cache.TryGet(s.ArgString(i).ToLowerInvariant(), out _) ? 1 : 0);
    }

    public static void Flush(CommandContext s)
    {
        if (s.Argc > 3 || (s.Argc == 3 && !s.ArgEquals(2, "ASYNC"u8) && !s.ArgEquals(2, "SYNC"u8)))
        {
            s.WriteError("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
            return;
        }
        s.Server.Scripts.FlushScripts();
        s.Writer.WriteOk();
    }

    public static void Kill(CommandContext s) => s.Server.Scripts.Kill(s.Client, isEval: true);

    public static void Help(CommandContext s) => HelpText.Write(s, "SCRIPT",
    [
        "EVAL <script> <numkeys> [<key> [<key> ...]] [<arg> [<arg> ...]]",
        "    Execute a Lua script.",
        "EVALSHA <sha1> <numkeys> [<key> [<key> ...]] [<arg> [<arg> ...]]",
        "    Execute a Lua script by its SHA1 digest.",
        "EVAL_RO, EVALSHA_RO",
        "    The read-only forms of EVAL and EVALSHA.",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
    ]);

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    // Keys are declared by numkeys (movable); a script locks every key.
    /// <summary>EVAL, EVALSHA, EVAL_RO, EVALSHA_RO.</summary>
    internal static CommandDefinition[] EvalDeclarations()
    {
        const CommandFlags evalFlags = NoScript | SkipMonitor | MayReplicate | NoMandatoryKeys | Stale | MovableKeys;
        return
        [
            new()
            {
                Name = "eval", Arity = -3, Flags = evalFlags, Acl = A.Scripting, KeyNumIndex = 2,
                Group = "scripting", Since = "2.6.0", Summary = "Executes a server-side Lua script.",
                Complexity = "Depends on the script that is executed.",
                RunsScript = true, Handler = Eval,
            },
            new()
            {
                Name = "evalsha", Arity = -3, Flags = evalFlags, Acl = A.Scripting, KeyNumIndex = 2,
                Group = "scripting", Since = "2.6.0", Summary = "Executes a server-side Lua script by SHA1 digest.",
                Complexity = "Depends on the script that is executed.",
                RunsScript = true, Handler = EvalSha,
            },
            new()
            {
                Name = "eval_ro", Arity = -3, Flags = NoScript | SkipMonitor | NoMandatoryKeys | Stale | ReadOnly | MovableKeys, Acl = A.Scripting,
                KeyNumIndex = 2,
                Group = "scripting", Since = "7.0.0", Summary = "Executes a read-only server-side Lua script.",
                Complexity = "Depends on the script that is executed.",
                RunsScript = true, Handler = EvalRo,
            },
            new()
            {
                Name = "evalsha_ro", Arity = -3, Flags = NoScript | SkipMonitor | NoMandatoryKeys | Stale | ReadOnly | MovableKeys, Acl = A.Scripting,
                KeyNumIndex = 2,
                Group = "scripting", Since = "7.0.0", Summary = "Executes a read-only server-side Lua script by SHA1 digest.",
                Complexity = "Depends on the script that is executed.",
                RunsScript = true, Handler = EvalShaRo,
            },
        ];
    }

    /// <summary>SCRIPT: apart from EvalDeclarations() because the table lists FCALL and FCALL_RO between them.</summary>
    internal static CommandDefinition[] ScriptDeclarations()
    {
        return
        [
            new()
            {
                Name = "script", Arity = -2,
                Group = "scripting", Since = "2.6.0", Summary = "A container for Lua scripts management commands.",
                Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new()
                    {
                        Name = "load", Arity = 3, Flags = NoScript | Stale, Acl = A.Scripting,
                        Since = "2.6.0", Summary = "Loads a server-side Lua script to the script cache.",
                        Complexity = "O(N) with N being the length in bytes of the script body.",
                        Handler = Load,
                    },
                    new()
                    {
                        Name = "exists", Arity = -3, Flags = NoScript, Acl = A.Scripting,
                        Since = "2.6.0", Summary = "Determines whether server-side Lua scripts exist in the script cache.",
                        Complexity = "O(N) with N being the number of scripts to check (so checking a single script is an O(1) operation).",
                        Handler = Exists,
                    },
                    new()
                    {
                        Name = "flush", Arity = -2, Flags = NoScript, Acl = A.Scripting,
                        Since = "2.6.0", Summary = "Removes all server-side Lua scripts from the script cache.",
                        Complexity = "O(N) with N being the number of scripts in cache",
                        Handler = Flush,
                    },
                    new()
                    {
                        Name = "kill", Arity = 2, Flags = NoScript | AllowBusy, Acl = A.Scripting,
                        Since = "2.6.0", Summary = "Terminates a server-side Lua script during execution.",
                        Handler = Kill,
                    },
                    new()
                    {
                        Name = "help", Arity = 2, Flags = Loading | Stale, Acl = A.Scripting,
                        Since = "5.0.0", Summary = "Returns helpful text about the different subcommands.",
                        Handler = Help,
                    },
                ],
            },
        ];
    }
}
