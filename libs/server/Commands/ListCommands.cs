// ListCommands: Redis's list family (LPUSH ... LMPOP) on ListObject. Each command is one ObjectOperation run by the
// engine on the key's list (ObjectFunctions); LMOVE and RPOPLPUSH are two, under the exclusive locks of both keys
// (the command table marks them multi-key writes), so no other command sees the element in neither list.
using Garnet.server.Objects;
using Garnet.server.PubSub;
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class ListCommands
{
    private const string NotInteger = StringFunctions.NotInteger;
    private const string MustBePositive = "ERR value is out of range, must be positive";

    private static CollectionOp<ListObject> ListOp(Func<ListObject, bool> apply, bool creates = false, Action? missing = null) =>
        new(ObjectKind.List, apply, creates, missing);

    private static bool Run(CommandContext s, ReadOnlySpan<byte> key, ObjectOperation op, bool write) => CollectionCommand.Run(s, key, op, write);

    public static void LPush(CommandContext s) => Push(s, head: true, onlyIfExists: false);
    public static void RPush(CommandContext s) => Push(s, head: false, onlyIfExists: false);
    public static void LPushX(CommandContext s) => Push(s, head: true, onlyIfExists: true);
    public static void RPushX(CommandContext s) => Push(s, head: false, onlyIfExists: true);

    private static void Push(CommandContext s, bool head, bool onlyIfExists)
    {
        var items = CollectionCommand.Args(s, 2);
        long length = 0;
        var op = ListOp(l =>
        {
            foreach (var item in items) if (head) l.PushHead(item); else l.PushTail(item);
            length = l.Count;
            return true;
        }, creates: !onlyIfExists);
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (length > 0) s.Notify(NotifyClass.List, head ? "lpush"u8 : "rpush"u8, s.Arg(1));
        s.Writer.WriteInteger(length);
    }

    public static void LPop(CommandContext s) => Pop(s, head: true);
    public static void RPop(CommandContext s) => Pop(s, head: false);

    private static void Pop(CommandContext s, bool head)
    {
        long count = 1;
        bool withCount = s.Argc == 3;
        if (withCount)
        {
            if (!NumberParsing.TryParseInt64(s.Arg(2), out count) || count < 0) { s.WriteError(MustBePositive); return; }
        }
        var popped = new List<byte[]>();
        bool exists = false;
        var op = ListOp(l =>
        {
            popped.Clear();
            exists = true;
            for (long i = 0; i < count && l.Count > 0; i++) popped.Add(head ? l.PopHead() : l.PopTail());
            return popped.Count > 0;
        });
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (popped.Count > 0) CollectionCommand.Notify(s, op, NotifyClass.List, head ? "lpop"u8 : "rpop"u8, s.Arg(1));
        if (!withCount) { if (popped.Count == 0) s.Writer.WriteNull(); else s.Writer.WriteBulkString(popped[0]); return; }
        if (!exists) { s.Writer.WriteNullArray(); return; }
        WriteItems(s, popped);
    }

    public static void LLen(CommandContext s)
    {
        long n = 0;
        if (!Run(s, s.Arg(1), ListOp(l => { n = l.Count; return false; }), write: false)) return;
        s.Writer.WriteInteger(n);
    }

    public static void LRange(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long start) || !NumberParsing.TryParseInt64(s.Arg(3), out long stop)) { s.WriteError(NotInteger); return; }
        // Written while the list is read (under its record's shared lock), walking the packed nodes with a cursor: a
        // huge range takes the reply's bytes, not a copy of its items first, and stops at the output limit
        // (RespWriter.Limit).
        int mark = s.Writer.Length;
        bool found = false;
        var op = ListOp(l =>
        {
            s.Writer.Truncate(mark); // an operation may run again (after going to disk)
            found = true;
            long from = start, to = stop;
            if (!Normalize(l.Count, ref from, ref to)) { s.Writer.WriteArrayHeader(0); return false; }
            s.Writer.WriteArrayHeader((int)(to - from + 1));
            var cursor = l.GetCursor(from, reverse: false);
            for (long i = from; i <= to && cursor.MoveNext(); i++) s.Writer.WriteBulkString(cursor.Current);
            return false;
        });
        if (!Run(s, s.Arg(1), op, write: false)) return;
        if (!found) s.Writer.WriteArrayHeader(0);
    }

    public static void LIndex(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long index)) { s.WriteError(NotInteger); return; }
        byte[]? item = null;
        var op = ListOp(l =>
        {
            long i = index < 0 ? l.Count + index : index;
            item = i >= 0 && i < l.Count ? l[i] : null;
            return false;
        });
        if (!Run(s, s.Arg(1), op, write: false)) return;
        if (item is null) s.Writer.WriteNull(); else s.Writer.WriteBulkString(item);
    }

    public static void LSet(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long index)) { s.WriteError(NotInteger); return; }
        var value = s.Arg(3).ToArray();
        string? error = null;
        var op = ListOp(l =>
        {
            long i = index < 0 ? l.Count + index : index;
            if (i < 0 || i >= l.Count) { error = "ERR index out of range"; return false; }
            error = null;
            l.Set(i, value);
            return true;
        }, missing: () => error = "ERR no such key");
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (error is not null) { s.WriteError(error); return; }
        s.Notify(NotifyClass.List, "lset"u8, s.Arg(1));
        s.Writer.WriteOk();
    }

    public static void LInsert(CommandContext s)
    {
        bool before;
        if (s.ArgEquals(2, "BEFORE"u8)) before = true;
        else if (s.ArgEquals(2, "AFTER"u8)) before = false;
        else { s.WriteError("ERR syntax error"); return; }
        var pivot = s.Arg(3).ToArray();
        var value = s.Arg(4).ToArray();
        long result = 0;
        var op = ListOp(l =>
        {
            long i = l.IndexOf(pivot);
            if (i < 0) { result = -1; return false; }
            l.Insert(before ? i : i + 1, value);
            result = l.Count;
            return true;
        });
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (result > 0) s.Notify(NotifyClass.List, "linsert"u8, s.Arg(1));
        s.Writer.WriteInteger(result);
    }

    public static void LRem(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long count)) { s.WriteError(NotInteger); return; }
        var value = s.Arg(3).ToArray();
        long removed = 0;
        var op = ListOp(l =>
        {
            removed = l.RemoveAll(value, count);
            return removed > 0;
        });
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (removed > 0) CollectionCommand.Notify(s, op, NotifyClass.List, "lrem"u8, s.Arg(1));
        s.Writer.WriteInteger(removed);
    }

    public static void LTrim(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long start) || !NumberParsing.TryParseInt64(s.Arg(3), out long stop)) { s.WriteError(NotInteger); return; }
        bool existed = false;
        var op = ListOp(l =>
        {
            existed = true;
            long a = start, b = stop;
            if (!Normalize(l.Count, ref a, ref b)) { l.Clear(); return true; } // empty: the key goes
            if (a == 0 && b == l.Count - 1) return false;
            l.Trim(a, b);
            return true;
        });
        if (!Run(s, s.Arg(1), op, write: true)) return;
        // As Redis: "ltrim" whenever the list exists, trimmed or not.
        if (existed) CollectionCommand.Notify(s, op, NotifyClass.List, "ltrim"u8, s.Arg(1));
        s.Writer.WriteOk();
    }

    public static void LPos(CommandContext s)
    {
        var value = s.Arg(2).ToArray();
        long rank = 1, count = -1, maxLen = 0;
        for (int i = 3; i < s.Argc; i++)
        {
            if (i + 1 >= s.Argc) { s.WriteError("ERR syntax error"); return; }
            if (s.ArgEquals(i, "RANK"u8))
            {
                if (!NumberParsing.TryParseInt64(s.Arg(++i), out rank)) { s.WriteError(NotInteger); return; }
                if (rank == 0) { s.WriteError("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"); return; }
                if (rank == long.MinValue) { s.WriteError("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"); return; }
            }
            else if (s.ArgEquals(i, "COUNT"u8))
            {
                if (!NumberParsing.TryParseInt64(s.Arg(++i), out count)) { s.WriteError(NotInteger); return; }
                if (count < 0) { s.WriteError("ERR COUNT can't be negative"); return; }
            }
            else if (s.ArgEquals(i, "MAXLEN"u8))
            {
                if (!NumberParsing.TryParseInt64(s.Arg(++i), out maxLen)) { s.WriteError(NotInteger); return; }
                if (maxLen < 0) { s.WriteError("ERR MAXLEN can't be negative"); return; }
            }
            else { s.WriteError("ERR syntax error"); return; }
        }
        var found = new List<long>();
        var op = ListOp(l =>
        {
            found.Clear();
            long want = count < 0 ? 1 : count == 0 ? long.MaxValue : count;
            long skip = Math.Abs(rank) - 1, looked = 0;
            for (var c = l.GetCursor(rank > 0 ? 0 : l.Count - 1, reverse: rank < 0); found.Count < want && c.MoveNext();)
            {
                if (maxLen != 0 && looked++ >= maxLen) break;
                if (!c.Current.SequenceEqual(value)) continue;
                if (skip > 0) { skip--; continue; }
                found.Add(c.Index);
            }
            return false;
        });
        if (!Run(s, s.Arg(1), op, write: false)) return;
        if (count < 0) { if (found.Count == 0) s.Writer.WriteNull(); else s.Writer.WriteInteger(found[0]); return; }
        s.Writer.WriteArrayHeader(found.Count);
        foreach (var i in found) s.Writer.WriteInteger(i);
    }

    public static void LMove(CommandContext s)
    {
        if (!TryEnd(s, 3, out bool fromHead) || !TryEnd(s, 4, out bool toHead)) { s.WriteError("ERR syntax error"); return; }
        Move(s, fromHead, toHead);
    }

    public static void RPopLPush(CommandContext s) => Move(s, fromHead: false, toHead: true);

    private static void Move(CommandContext s, bool fromHead, bool toHead)
    {
        // The destination's type is checked first: a wrong one leaves the source untouched.
        if (!Run(s, s.Arg(2), ListOp(_ => false), write: false)) return;
        byte[]? item = null;
        bool sameKey = s.Arg(1).SequenceEqual(s.Arg(2));
        var pop = ListOp(l =>
        {
            if (l.Count == 0) return false;
            item = fromHead ? l.PopHead() : l.PopTail();
            if (sameKey) { if (toHead) l.PushHead(item); else l.PushTail(item); }
            return true;
        });
        if (!Run(s, s.Arg(1), pop, write: true)) return;
        if (item is null) { s.Writer.WriteNull(); return; }
        if (!sameKey)
        {
            var push = ListOp(l => { if (toHead) l.PushHead(item); else l.PushTail(item); return true; }, creates: true);
            if (!Run(s, s.Arg(2), push, write: true)) return;
        }
        NotifyMove(s, s.Arg(1), s.Arg(2), fromHead, toHead, emptied: (pop.Status & Status.Deleted) != 0, s.Database);
        s.Writer.WriteBulkString(item);
    }

    public static void LMPop(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(1), out long numKeys) || numKeys <= 0) { s.WriteError("ERR numkeys should be greater than 0"); return; }
        if (numKeys > s.Argc - 3) { s.WriteError("ERR syntax error"); return; }
        int at = 2 + (int)numKeys;
        if (!TryEnd(s, at, out bool head)) { s.WriteError("ERR syntax error"); return; }
        long count = 1;
        if (at + 1 < s.Argc)
        {
            if (at + 3 != s.Argc || !s.ArgEquals(at + 1, "COUNT"u8)) { s.WriteError("ERR syntax error"); return; }
            if (!NumberParsing.TryParseInt64(s.Arg(at + 2), out count) || count <= 0) { s.WriteError("ERR count should be greater than 0"); return; }
        }
        for (int k = 2; k < 2 + numKeys; k++)
        {
            var popped = TryPop(s, s.Arg(k), head, count, s.Database, out string? error);
            if (error is not null) { s.WriteError(error); return; }
            if (popped is null) continue;
            s.Writer.WriteArrayHeader(2);
            s.Writer.WriteBulkString(s.Arg(k));
            WriteItems(s, popped);
            return;
        }
        s.Writer.WriteNullArray();
    }

    /// <summary>LMOVE's events in Redis's order: the push on destination, the pop on source, "del" when source emptied.</summary>
    internal static void NotifyMove(CommandContext s, ReadOnlySpan<byte> source, ReadOnlySpan<byte> destination, bool fromHead, bool toHead, bool emptied, int db)
    {
        s.Notify(NotifyClass.List, toHead ? "lpush"u8 : "rpush"u8, destination, db);
        s.Notify(NotifyClass.List, fromHead ? "lpop"u8 : "rpop"u8, source, db);
        if (emptied && !source.SequenceEqual(destination)) s.Notify(NotifyClass.Generic, "del"u8, source, db);
    }

    /// <summary>Pops up to count items from one end of key's list in database db: null when the key holds no list items;
    /// error is set (and nothing changed) for a key of another type. Announces "lpop"/"rpop" (and "del").</summary>
    internal static List<byte[]>? TryPop(CommandContext s, ReadOnlySpan<byte> key, bool head, long count, int db, out string? error)
    {
        var popped = TryPop(s, key, head, count, db, out error, out bool emptied);
        if (popped is not null)
        {
            s.Notify(NotifyClass.List, head ? "lpop"u8 : "rpop"u8, key, db);
            if (emptied) s.Notify(NotifyClass.Generic, "del"u8, key, db);
        }
        return popped;
    }

    /// <summary>TryPop without events; emptied: the pop deleted the key.</summary>
    internal static List<byte[]>? TryPop(CommandContext s, ReadOnlySpan<byte> key, bool head, long count, int db, out string? error, out bool emptied)
    {
        var popped = new List<byte[]>();
        var op = ListOp(l =>
        {
            popped.Clear();
            for (long i = 0; i < count && l.Count > 0; i++) popped.Add(head ? l.PopHead() : l.PopTail());
            return popped.Count > 0;
        });
        s.Storage.UpdateObject(key, op, db);
        error = op.Error;
        emptied = (op.Status & Status.Deleted) != 0;
        return popped.Count > 0 ? popped : null;
    }

    /// <summary>Pushes item at one end of key's list in database db (creating it); false with error for another type. No
    /// events (the caller announces them).</summary>
    internal static bool TryPush(CommandContext s, ReadOnlySpan<byte> key, byte[] item, bool head, int db, out string? error)
    {
        var op = ListOp(l => { if (head) l.PushHead(item); else l.PushTail(item); return true; }, creates: true);
        s.Storage.UpdateObject(key, op, db);
        error = op.Error;
        return error is null;
    }

    /// <summary>Checks that key in db is a list or missing (error set otherwise), changing nothing.</summary>
    internal static bool IsListOrMissing(CommandContext s, ReadOnlySpan<byte> key, int db, out string? error)
    {
        var op = ListOp(_ => false);
        s.Storage.ReadObject(key, op, db);
        error = op.Error;
        return error is null;
    }

    internal static bool TryEnd(CommandContext s, int index, out bool head)
    {
        head = s.ArgEquals(index, "LEFT"u8);
        return head || s.ArgEquals(index, "RIGHT"u8);
    }

    /// <summary>Redis's range rules: negative indexes count from the end; false when the range is empty.</summary>
    internal static bool Normalize(long length, ref long start, ref long stop)
    {
        if (start < 0) start = Math.Max(0, length + start);
        if (stop < 0) stop = length + stop;
        if (stop >= length) stop = length - 1;
        return start <= stop && start < length;
    }

    private static void WriteItems(CommandContext s, List<byte[]> items)
    {
        s.Writer.WriteArrayHeader(items.Count);
        foreach (var item in items) s.Writer.WriteBulkString(item);
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP, LLEN, LRANGE, LINDEX, LSET, LINSERT, LREM, LTRIM, LPOS, LMOVE, RPOPLPUSH,
    /// LMPOP.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        return
        [
            new()
            {
                Name = "lpush", Arity = -3, Flags = Write | DenyOom | Fast, Acl = A.List, Keys = k1,
                Group = "list", Since = "1.0.0", Summary = "Prepends one or more elements to a list. Creates the key if it doesn't exist.",
                LocksKeysExclusively = true, Handler = LPush,
            },
            new()
            {
                Name = "rpush", Arity = -3, Flags = Write | DenyOom | Fast, Acl = A.List, Keys = k1,
                Group = "list", Since = "1.0.0", Summary = "Appends one or more elements to a list. Creates the key if it doesn't exist.",
                LocksKeysExclusively = true, Handler = RPush,
            },
            new()
            {
                Name = "lpushx", Arity = -3, Flags = Write | DenyOom | Fast, Acl = A.List, Keys = k1,
                Group = "list", Since = "2.2.0", Summary = "Prepends one or more elements to a list only when the list exists.",
                LocksKeysExclusively = true, Handler = LPushX,
            },
            new()
            {
                Name = "rpushx", Arity = -3, Flags = Write | DenyOom | Fast, Acl = A.List, Keys = k1,
                Group = "list", Since = "2.2.0", Summary = "Appends an element to a list only when the list exists.",
                LocksKeysExclusively = true, Handler = RPushX,
            },
            new()
            {
                Name = "lpop", Arity = -2, Flags = Write | Fast, Acl = A.List, Keys = k1,
                Group = "list", Since = "1.0.0",
                Summary = "Returns the first elements in a list after removing it. Deletes the list if the last element was popped.",
                LocksKeysExclusively = true, Handler = LPop,
            },
            new()
            {
                Name = "rpop", Arity = -2, Flags = Write | Fast, Acl = A.List, Keys = k1,
                Group = "list", Since = "1.0.0",
                Summary = "Returns and removes the last elements of a list. Deletes the list if the last element was popped.",
                LocksKeysExclusively = true, Handler = RPop,
            },
            new()
            {
                Name = "llen", Arity = 2, Flags = ReadOnly | Fast, Acl = A.List, Keys = k1,
                Group = "list", Since = "1.0.0", Summary = "Returns the length of a list.",
                Handler = LLen,
            },
            new()
            {
                Name = "lrange", Arity = 4, Flags = ReadOnly, Acl = A.List, Keys = k1,
                Group = "list", Since = "1.0.0", Summary = "Returns a range of elements from a list.",
                Handler = LRange,
            },
            new()
            {
                Name = "lindex", Arity = 3, Flags = ReadOnly, Acl = A.List, Keys = k1,
                Group = "list", Since = "1.0.0", Summary = "Returns an element from a list by its index.",
                Handler = LIndex,
            },
            new()
            {
                Name = "lset", Arity = 4, Flags = Write | DenyOom, Acl = A.List, Keys = k1,
                Group = "list", Since = "1.0.0", Summary = "Sets the value of an element in a list by its index.",
                LocksKeysExclusively = true, Handler = LSet,
            },
            new()
            {
                Name = "linsert", Arity = 5, Flags = Write | DenyOom, Acl = A.List, Keys = k1,
                Group = "list", Since = "2.2.0", Summary = "Inserts an element before or after another element in a list.",
                LocksKeysExclusively = true, Handler = LInsert,
            },
            new()
            {
                Name = "lrem", Arity = 4, Flags = Write, Acl = A.List, Keys = k1,
                Group = "list", Since = "1.0.0", Summary = "Removes elements from a list. Deletes the list if the last element was removed.",
                LocksKeysExclusively = true, Handler = LRem,
            },
            new()
            {
                Name = "ltrim", Arity = 4, Flags = Write, Acl = A.List, Keys = k1,
                Group = "list", Since = "1.0.0", Summary = "Removes elements from both ends a list. Deletes the list if all elements were trimmed.",
                LocksKeysExclusively = true, Handler = LTrim,
            },
            new()
            {
                Name = "lpos", Arity = -3, Flags = ReadOnly, Acl = A.List, Keys = k1,
                Group = "list", Since = "6.0.6", Summary = "Returns the index of matching elements in a list.",
                Handler = LPos,
            },
            new()
            {
                Name = "lmove", Arity = 5, Flags = Write | DenyOom, Acl = A.List, Keys = new KeyRange(1, 2, 1),
                Group = "list", Since = "6.2.0",
                Summary = "Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was " +
                    "moved.",
                LocksKeysExclusively = true, Handler = LMove,
            },
            new()
            {
                Name = "rpoplpush", Arity = 3, Flags = Write | DenyOom, Acl = A.List, Keys = new KeyRange(1, 2, 1),
                Group = "list", Since = "1.2.0",
                Summary = "Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element " +
                    "was popped.",
                LocksKeysExclusively = true, Handler = RPopLPush,
            },
            new()
            {
                Name = "lmpop", Arity = -4, Flags = Write | MovableKeys, Acl = A.List, Keys = new KeyRange(2, -1, 1),
                Group = "list", Since = "7.0.0",
                Summary = "Returns multiple elements from a list after removing them. Deletes the list if the last element was popped.",
                LocksKeysExclusively = true, Handler = LMPop,
            },
        ];
    }
}
