// COMMAND, COMMAND COUNT / INFO / DOCS / LIST / GETKEYS / HELP: introspection, all read from the command table.
using Garnet.common.Resp;
using Garnet.server.Commands.KeySpecs;
using Garnet.server.Session;
using Garnet.server.Util;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class CommandCommands
{
    private static readonly (CommandFlags flag, string name)[] s_flagNames =
    [
        (CommandFlags.Write, "write"), (CommandFlags.ReadOnly, "readonly"), (CommandFlags.DenyOom, "denyoom"),
        (CommandFlags.Admin, "admin"), (CommandFlags.PubSub, "pubsub"), (CommandFlags.NoScript, "noscript"),
        (CommandFlags.Blocking, "blocking"), (CommandFlags.Loading, "loading"), (CommandFlags.Stale, "stale"),
        (CommandFlags.SkipMonitor, "skip_monitor"), (CommandFlags.SkipSlowlog, "skip_slowlog"), (CommandFlags.Fast, "fast"),
        // may_replicate, sentinel, only_sentinel and protected are hidden on purpose, as in Redis.
        (CommandFlags.NoAuth, "no_auth"), (CommandFlags.NoMandatoryKeys, "no_mandatory_keys"), (CommandFlags.NoAsyncLoading, "no_async_loading"),
        (CommandFlags.NoMulti, "no_multi"), (CommandFlags.MovableKeys, "movablekeys"), (CommandFlags.AllowBusy, "allow_busy"),
    ];

    private static readonly (AclCategories cat, string name)[] s_aclNames =
    [
        (AclCategories.Keyspace, "keyspace"), (AclCategories.Read, "read"), (AclCategories.Write, "write"),
        (AclCategories.Set, "set"), (AclCategories.SortedSet, "sortedset"), (AclCategories.List, "list"),
        (AclCategories.Hash, "hash"), (AclCategories.String, "string"), (AclCategories.Bitmap, "bitmap"),
        (AclCategories.HyperLogLog, "hyperloglog"), (AclCategories.Geo, "geo"), (AclCategories.Stream, "stream"),
        (AclCategories.PubSub, "pubsub"), (AclCategories.Admin, "admin"), (AclCategories.Fast, "fast"),
        (AclCategories.Slow, "slow"), (AclCategories.Blocking, "blocking"), (AclCategories.Dangerous, "dangerous"),
        (AclCategories.Connection, "connection"), (AclCategories.Transaction, "transaction"), (AclCategories.Scripting, "scripting"),
    ];

    public static IEnumerable<string> AclCategoryNames(AclCategories acl) =>
        s_aclNames.Where(a => (acl & a.cat) != 0).Select(a => a.name);

    /// <summary>The flags COMMAND INFO shows, in its order (also read by tools/DocGen).</summary>
    public static IEnumerable<string> FlagNames(CommandFlags flags) =>
        s_flagNames.Where(f => (flags & f.flag) != 0).Select(f => f.name);

    public static void All(CommandContext s)
    {
        var cmds = s.Server.Commands.Commands;
        s.Writer.WriteArrayHeader(cmds.Count);
        foreach (var c in cmds) WriteInfo(s.Writer, c);
    }

    public static void Count(CommandContext s) => s.Writer.WriteInteger(s.Server.Commands.Commands.Count);

    public static void Info(CommandContext s)
    {
        if (s.Argc == 2) { All(s); return; }
        s.Writer.WriteArrayHeader(s.Argc - 2);
        for (int i = 2; i < s.Argc; i++)
        {
            var c = FindByFullName(s, s.ArgString(i));
            if (c is null) s.Writer.WriteNull();
            else WriteInfo(s.Writer, c);
        }
    }

    /// <summary>Finds "get" or "client|list" style names.</summary>
    private static CommandDefinition? FindByFullName(CommandContext s, string name)
    {
        int bar = name.IndexOf('|');
        if (bar < 0) return s.Server.Commands.Find(name);
        var parent = s.Server.Commands.Find(name[..bar]);
        return parent?.FindSubcommand(System.Text.Encoding.UTF8.GetBytes(name[(bar + 1)..]));
    }

    private static void WriteInfo(RespWriter w, CommandDefinition c)
    {
        w.WriteArrayHeader(10);
        w.WriteBulkString(c.FullName);
        w.WriteInteger(c.Arity);
        var flags = FlagNames(c.Flags).ToList();
        w.WriteSetHeader(flags.Count);
        foreach (var f in flags) w.WriteSimpleString(f);
        // a keyword key spec has no legacy range: Redis says 0 0 0 (movablekeys) for it
        var legacy = c.KeysAfterKeyword is null ? c.Keys : KeyRange.None;
        w.WriteInteger(legacy.First);
        w.WriteInteger(legacy.Last);
        w.WriteInteger(legacy.Step);
        var cats = AclCategoryNames(c.Acl).ToList();
        w.WriteSetHeader(cats.Count);
        foreach (var cat in cats) w.WriteSimpleString("@" + cat);
        w.WriteSetHeader(c.Tips.Length);
        foreach (var t in c.Tips) w.WriteSimpleString(t);
        WriteKeySpecs(w, c);
        // as Redis: an empty set when there are none (RESP3 ~0), else an array
        if (c.Subcommands.Length == 0) w.WriteSetHeader(0);
        else w.WriteArrayHeader(c.Subcommands.Length);
        foreach (var sub in c.Subcommands) WriteInfo(w, sub);
    }

    /// <summary>The key specs, as Redis's addReplyCommandKeySpecs writes them: a set (RESP3 ~) of maps.</summary>
    private static void WriteKeySpecs(RespWriter w, CommandDefinition c)
    {
        w.WriteSetHeader(c.Specs.Length);
        foreach (var spec in c.Specs)
        {
            w.WriteMapHeader(spec.Notes is null ? 3 : 4);
            if (spec.Notes is not null) { w.WriteBulkString("notes"); w.WriteBulkString(spec.Notes); }
            w.WriteBulkString("flags");
            WriteKeyFlags(w, spec.Flags);
            w.WriteBulkString("begin_search");
            w.WriteMapHeader(2);
            w.WriteBulkString("type");
            switch (spec.Begin)
            {
                case BeginSearch.Index:
                    w.WriteBulkString("index");
                    w.WriteBulkString("spec"); w.WriteMapHeader(1);
                    w.WriteBulkString("index"); w.WriteInteger(spec.Index);
                    break;
                case BeginSearch.Keyword:
                    w.WriteBulkString("keyword");
                    w.WriteBulkString("spec"); w.WriteMapHeader(2);
                    w.WriteBulkString("keyword"); w.WriteBulkString(spec.Keyword);
                    w.WriteBulkString("startfrom"); w.WriteInteger(spec.StartFrom);
                    break;
                default:
                    w.WriteBulkString("unknown");
                    w.WriteBulkString("spec"); w.WriteMapHeader(0);
                    break;
            }
            w.WriteBulkString("find_keys");
            w.WriteMapHeader(2);
            w.WriteBulkString("type");
            switch (spec.Find)
            {
                case FindKeys.Range:
                    w.WriteBulkString("range");
                    w.WriteBulkString("spec"); w.WriteMapHeader(3);
                    w.WriteBulkString("lastkey"); w.WriteInteger(spec.LastKey);
                    w.WriteBulkString("keystep"); w.WriteInteger(spec.KeyStep);
                    w.WriteBulkString("limit"); w.WriteInteger(spec.Limit);
                    break;
                case FindKeys.KeyNum:
                    w.WriteBulkString("keynum");
                    w.WriteBulkString("spec"); w.WriteMapHeader(3);
                    w.WriteBulkString("keynumidx"); w.WriteInteger(spec.KeyNumIdx);
                    w.WriteBulkString("firstkey"); w.WriteInteger(spec.FirstKey);
                    w.WriteBulkString("keystep"); w.WriteInteger(spec.KeyStep);
                    break;
                default:
                    w.WriteBulkString("unknown");
                    w.WriteBulkString("spec"); w.WriteMapHeader(0);
                    break;
            }
        }
    }

    /// <summary>Key-spec flags as a set of simple strings (Redis's addReplyFlagsForKeyArgs).</summary>
    private static void WriteKeyFlags(RespWriter w, KeySpecFlags flags)
    {
        var names = KeySpec.ReplyNames(flags).ToList();
        w.WriteSetHeader(names.Count);
        foreach (var n in names) w.WriteSimpleString(n);
    }

    public static void Docs(CommandContext s)
    {
        var list = new List<CommandDefinition>();
        if (s.Argc == 2) list.AddRange(s.Server.Commands.Commands);
        for (int i = 2; i < s.Argc; i++)
        {
            var c = FindByFullName(s, s.ArgString(i));
            if (c is not null && !list.Contains(c)) list.Add(c);
        }
        s.Writer.WriteMapHeader(list.Count);
        foreach (var c in list)
        {
            s.Writer.WriteBulkString(c.FullName);
            WriteDoc(s.Writer, c);
        }
    }

    private static void WriteDoc(RespWriter w, CommandDefinition c)
    {
        bool hasSubs = c.Subcommands.Length > 0;
        w.WriteMapHeader(hasSubs ? 5 : 4);
        w.WriteBulkString("summary"); w.WriteBulkString(c.Summary);
        w.WriteBulkString("since"); w.WriteBulkString(c.Since);
        w.WriteBulkString("group"); w.WriteBulkString(c.Group);
        w.WriteBulkString("complexity"); w.WriteBulkString(c.Complexity);
        if (hasSubs)
        {
            w.WriteBulkString("subcommands");
            w.WriteMapHeader(c.Subcommands.Length);
            foreach (var sub in c.Subcommands)
            {
                w.WriteBulkString(sub.FullName);
                WriteDoc(w, sub);
            }
        }
    }

    public static void List(CommandContext s)
    {
        var all = s.Server.Commands.Commands.SelectMany(c => new[] { c }.Concat(c.Subcommands)).ToList();
        if (s.Argc != 2)
        {
            if (s.Argc != 5 || !s.ArgEquals(2, "FILTERBY"u8)) { s.WriteError("ERR syntax error"); return; }
            string value = s.ArgString(4);
            if (s.ArgEquals(3, "MODULE"u8)) all.Clear();
            else if (s.ArgEquals(3, "ACLCAT"u8))
            {
                var cat = s_aclNames.FirstOrDefault(a => a.name.Equals(value, StringComparison.OrdinalIgnoreCase)).cat;
                all = cat == AclCategories.None ? [] : all.Where(c => (c.Acl & cat) != 0).ToList();
            }
            else if (s.ArgEquals(3, "PATTERN"u8)) all = all.Where(c => GlobPattern.Matches(value, c.FullName, ignoreCase: true)).ToList();
            else { s.WriteError("ERR syntax error"); return; }
        }
        s.Writer.WriteArrayHeader(all.Count);
        foreach (var c in all) s.Writer.WriteBulkString(c.FullName);
    }

    public static void GetKeys(CommandContext s) => GetKeys(s, withFlags: false);

    /// <summary>COMMAND GETKEYSANDFLAGS: each key with its key-spec flags (as COMMAND INFO lists them).</summary>
    public static void GetKeysAndFlags(CommandContext s) => GetKeys(s, withFlags: true);

    /// <summary>Redis's getKeysSubcommandImpl: the checks in its order, then the keys found by KeyFinder.</summary>
    private static void GetKeys(CommandContext s, bool withFlags)
    {
        var cmd = s.Server.Commands.Find(s.Arg(2));
        int argc = s.Argc - 2;
        if (cmd is not null && cmd.HasSubcommands && argc >= 2) cmd = cmd.FindSubcommand(s.Arg(3));
        if (cmd is null) { s.WriteError("ERR Invalid command specified"); return; }
        if (!KeyFinder.HasKeys(cmd)) { s.WriteError("ERR The command has no key arguments"); return; }
        if (!cmd.ArityMatches(argc)) { s.WriteError("ERR Invalid number of arguments specified for command"); return; }
        var keys = new List<(int Pos, KeySpecFlags Flags)>();
        if (KeyFinder.Find(cmd, argc, i => s.Arg(i + 2), keys) == 0)
        {
            if ((cmd.Flags & CommandFlags.NoMandatoryKeys) != 0) s.Writer.WriteArrayHeader(0);
            else s.WriteError("ERR Invalid arguments specified for command");
            return;
        }
        s.Writer.WriteArrayHeader(keys.Count);
        foreach (var (pos, flags) in keys)
        {
            if (!withFlags) { s.Writer.WriteBulkString(s.Arg(pos + 2)); continue; }
            s.Writer.WriteArrayHeader(2);
            s.Writer.WriteBulkString(s.Arg(pos + 2));
            WriteKeyFlags(s.Writer, flags);
        }
    }

    public static void Help(CommandContext s) => HelpText.Write(s, "COMMAND",
    [
        "(no subcommand)", "    Return details about all Redis commands.",
        "COUNT", "    Return the total number of commands in this Redis server.",
        "LIST", "    Return a list of all commands in this Redis server.",
        "INFO [<command-name> ...]", "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all", "    commands are returned.",
        "DOCS [<command-name> ...]", "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all", "    commands are returned.",
        "GETKEYS <full-command>", "    Return the keys from a full Redis command.",
        "GETKEYSANDFLAGS <full-command>", "    Return the keys and the access flags from a full Redis command.",
    ]);

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>COMMAND.</summary>
    internal static CommandDefinition[] Declarations()
    {
        return
        [
            new()
            {
                Name = "command", Arity = -1, Flags = Loading | Stale | Sentinel, Acl = A.Connection,
                Group = "server", Since = "2.8.13", Summary = "Returns detailed information about all commands.",
                Complexity = "O(N) where N is the total number of Redis commands",
                Tips = ["nondeterministic_output_order"],
                Handler = All,
                Subcommands =
                [
                    new()
                    {
                        Name = "count", Arity = 2, Flags = Loading | Stale, Acl = A.Connection,
                        Since = "2.8.13", Summary = "Returns a count of commands.",
                        Handler = Count,
                    },
                    new()
                    {
                        Name = "docs", Arity = -2, Flags = Loading | Stale, Acl = A.Connection,
                        Since = "7.0.0", Summary = "Returns documentary information about one, multiple or all commands.",
                        Complexity = "O(N) where N is the number of commands to look up",
                        Tips = ["nondeterministic_output_order"],
                        Handler = Docs,
                    },
                    new()
                    {
                        Name = "info", Arity = -2, Flags = Loading | Stale, Acl = A.Connection,
                        Since = "2.8.13", Summary = "Returns information about one, multiple or all commands.",
                        Complexity = "O(N) where N is the number of commands to look up",
                        Tips = ["nondeterministic_output_order"],
                        Handler = Info,
                    },
                    new()
                    {
                        Name = "list", Arity = -2, Flags = Loading | Stale, Acl = A.Connection,
                        Since = "7.0.0", Summary = "Returns a list of command names.",
                        Complexity = "O(N) where N is the total number of Redis commands",
                        Tips = ["nondeterministic_output_order"],
                        Handler = List,
                    },
                    new()
                    {
                        Name = "getkeysandflags", Arity = -3, Flags = Loading | Stale, Acl = A.Connection,
                        Since = "7.0.0", Summary = "Extracts the key names and access flags for an arbitrary command.",
                        Complexity = "O(N) where N is the number of arguments to the command",
                        Handler = GetKeysAndFlags,
                    },
                    new()
                    {
                        Name = "getkeys", Arity = -3, Flags = Loading | Stale, Acl = A.Connection,
                        Since = "2.8.13", Summary = "Extracts the key names from an arbitrary command.",
                        Complexity = "O(N) where N is the number of arguments to the command",
                        Handler = GetKeys,
                    },
                    new()
                    {
                        Name = "help", Arity = 2, Flags = Loading | Stale, Acl = A.Connection,
                        Since = "5.0.0", Summary = "Returns helpful text about the different subcommands.",
                        Handler = Help,
                    },
                ],
            },
        ];
    }
}
