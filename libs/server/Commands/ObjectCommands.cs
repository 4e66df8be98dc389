// ObjectCommands: OBJECT ENCODING|FREQ|REFCOUNT|HELP and MEMORY USAGE.
// ENCODING follows Redis's rules for how it would store the current value (int, embstr, raw); it does not remember
// how the value was made (Redis turns an APPENDed short string into raw, we report embstr). REFCOUNT is Redis's
// answer for a string (INT_MAX for the shared integers 0..9999, else 1). FREQ answers as Redis does without an LFU
// policy (we have none). IDLETIME is the seconds since the key's last access: the engine keeps it per record (set by
// writes; reads mark it unless they only look, as TTL, EXISTS, TYPE, OBJECT and MEMORY USAGE do in Redis).
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class ObjectCommands
{
    /// <summary>Reads key's figures; OBJECT counts it as a key lookup (INFO keyspace_hits/misses), MEMORY USAGE does not (as Redis).</summary>
    private static bool Lookup(CommandContext s, ReadOnlySpan<byte> key, bool countLookup = true)
    {
        var input = new StringInput { Op = StringOp.Usage };
        bool found = s.Storage.Read(key, ref input).IsFound();
        if (countLookup) s.CountKeyLookup(found);
        return found;
    }

    public static void Encoding(CommandContext s)
    {
        if (!Lookup(s, s.Arg(2))) { s.Writer.WriteNull(); return; }
        s.Writer.WriteBulkString(s.Storage.Result.Text!);
    }

    public static void RefCount(CommandContext s)
    {
        if (!Lookup(s, s.Arg(2))) { s.Writer.WriteNull(); return; }
        s.Writer.WriteInteger(s.Storage.Result.SharedInteger ? int.MaxValue : 1);
    }

    public static void Freq(CommandContext s)
    {
        if (!Lookup(s, s.Arg(2))) { s.Writer.WriteNull(); return; }
        s.WriteError("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.");
    }

    public static void IdleTime(CommandContext s)
    {
        if (!Lookup(s, s.Arg(2))) { s.Writer.WriteNull(); return; }
        long idle = (long)Garnet.storage.Log.AccessClock.NowSeconds - s.Storage.Result.AccessTime;
        s.Writer.WriteInteger(Math.Max(0, idle));
    }

    public static void Help(CommandContext s) => HelpText.Write(s, "OBJECT",
    [
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned integer is",
        "    proportional to the logarithm of the recent access frequency of the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with the specified",
        "    <key>.",
    ]);

    public static void MemoryUsage(CommandContext s)
    {
        for (int i = 3; i < s.Argc; i++)
        {
            if (StringCommands.Ascii(s.Arg(i), "SAMPLES") && i + 1 < s.Argc)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(++i), out long n) || n < 0) { s.WriteError(StringFunctions.NotInteger); return; }
            }
            else { s.WriteError("ERR syntax error"); return; }
        }
        if (!Lookup(s, s.Arg(2), countLookup: false)) { s.Writer.WriteNull(); return; }
        s.Writer.WriteInteger(s.Storage.Result.Number);
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>OBJECT.</summary>
    internal static CommandDefinition[] Declarations()
    {
        return
        [
            new()
            {
                Name = "object", Arity = -2, Acl = A.Slow,
                Group = "generic", Since = "2.2.3", Summary = "A container for object introspection commands.",
                Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new()
                    {
                        Name = "encoding", Arity = 3, Flags = ReadOnly, Acl = A.Keyspace, Keys = new KeyRange(2, 2, 1),
                        Since = "2.2.3", Summary = "Returns the internal encoding of a Redis object.",
                        Tips = ["nondeterministic_output"],
                        Handler = Encoding,
                    },
                    new()
                    {
                        Name = "freq", Arity = 3, Flags = ReadOnly, Acl = A.Keyspace, Keys = new KeyRange(2, 2, 1),
                        Since = "4.0.0", Summary = "Returns the logarithmic access frequency counter of a Redis object.",
                        Tips = ["nondeterministic_output"],
                        Handler = Freq,
                    },
                    new()
                    {
                        Name = "idletime", Arity = 3, Flags = ReadOnly, Acl = A.Keyspace, Keys = new KeyRange(2, 2, 1),
                        Since = "2.2.3", Summary = "Returns the time since the last access to a Redis object.",
                        Tips = ["nondeterministic_output"],
                        Handler = IdleTime,
                    },
                    new()
                    {
                        Name = "refcount", Arity = 3, Flags = ReadOnly, Acl = A.Keyspace, Keys = new KeyRange(2, 2, 1),
                        Since = "2.2.3", Summary = "Returns the reference count of a value of a key.",
                        Tips = ["nondeterministic_output"],
                        Handler = RefCount,
                    },
                    new()
                    {
                        Name = "help", Arity = 2, Flags = Loading | Stale, Acl = A.Keyspace,
                        Since = "6.2.0", Summary = "Returns helpful text about the different subcommands.",
                        Handler = Help,
                    },
                ],
            },
        ];
    }

    /// <summary>MEMORY USAGE.</summary>
    internal static CommandDefinition[] MemorySubcommandDeclarations()
    {
        return
        [
            new()
            {
                Name = "usage", Arity = -3, Flags = ReadOnly, Keys = new KeyRange(2, 2, 1),
                Since = "4.0.0", Summary = "Estimates the memory usage of a key.",
                Complexity = "O(N) where N is the number of samples.",
                Handler = MemoryUsage,
            },
        ];
    }
}
