// CommandDefinition: one row of the command table, declared in its family's file next to its handler. The table is the
// single source of truth for a command's name, arity, flags, keys, ACL categories, documentation and handler, and for
// what other code must know about it (the fields below, instead of tests of its name); dispatch, COMMAND (INFO, DOCS,
// LIST, COUNT, GETKEYS) and the auth gate all read it.
using Garnet.server.Session;

namespace Garnet.server.Commands;

/// <summary>Runs one command. Arguments are read through the context (Arg(i)); the reply goes to context.Writer.</summary>
public delegate void CommandHandler(CommandContext context);

[Flags]
public enum CommandFlags : uint
{
    None = 0,
    Write = 1 << 0,
    ReadOnly = 1 << 1,
    DenyOom = 1 << 2,
    Admin = 1 << 3,
    PubSub = 1 << 4,
    NoScript = 1 << 5,
    Blocking = 1 << 6,
    Loading = 1 << 7,
    Stale = 1 << 8,
    SkipMonitor = 1 << 9,
    SkipSlowlog = 1 << 10,
    Fast = 1 << 11,
    NoAuth = 1 << 12,
    MayReplicate = 1 << 13,
    Sentinel = 1 << 14,
    OnlySentinel = 1 << 15,
    NoMandatoryKeys = 1 << 16,
    Protected = 1 << 17,
    NoAsyncLoading = 1 << 18,
    NoMulti = 1 << 19,
    MovableKeys = 1 << 20,
    AllowBusy = 1 << 21,
}

[Flags]
public enum AclCategories : uint
{
    None = 0,
    Keyspace = 1 << 0,
    Read = 1 << 1,
    Write = 1 << 2,
    Set = 1 << 3,
    SortedSet = 1 << 4,
    List = 1 << 5,
    Hash = 1 << 6,
    String = 1 << 7,
    Bitmap = 1 << 8,
    HyperLogLog = 1 << 9,
    Geo = 1 << 10,
    Stream = 1 << 11,
    PubSub = 1 << 12,
    Admin = 1 << 13,
    Fast = 1 << 14,
    Slow = 1 << 15,
    Blocking = 1 << 16,
    Dangerous = 1 << 17,
    Connection = 1 << 18,
    Transaction = 1 << 19,
    Scripting = 1 << 20,
}

/// <summary>Legacy key positions (first, last, step) of COMMAND INFO; Last &lt; 0 counts from the end.</summary>
public readonly record struct KeyRange(int First, int Last, int Step)
{
    public static readonly KeyRange None = new(0, 0, 0);
    public bool HasKeys => First > 0;

    /// <summary>Index of the last key argument of a request of argc arguments (a negative Last counts from the end).</summary>
    public int LastIndex(int argc) => Last < 0 ? argc + Last : Math.Min(Last, argc - 1);

    /// <summary>The distance between key arguments (at least 1).</summary>
    public int Stride => Math.Max(1, Step);
}

/// <summary>Redis's keyword key spec (begin_search keyword, find_keys range with lastkey -1): the keys start after the first
/// Keyword (any case) at an index from StartFrom to argc - 2, and are the first 1/Limit of the arguments after it (XREAD,
/// XREADGROUP: STREAMS k1 k2 id1 id2 with Limit 2). No keyword, or nothing after it, means no keys.</summary>
public sealed class KeywordKeySpec
{
    public KeywordKeySpec(string keyword, int startFrom, int limit)
    {
        Keyword = keyword; StartFrom = startFrom; Limit = limit;
        KeywordUpper = System.Text.Encoding.ASCII.GetBytes(keyword.ToUpperInvariant());
    }

    public string Keyword { get; }
    public int StartFrom { get; }
    public int Limit { get; }
    internal byte[] KeywordUpper { get; }

    /// <summary>The keys as an absolute range, given the index of the keyword (or -1) in a request of argc arguments.</summary>
    internal KeyRange Resolve(int keywordAt, int argc)
    {
        if (keywordAt < 0) return NoKeys;
        int first = keywordAt + 1;
        int last = first + (argc - first) / Math.Max(1, Limit) - 1;
        return last < first ? NoKeys : new KeyRange(first, last, 1);
    }

    /// <summary>An empty range (First &gt; its last index) that still reads as HasKeys, so loops over it do nothing.</summary>
    internal static readonly KeyRange NoKeys = new(1, 0, 1);
}

public sealed class CommandDefinition
{
    public required string Name { get; init; }             // lower case, e.g. "get" or "setname" for a subcommand
    public required int Arity { get; init; }               // > 0 exact argument count (with the name); < 0 at least -Arity
    public CommandFlags Flags { get; init; }
    public AclCategories Acl { get; init; }
    public KeyRange Keys { get; init; } = KeyRange.None;
    public string Group { get; init; } = "generic";
    public string Summary { get; init; } = "";
    public string Since { get; init; } = "1.0.0";
    public string Complexity { get; init; } = "O(1)";
    public string[] Tips { get; init; } = [];
    public CommandHandler? Handler { get; init; }
    /// <summary>A multi-step command (e.g. a check then a write): its keys are locked exclusively while it runs. Writes that
    /// name more than one key are locked exclusively anyway; see Session/CommandKeyLocks.</summary>
    public bool LocksKeysExclusively { get; init; }

