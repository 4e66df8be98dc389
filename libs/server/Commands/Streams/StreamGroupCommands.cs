// StreamGroupCommands: XGROUP (CREATE, SETID, DESTROY, CREATECONSUMER, DELCONSUMER, HELP), XACK, XPENDING, XCLAIM,
// XAUTOCLAIM: consumer groups and their pending entries lists, with Redis 7.2's replies and errors.
// XCLAIM and XAUTOCLAIM are logged to the AOF as Redis propagates them: one XCLAIM per claimed (or dropped) entry with
// the delivery time, count and group last ID it produced (TIME/RETRYCOUNT/FORCE/JUSTID/LASTID), so a replay gives the
// same PEL whatever the clock says then.
using System.Globalization;
using System.Text;
using Garnet.server.Objects;
using Garnet.server.Objects.Streams;
using Garnet.server.Persistence;
using Garnet.server.PubSub;
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.server.Commands;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands.Streams;

public static class StreamGroupCommands
{
    internal static string NoGroup(CommandContext s, int keyIndex, int groupIndex) =>
        $"NOGROUP No such key '{Text(s.Arg(keyIndex))}' or consumer group '{Text(s.Arg(groupIndex))}'";

    internal static string Text(ReadOnlySpan<byte> b) => Encoding.UTF8.GetString(b);

    private static string NoSuchGroup(CommandContext s) =>
        $"NOGROUP No such consumer group '{Text(s.Arg(3))}' for key name '{Text(s.Arg(2))}'";

    private const string RequiresKey = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.";

    private static string SubcommandSyntax(CommandContext s) =>
        $"ERR unknown subcommand or wrong number of arguments for '{Text(s.Arg(1))}'. Try XGROUP HELP.";

