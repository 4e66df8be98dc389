// FunctionCommands: FUNCTION LOAD / LIST / DELETE / FLUSH / DUMP / RESTORE / STATS / KILL / HELP and FCALL, FCALL_RO,
// with Redis 7.2's replies and errors.
// Invariants: LOAD, DELETE, FLUSH and RESTORE are keyless writes, so they run holding every key stripe and are logged
// to the AOF as sent (replayed at start); checkpoints carry the libraries as RDB function records (FunctionRecords).
// DUMP/RESTORE payloads are Redis's: RDB_OPCODE_FUNCTION2 (245) + the code as an RDB string, per library, then the
// RDB version (2 bytes LE) and CRC64 (8 bytes LE).
using System.Buffers;
using System.Buffers.Binary;
using System.Text;
using Garnet.server.Commands;
using Garnet.server.Persistence;
using Garnet.server.Session;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Scripting;

public static class FunctionCommands
{
    public const byte OpcodeFunction2 = 245, OpcodeFunctionPreGa = 246;

    public static void Load(CommandContext s)
    {
        bool replace = false;
        int i = 2;
        for (; i < s.Argc - 1; i++)
        {
            if (s.ArgEquals(i, "REPLACE"u8)) replace = true;
            else { s.WriteError("ERR Unknown option given: " + s.ArgString(i)); return; }
        }
        if (i >= s.Argc) { s.WriteError("ERR Function code is missing"); return; }
        var runner = s.Server.Scripts;
        string? name, error;
        lock (runner.Gate) name = FunctionLibraries.Load(runner, s.Arg(s.Argc - 1).ToArray(), replace, out error);
        if (name is null) { s.WriteError("ERR " + error); return; }
        s.Writer.WriteBulkString(name);
    }

    public static void Delete(CommandContext s)
    {
        var runner = s.Server.Scripts;
        lock (runner.Gate)
        {
            var lib = runner.Libraries.Find(s.ArgString(2));
            if (lib is null) { s.WriteError("ERR Library not found"); return; }
            runner.Libraries.Remove(lib, runner.FunctionRuntime);
        }
        s.Writer.WriteOk();
    }

