// StreamCommands: XADD, XRANGE, XREVRANGE, XLEN, XDEL, XTRIM, XSETID on StreamObject (Redis 7.2 replies and errors).
// Each command is one ObjectOperation on the key's stream; parsing and replies happen here, outside the engine.
// What a write produced that a replay could not reproduce (XADD's generated ID, an approximate trim's effect) is
// logged to the AOF in its exact form (PropagateAs), as Redis propagates it.
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

public static class StreamCommands
{
    internal const string InvalidId = "ERR Invalid stream ID specified as stream command argument";
    internal const string NotInteger = StringFunctions.NotInteger;
    internal const string Syntax = "ERR syntax error";

    internal static CollectionOp<StreamObject> Op(Func<StreamObject, bool> apply, bool creates = false, Action? missing = null) =>
        new(ObjectKind.Stream, apply, creates, missing);

    internal static bool Run(CommandContext s, ReadOnlySpan<byte> key, Storage.ObjectOperation op, bool write) => CollectionCommand.Run(s, key, op, write);

    internal static long NowMs(CommandContext s) => StringCommands.NowMs(s);

    /// <summary>
    /// Entry bytes one stream may keep in memory before its oldest sealed blocks go to the spill file: 1/32 of the memory
    /// budget (64 KB to 64 MB), so a stream never makes its record "heavy" for the budget and XADD stays an in-place update
    /// of a small object (docs/objects-streams.md, "Streams larger than memory").
    /// </summary>
    internal static long HotLimit(CommandContext s) => Math.Clamp(s.Server.Settings.MemoryBytes / 32, 64L << 10, 64L << 20);

    /// <summary>Redis's streamParseID: "-" and "+" allowed unless strict; false after writing the error.</summary>
    internal static bool TryParseId(CommandContext s, int index, ulong missingSeq, bool strict, out StreamId id)
    {
        var a = s.Arg(index);
        if (a.Length == 1 && (a[0] == '-' || a[0] == '+'))
        {
            id = a[0] == '-' ? StreamId.Min : StreamId.Max;
            if (!strict) return true;
            s.WriteError(InvalidId);
            return false;
        }
        if (StreamId.TryParse(a, missingSeq, out id, out _)) return true;
        s.WriteError(InvalidId);
        return false;
    }

    /// <summary>An interval bound: "(" makes it exclusive (then "-"/"+" are invalid); false after writing the error.</summary>
    internal static bool TryParseBound(CommandContext s, int index, bool isStart, out StreamId id, out bool empty)
    {
        empty = false;
        var a = s.Arg(index);
        ulong missing = isStart ? 0 : ulong.MaxValue;
        if (a.Length > 1 && a[0] == '(')
        {
            if (!StreamId.TryParse(a[1..], missing, out id, out _)) { s.WriteError(InvalidId); return false; }
            if (isStart)
            {
                if (!id.TryIncrement(out id)) { s.WriteError("ERR invalid start ID for the interval"); return false; }
            }
            else if (!id.TryDecrement(out id)) { s.WriteError("ERR invalid end ID for the interval"); return false; }
            return true;
        }
        return TryParseId(s, index, missing, strict: false, out id);
    }

    /// <summary>Writes one entry: [id, [field, value, ...]].</summary>
    internal static void WriteEntry(CommandContext s, StreamEntry e)
    {
        s.Writer.WriteArrayHeader(2);
        s.Writer.WriteBulkString(e.Id.ToBytes());
        s.Writer.WriteArrayHeader(e.Pairs.Count);
        foreach (var p in e.Pairs) s.Writer.WriteBulkString(p);
    }

    // ---------------------------------------------------------------- XADD / XTRIM
    internal sealed class TrimArgs
    {
        public bool ByMinId, Approx, NoMkStream, IdGiven, SeqGiven, HasTrim;
        public long MaxLen, Limit;
        public StreamId MinId, Id;
        public int IdIndex, TrimArgIndex;
    }

