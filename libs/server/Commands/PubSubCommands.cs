// PubSubCommands: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, SSUBSCRIBE, SUNSUBSCRIBE, PUBLISH, SPUBLISH and
// PUBSUB CHANNELS / NUMSUB / NUMPAT / SHARDCHANNELS / SHARDNUMSUB / HELP, with Redis 7.2's replies (pubsub.c).
// Invariants:
//  - Every (un)subscription is confirmed by its own [kind, name, count] reply, a push in RESP3; count is the client's
//    channels + patterns for the plain and pattern kinds, its shard channels for the shard kind. An unsubscribe-all
//    with nothing to leave still confirms once, with a null name.
//  - A RESP2 client with any subscription may run only the commands AllowedWhileSubscribed (RespServerSession.Admit
//    asks); RESP3 clients may run anything, their messages interleave with replies.
//  - RESET and disconnect leave every subscription without confirmations (UnsubscribeAll(notify: false)).
//  - Shard channels are a namespace of their own (SPUBLISH never matches patterns); without cluster mode they behave as
//    Redis's do on a single node.
using Garnet.server.PubSub;
using Garnet.server.Session;
using static Garnet.server.Commands.CommandFlags;

namespace Garnet.server.Commands;

public static class PubSubCommands
{
    public static void Subscribe(CommandContext s)
    {
        var me = s.Client.PubSubState;
        for (int i = 1; i < s.Argc; i++)
        {
            s.Server.PubSub.Subscribe(me, s.Arg(i), shard: false);
            Confirm(s, "subscribe"u8, s.Arg(i), me.ChannelCount + me.PatternCount);
        }
    }

    public static void PSubscribe(CommandContext s)
    {
        var me = s.Client.PubSubState;
        for (int i = 1; i < s.Argc; i++)
        {
            s.Server.PubSub.PSubscribe(me, s.Arg(i));
            Confirm(s, "psubscribe"u8, s.Arg(i), me.ChannelCount + me.PatternCount);
        }
    }

    public static void SSubscribe(CommandContext s)
    {
        // Redis refuses it for a client that must get one reply per command (inside EXEC), unlike SUBSCRIBE and PSUBSCRIBE.
        if (s.InExec) { s.WriteError("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client"); return; }
        var me = s.Client.PubSubState;
        for (int i = 1; i < s.Argc; i++)
        {
            s.Server.PubSub.Subscribe(me, s.Arg(i), shard: true);
            Confirm(s, "ssubscribe"u8, s.Arg(i), me.ShardChannelCount);
        }
    }

    public static void Unsubscribe(CommandContext s) => Leave(s, Kind.Channel);
    public static void PUnsubscribe(CommandContext s) => Leave(s, Kind.Pattern);
    public static void SUnsubscribe(CommandContext s) => Leave(s, Kind.Shard);

    private enum Kind { Channel, Pattern, Shard }

    private static void Leave(CommandContext s, Kind kind)
    {
        var me = s.Client.PubSubState;
        var name = kind switch { Kind.Channel => "unsubscribe"u8, Kind.Pattern => "punsubscribe"u8, _ => "sunsubscribe"u8 };
        if (s.Argc == 1)
        {
            if (LeaveAll(s, kind, notify: true) == 0) Confirm(s, name, default, Count(me, kind), nullName: true);
            return;
        }
        for (int i = 1; i < s.Argc; i++)
        {
            LeaveOne(s, kind, s.Arg(i));
            Confirm(s, name, s.Arg(i), Count(me, kind));
        }
    }

    private static bool LeaveOne(CommandContext s, Kind kind, ReadOnlySpan<byte> name)
    {
        var registry = s.Server.PubSub;
        var me = s.Client.PubSubState;
        return kind == Kind.Pattern ? registry.PUnsubscribe(me, name) : registry.Unsubscribe(me, name, kind == Kind.Shard);
    }

    /// <summary>Leaves every subscription of the kind, confirming each when notify; returns how many there were.</summary>
    private static int LeaveAll(CommandContext s, Kind kind, bool notify)
    {
        var me = s.Client.PubSubState;
        var names = (kind switch { Kind.Channel => me.Channels, Kind.Pattern => me.Patterns, _ => me.ShardChannels }).ToArray();
        var confirm = kind switch { Kind.Channel => "unsubscribe"u8, Kind.Pattern => "punsubscribe"u8, _ => "sunsubscribe"u8 };
        foreach (var n in names)
        {
            LeaveOne(s, kind, n);
            if (notify) Confirm(s, confirm, n, Count(me, kind));
        }
        return names.Length;
    }