    public static void Flush(CommandContext s)
    {
        if (s.Argc > 3 || (s.Argc == 3 && !s.ArgEquals(2, "ASYNC"u8) && !s.ArgEquals(2, "SYNC"u8)))
        {
            s.WriteError("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
            return;
        }
        var runner = s.Server.Scripts;
        lock (runner.Gate) runner.ResetFunctions();
        s.Writer.WriteOk();
    }

    public static void List(CommandContext s)
    {
        string? pattern = null;
        bool withCode = false;
        for (int i = 2; i < s.Argc; i++)
        {
            if (s.ArgEquals(i, "WITHCODE"u8) && !withCode) withCode = true;
            else if (s.ArgEquals(i, "LIBRARYNAME"u8) && pattern is null)
            {
                if (i + 1 >= s.Argc) { s.WriteError("ERR library name argument was not given"); return; }
                pattern = s.ArgString(++i);
            }
            else { s.WriteError("ERR Unknown argument " + s.ArgString(i)); return; }
        }
        var runner = s.Server.Scripts;
        var w = s.Writer;
        lock (runner.Gate)
        {
            var libs = runner.Libraries.All.Where(l => pattern is null || Util.GlobPattern.Matches(Encoding.UTF8.GetBytes(pattern), Encoding.UTF8.GetBytes(l.Name), ignoreCase: false)).ToList();
            w.WriteArrayHeader(libs.Count);
            foreach (var lib in libs)
            {
                w.WriteMapHeader(withCode ? 4 : 3);
                w.WriteBulkString("library_name");
                w.WriteBulkString(lib.Name);
                w.WriteBulkString("engine");
                w.WriteBulkString("LUA");
                w.WriteBulkString("functions");
                w.WriteArrayHeader(lib.Functions.Count);
                foreach (var f in lib.Functions.OrderBy(f => f.Name, StringComparer.Ordinal))
                {
                    w.WriteMapHeader(3);
                    w.WriteBulkString("name");
                    w.WriteBulkString(f.Name);
                    w.WriteBulkString("description");
                    if (f.Description is null) w.WriteNull();
                    else w.WriteBulkString(f.Description);
                    w.WriteBulkString("flags");
                    w.WriteSetHeader(f.Flags.Length);
                    foreach (var fl in f.Flags) w.WriteBulkString(fl);
                }
                if (withCode)
                {
                    w.WriteBulkString("library_code");
                    w.WriteBulkString(lib.Code);
                }
            }
        }
    }

    public static void Dump(CommandContext s)
    {
        var runner = s.Server.Scripts;
        byte[] payload;
        lock (runner.Gate) payload = DumpPayload(runner.Libraries);
        s.Writer.WriteBulkString(payload);
    }

    internal static byte[] DumpPayload(FunctionLibraries libs)
    {
        var b = new ArrayBufferWriter<byte>();
        WriteRecords(b, libs);
        return Storage.DumpFormat.Finish(b);
    }

    /// <summary>One RDB_OPCODE_FUNCTION2 record per library (the RDB file and DUMP payloads share this form).</summary>
    internal static void WriteRecords(IBufferWriter<byte> b, FunctionLibraries libs)
    {
        foreach (var lib in libs.All)
        {
            b.Write([OpcodeFunction2]);
            RdbEncoding.WriteString(b, lib.Code);
        }
    }

    public static void Restore(CommandContext s)
    {
        string policy = "APPEND";
        if (s.Argc > 4) { s.WriteError("ERR syntax error"); return; }
        if (s.Argc == 4)
        {
            policy = s.ArgString(3).ToUpperInvariant();
            if (policy is not ("APPEND" or "REPLACE" or "FLUSH"))
            {
                s.WriteError("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
                return;
            }
        }
        var payload = s.Arg(2);
        if (payload.Length < 10 || (payload[^10] | (payload[^9] << 8)) > Storage.DumpFormat.MaxReadVersion
            || RdbEncoding.Crc64(0, payload[..^8]) != BinaryPrimitives.ReadUInt64LittleEndian(payload[^8..]))
        {
            s.WriteError("ERR DUMP payload version or checksum are wrong");
            return;
        }
        var body = payload[..^10];
        var codes = new List<byte[]>();
        int at = 0;
        while (at < body.Length)
        {
            byte op = body[at++];
            if (op == OpcodeFunctionPreGa) { s.WriteError("ERR Pre-GA function format not supported"); return; }
            if (op != OpcodeFunction2) { s.WriteError("ERR given type is not a function"); return; }
            var code = RdbEncoding.ReadString(body, ref at);
            if (code is null) { s.WriteError("ERR can not read data type"); return; }
            codes.Add(code);
        }
        var runner = s.Server.Scripts;
        lock (runner.Gate)
        {
            // Checked first so that a refused restore changes nothing.
            if (policy == "APPEND")
                foreach (var code in codes)
                {
                    ScriptCache.ParseShebang(code, library: true, out _, out string? n, out _);
                    if (n is not null && runner.Libraries.Find(n) is not null) { s.WriteError($"ERR Library {n} already exists"); return; }
                }
            if (policy == "FLUSH") runner.ResetFunctions();
            foreach (var code in codes)
            {
                if (FunctionLibraries.Load(runner, code, replace: policy != "APPEND", out string? error) is null)
                {
                    s.WriteError("ERR " + error);
                    return;
                }
            }
        }
        s.Writer.WriteOk();
    }

    public static void Stats(CommandContext s)
    {
        var runner = s.Server.Scripts;
        var w = s.Writer;
        w.WriteMapHeader(2);
        w.WriteBulkString("running_script");
        var run = runner.Running;
        if (run is null || run.IsEval) w.WriteNull();
        else
        {
            w.WriteMapHeader(3);
            w.WriteBulkString("name");
            w.WriteBulkString(run.Name);
            w.WriteBulkString("command");
            w.WriteArrayHeader(1);
            w.WriteBulkString("fcall");
            w.WriteBulkString("duration_ms");
            w.WriteInteger(Environment.TickCount64 - run.StartMs);
        }
        w.WriteBulkString("engines");
        w.WriteMapHeader(1);
        w.WriteBulkString("LUA");
        w.WriteMapHeader(2);
        w.WriteBulkString("libraries_count");
        w.WriteInteger(runner.Libraries.LibraryCount);
        w.WriteBulkString("functions_count");
        w.WriteInteger(runner.Libraries.FunctionCount);
    }

    public static void Kill(CommandContext s) => s.Server.Scripts.Kill(s.Client, isEval: false);

    public static void FCall(CommandContext s) => FCallGeneric(s, ro: false);
    public static void FCallRo(CommandContext s) => FCallGeneric(s, ro: true);

    private static void FCallGeneric(CommandContext s, bool ro)
    {
        var ka = ScriptCommands.KeysAndArgs(s, 2);
        if (ka is null) return;
        var runner = s.Server.Scripts;
        string name = s.ArgString(1);
        runner.Run(s.Client, () => runner.FunctionRuntime, rt =>
        {
            var f = runner.Libraries.FindFunction(name);
            if (f is null) { s.WriteError("ERR Function not found"); return null; }
            if (ro && !f.NoWrites) { s.WriteError("ERR Can not execute a script with write flag using *_ro command."); return null; }
            return (f.Ref, new ScriptRun(s.Client, isEval: false, readOnly: ro || f.NoWrites, f.Name));
        }, ka.Value, passAsArguments: true);
    }

    public static void Help(CommandContext s) => HelpText.Write(s, "FUNCTION",
    [
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
        "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
        "      libraries with the new libraries (notice that even on this option there is a chance of failure",
        "      in case of functions name collision with another library).",
    ]);

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    // Keys are declared by numkeys (movable), as EVAL's; a function locks every key.
    /// <summary>FCALL, FCALL_RO.</summary>
    internal static CommandDefinition[] FCallDeclarations()
    {
        const CommandFlags evalFlags = NoScript | SkipMonitor | MayReplicate | NoMandatoryKeys | Stale | MovableKeys;
        return
        [
            new()
            {
                Name = "fcall", Arity = -3, Flags = evalFlags, Acl = A.Scripting, KeyNumIndex = 2,
                Group = "scripting", Since = "7.0.0", Summary = "Invokes a function.",
                Complexity = "Depends on the function that is executed.",
                RunsScript = true, Handler = FCall,
            },
            new()
            {
                Name = "fcall_ro", Arity = -3, Flags = NoScript | SkipMonitor | NoMandatoryKeys | Stale | ReadOnly | MovableKeys, Acl = A.Scripting,
                KeyNumIndex = 2,
                Group = "scripting", Since = "7.0.0", Summary = "Invokes a read-only function.",
                Complexity = "Depends on the function that is executed.",
                RunsScript = true, Handler = FCallRo,
            },
        ];
    }

    /// <summary>FUNCTION: apart from FCallDeclarations() because the table lists SCRIPT between them.</summary>
    internal static CommandDefinition[] FunctionDeclarations()
    {
        return
        [
            new()
            {
                Name = "function", Arity = -2,
                Group = "scripting", Since = "7.0.0", Summary = "A container for function commands.",
                Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new()
                    {
                        Name = "load", Arity = -3, Flags = Write | DenyOom | NoScript, Acl = A.Scripting,
                        Since = "7.0.0", Summary = "Creates a library.",
                        Complexity = "O(1) (considering compilation time is redundant)",
                        Handler = Load,
                    },
                    new()
                    {
                        Name = "delete", Arity = 3, Flags = Write | NoScript, Acl = A.Scripting,
                        Since = "7.0.0", Summary = "Deletes a library and its functions.",
                        Handler = Delete,
                    },
                    new()
                    {
                        Name = "flush", Arity = -2, Flags = Write | NoScript, Acl = A.Scripting,
                        Since = "7.0.0", Summary = "Deletes all libraries and functions.",
                        Complexity = "O(N) where N is the number of functions deleted",
                        Handler = Flush,
                    },
                    new()
                    {
                        Name = "restore", Arity = -3, Flags = Write | DenyOom | NoScript, Acl = A.Scripting,
                        Since = "7.0.0", Summary = "Restores all libraries from a payload.",
                        Complexity = "O(N) where N is the number of functions on the payload",
                        Handler = Restore,
                    },
                    new()
                    {
                        Name = "dump", Arity = 2, Flags = NoScript, Acl = A.Scripting,
                        Since = "7.0.0", Summary = "Dumps all libraries into a serialized binary payload.",
                        Complexity = "O(N) where N is the number of functions",
                        Handler = Dump,
                    },
                    new()
                    {
                        Name = "list", Arity = -2, Flags = NoScript, Acl = A.Scripting,
                        Since = "7.0.0", Summary = "Returns information about all libraries.",
                        Complexity = "O(N) where N is the number of functions",
                        Tips = ["nondeterministic_output_order"],
                        Handler = List,
                    },
                    new()
                    {
                        Name = "stats", Arity = 2, Flags = NoScript | AllowBusy, Acl = A.Scripting,
                        Since = "7.0.0", Summary = "Returns information about a function during execution.",
                        Tips = ["nondeterministic_output"],
                        Handler = Stats,
                    },
                    new()
                    {
                        Name = "kill", Arity = 2, Flags = NoScript | AllowBusy, Acl = A.Scripting,
                        Since = "7.0.0", Summary = "Terminates a function during execution.",
                        Handler = Kill,
                    },
                    new()
                    {
                        Name = "help", Arity = 2, Flags = Loading | Stale, Acl = A.Scripting,
                        Since = "7.0.0", Summary = "Returns helpful text about the different subcommands.",
                        Handler = Help,
                    },
                ],
            },
        ];
    }
}
