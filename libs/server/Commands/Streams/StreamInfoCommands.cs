// StreamInfoCommands: XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO CONSUMERS, XINFO HELP (Redis 7.2's fields).
// radix-tree-keys is our block count (Redis's listpack nodes); radix-tree-nodes is reported as that plus one (a
// radix tree's root), since blocks live in a sorted list, not a radix tree.
using Garnet.server.Objects;
using Garnet.server.Objects.Streams;
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.server.Commands;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands.Streams;

public static class StreamInfoCommands
{
    private static bool WithStream(CommandContext s, Action<StreamObject> write)
    {
        int mark = s.Writer.Length;
        bool found = false;
        var op = StreamCommands.Op(st =>
        {
            s.Writer.Truncate(mark);
            found = true;
            write(st);
            return false;
        });
        if (!StreamCommands.Run(s, s.Arg(2), op, write: false)) return false;
        if (!found) s.WriteError("ERR no such key");
        return found;
    }

    private static void Id(CommandContext s, StreamId id) => s.Writer.WriteBulkString(id.ToBytes());

    public static void Stream(CommandContext s)
    {
        bool full = false;
        long count = 10;
        int optc = s.Argc - 3;
        string syntax = "ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP.";
        if (optc != 0)
        {
            if ((optc != 1 && optc != 3) || !s.ArgEquals(3, "FULL"u8)) { s.WriteError(syntax); return; }
            full = true;
            if (optc == 3)
            {
                if (!s.ArgEquals(4, "COUNT"u8)) { s.WriteError(syntax); return; }
                if (!NumberParsing.TryParseInt64(s.Arg(5), out count)) { s.WriteError(StreamCommands.NotInteger); return; }
                if (count < 0) count = 10;
            }
        }
        long now = StreamCommands.NowMs(s);
        WithStream(s, st =>
        {
            var w = s.Writer;
            w.WriteMapHeader(full ? 9 : 10);
            w.WriteBulkString("length"); w.WriteInteger(st.Length);
            w.WriteBulkString("radix-tree-keys"); w.WriteInteger(st.Entries.BlockCount);
            w.WriteBulkString("radix-tree-nodes"); w.WriteInteger(st.Entries.BlockCount + 1);
            w.WriteBulkString("last-generated-id"); Id(s, st.LastId);
            w.WriteBulkString("max-deleted-entry-id"); Id(s, st.MaxDeletedId);
            w.WriteBulkString("entries-added"); w.WriteInteger(st.EntriesAdded);
            w.WriteBulkString("recorded-first-entry-id"); Id(s, st.FirstId);
            if (!full)
            {
                w.WriteBulkString("groups"); w.WriteInteger(st.Groups.Count);
                w.WriteBulkString("first-entry");
                if (st.Range(StreamId.Min, StreamId.Max, false).FirstOrDefault() is { Pairs: not null } first) StreamCommands.WriteEntry(s, first); else w.WriteNull();
                w.WriteBulkString("last-entry");
                if (st.Range(StreamId.Min, StreamId.Max, true).FirstOrDefault() is { Pairs: not null } last) StreamCommands.WriteEntry(s, last); else w.WriteNull();
                return;
            }
            w.WriteBulkString("entries");
            StreamCommands.WriteRange(s, st, StreamId.Min, StreamId.Max, false, count == 0 ? -1 : count);
            w.WriteBulkString("groups");
            w.WriteArrayHeader(st.Groups.Count);
            foreach (var g in st.Groups.Values)
            {
                w.WriteMapHeader(7);
                w.WriteBulkString("name"); w.WriteBulkString(g.Name);
                w.WriteBulkString("last-delivered-id"); Id(s, g.LastId);
                w.WriteBulkString("entries-read"); if (g.EntriesRead != ConsumerGroup.InvalidEntriesRead) w.WriteInteger(g.EntriesRead); else w.WriteNull();
                w.WriteBulkString("lag"); if (st.Lag(g) is long lag) w.WriteInteger(lag); else w.WriteNull();
                w.WriteBulkString("pel-count"); w.WriteInteger(g.Pending.Count);
                w.WriteBulkString("pending");
                var pel = g.Pending.All.Take(count == 0 ? int.MaxValue : (int)Math.Min(count, int.MaxValue)).ToList();
                w.WriteArrayHeader(pel.Count);
                foreach (var e in pel)
                {
                    w.WriteArrayHeader(4);
                    Id(s, e.Id);
                    w.WriteBulkString(e.Owner.Name);
                    w.WriteInteger(e.DeliveryTime);
                    w.WriteInteger(e.DeliveryCount);
                }
                w.WriteBulkString("consumers");
                w.WriteArrayHeader(g.Consumers.Count);
                foreach (var c in g.Consumers.Values)
                {
                    w.WriteMapHeader(5);
                    w.WriteBulkString("name"); w.WriteBulkString(c.Name);
                    w.WriteBulkString("seen-time"); w.WriteInteger(c.SeenTime);
                    w.WriteBulkString("active-time"); w.WriteInteger(c.ActiveTime);
                    w.WriteBulkString("pel-count"); w.WriteInteger(c.Pending.Count);
                    w.WriteBulkString("pending");
                    var cp = c.Pending.All.Take(count == 0 ? int.MaxValue : (int)Math.Min(count, int.MaxValue)).ToList();
                    w.WriteArrayHeader(cp.Count);
                    foreach (var e in cp)
                    {
                        w.WriteArrayHeader(3);
                        Id(s, e.Id);
                        w.WriteInteger(e.DeliveryTime);
                        w.WriteInteger(e.DeliveryCount);
                    }
                }
            }
        });
    }

