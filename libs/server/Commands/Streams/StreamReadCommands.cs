// StreamReadCommands: XREAD and XREADGROUP, with BLOCK through the blocking machinery of the list commands
// (BlockingCommands.Block, BlockedClients). A blocked read retries the whole read when a write touches one of its keys
// (as Redis 7 re-executes the command), with "$" resolved when it blocked; a blocked XREADGROUP whose key or group went
// away gets Redis's NOGROUP error. XREAD waiters only read, so a write wakes all of them; XREADGROUP waiters take
// entries, so they are served first come, first served.
// XREADGROUP is logged to the AOF as Redis propagates it: an XCLAIM per delivered entry (its delivery time and count),
// then XGROUP SETID with the group's new last ID and entries-read counter.
using Garnet.server.Objects;
using Garnet.server.Objects.Streams;
using Garnet.server.Persistence;
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.server.Commands;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands.Streams;

public static class StreamReadCommands
{
    private sealed class ReadRequest
    {
        public bool Group, NoAck;
        public long Count;          // 0: all
        public long BlockMs = -1;   // -1: no BLOCK
        public byte[] GroupName = [], Consumer = [];
        public byte[][] Keys = [];
        public byte[][] IdArgs = [];
        public StreamId[] After = []; // entries greater than this (XREAD, or XREADGROUP history)
        public bool[] New = [];       // XREADGROUP ">"
    }

    private sealed record KeyResult(byte[] Key, List<(StreamId Id, List<byte[]>? Pairs)> Entries);

    public static void XRead(CommandContext s) => Read(s, group: false);
    public static void XReadGroup(CommandContext s) => Read(s, group: true);

    private static void Read(CommandContext s, bool group)
    {
        var r = new ReadRequest { Group = group };
        int streamsAt = 0, streamsCount = 0;
        bool groupGiven = false;
        for (int i = 1; i < s.Argc; i++)
        {
            int more = s.Argc - i - 1;
            if (s.ArgEquals(i, "BLOCK"u8) && more > 0)
            {
                i++;
                if (!NumberParsing.TryParseInt64(s.Arg(i), out long ms)) { s.WriteError("ERR timeout is not an integer or out of range"); return; }
                if (ms < 0) { s.WriteError("ERR timeout is negative"); return; }
                r.BlockMs = ms;
            }
            else if (s.ArgEquals(i, "COUNT"u8) && more > 0)
            {
                i++;
                if (!NumberParsing.TryParseInt64(s.Arg(i), out r.Count)) { s.WriteError(StreamCommands.NotInteger); return; }
                if (r.Count < 0) r.Count = 0;
            }
            else if (s.ArgEquals(i, "STREAMS"u8) && more > 0)
            {
                streamsAt = i + 1;
                streamsCount = s.Argc - streamsAt;
                if (streamsCount % 2 != 0)
                {
                    s.WriteError(group
                        ? "ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified."
                        : "ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must be specified."); // Redis 7.2's words
                    return;
                }
                streamsCount /= 2;
                break;
            }
            else if (s.ArgEquals(i, "GROUP"u8) && more >= 2)
            {
                if (!group) { s.WriteError("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."); return; }
                r.GroupName = s.Arg(i + 1).ToArray();
                r.Consumer = s.Arg(i + 2).ToArray();
                groupGiven = true;
                i += 2;
            }
            else if (s.ArgEquals(i, "NOACK"u8))
            {
                if (!group) { s.WriteError("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead."); return; }
                r.NoAck = true;
            }
            else { s.WriteError(StreamCommands.Syntax); return; }
        }
        if (streamsAt == 0) { s.WriteError(StreamCommands.Syntax); return; }
        if (group && !groupGiven) { s.WriteError("ERR Missing GROUP option for XREADGROUP"); return; }
        r.Keys = new byte[streamsCount][];
        r.IdArgs = new byte[streamsCount][];
        r.After = new StreamId[streamsCount];
        r.New = new bool[streamsCount];
        for (int i = 0; i < streamsCount; i++)
        {
            r.Keys[i] = s.Arg(streamsAt + i).ToArray();
            r.IdArgs[i] = s.Arg(streamsAt + streamsCount + i).ToArray();
        }
        if (!TryResolveIds(s, r)) return;
        var served = Serve(s, r, out string? error, out var log);
        if (error is not null) { s.WriteError(error); return; }
        if (group) s.PropagateMany(log);
        if (served.Count > 0) { WriteReply(s, served); return; }
        if (r.BlockMs < 0 || s.InExec) { s.Writer.WriteNullArray(); return; }
        long deadline = r.BlockMs == 0 ? 0 : StreamCommands.NowMs(s) + r.BlockMs;
        BlockingCommands.Block(s, r.Keys, deadline, (session, _) =>
        {
            var result = Serve(session, r, out string? e, out var l);
            if (e is not null) return e;
            if (result.Count == 0) return null;
            if (r.Group) session.AppendManyToAof(l);
            return result;
        }, [], (session, result) =>
        {
            if (result is string e) session.WriteError(e);
            else if (result is List<KeyResult> list) WriteReply(session, list);
            else session.Writer.WriteNullArray();
        }, readsOnly: !group);
    }