    /// <summary>RESET and disconnect: leaves every channel, pattern and shard channel without confirmations.</summary>
    public static void UnsubscribeAll(CommandContext s, bool notify)
    {
        if (s.Client.Subscriptions is not { Total: > 0 }) return;
        LeaveAll(s, Kind.Channel, notify);
        LeaveAll(s, Kind.Shard, notify);
        LeaveAll(s, Kind.Pattern, notify);
    }

    private static int Count(PubSubClient me, Kind kind) => kind == Kind.Shard ? me.ShardChannelCount : me.ChannelCount + me.PatternCount;

    /// <summary>[kind, name, count]: a push in RESP3, an array in RESP2; a null name when nothing was left.</summary>
    private static void Confirm(CommandContext s, ReadOnlySpan<byte> kind, ReadOnlySpan<byte> name, int count, bool nullName = false)
    {
        var w = s.Writer;
        w.WritePushHeader(3);
        w.WriteBulkString(kind);
        if (nullName) w.WriteNull();
        else w.WriteBulkString(name);
        w.WriteInteger(count);
    }

    public static void Publish(CommandContext s) => s.Writer.WriteInteger(s.Server.PubSub.Publish(s.Arg(1), s.Arg(2), s.Client, shard: false));

    public static void SPublish(CommandContext s) => s.Writer.WriteInteger(s.Server.PubSub.Publish(s.Arg(1), s.Arg(2), s.Client, shard: true));

    // ---- PUBSUB ----

    public static void Channels(CommandContext s) => ChannelList(s, shard: false);
    public static void ShardChannels(CommandContext s) => ChannelList(s, shard: true);

    private static void ChannelList(CommandContext s, bool shard)
    {
        if (s.Argc > 3) { SubcommandSyntaxError(s); return; }
        var list = s.Server.PubSub.ActiveChannels(s.Argc == 3 ? s.Arg(2) : default, all: s.Argc == 2, shard);
        s.Writer.WriteArrayHeader(list.Count);
        foreach (var c in list) s.Writer.WriteBulkString(c);
    }

    public static void NumSub(CommandContext s) => NumSub(s, shard: false);
    public static void ShardNumSub(CommandContext s) => NumSub(s, shard: true);

    private static void NumSub(CommandContext s, bool shard)
    {
        s.Writer.WriteArrayHeader((s.Argc - 2) * 2);
        for (int i = 2; i < s.Argc; i++)
        {
            s.Writer.WriteBulkString(s.Arg(i));
            s.Writer.WriteInteger(s.Server.PubSub.NumSub(s.Arg(i), shard));
        }
    }

    public static void NumPat(CommandContext s) => s.Writer.WriteInteger(s.Server.PubSub.PatternCount);

    public static void Help(CommandContext s) => HelpText.Write(s, "PUBSUB",
    [
        "CHANNELS [<pattern>]", "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT", "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]", "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]", "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]", "    Return the number of subscribers for the specified shard level channel(s)",
    ]);

    /// <summary>Redis's addReplySubcommandSyntaxError.</summary>
    private static void SubcommandSyntaxError(CommandContext s) =>
        s.WriteError($"ERR unknown subcommand or wrong number of arguments for '{Truncate(s.ArgString(1), 128)}'. Try {s.ArgString(0).ToUpperInvariant()} HELP.");

    private static string Truncate(string v, int max) => v.Length <= max ? v : v[..max];

    // ---- subscribed mode (RespServerSession.Admit) ----

    /// <summary>The commands a RESP2 client with subscriptions may run (Redis's processCommand list): those declared
    /// AllowedWhileSubscribed.</summary>
    public static bool AllowedWhileSubscribed(CommandDefinition cmd) => cmd.AllowedWhileSubscribed;

