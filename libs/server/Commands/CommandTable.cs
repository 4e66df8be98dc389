// CommandTable: every command the server knows, one row each. Each command is declared in its family's file next to its
// handler (StringCommands.Declarations(), ClientCommands.Declarations(), ...); the table lists the families' declarations
// in order (Declarations() below), completes them and looks them up. Adding a command = one declaration and one handler
// in the family's file (docs/commands.md, "Adding a command").
// Invariants:
//  - Names are unique (case-insensitive); subcommands are unique within their container.
//  - Lookup by the raw request bytes allocates nothing.
//  - ACL categories implied by flags (@fast/@slow, @read, @write, @admin, @dangerous, ...) are added here,
//    so declarations list only the data-type and family categories.
using System.Text;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;
using Garnet.server.Transactions;

namespace Garnet.server.Commands;

public sealed class CommandTable
{
    private static readonly Lazy<CommandTable> s_default = new(() => new CommandTable(Declarations()));
    public static CommandTable Default => s_default.Value;

    private readonly CommandLookup _lookup;

    public IReadOnlyList<CommandDefinition> Commands { get; }

    public CommandTable(IEnumerable<CommandDefinition> rows)
    {
        var list = rows.Select(Complete).ToList();
        Commands = list;
        _lookup = new CommandLookup(list);
        var all = new List<CommandDefinition>();
        foreach (var c in list)
        {
            all.Add(c);
            all.AddRange(c.Subcommands);
        }
        for (int i = 0; i < all.Count; i++) all[i].Id = i;
        AllWithSubcommands = all;
    }

    /// <summary>Every command and subcommand, indexed by CommandDefinition.Id.</summary>
    public IReadOnlyList<CommandDefinition> AllWithSubcommands { get; }

    public CommandDefinition? Find(ReadOnlySpan<byte> name) => _lookup.Find(name);

    public CommandDefinition? Find(string name) => _lookup.Find(Encoding.UTF8.GetBytes(name));

    private static CommandDefinition Complete(CommandDefinition d) => Complete(d, null);

    private static CommandDefinition Complete(CommandDefinition d, CommandDefinition? parent)
    {
        var acl = d.Acl;
        acl |= d.Flags.HasFlag(Fast) ? A.Fast : A.Slow;
        if (d.Flags.HasFlag(Write)) acl |= A.Write;
        if (d.Flags.HasFlag(ReadOnly) && (d.Acl & A.Scripting) == 0) acl |= A.Read; // as Redis: scripting commands are not @read
        if (d.Flags.HasFlag(Admin)) acl |= A.Admin | A.Dangerous;
        if (d.Flags.HasFlag(CommandFlags.PubSub)) acl |= A.PubSub;
        if (d.Flags.HasFlag(CommandFlags.Blocking)) acl |= A.Blocking;
        // The plain-read path runs such a row holding the store's epoch (only a fast read of one key that never waits), and
        // writes GET's reply itself (RespServerSession.RunPlainGet).
        if (d.PlainRead && (!d.Flags.HasFlag(Fast) || !d.Flags.HasFlag(ReadOnly) || d.Flags.HasFlag(Write) || !d.DefersDiskReads
            || d.Keys.First != 1 || d.Keys.Last != 1 || d.KeysAfterKeyword is not null || d.LocksKeysExclusively || d.Name != "get"))
            throw new InvalidOperationException($"command '{d.Name}': PlainRead is GET's: a fast read of one key that defers its disk reads");
        var subs = d.Subcommands;
        var done = new CommandDefinition
        {
            Name = d.Name, Arity = d.Arity, Flags = d.Flags, Acl = acl, Keys = d.Keys, Group = parent?.Group ?? d.Group,
            Summary = d.Summary, Since = d.Since, Complexity = d.Complexity, Tips = d.Tips, Handler = d.Handler, KeySpecs = d.KeySpecs,
            KeysAreChannels = d.KeysAreChannels, KeysAfterKeyword = d.KeysAfterKeyword, KeyNumIndex = d.KeyNumIndex,
            LocksKeysExclusively = d.LocksKeysExclusively, RunsInMulti = d.RunsInMulti, DefersDiskReads = d.DefersDiskReads,
            PlainRead = d.PlainRead, PlanStreamBlocks = d.PlanStreamBlocks, RunsQueuedCommands = d.RunsQueuedCommands,
            AllowedWhileSubscribed = d.AllowedWhileSubscribed, RunsScript = d.RunsScript, Redacts = d.Redacts,
            ReadsHeaderOnly = d.ReadsHeaderOnly, KeepsTrackingCaching = d.KeepsTrackingCaching,
            Subcommands = [],
        };
        done.Parent = parent;
        done.FullName = parent is null ? d.Name : parent.Name + "|" + d.Name;
        done.Specs = KeySpecs.KeySpecDefaults.For(done);
        done.KeyFinder = KeySpecs.RedisKeySpecData.Finders.GetValueOrDefault(done.FullName);
        done.NameUpperBytes = Encoding.ASCII.GetBytes(d.Name.ToUpperInvariant());
        if (subs.Length > 0)
        {
            var completed = subs.Select(s => Complete(s, done)).ToArray();
            done.Subcommands = completed;
            done.SubcommandLookup = new CommandLookup(completed);
        }
        return done;
    }