    /// <summary>Checks types and groups and turns "$", "+", "&gt;" and IDs into positions; false after writing the error.</summary>
    private static bool TryResolveIds(CommandContext s, ReadRequest r)
    {
        for (int i = 0; i < r.Keys.Length; i++)
        {
            StreamId last = default;
            bool exists = false, hasGroup = false;
            var op = StreamCommands.Op(st =>
            {
                exists = true;
                last = st.LastId;
                hasGroup = r.Group && st.FindGroup(r.GroupName) is not null;
                return false;
            });
            if (!StreamCommands.Run(s, r.Keys[i], op, write: false)) return false;
            if (r.Group && !hasGroup)
            {
                s.WriteError(NoGroupInRead(r, i));
                return false;
            }
            var a = r.IdArgs[i];
            if (a.AsSpan().SequenceEqual("$"u8))
            {
                if (r.Group) { s.WriteError("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set."); return false; }
                r.After[i] = exists ? last : StreamId.Min;
            }
            else if (a.AsSpan().SequenceEqual("+"u8))
            {
                // XREAD's "+" (the last entry) is Redis 7.4's; to XREADGROUP, as to Redis 7.2, it is no ID.
                if (r.Group) { s.WriteError(StreamCommands.InvalidId); return false; }
                if (exists)
                {
                    if (!last.TryDecrement(out r.After[i])) { s.WriteError("ERR the stream last element ID is 0-0"); return false; }
                }
                else r.After[i] = StreamId.Min;
            }
            else if (a.AsSpan().SequenceEqual(">"u8))
            {
                if (!r.Group) { s.WriteError("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option."); return false; }
                r.New[i] = true;
            }
            else if (a.Length == 1 && a[0] == '-') { s.WriteError(StreamCommands.InvalidId); return false; }
            else if (!StreamId.TryParse(a, 0, out r.After[i], out _)) { s.WriteError(StreamCommands.InvalidId); return false; }
        }
        return true;
    }

    private static string NoGroupInRead(ReadRequest r, int i) =>
        $"NOGROUP No such key '{StreamGroupCommands.Text(r.Keys[i])}' or consumer group '{StreamGroupCommands.Text(r.GroupName)}' in XREADGROUP with GROUP option";

    /// <summary>Reads every key; the keys with something to give (XREADGROUP history always gives its answer).</summary>
    private static List<KeyResult> Serve(CommandContext s, ReadRequest r, out string? error, out List<ArgRef[]> log)
    {
        error = null;
        log = [];
        var results = new List<KeyResult>();
        long now = StreamCommands.NowMs(s);
        for (int i = 0; i < r.Keys.Length; i++)
        {
            var key = r.Keys[i];
            KeyResult? result = null;
            bool hasGroup = false;
            var keyLog = new List<ArgRef[]>();
            int at = i;
            var op = StreamCommands.Op(st =>
            {
                result = null;
                keyLog.Clear();
                if (!r.Group)
                {
                    if (st.Length == 0 || st.Entries.LastLiveId() is not { } max || max <= r.After[at]) return false;
                    if (!r.After[at].TryIncrement(out var start)) return false;
                    var list = new List<(StreamId, List<byte[]>?)>();
                    foreach (var e in st.Range(start, StreamId.Max, false))
                    {
                        list.Add((e.Id, e.Pairs));
                        if (r.Count > 0 && list.Count >= r.Count) break;
                    }
                    result = new KeyResult(key, list);
                    return false;
                }
                var g = st.FindGroup(r.GroupName);
                if (g is null) return false;
                hasGroup = true;
                bool changed = false;
                var c = g.GetOrCreate(r.Consumer, now, out bool created);
                if (created)
                {
                    changed = true;
                    keyLog.Add([ArgRef.Of("XGROUP"), ArgRef.Of("CREATECONSUMER"), ArgRef.Of(key), ArgRef.Of(r.GroupName), ArgRef.Of(r.Consumer)]);
                }
                c.SeenTime = now;
                if (!r.New[at]) { result = new KeyResult(key, History(st, g, c, r.After[at], r.Count, now, key, r.GroupName, keyLog)); return true; }
                if (st.Length == 0 || st.Entries.LastLiveId() is not { } top || top <= g.LastId) return changed;
                var delivered = new List<(StreamId, List<byte[]>?)>();
                if (!g.LastId.TryIncrement(out var from)) return changed;
                foreach (var e in st.Range(from, StreamId.Max, false))
                {
                    st.Advance(g, e.Id);
                    delivered.Add((e.Id, e.Pairs));
                    if (!r.NoAck)
                    {
                        if (g.Pending.TryGet(e.Id, out var old)) { old.Owner.Pending.Remove(e.Id); g.Pending.Remove(e.Id); }
                        var pe = new PendingEntry(e.Id, c, now, 1);
                        g.Pending.Add(pe);
                        c.Pending.Add(pe);
                        c.ActiveTime = now;
                        keyLog.Add(StreamGroupCommands.ClaimLog(key, r.GroupName, pe, g.LastId));
                    }
                    if (r.Count > 0 && delivered.Count >= r.Count) break;
                }
                keyLog.Add(StreamGroupCommands.SetIdLog(key, r.GroupName, g));
                result = new KeyResult(key, delivered);
                return true;
            });
            // Not CollectionCommand.Run: a served waiter's error is its reply, written later.
            if (r.Group) s.Storage.UpdateObject(key, op); else s.Storage.ReadObject(key, op);
            if (op.Error is not null) { error = op.Error; log = []; return []; }
            if (r.Group && !hasGroup) { error = NoGroupInRead(r, i); log = []; return []; }
            log.AddRange(keyLog);
            if (result is not null) results.Add(result);
        }
        return results;
    }