    public static void Groups(CommandContext s) => WithStream(s, st =>
    {
        var w = s.Writer;
        w.WriteArrayHeader(st.Groups.Count);
        foreach (var g in st.Groups.Values)
        {
            w.WriteMapHeader(6);
            w.WriteBulkString("name"); w.WriteBulkString(g.Name);
            w.WriteBulkString("consumers"); w.WriteInteger(g.Consumers.Count);
            w.WriteBulkString("pending"); w.WriteInteger(g.Pending.Count);
            w.WriteBulkString("last-delivered-id"); Id(s, g.LastId);
            w.WriteBulkString("entries-read"); if (g.EntriesRead != ConsumerGroup.InvalidEntriesRead) w.WriteInteger(g.EntriesRead); else w.WriteNull();
            w.WriteBulkString("lag"); if (st.Lag(g) is long lag) w.WriteInteger(lag); else w.WriteNull();
        }
    });

    public static void Consumers(CommandContext s)
    {
        long now = StreamCommands.NowMs(s);
        string? error = null;
        int mark = s.Writer.Length;
        WithStream(s, st =>
        {
            var g = st.FindGroup(s.Arg(3));
            if (g is null) { error = $"NOGROUP No such consumer group '{StreamGroupCommands.Text(s.Arg(3))}' for key name '{StreamGroupCommands.Text(s.Arg(2))}'"; return; }
            error = null;
            var w = s.Writer;
            w.WriteArrayHeader(g.Consumers.Count);
            foreach (var c in g.Consumers.Values)
            {
                w.WriteMapHeader(4);
                w.WriteBulkString("name"); w.WriteBulkString(c.Name);
                w.WriteBulkString("pending"); w.WriteInteger(c.Pending.Count);
                w.WriteBulkString("idle"); w.WriteInteger(Math.Max(0, now - c.SeenTime));
                w.WriteBulkString("inactive"); w.WriteInteger(c.ActiveTime != -1 ? now - c.ActiveTime : -1);
            }
        });
        if (error is not null) { s.Writer.Truncate(mark); s.WriteError(error); }
    }

    public static void Help(CommandContext s) => HelpText.Write(s, "XINFO",
    [
        "CONSUMERS <key> <groupname>",
        "    Show consumers of <groupname>.",
        "GROUPS <key>",
        "    Show the stream consumer groups.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    Show information about the stream.",
    ]);

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>XINFO.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var gk = new KeyRange(2, 2, 1);
        return
        [
            new()
            {
                Name = "xinfo", Arity = -2, Acl = A.Slow,
                Group = "stream", Since = "5.0.0", Summary = "A container for stream introspection commands.",
                Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new()
                    {
                        Name = "consumers", Arity = 4, Flags = ReadOnly, Acl = A.Stream, Keys = gk,
                        Since = "5.0.0", Summary = "Returns a list of the consumers in a consumer group.",
                        Tips = ["nondeterministic_output"],
                        Handler = Consumers,
                    },
                    new()
                    {
                        Name = "groups", Arity = 3, Flags = ReadOnly, Acl = A.Stream, Keys = gk,
                        Since = "5.0.0", Summary = "Returns a list of the consumer groups of a stream.",
                        Handler = Groups,
                    },
                    new()
                    {
                        Name = "stream", Arity = -3, Flags = ReadOnly, Acl = A.Stream, Keys = gk,
                        Since = "5.0.0", Summary = "Returns information about a stream.",
                        PlanStreamBlocks = plan => plan.PlanInfo(), Handler = Stream,
                    },
                    new()
                    {
                        Name = "help", Arity = 2, Flags = Loading | Stale, Acl = A.Stream,
                        Since = "5.0.0", Summary = "Returns helpful text about the different subcommands.",
                        Handler = Help,
                    },
                ],
            },
        ];
    }
}