    /// <summary>Every family's declarations, in the order COMMAND, COMMAND LIST, COMMAND DOCS and INFO commandstats list
    /// them (and the order of ids). A family listed twice keeps the order the table had when all its rows were here.
    /// Flags and categories follow Redis 7.2's command definitions.</summary>
    private static IEnumerable<CommandDefinition> Declarations() =>
    [
        ..ConnectionCommands.Declarations(),                 // PING .. RESET
        ..TransactionCommands.Declarations(),                // MULTI .. UNWATCH
        ..Scripting.ScriptCommands.EvalDeclarations(),       // EVAL .. EVALSHA_RO
        ..Scripting.FunctionCommands.FCallDeclarations(),    // FCALL .. FCALL_RO
        ..Scripting.ScriptCommands.ScriptDeclarations(),     // SCRIPT
        ..Scripting.FunctionCommands.FunctionDeclarations(), // FUNCTION
        ..PubSubCommands.Declarations(),                     // SUBSCRIBE .. PUBSUB
        ..ClientCommands.Declarations(),                     // CLIENT
        ..StringCommands.Declarations(),                     // GET .. INCRBYFLOAT
        ..LcsCommand.Declarations(),                         // LCS
        ..BitmapCommands.Declarations(),                     // SETBIT .. BITOP
        ..BitFieldCommands.Declarations(),                   // BITFIELD .. BITFIELD_RO
        ..HyperLogLogCommands.Declarations(),                // PFADD .. PFMERGE
        ..HashCommands.Declarations(),                       // HSET .. HSCAN
        ..ListCommands.Declarations(),                       // LPUSH .. LMPOP
        ..BlockingCommands.ListDeclarations(),               // BLPOP .. BLMPOP
        ..SetCommands.Declarations(),                        // SADD .. SSCAN
        ..SortedSetCommands.Declarations(),                  // ZADD .. ZMPOP
        ..BlockingCommands.SortedSetDeclarations(),          // BZPOPMIN .. BZMPOP
        ..Streams.StreamCommands.Declarations(),             // XADD .. XSETID
        ..Streams.StreamReadCommands.Declarations(),         // XREAD .. XREADGROUP
        ..Streams.StreamGroupCommands.Declarations(),        // XACK .. XGROUP
        ..Streams.StreamInfoCommands.Declarations(),         // XINFO
        ..SortedSetCommands.MoreDeclarations(),              // ZRANDMEMBER .. ZSCAN
        ..GeoCommands.Declarations(),                        // GEOADD .. GEOSEARCHSTORE
        ..KeyCommands.Declarations(),                        // DEL .. MOVE
        ..DumpCommands.Declarations(),                       // DUMP .. RESTORE
        ..ObjectCommands.Declarations(),                     // OBJECT
        ..MemoryCommands.Declarations(),                     // MEMORY
        ..KeyCommands.DatabaseDeclarations(),                // KEYS .. SWAPDB
        ..ServerCommands.Declarations(),                     // TIME .. INFO
        ..SlowLogCommands.Declarations(),                    // SLOWLOG
        ..LatencyCommands.Declarations(),                    // LATENCY
        ..PersistenceCommands.Declarations(),                // SAVE .. LASTSAVE
        ..ServerCommands.ShutdownDeclarations(),             // SHUTDOWN
        ..AdminClientCommands.MonitorDeclarations(),         // MONITOR
        ..DebugCommands.Declarations(),                      // DEBUG
        ..ConfigCommands.Declarations(),                     // CONFIG
        ..CommandCommands.Declarations(),                    // COMMAND
    ];
}