    /// <summary>The positions in Keys name pub/sub shard channels, not keys (Redis's NOT_KEY key spec: SSUBSCRIBE, SPUBLISH):
    /// COMMAND INFO describes them, but they are not locked, watched or returned by COMMAND GETKEYS.</summary>
    public bool KeysAreChannels { get; init; }

    /// <summary>The keys are found by a keyword (Redis's keyword key spec) instead of Keys, which then covers every argument
    /// from 1 on for COMMAND INFO's purposes only. Every user of a request's keys asks KeysOf, never Keys, so locking,
    /// read-ahead, WATCH, tracking, blocked-client signals, EXEC and scripts see the same keys as COMMAND GETKEYS.</summary>
    public KeywordKeySpec? KeysAfterKeyword { get; init; }

    /// <summary>Keys counted by an argument (Redis's "keynum" key spec, EVAL/FCALL): the index of the numkeys argument,
    /// whose value says how many keys follow it; 0 when none. Such keys are not locked per key (a script takes every
    /// stripe) but are returned by COMMAND GETKEYS, described by COMMAND INFO and read ahead from disk.</summary>
    public int KeyNumIndex { get; init; }

    /// <summary>For a KeyNumIndex command: the positions of its keys in args (argc of them), or false when numkeys is not a
    /// number, negative or larger than what follows (Redis then finds no key).</summary>
    public bool TryGetCountedKeys(int argc, Func<int, ReadOnlySpan<byte>> arg, out int first, out int count)
    {
        first = KeyNumIndex + 1;
        count = 0;
        if (KeyNumIndex <= 0 || argc <= KeyNumIndex) return false;
        if (!Storage.NumberParsing.TryParseInt64(arg(KeyNumIndex), out long n) || n < 0 || n > argc - first) return false;
        count = (int)n;
        return true;
    }

    /// <summary>The command names keys of the store (locked while it runs, touched for WATCH, signalled for blocked clients).</summary>
    public bool HasStoreKeys => (Keys.HasKeys || KeysAfterKeyword is not null) && !KeysAreChannels;

    /// <summary>The key positions of the request being run by s (arguments from offset on: 2 for COMMAND GETKEYS), as a
    /// range; for a keyword spec the range is absolute (Last &gt;= 0) and may be empty.</summary>
    public KeyRange KeysOf(CommandContext s, int offset = 0)
    {
        if (KeysAfterKeyword is not { } spec) return Keys;
        int argc = s.Argc - offset, at = -1;
        for (int i = spec.StartFrom; i < argc - 1; i++)
            if (System.Text.Ascii.EqualsIgnoreCase(s.Arg(i + offset), spec.KeywordUpper)) { at = i; break; }
        return spec.Resolve(at, argc);
    }

    /// <summary>KeysOf for a request held as its arguments (queued in MULTI, called from a script).</summary>
    public KeyRange KeysOf(byte[][] args)
    {
        if (KeysAfterKeyword is not { } spec) return Keys;
        int at = -1;
        for (int i = spec.StartFrom; i < args.Length - 1; i++)
            if (System.Text.Ascii.EqualsIgnoreCase(args[i], spec.KeywordUpper)) { at = i; break; }
        return spec.Resolve(at, args.Length);
    }

    /// <summary>The handler can leave its own disk read to finish later (StorageSession.DeferPending: GET): alone in its batch
    /// it is not read ahead first (one lookup instead of two); with requests behind it, it is, so their reads overlap.</summary>
    public bool DefersDiskReads { get; init; }

    /// <summary>May run on the session's plain-read path (RespServerSession.TryRunPlainRead): a read of one key, flagged
    /// fast, whose handler never waits (it defers a disk read: DefersDiskReads), so the session may hold the store's epoch
    /// across a run of such commands. GET.</summary>
    public bool PlainRead { get; init; }

    /// <summary>A stream command that reads spilled stream blocks: which ones, from the request's arguments (for XRANGE
    /// plan => plan.PlanRange(reverse: false)), so Session/StreamBlockReadAhead reads them before the command runs.</summary>
    internal StreamBlockPlanner? PlanStreamBlocks { get; init; }

    /// <summary>Runs at once inside MULTI instead of being queued (EXEC, DISCARD, MULTI, WATCH, QUIT, RESET).</summary>
    public bool RunsInMulti { get; init; }

    /// <summary>Runs the commands queued since MULTI (EXEC): CLIENT PAUSE WRITE holds it when one of them is a write, and
    /// refused in RESP2 subscribed mode it discards the transaction (EXECABORT), as Redis's rejectCommand.</summary>
    public bool RunsQueuedCommands { get; init; }

    /// <summary>May run on a RESP2 connection with subscriptions (Redis's processCommand list: PING, (P|S)SUBSCRIBE,
    /// (P|S)UNSUBSCRIBE, QUIT, RESET); any other command is refused there (PubSubCommands.RefuseWhileSubscribed).</summary>
    public bool AllowedWhileSubscribed { get; init; }