    /// <summary>Redis's streamParseAddOrTrimArgsOrReply; false after writing the error.</summary>
    private static bool TryParseTrim(CommandContext s, bool xadd, TrimArgs t)
    {
        bool limitGiven = false;
        int i = 2;
        for (; i < s.Argc; i++)
        {
            int more = s.Argc - 1 - i;
            var opt = s.Arg(i);
            if (xadd && opt.Length == 1 && opt[0] == '*') break;
            bool maxlen = s.ArgEquals(i, "MAXLEN"u8), minid = s.ArgEquals(i, "MINID"u8);
            if ((maxlen || minid) && more > 0)
            {
                if (t.HasTrim) { s.WriteError("ERR syntax error, MAXLEN and MINID options at the same time are not compatible"); return false; }
                t.Approx = false;
                var next = s.Arg(i + 1);
                if (more >= 2 && next.Length == 1 && next[0] == '~') { t.Approx = true; i++; }
                else if (more >= 2 && next.Length == 1 && next[0] == '=') i++;
                if (maxlen)
                {
                    if (!NumberParsing.TryParseInt64(s.Arg(i + 1), out t.MaxLen)) { s.WriteError(NotInteger); return false; }
                    if (t.MaxLen < 0) { s.WriteError("ERR The MAXLEN argument must be >= 0."); return false; }
                }
                else if (!TryParseId(s, i + 1, 0, strict: true, out t.MinId)) return false;
                i++;
                t.HasTrim = true;
                t.ByMinId = minid;
                t.TrimArgIndex = i;
            }
            else if (s.ArgEquals(i, "LIMIT"u8) && more > 0)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(i + 1), out t.Limit)) { s.WriteError(NotInteger); return false; }
                if (t.Limit < 0) { s.WriteError("ERR The LIMIT argument must be >= 0."); return false; }
                limitGiven = true;
                i++;
            }
            else if (xadd && s.ArgEquals(i, "NOMKSTREAM"u8)) t.NoMkStream = true;
            else if (xadd)
            {
                if (opt.Length == 1 && (opt[0] == '-' || opt[0] == '+')) { s.WriteError(InvalidId); return false; }
                if (!StreamId.TryParse(opt, 0, out t.Id, out bool seqStar, allowSeqStar: true)) { s.WriteError(InvalidId); return false; }
                t.IdGiven = true;
                t.SeqGiven = !seqStar;
                break;
            }
            else { s.WriteError(Syntax); return false; }
        }
        t.IdIndex = i;
        if (t.Limit != 0 && !t.HasTrim) { s.WriteError("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"); return false; }
        if (!xadd && !t.HasTrim) { s.WriteError("ERR syntax error, XTRIM must be called with a trimming strategy"); return false; }
        if (limitGiven)
        {
            if (!t.Approx) { s.WriteError("ERR syntax error, LIMIT cannot be used without the special ~ option"); return false; }
        }
        else if (t.Approx) t.Limit = 100L * StreamBlock.MaxEntries;
        else t.Limit = 0;
        return true;
    }

    public static void XAdd(CommandContext s)
    {
        var t = new TrimArgs();
        if (!TryParseTrim(s, xadd: true, t)) return;
        int fieldAt = t.IdIndex + 1;
        if (s.Argc - fieldAt < 2 || (s.Argc - fieldAt) % 2 == 1) { s.WriteError("ERR wrong number of arguments for 'xadd' command"); return; }
        if (t.IdGiven && t.SeqGiven && t.Id.IsZero) { s.WriteError("ERR The ID specified in XADD must be greater than 0-0"); return; }
        var pairs = CollectionCommand.Args(s, fieldAt);
        long now = NowMs(s);
        StreamId added = default;
        string? error = null;
        long trimmed = 0;
        long lengthAfter = 0;
        StreamId firstAfter = default;
        bool ran = false;
        var op = Op(st =>
        {
            ran = true;
            error = null;
            trimmed = 0;
            if (st.LastId == StreamId.Max) { error = "ERR The stream has exhausted the last possible ID, unable to add more items"; return false; }
            if (!TryNextId(st.LastId, t, now, out added)) { error = "ERR The ID specified in XADD is equal or smaller than the target stream top item"; return false; }
            st.Add(added, pairs);
            if (t.HasTrim) trimmed = st.Trim(t.ByMinId, t.MaxLen, t.MinId, t.Approx, t.Limit);
            st.SpillColdBlocks(s.Server.Store.StreamSpill, HotLimit(s));
            lengthAfter = st.Length;
            firstAfter = st.FirstId;
            return true;
        }, creates: !t.NoMkStream);
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (error is not null) { s.WriteError(error); return; }
        if (!ran)
        {
            s.PropagateNothing();
            s.Writer.WriteNull();
            return;
        }
        s.Writer.WriteBulkString(added.ToBytes());
        s.Notify(NotifyClass.Stream, "xadd"u8, s.Arg(1));
        if (trimmed > 0) s.Notify(NotifyClass.Stream, "xtrim"u8, s.Arg(1));
        // Logged with the ID it produced and an approximate trim made exact, so a replay builds the same stream.
        var log = new List<ArgRef> { ArgRef.Of(0), ArgRef.Of(1) };
        if (t.NoMkStream) log.Add(ArgRef.Of("NOMKSTREAM"));
        if (t.HasTrim)
        {
            log.Add(ArgRef.Of(t.ByMinId ? "MINID" : "MAXLEN"));
            log.Add(ArgRef.Of("="));
            log.Add(t.ByMinId
                ? (t.Approx ? ArgRef.Of(firstAfter.ToBytes()) : ArgRef.Of(t.TrimArgIndex))
                : (t.Approx ? ArgRef.Of(lengthAfter.ToString(System.Globalization.CultureInfo.InvariantCulture)) : ArgRef.Of(t.TrimArgIndex)));
        }
        log.Add(ArgRef.Of(added.ToBytes()));
        for (int i = fieldAt; i < s.Argc; i++) log.Add(ArgRef.Of(i));
        s.PropagateAs([.. log]);
    }

    /// <summary>Redis's ID choice for XADD: "*" (time based), "ms-*", or explicit (must exceed last).</summary>
    private static bool TryNextId(StreamId last, TrimArgs t, long nowMs, out StreamId id)
    {
        if (!t.IdGiven)
        {
            ulong ms = (ulong)Math.Max(nowMs, 0);
            if (ms > last.Ms) { id = new StreamId(ms, 0); return true; }
            return last.TryIncrement(out id);
        }
        if (t.SeqGiven) id = t.Id;
        else if (last.Ms == t.Id.Ms)
        {
            if (last.Seq == ulong.MaxValue) { id = default; return false; }
            id = new StreamId(last.Ms, last.Seq + 1);
        }
        else id = t.Id;
        return id > last;
    }

    public static void XTrim(CommandContext s)
    {
        var t = new TrimArgs();
        if (!TryParseTrim(s, xadd: false, t)) return;
        if (t.IdIndex != s.Argc) { s.WriteError(Syntax); return; }
        long trimmed = 0, lengthAfter = 0;
        StreamId firstAfter = default;
        var op = Op(st =>
        {
            trimmed = st.Trim(t.ByMinId, t.MaxLen, t.MinId, t.Approx, t.Limit);
            lengthAfter = st.Length;
            firstAfter = st.FirstId;
            return trimmed > 0;
        });
        if (!Run(s, s.Arg(1), op, write: true)) return;
        s.Writer.WriteInteger(trimmed);
        if (trimmed == 0) { s.PropagateNothing(); return; }
        s.Notify(NotifyClass.Stream, "xtrim"u8, s.Arg(1));
        s.PropagateAs(ArgRef.Of(0), ArgRef.Of(1), ArgRef.Of(t.ByMinId ? "MINID" : "MAXLEN"), ArgRef.Of("="),
            t.ByMinId ? ArgRef.Of(firstAfter.ToBytes()) : ArgRef.Of(lengthAfter.ToString(System.Globalization.CultureInfo.InvariantCulture)));
    }

    // ---------------------------------------------------------------- XRANGE / XREVRANGE / XLEN
    public static void XRange(CommandContext s) => Range(s, reverse: false);
    public static void XRevRange(CommandContext s) => Range(s, reverse: true);

    private static void Range(CommandContext s, bool reverse)
    {
        int startAt = reverse ? 3 : 2, endAt = reverse ? 2 : 3;
        if (!TryParseBound(s, startAt, isStart: true, out var start, out _)) return;
        if (!TryParseBound(s, endAt, isStart: false, out var end, out _)) return;
        long count = -1;
        for (int j = 4; j < s.Argc; j++)
        {
            int more = s.Argc - j - 1;
            if (s.ArgEquals(j, "COUNT"u8) && more >= 1)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(j + 1), out count)) { s.WriteError(NotInteger); return; }
                if (count < 0) count = 0;
                j++;
            }
            else { s.WriteError(Syntax); return; }
        }
        int mark = s.Writer.Length;
        bool found = false;
        var op = Op(st =>
        {
            s.Writer.Truncate(mark);
            found = true;
            WriteRange(s, st, start, end, reverse, count);
            return false;
        });
        if (!Run(s, s.Arg(1), op, write: false)) return;
        if (!found) s.Writer.WriteArrayHeader(0);
    }

    /// <summary>Writes up to count (-1: all) entries of [start, end] as an array.</summary>
    internal static int WriteRange(CommandContext s, StreamObject st, StreamId start, StreamId end, bool reverse, long count)
    {
        if (count == 0) { s.Writer.WriteNullArray(); return 0; } // Redis: COUNT 0 (or negative) answers a null array
        var list = new List<StreamEntry>();
        foreach (var e in st.Range(start, end, reverse))
        {
            list.Add(e);
            if (count > 0 && list.Count >= count) break;
        }
        s.Writer.WriteArrayHeader(list.Count);
        foreach (var e in list) WriteEntry(s, e);
        return list.Count;
    }

    public static void XLen(CommandContext s)
    {
        long n = 0;
        if (!Run(s, s.Arg(1), Op(st => { n = st.Length; return false; }), write: false)) return;
        s.Writer.WriteInteger(n);
    }

    // ---------------------------------------------------------------- XDEL / XSETID
    public static void XDel(CommandContext s)
    {
        var ids = new StreamId[s.Argc - 2];
        for (int i = 2; i < s.Argc; i++) if (!TryParseId(s, i, 0, strict: true, out ids[i - 2])) return;
        long deleted = 0;
        var op = Op(st =>
        {
            deleted = 0;
            foreach (var id in ids) if (st.Delete(id)) deleted++;
            return deleted > 0;
        });
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (deleted > 0) s.Notify(NotifyClass.Stream, "xdel"u8, s.Arg(1));
        else s.PropagateNothing();
        s.Writer.WriteInteger(deleted);
    }

    public static void XSetId(CommandContext s)
    {
        if (!TryParseId(s, 2, 0, strict: true, out var id)) return;
        long entriesAdded = -1;
        StreamId maxDel = StreamId.Min;
        for (int i = 3; i < s.Argc;)
        {
            int more = s.Argc - 1 - i;
            if (s.ArgEquals(i, "ENTRIESADDED"u8) && more > 0)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(i + 1), out entriesAdded)) { s.WriteError(NotInteger); return; }
                if (entriesAdded < 0) { s.WriteError("ERR entries_added must be positive"); return; }
                i += 2;
            }
            else if (s.ArgEquals(i, "MAXDELETEDID"u8) && more > 0)
            {
                if (!TryParseId(s, i + 1, 0, strict: true, out maxDel)) return;
                if (id < maxDel) { s.WriteError("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"); return; }
                i += 2;
            }
            else { s.WriteError(Syntax); return; }
        }
        string? error = null;
        var op = Op(st =>
        {
            error = null;
            if (id < st.MaxDeletedId) { error = "ERR The ID specified in XSETID is smaller than current max_deleted_entry_id"; return false; }
            if (st.Length > 0)
            {
                var top = st.Entries.LastLiveId() ?? StreamId.Min;
                if (id < top) { error = "ERR The ID specified in XSETID is smaller than the target stream top item"; return false; }
                if (entriesAdded != -1 && st.Length > entriesAdded) { error = "ERR The entries_added specified in XSETID is smaller than the target stream length"; return false; }
            }
            st.LastId = id;
            if (entriesAdded != -1) st.EntriesAdded = entriesAdded;
            if (!maxDel.IsZero) st.MaxDeletedId = maxDel;
            return true;
        }, missing: () => error = "ERR no such key");
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (error is not null) { s.WriteError(error); return; }
        s.Notify(NotifyClass.Stream, "xsetid"u8, s.Arg(1));
        s.Writer.WriteOk();
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>XADD, XRANGE, XREVRANGE, XLEN, XDEL, XTRIM, XSETID.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        return
        [
            new()
            {
                Name = "xadd", Arity = -5, Flags = Write | DenyOom | Fast, Acl = A.Stream, Keys = k1,
                Group = "stream", Since = "5.0.0", Summary = "Appends a new message to a stream. Creates the key if it doesn't exist.",
                Complexity = "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
                Tips = ["nondeterministic_output"],
                // An exact trim may mark entries of the first block deleted (an approximate one removes whole blocks only).
                PlanStreamBlocks = plan =>
                {
                    if ((plan.HasArg(2, "MAXLEN") || plan.HasArg(2, "MINID")) && !plan.HasArg(2, "~")) plan.PlanFirst(1);
                },
                LocksKeysExclusively = true, Handler = XAdd,
            },
            new()
            {
                Name = "xrange", Arity = -4, Flags = ReadOnly, Acl = A.Stream, Keys = k1,
                Group = "stream", Since = "5.0.0", Summary = "Returns the messages from a stream within a range of IDs.",
                Complexity = "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 " +
                    "elements with COUNT), you can consider it O(1).",
                PlanStreamBlocks = plan => plan.PlanRange(reverse: false), Handler = XRange,
            },
            new()
            {
                Name = "xrevrange", Arity = -4, Flags = ReadOnly, Acl = A.Stream, Keys = k1,
                Group = "stream", Since = "5.0.0", Summary = "Returns the messages from a stream within a range of IDs in reverse order.",
                Complexity = "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements " +
                    "with COUNT), you can consider it O(1).",
                PlanStreamBlocks = plan => plan.PlanRange(reverse: true), Handler = XRevRange,
            },
            new()
            {
                Name = "xlen", Arity = 2, Flags = ReadOnly | Fast, Acl = A.Stream, Keys = k1,
                Group = "stream", Since = "5.0.0", Summary = "Return the number of messages in a stream.",
                Handler = XLen,
            },
            new()
            {
                Name = "xdel", Arity = -3, Flags = Write | Fast, Acl = A.Stream, Keys = k1,
                Group = "stream", Since = "5.0.0", Summary = "Returns the number of messages after removing them from a stream.",
                Complexity = "O(1) for each single item to delete in the stream, regardless of the stream size.",
                LocksKeysExclusively = true, PlanStreamBlocks = plan => plan.PlanIds(1, 2), Handler = XDel,
            },
            new()
            {
                Name = "xtrim", Arity = -4, Flags = Write, Acl = A.Stream, Keys = k1,
                Group = "stream", Since = "5.0.0", Summary = "Deletes messages from the beginning of a stream.",
                Complexity = "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized " +
                    "in macro nodes containing multiple entries that can be released with a single deallocation.",
                Tips = ["nondeterministic_output"],
                PlanStreamBlocks = plan => { if (!plan.HasArg(2, "~")) plan.PlanFirst(1); }, // as XADD's trim
                LocksKeysExclusively = true, Handler = XTrim,
            },
            new()
            {
                Name = "xsetid", Arity = -3, Flags = Write | DenyOom | Fast, Acl = A.Stream, Keys = k1,
                Group = "stream", Since = "5.0.0", Summary = "An internal command for replicating stream values.",
                LocksKeysExclusively = true, Handler = XSetId,
            },
        ];
    }
}