    /// <summary>XREADGROUP with an ID: the consumer's pending entries after it (deleted ones with a null body).</summary>
    private static List<(StreamId, List<byte[]>?)> History(StreamObject st, ConsumerGroup g, Consumer c, StreamId after, long count,
        long now, byte[] key, byte[] groupName, List<ArgRef[]> log)
    {
        var list = new List<(StreamId, List<byte[]>?)>();
        if (!after.TryIncrement(out var start)) return list;
        foreach (var pe in c.Pending.Range(start, StreamId.Max).ToList())
        {
            if (count > 0 && list.Count >= count) break;
            var e = st.Get(pe.Id);
            if (e is null) { list.Add((pe.Id, null)); continue; }
            pe.DeliveryTime = now;
            pe.DeliveryCount++;
            list.Add((pe.Id, e.Value.Pairs));
            log.Add(StreamGroupCommands.ClaimLog(key, groupName, pe, g.LastId));
        }
        return list;
    }

    private static void WriteReply(CommandContext s, List<KeyResult> results)
    {
        var w = s.Writer;
        if (s.Protocol >= 3) w.WriteMapHeader(results.Count); else w.WriteArrayHeader(results.Count);
        foreach (var k in results)
        {
            if (s.Protocol < 3) w.WriteArrayHeader(2);
            w.WriteBulkString(k.Key);
            w.WriteArrayHeader(k.Entries.Count);
            foreach (var (id, pairs) in k.Entries)
            {
                w.WriteArrayHeader(2);
                w.WriteBulkString(id.ToBytes());
                if (pairs is null) { w.WriteNullArray(); continue; }
                w.WriteArrayHeader(pairs.Count);
                foreach (var p in pairs) w.WriteBulkString(p);
            }
        }
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    // XREAD/XREADGROUP name their keys after STREAMS (Redis's keyword key spec): the first half of the arguments after it;
    // COMMAND INFO shows 0 0 0 for their legacy range, as Redis.
    /// <summary>XREAD, XREADGROUP.</summary>
    internal static CommandDefinition[] Declarations()
    {
        return
        [
            new()
            {
                Name = "xread", Arity = -4, Flags = ReadOnly | Blocking | MovableKeys, Acl = A.Stream, KeysAfterKeyword = new("STREAMS", 1, 2),
                Group = "stream", Since = "5.0.0",
                Summary = "Returns messages from multiple streams with IDs greater than the ones requested. Blocks until a message is available " +
                    "otherwise.",
                Complexity = "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a " +
                    "fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked " +
                    "on the stream getting new data.",
                PlanStreamBlocks = plan => plan.PlanRead(group: false), Handler = XRead,
            },
            new()
            {
                Name = "xreadgroup", Arity = -7, Flags = Write | Blocking | MovableKeys, Acl = A.Stream, KeysAfterKeyword = new("STREAMS", 4, 2),
                Group = "stream", Since = "5.0.0",
                Summary = "Returns new or historical messages from a stream for a consumer in a group. Blocks until a message is available " +
                    "otherwise.",
                Complexity = "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking " +
                    "for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the " +
                    "O(N) time in order to serve the N clients blocked on the stream getting new data.",
                LocksKeysExclusively = true, PlanStreamBlocks = plan => plan.PlanRead(group: true), Handler = XReadGroup,
            },
        ];
    }
}