    /// <summary>Runs a script (EVAL, EVALSHA, FCALL and their _RO forms): flagged skip_monitor, but MONITOR is fed the call
    /// itself before the script's commands (Clients/MonitorFeed.IsScriptCall).</summary>
    public bool RunsScript { get; init; }

    /// <summary>Which of the command's arguments are secrets, shown as "(redacted)" wherever arguments are recorded (SLOWLOG,
    /// MONITOR: Metrics/ArgumentRedaction), as Redis's redactClientCommandArgument callers: AUTH's, HELLO's AUTH pair, CONFIG
    /// SET's sensitive values. Asked for argument indexes 1 to argc - 1 only.</summary>
    public Metrics.ArgumentRedaction.Rule? Redacts { get; init; }

    /// <summary>Reads only its keys' record headers (existence, type, expiry), never their values (TYPE, EXISTS, TTL, DEL,
    /// ...): the read-ahead of keys on disk brings in the header only (Session/ReadAhead.ObjectKindNeeded).</summary>
    public bool ReadsHeaderOnly { get; init; }

    /// <summary>Leaves CLIENT CACHING's one-command promise for the next command (every CLIENT subcommand, as Redis).</summary>
    public bool KeepsTrackingCaching { get; init; }
    public CommandDefinition[] Subcommands { get; internal set; } = [];
    internal CommandLookup? SubcommandLookup { get; set; }

    /// <summary>Finds a subcommand by its request bytes (case-insensitive).</summary>
    public CommandDefinition? FindSubcommand(ReadOnlySpan<byte> name) => SubcommandLookup?.Find(name);

    /// <summary>Set by the table: "client|setname" for a subcommand, else Name.</summary>
    public string FullName { get; internal set; } = "";
    public CommandDefinition? Parent { get; internal set; }
    public byte[] NameUpperBytes
    {
        get => _nameUpper;
        internal set
        {
            _nameUpper = value;
            // A name of 1-8 letters: packed lower-case into one word, and the case bit of each of its bytes.
            _nameWord = _caseBits = 0;
            if (value.Length is > 0 and <= 8 && value.All(b => char.IsAsciiLetter((char)b)))
                for (int i = 0; i < value.Length; i++)
                {
                    _nameWord |= (ulong)(value[i] | 0x20) << (8 * i);
                    _caseBits |= 0x20UL << (8 * i);
                }
        }
    }
    private byte[] _nameUpper = [];
    private ulong _nameWord, _caseBits;

    /// <summary>Whether name (a request's bytes) is this command's name, in any case: for a name of up to 8 letters, one
    /// load and compare.</summary>
    public bool NameMatches(ReadOnlySpan<byte> name)
    {
        if (name.Length != _nameUpper.Length) return false;
        if (_nameWord == 0) return System.Text.Ascii.EqualsIgnoreCase(name, _nameUpper);
        // Letters only: setting a byte's case bit folds exactly its upper and lower case onto the lower.
        return (Garnet.storage.Util.ShortWord.Load(name) | _caseBits) == _nameWord;
    }

    public bool HasSubcommands => Subcommands.Length > 0;

    /// <summary>Index of this command (or subcommand) in its table, 0 .. CommandTable.Count-1: per-command statistics
    /// (Metrics/CommandStatistics) are kept in arrays indexed by it.</summary>
    public int Id { get; internal set; }

    /// <summary>The row's own key specs in compact form (KeySpecs.KeySpec.Parse, e.g. "RW ACCESS DELETE @1 R0,1,0; RW INSERT
    /// @2 R0,1,0"). Usually left out: the table then takes Redis 7.2's specs for the command's name from the generated
    /// KeySpecs/RedisKeySpecData.cs, or, for a command Redis lacks, one spec from Keys / KeysAfterKeyword / KeyNumIndex.</summary>
    public string? KeySpecs { get; init; }

    /// <summary>The key specs COMMAND INFO lists and COMMAND GETKEYS[ANDFLAGS] follows (set by the table).</summary>
    public KeySpecs.KeySpec[] Specs { get; internal set; } = [];

    /// <summary>The Redis key-finding function GETKEYS falls back to (KeySpecs/KeyFinderFunctions), or null (set by the table).</summary>
    public string? KeyFinder { get; internal set; }

    /// <summary>Adds the argument positions that are keys of a request held as its arguments (name first).</summary>
    public void GetKeyPositions(byte[][] args, List<int> positions) => GetKeyPositions(KeysOf(args), args.Length, positions);

    /// <summary>Adds the argument positions that are keys, given the request's range (KeysOf) and its argc.</summary>
    public static void GetKeyPositions(KeyRange keys, int argc, List<int> positions)
    {
        if (!keys.HasKeys) return;
        int last = keys.Last < 0 ? argc + keys.Last : keys.Last;
        for (int i = keys.First; i <= last && i < argc; i += keys.Stride) positions.Add(i);
    }

    public bool ArityMatches(int argc) => Arity >= 0 ? argc == Arity : argc >= -Arity;
}