    // ---------------------------------------------------------------- XGROUP
    /// <summary>Options after the ID of CREATE / SETID; false after writing the error.</summary>
    private static bool TryGroupOptions(CommandContext s, bool create, out bool mkStream, out long entriesRead)
    {
        mkStream = false;
        entriesRead = ConsumerGroup.InvalidEntriesRead;
        for (int i = 5; i < s.Argc;)
        {
            if (create && s.ArgEquals(i, "MKSTREAM"u8)) { mkStream = true; i++; }
            else if (s.ArgEquals(i, "ENTRIESREAD"u8) && i + 1 < s.Argc)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(i + 1), out entriesRead)) { s.WriteError(StreamCommands.NotInteger); return false; }
                if (entriesRead < 0 && entriesRead != ConsumerGroup.InvalidEntriesRead) { s.WriteError("ERR value for ENTRIESREAD must be positive or -1"); return false; }
                i += 2;
            }
            else { s.WriteError(SubcommandSyntax(s)); return false; }
        }
        return true;
    }

    public static void Create(CommandContext s)
    {
        if (s.Argc > 8) { s.WriteError(SubcommandSyntax(s)); return; }
        if (!TryGroupOptions(s, create: true, out bool mkStream, out long entriesRead)) return;
        bool dollar = s.Arg(4).SequenceEqual("$"u8);
        StreamId id = default;
        if (!dollar && !StreamCommands.TryParseId(s, 4, 0, strict: true, out id)) return;
        var name = s.Arg(3).ToArray();
        string? error = null;
        var op = StreamCommands.Op(st =>
        {
            error = null;
            if (st.Groups.ContainsKey(name)) { error = "BUSYGROUP Consumer Group name already exists"; return false; }
            st.Groups[name] = new ConsumerGroup(name, dollar ? st.LastId : id, entriesRead);
            return true;
        }, creates: mkStream, missing: () => error = RequiresKey);
        if (!StreamCommands.Run(s, s.Arg(2), op, write: true)) return;
        if (error is not null) { s.WriteError(error); return; }
        s.Notify(NotifyClass.Stream, "xgroup-create"u8, s.Arg(2));
        s.Writer.WriteOk();
    }

    public static void SetId(CommandContext s)
    {
        if (s.Argc != 5 && s.Argc != 7) { s.WriteError(SubcommandSyntax(s)); return; }
        if (!TryGroupOptions(s, create: false, out _, out long entriesRead)) return;
        bool dollar = s.Arg(4).SequenceEqual("$"u8);
        StreamId id = default;
        string? error = null;
        bool parsed = dollar;
        var op = StreamCommands.Op(st =>
        {
            error = null;
            var g = st.FindGroup(s.Arg(3));
            if (g is null) { error = NoSuchGroup(s); return false; }
            if (!dollar && !parsed) return false; // the ID is checked after the group, as Redis does
            g.LastId = dollar ? st.LastId : id;
            g.EntriesRead = entriesRead;
            return true;
        }, missing: () => error = RequiresKey);
        if (!dollar)
        {
            // Redis checks the key and group first, then parses the ID (non-strict: "-" and "+" are accepted).
            var a = s.Arg(4);
            parsed = a.Length == 1 && (a[0] == '-' || a[0] == '+') ? (id = a[0] == '-' ? StreamId.Min : StreamId.Max) == id : StreamId.TryParse(a, 0, out id, out _);
        }
        if (!StreamCommands.Run(s, s.Arg(2), op, write: true)) return;
        if (error is not null) { s.WriteError(error); return; }
        if (!parsed) { s.WriteError(StreamCommands.InvalidId); return; }
        s.Notify(NotifyClass.Stream, "xgroup-setid"u8, s.Arg(2));
        s.Writer.WriteOk();
    }

    public static void Destroy(CommandContext s)
    {
        string? error = null;
        bool removed = false;
        var op = StreamCommands.Op(st =>
        {
            error = null;
            removed = st.FindGroup(s.Arg(3)) is { } g && st.Groups.Remove(g.Name);
            return removed;
        }, missing: () => error = RequiresKey);
        if (!StreamCommands.Run(s, s.Arg(2), op, write: true)) return;
        if (error is not null) { s.WriteError(error); return; }
        if (removed)
        {
            s.Notify(NotifyClass.Stream, "xgroup-destroy"u8, s.Arg(2));
            s.Server.Blocked.Signal(s.Database, s.Arg(2)); // a blocked XREADGROUP on it gets its error
        }
        else s.PropagateNothing();
        s.Writer.WriteInteger(removed ? 1 : 0);
    }

    public static void CreateConsumer(CommandContext s)
    {
        string? error = null;
        bool created = false;
        long now = StreamCommands.NowMs(s);
        var name = s.Arg(4).ToArray();
        var op = StreamCommands.Op(st =>
        {
            error = null;
            var g = st.FindGroup(s.Arg(3));
            if (g is null) { error = NoSuchGroup(s); return false; }
            g.GetOrCreate(name, now, out created);
            return created;
        }, missing: () => error = RequiresKey);
        if (!StreamCommands.Run(s, s.Arg(2), op, write: true)) return;
        if (error is not null) { s.WriteError(error); return; }
        if (created) s.Notify(NotifyClass.Stream, "xgroup-createconsumer"u8, s.Arg(2));
        else s.PropagateNothing();
        s.Writer.WriteInteger(created ? 1 : 0);
    }

    public static void DelConsumer(CommandContext s)
    {
        string? error = null;
        long pending = 0;
        bool deleted = false;
        var op = StreamCommands.Op(st =>
        {
            error = null;
            var g = st.FindGroup(s.Arg(3));
            if (g is null) { error = NoSuchGroup(s); return false; }
            var c = g.Find(s.Arg(4).ToArray());
            deleted = c is not null;
            pending = c is null ? 0 : g.Delete(c);
            return deleted;
        }, missing: () => error = RequiresKey);
        if (!StreamCommands.Run(s, s.Arg(2), op, write: true)) return;
        if (error is not null) { s.WriteError(error); return; }
        if (deleted) s.Notify(NotifyClass.Stream, "xgroup-delconsumer"u8, s.Arg(2));
        else s.PropagateNothing();
        s.Writer.WriteInteger(pending);
    }

    public static void Help(CommandContext s) => HelpText.Write(s, "XGROUP",
    [
        "CREATE <key> <groupname> <id|$> [option]",
        "    Create a new consumer group. Options are:",
        "    * MKSTREAM",
        "      Create the empty stream if it does not exist.",
        "    * ENTRIESREAD entries_read",
        "      Set the group's entries_read counter (internal use).",
        "CREATECONSUMER <key> <groupname> <consumer>",
        "    Create a new consumer in the specified group.",
        "DELCONSUMER <key> <groupname> <consumer>",
        "    Remove the specified consumer.",
        "DESTROY <key> <groupname>",
        "    Remove the specified group.",
        "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
        "    Set the current group ID and entries_read counter.",
    ]);

    // ---------------------------------------------------------------- XACK
    public static void XAck(CommandContext s)
    {
        var ids = new StreamId[s.Argc - 3];
        for (int i = 3; i < s.Argc; i++) if (!StreamCommands.TryParseId(s, i, 0, strict: true, out ids[i - 3])) return;
        long acked = 0;
        var op = StreamCommands.Op(st =>
        {
            acked = 0;
            var g = st.FindGroup(s.Arg(2));
            if (g is null) return false;
            foreach (var id in ids)
            {
                if (!g.Pending.TryGet(id, out var e)) continue;
                g.Pending.Remove(id);
                e.Owner.Pending.Remove(id);
                acked++;
            }
            return acked > 0;
        });
        if (!StreamCommands.Run(s, s.Arg(1), op, write: true)) return;
        if (acked == 0) s.PropagateNothing();
        s.Writer.WriteInteger(acked);
    }

    // ---------------------------------------------------------------- XPENDING
    public static void XPending(CommandContext s)
    {
        bool summary = s.Argc == 3;
        if (s.Argc != 3 && (s.Argc < 6 || s.Argc > 9)) { s.WriteError(StreamCommands.Syntax); return; }
        long count = 0, minIdle = 0;
        StreamId start = default, end = default;
        byte[]? consumerName = null;
        if (!summary)
        {
            int at = 3;
            if (s.ArgEquals(3, "IDLE"u8))
            {
                if (!NumberParsing.TryParseInt64(s.Arg(4), out minIdle)) { s.WriteError(StreamCommands.NotInteger); return; }
                if (s.Argc < 8) { s.WriteError(StreamCommands.Syntax); return; }
                at += 2;
            }
            if (!NumberParsing.TryParseInt64(s.Arg(at + 2), out count)) { s.WriteError(StreamCommands.NotInteger); return; }
            if (count < 0) count = 0;
            if (!StreamCommands.TryParseBound(s, at, isStart: true, out start, out _)) return;
            if (!StreamCommands.TryParseBound(s, at + 1, isStart: false, out end, out _)) return;
            if (at + 3 < s.Argc) consumerName = s.Arg(at + 3).ToArray();
        }
        long now = StreamCommands.NowMs(s);
        int mark = s.Writer.Length;
        bool found = false;
        var op = StreamCommands.Op(st =>
        {
            s.Writer.Truncate(mark);
            var g = st.FindGroup(s.Arg(2));
            if (g is null) return false;
            found = true;
            var w = s.Writer;
            if (summary)
            {
                w.WriteArrayHeader(4);
                w.WriteInteger(g.Pending.Count);
                if (g.Pending.Count == 0) { w.WriteNull(); w.WriteNull(); w.WriteNullArray(); return false; }
                w.WriteBulkString(g.Pending.First.ToBytes());
                w.WriteBulkString(g.Pending.Last.ToBytes());
                var owners = g.Consumers.Values.Where(c => c.Pending.Count > 0).ToList();
                w.WriteArrayHeader(owners.Count);
                foreach (var c in owners)
                {
                    w.WriteArrayHeader(2);
                    w.WriteBulkString(c.Name);
                    w.WriteBulkString(c.Pending.Count.ToString(CultureInfo.InvariantCulture));
                }
                return false;
            }
            PendingList pel;
            if (consumerName is not null)
            {
                var c = g.Find(consumerName);
                if (c is null) { w.WriteArrayHeader(0); return false; }
                pel = c.Pending;
            }
            else pel = g.Pending;
            var rows = new List<PendingEntry>();
            if (count > 0)
                foreach (var e in pel.Range(start, end))
                {
                    if (minIdle != 0 && now - e.DeliveryTime < minIdle) continue;
                    rows.Add(e);
                    if (rows.Count >= count) break;
                }
            w.WriteArrayHeader(rows.Count);
            foreach (var e in rows)
            {
                w.WriteArrayHeader(4);
                w.WriteBulkString(e.Id.ToBytes());
                w.WriteBulkString(e.Owner.Name);
                w.WriteInteger(Math.Max(0, now - e.DeliveryTime));
                w.WriteInteger(e.DeliveryCount);
            }
            return false;
        });
        if (!StreamCommands.Run(s, s.Arg(1), op, write: false)) return;
        if (!found) { s.Writer.Truncate(mark); s.WriteError(NoGroup(s, 1, 2)); }
    }

    // ---------------------------------------------------------------- XCLAIM / XAUTOCLAIM
    /// <summary>Redis's streamPropagateXCLAIM: the claim as an exact XCLAIM for the AOF.</summary>
    internal static ArgRef[] ClaimLog(byte[] key, byte[] group, PendingEntry e, StreamId groupLastId) =>
    [
        ArgRef.Of("XCLAIM"), ArgRef.Of(key), ArgRef.Of(group), ArgRef.Of(e.Owner.Name), ArgRef.Of("0"), ArgRef.Of(e.Id.ToBytes()),
        ArgRef.Of("TIME"), ArgRef.Of(e.DeliveryTime.ToString(CultureInfo.InvariantCulture)),
        ArgRef.Of("RETRYCOUNT"), ArgRef.Of(e.DeliveryCount.ToString(CultureInfo.InvariantCulture)),
        ArgRef.Of("FORCE"), ArgRef.Of("JUSTID"), ArgRef.Of("LASTID"), ArgRef.Of(groupLastId.ToBytes()),
    ];

    internal static ArgRef[] SetIdLog(byte[] key, byte[] group, ConsumerGroup g) =>
    [
        ArgRef.Of("XGROUP"), ArgRef.Of("SETID"), ArgRef.Of(key), ArgRef.Of(group), ArgRef.Of(g.LastId.ToBytes()),
        ArgRef.Of("ENTRIESREAD"), ArgRef.Of(g.EntriesRead.ToString(CultureInfo.InvariantCulture)),
    ];

    public static void XClaim(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(4), out long minIdle)) { s.WriteError("ERR Invalid min-idle-time argument for XCLAIM"); return; }
        if (minIdle < 0) minIdle = 0;
        var ids = new List<StreamId>();
        int j = 5;
        for (; j < s.Argc; j++)
        {
            var a = s.Arg(j);
            if (a.Length == 1 && (a[0] == '-' || a[0] == '+')) break;
            if (!StreamId.TryParse(a, 0, out var id, out _)) break;
            ids.Add(id);
        }
        long now = StreamCommands.NowMs(s);
        long retryCount = -1, deliveryTime = -1;
        bool force = false, justId = false;
        StreamId lastId = StreamId.Min;
        for (; j < s.Argc; j++)
        {
            int more = s.Argc - 1 - j;
            if (s.ArgEquals(j, "FORCE"u8)) force = true;
            else if (s.ArgEquals(j, "JUSTID"u8)) justId = true;
            else if (s.ArgEquals(j, "IDLE"u8) && more > 0)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(++j), out deliveryTime)) { s.WriteError("ERR Invalid IDLE option argument for XCLAIM"); return; }
                deliveryTime = now - deliveryTime;
            }
            else if (s.ArgEquals(j, "TIME"u8) && more > 0)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(++j), out deliveryTime)) { s.WriteError("ERR Invalid TIME option argument for XCLAIM"); return; }
            }
            else if (s.ArgEquals(j, "RETRYCOUNT"u8) && more > 0)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(++j), out retryCount)) { s.WriteError("ERR Invalid RETRYCOUNT option argument for XCLAIM"); return; }
            }
            else if (s.ArgEquals(j, "LASTID"u8) && more > 0)
            {
                if (!StreamCommands.TryParseId(s, ++j, 0, strict: true, out lastId)) return;
            }
            else { s.WriteError($"ERR Unrecognized XCLAIM option '{Text(s.Arg(j))}'"); return; }
        }
        if (deliveryTime != -1) { if (deliveryTime < 0 || deliveryTime > now) deliveryTime = now; }
        else deliveryTime = now;
        var key = s.Arg(1).ToArray();
        var groupName = s.Arg(2).ToArray();
        var consumerName = s.Arg(3).ToArray();
        var log = new List<ArgRef[]>();
        var replies = new List<object>();
        bool found = false;
        var op = StreamCommands.Op(st =>
        {
            log.Clear();
            replies.Clear();
            var g = st.FindGroup(groupName);
            if (g is null) return false;
            found = true;
            bool propagateLastId = false;
            if (lastId > g.LastId) { g.LastId = lastId; propagateLastId = true; }
            var c = g.GetOrCreate(consumerName, now, out bool created);
            if (created) log.Add([ArgRef.Of("XGROUP"), ArgRef.Of("CREATECONSUMER"), ArgRef.Of(key), ArgRef.Of(groupName), ArgRef.Of(consumerName)]);
            c.SeenTime = now;
            foreach (var id in ids)
            {
                g.Pending.TryGet(id, out var e);
                var entry = st.Get(id);
                if (entry is null)
                {
                    if (e is not null)
                    {
                        log.Add(ClaimLog(key, groupName, e, g.LastId));
                        propagateLastId = false;
                        g.Pending.Remove(id);
                        e.Owner.Pending.Remove(id);
                    }
                    continue;
                }
                if (force && e is null)
                {
                    e = new PendingEntry(id, c, now, 0);
                    g.Pending.Add(e);
                    c.Pending.Add(e);
                }
                else if (e is not null)
                {
                    if (minIdle != 0 && now - e.DeliveryTime < minIdle) continue;
                }
                else continue;
                if (e.Owner != c) { e.Owner.Pending.Remove(id); e.Owner = c; c.Pending.Add(e); }
                e.DeliveryTime = deliveryTime;
                if (retryCount >= 0) e.DeliveryCount = retryCount;
                else if (!justId) e.DeliveryCount++;
                replies.Add(justId ? id : entry.Value);
                c.ActiveTime = now;
                log.Add(ClaimLog(key, groupName, e, g.LastId));
                propagateLastId = false;
            }
            if (propagateLastId) log.Add(SetIdLog(key, groupName, g));
            return true;
        });
        if (!StreamCommands.Run(s, s.Arg(1), op, write: true)) return;
        if (!found) { s.WriteError(NoGroup(s, 1, 2)); return; }
        s.PropagateMany(log);
        WriteClaimed(s, replies);
    }

    private static void WriteClaimed(CommandContext s, List<object> replies)
    {
        s.Writer.WriteArrayHeader(replies.Count);
        foreach (var r in replies)
        {
            if (r is StreamId id) s.Writer.WriteBulkString(id.ToBytes());
            else StreamCommands.WriteEntry(s, (StreamEntry)r);
        }
    }

    public static void XAutoClaim(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(4), out long minIdle)) { s.WriteError("ERR Invalid min-idle-time argument for XAUTOCLAIM"); return; }
        if (minIdle < 0) minIdle = 0;
        if (!StreamCommands.TryParseBound(s, 5, isStart: true, out var start, out _)) return;
        long count = 100;
        bool justId = false;
        for (int j = 6; j < s.Argc; j++)
        {
            int more = s.Argc - 1 - j;
            if (s.ArgEquals(j, "COUNT"u8) && more > 0)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(j + 1), out count) || count < 1 || count > long.MaxValue / 16) { s.WriteError("ERR COUNT must be > 0"); return; }
                j++;
            }
            else if (s.ArgEquals(j, "JUSTID"u8)) justId = true;
            else { s.WriteError(StreamCommands.Syntax); return; }
        }
        long now = StreamCommands.NowMs(s);
        var key = s.Arg(1).ToArray();
        var groupName = s.Arg(2).ToArray();
        var consumerName = s.Arg(3).ToArray();
        var log = new List<ArgRef[]>();
        var replies = new List<object>();
        var deleted = new List<StreamId>();
        StreamId next = default;
        bool found = false;
        var op = StreamCommands.Op(st =>
        {
            log.Clear();
            replies.Clear();
            deleted.Clear();
            var g = st.FindGroup(groupName);
            if (g is null) return false;
            found = true;
            var c = g.GetOrCreate(consumerName, now, out bool created);
            if (created) log.Add([ArgRef.Of("XGROUP"), ArgRef.Of("CREATECONSUMER"), ArgRef.Of(key), ArgRef.Of(groupName), ArgRef.Of(consumerName)]);
            c.SeenTime = now;
            long attempts = count * 10, left = count;
            next = StreamId.Min;
            var candidates = g.Pending.Range(start, StreamId.Max).GetEnumerator();
            var snapshot = new List<PendingEntry>();
            // The PEL changes while it is walked (dropped entries): walk a snapshot of what may be looked at, plus one.
            while (snapshot.Count < attempts + 1 && candidates.MoveNext()) snapshot.Add(candidates.Current);
            int i = 0;
            for (; i < snapshot.Count && attempts > 0 && left > 0; i++)
            {
                attempts--;
                var e = snapshot[i];
                var entry = st.Get(e.Id);
                if (entry is null)
                {
                    log.Add(ClaimLog(key, groupName, e, g.LastId));
                    g.Pending.Remove(e.Id);
                    e.Owner.Pending.Remove(e.Id);
                    deleted.Add(e.Id);
                    left--;
                    continue;
                }
                if (minIdle != 0 && now - e.DeliveryTime < minIdle) continue;
                if (e.Owner != c) { e.Owner.Pending.Remove(e.Id); e.Owner = c; c.Pending.Add(e); }
                e.DeliveryTime = now;
                if (!justId) e.DeliveryCount++;
                replies.Add(justId ? e.Id : entry.Value);
                left--;
                c.ActiveTime = now;
                log.Add(ClaimLog(key, groupName, e, g.LastId));
            }
            next = i < snapshot.Count ? snapshot[i].Id : StreamId.Min;
            return true;
        });
        if (!StreamCommands.Run(s, s.Arg(1), op, write: true)) return;
        if (!found) { s.WriteError(NoGroup(s, 1, 2)); return; }
        s.PropagateMany(log);
        s.Writer.WriteArrayHeader(3);
        s.Writer.WriteBulkString(next.ToBytes());
        WriteClaimed(s, replies);
        s.Writer.WriteArrayHeader(deleted.Count);
        foreach (var id in deleted) s.Writer.WriteBulkString(id.ToBytes());
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>XACK, XPENDING, XCLAIM, XAUTOCLAIM, XGROUP.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        var gk = new KeyRange(2, 2, 1);
        return
        [
            new()
            {
                Name = "xack", Arity = -4, Flags = Write | Fast, Acl = A.Stream, Keys = k1,
                Group = "stream", Since = "5.0.0",
                Summary = "Returns the number of messages that were successfully acknowledged by the consumer group member of a stream.",
                Complexity = "O(1) for each message ID processed.",
                LocksKeysExclusively = true, Handler = XAck,
            },
            new()
            {
                Name = "xpending", Arity = -3, Flags = ReadOnly, Acl = A.Stream, Keys = k1,
                Group = "stream", Since = "5.0.0",
                Summary = "Returns the information and entries from a stream consumer group's pending entries list.",
                Complexity = "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). " +
                    "O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the " +
                    "summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every " +
                    "consumer.",
                Tips = ["nondeterministic_output"],
                Handler = XPending,
            },
            new()
            {
                Name = "xclaim", Arity = -6, Flags = Write | Fast, Acl = A.Stream, Keys = k1,
                Group = "stream", Since = "5.0.0",
                Summary = "Changes, or acquires, ownership of a message in a consumer group, as if the message was delivered a consumer group " +
                    "member.",
                Complexity = "O(log N) with N being the number of messages in the PEL of the consumer group.",
                Tips = ["nondeterministic_output"],
                PlanStreamBlocks = plan => { if (!plan.HasArg(5, "JUSTID")) plan.PlanIds(1, 5); }, // JUSTID replies IDs only
                LocksKeysExclusively = true, Handler = XClaim,
            },
            new()
            {
                Name = "xautoclaim", Arity = -6, Flags = Write | Fast, Acl = A.Stream, Keys = k1,
                Group = "stream", Since = "6.2.0",
                Summary = "Changes, or acquires, ownership of messages in a consumer group, as if the messages were delivered to as consumer group " +
                    "member.",
                Complexity = "O(1) if COUNT is small.",
                Tips = ["nondeterministic_output"],
                LocksKeysExclusively = true, PlanStreamBlocks = plan => plan.PlanAutoClaim(), Handler = XAutoClaim,
            },
            new()
            {
                Name = "xgroup", Arity = -2, Acl = A.Slow,
                Group = "stream", Since = "5.0.0", Summary = "A container for consumer groups commands.",
                Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new()
                    {
                        Name = "create", Arity = -5, Flags = Write | DenyOom, Acl = A.Stream, Keys = gk,
                        Since = "5.0.0", Summary = "Creates a consumer group.",
                        LocksKeysExclusively = true, Handler = Create,
                    },
                    new()
                    {
                        Name = "createconsumer", Arity = 5, Flags = Write | DenyOom, Acl = A.Stream, Keys = gk,
                        Since = "6.2.0", Summary = "Creates a consumer in a consumer group.",
                        LocksKeysExclusively = true, Handler = CreateConsumer,
                    },
                    new()
                    {
                        Name = "delconsumer", Arity = 5, Flags = Write, Acl = A.Stream, Keys = gk,
                        Since = "5.0.0", Summary = "Deletes a consumer from a consumer group.",
                        LocksKeysExclusively = true, Handler = DelConsumer,
                    },
                    new()
                    {
                        Name = "destroy", Arity = 4, Flags = Write, Acl = A.Stream, Keys = gk,
                        Since = "5.0.0", Summary = "Destroys a consumer group.",
                        Complexity = "O(N) where N is the number of entries in the group's pending entries list (PEL).",
                        LocksKeysExclusively = true, Handler = Destroy,
                    },
                    new()
                    {
                        Name = "setid", Arity = -5, Flags = Write, Acl = A.Stream, Keys = gk,
                        Since = "5.0.0", Summary = "Sets the last-delivered ID of a consumer group.",
                        LocksKeysExclusively = true, Handler = SetId,
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