    public static void RefuseWhileSubscribed(CommandContext s, CommandDefinition cmd)
    {
        string why = $"Can't execute '{cmd.FullName}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context";
        if (cmd.RunsQueuedCommands)
        {
            // Redis's rejectCommand for EXEC: the transaction is discarded and the reason given as EXECABORT.
            s.Client.ResetTransaction();
            s.WriteError("EXECABORT Transaction discarded because of: " + why);
        }
        else s.WriteError("ERR " + why);
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, SSUBSCRIBE, SUNSUBSCRIBE, SPUBLISH, PUBSUB.</summary>
    internal static CommandDefinition[] Declarations()
    {
        const CommandFlags subFlags = CommandFlags.PubSub | NoScript | Loading | Stale;
        return
        [
            new()
            {
                Name = "subscribe", Arity = -2, Flags = subFlags | Sentinel,
                Group = "pubsub", Since = "2.0.0", Summary = "Listens for messages published to channels.",
                Complexity = "O(N) where N is the number of channels to subscribe to.",
                AllowedWhileSubscribed = true, Handler = Subscribe,
            },
            new()
            {
                Name = "unsubscribe", Arity = -1, Flags = subFlags | Sentinel,
                Group = "pubsub", Since = "2.0.0", Summary = "Stops listening to messages posted to channels.",
                Complexity = "O(N) where N is the number of channels to unsubscribe.",
                AllowedWhileSubscribed = true, Handler = Unsubscribe,
            },
            new()
            {
                Name = "psubscribe", Arity = -2, Flags = subFlags | Sentinel,
                Group = "pubsub", Since = "2.0.0", Summary = "Listens for messages published to channels that match one or more patterns.",
                Complexity = "O(N) where N is the number of patterns to subscribe to.",
                AllowedWhileSubscribed = true, Handler = PSubscribe,
            },
            new()
            {
                Name = "punsubscribe", Arity = -1, Flags = subFlags | Sentinel,
                Group = "pubsub", Since = "2.0.0", Summary = "Stops listening to messages published to channels that match one or more patterns.",
                Complexity = "O(N) where N is the number of patterns to unsubscribe.",
                AllowedWhileSubscribed = true, Handler = PUnsubscribe,
            },
            new()
            {
                Name = "publish", Arity = 3, Flags = CommandFlags.PubSub | Loading | Stale | Fast | MayReplicate | Sentinel,
                Group = "pubsub", Since = "2.0.0", Summary = "Posts a message to a channel.",
                Complexity = "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed " +
                    "patterns (by any client).",
                Handler = Publish,
            },
            new()
            {
                Name = "ssubscribe", Arity = -2, Flags = subFlags, Keys = new KeyRange(1, -1, 1), KeysAreChannels = true,
                Group = "pubsub", Since = "7.0.0", Summary = "Listens for messages published to shard channels.",
                Complexity = "O(N) where N is the number of shard channels to subscribe to.",
                AllowedWhileSubscribed = true, Handler = SSubscribe,
            },
            new()
            {
                Name = "sunsubscribe", Arity = -1, Flags = subFlags, Keys = new KeyRange(1, -1, 1), KeysAreChannels = true,
                Group = "pubsub", Since = "7.0.0", Summary = "Stops listening to messages posted to shard channels.",
                Complexity = "O(N) where N is the number of shard channels to unsubscribe.",
                AllowedWhileSubscribed = true, Handler = SUnsubscribe,
            },
            new()
            {
                Name = "spublish", Arity = 3, Flags = CommandFlags.PubSub | Loading | Stale | Fast | MayReplicate, Keys = new KeyRange(1, 1, 1),
                KeysAreChannels = true,
                Group = "pubsub", Since = "7.0.0", Summary = "Post a message to a shard channel",
                Complexity = "O(N) where N is the number of clients subscribed to the receiving shard channel.",
                Handler = SPublish,
            },
            new()
            {
                Name = "pubsub", Arity = -2,
                Group = "pubsub", Since = "2.8.0", Summary = "A container for Pub/Sub commands.",
                Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new()
                    {
                        Name = "channels", Arity = -2, Flags = CommandFlags.PubSub | Loading | Stale,
                        Since = "2.8.0", Summary = "Returns the active channels.",
                        Complexity = "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short " +
                            "channels and patterns)",
                        Handler = Channels,
                    },
                    new()
                    {
                        Name = "numsub", Arity = -2, Flags = CommandFlags.PubSub | Loading | Stale,
                        Since = "2.8.0", Summary = "Returns a count of subscribers to channels.",
                        Complexity = "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
                        Handler = NumSub,
                    },
                    new()
                    {
                        Name = "numpat", Arity = 2, Flags = CommandFlags.PubSub | Loading | Stale,
                        Since = "2.8.0", Summary = "Returns a count of unique pattern subscriptions.",
                        Handler = NumPat,
                    },
                    new()
                    {
                        Name = "shardchannels", Arity = -2, Flags = CommandFlags.PubSub | Loading | Stale,
                        Since = "7.0.0", Summary = "Returns the active shard channels.",
                        Complexity = "O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively " +
                            "short shard channels).",
                        Handler = ShardChannels,
                    },
                    new()
                    {
                        Name = "shardnumsub", Arity = -2, Flags = CommandFlags.PubSub | Loading | Stale,
                        Since = "7.0.0", Summary = "Returns the count of subscribers of shard channels.",
                        Complexity = "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels",
                        Handler = ShardNumSub,
                    },
                    new()
                    {
                        Name = "help", Arity = 2, Flags = Loading | Stale,
                        Since = "6.2.0", Summary = "Returns helpful text about the different subcommands.",
                        Handler = Help,
                    },
                ],
            },
        ];
    }
}
