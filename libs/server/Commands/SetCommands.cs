// SetCommands: Redis 7.2's set family (SADD ... SSCAN) on SetObject. A single-key command is one ObjectOperation run by
// the engine on the key's set (ObjectFunctions); a multi-key one reads each key's set with its own ReadObject (a set
// read this way is used while the command still holds its keys' locks, so nothing changes it meanwhile) and, for the
// xSTORE forms, stores a new set under the destination (replacing a value of any type, as Redis) or deletes it.
// SPOP is random: it is logged to the AOF as the SREM (or DEL) of what it popped, so that a replay ends the same.
using Garnet.server.Objects;
using Garnet.server.Persistence;
using Garnet.server.PubSub;
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class SetCommands
{
    private const string NotInteger = StringFunctions.NotInteger;
    private const string MustBePositive = "ERR value is out of range, must be positive";

    private static CollectionOp<SetObject> SetOp(Func<SetObject, bool> apply, bool creates = false) => new(ObjectKind.Set, apply, creates);

    private static bool Run(CommandContext s, ReadOnlySpan<byte> key, ObjectOperation op, bool write) => CollectionCommand.Run(s, key, op, write);

    /// <summary>Key's set (null when the key is missing); false after writing WRONGTYPE.</summary>
    private static bool TryRead(CommandContext s, ReadOnlySpan<byte> key, out SetObject? set)
    {
        SetObject? found = null;
        bool ok = Run(s, key, SetOp(x => { found = x; return false; }), write: false);
        set = found;
        return ok;
    }

    /// <summary>The sets of arguments [from, to) in order (null for missing keys); false after writing WRONGTYPE, which
    /// any key of another type gives, as Redis checks every key first.</summary>
    private static bool TryReadAll(CommandContext s, int from, int to, out SetObject?[] sets)
    {
        sets = new SetObject?[to - from];
        for (int i = from; i < to; i++) if (!TryRead(s, s.Arg(i), out sets[i - from])) return false;
        return true;
    }

    public static void SAdd(CommandContext s)
    {
        var members = CollectionCommand.Args(s, 2);
        long added = 0;
        var op = SetOp(set =>
        {
            added = 0;
            var before = set.SetEncoding;
            set.PrepareForAdd(members.Length, members[0]);
            added = set.AddMany(members);
            return added > 0 || set.SetEncoding != before;
        }, creates: true);
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (added > 0) s.Notify(NotifyClass.Set, "sadd"u8, s.Arg(1));
        s.Writer.WriteInteger(added);
    }

    public static void SRem(CommandContext s)
    {
        var members = CollectionCommand.Args(s, 2);
        long removed = 0;
        var op = SetOp(set =>
        {
            removed = 0;
            foreach (var m in members) if (set.Remove(m)) removed++;
            return removed > 0;
        });
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (removed > 0) CollectionCommand.Notify(s, op, NotifyClass.Set, "srem"u8, s.Arg(1));
        s.Writer.WriteInteger(removed);
    }

    public static void SMembers(CommandContext s)
    {
        IReadOnlyList<byte[]> members = [];
        if (!Run(s, s.Arg(1), SetOp(set => { members = set.Members; return false; }), write: false)) return;
        WriteSet(s, members);
    }

    public static void SIsMember(CommandContext s)
    {
        var member = s.Arg(2).ToArray();
        bool found = false;
        if (!Run(s, s.Arg(1), SetOp(set => { found = set.Contains(member); return false; }), write: false)) return;
        s.Writer.WriteInteger(found ? 1 : 0);
    }

    public static void SMIsMember(CommandContext s)
    {
        var members = CollectionCommand.Args(s, 2);
        var found = new bool[members.Length];
        var op = SetOp(set => { for (int i = 0; i < members.Length; i++) found[i] = set.Contains(members[i]); return false; });
        if (!Run(s, s.Arg(1), op, write: false)) return;
        s.Writer.WriteArrayHeader(found.Length);
        foreach (bool f in found) s.Writer.WriteInteger(f ? 1 : 0);
    }

    public static void SCard(CommandContext s)
    {
        long n = 0;
        if (!Run(s, s.Arg(1), SetOp(set => { n = set.Count; return false; }), write: false)) return;
        s.Writer.WriteInteger(n);
    }

    public static void SPop(CommandContext s)
    {
        if (s.Argc > 3) { s.WriteError("ERR syntax error"); return; }
        bool withCount = s.Argc == 3;
        long count = 1;
        if (withCount && (!NumberParsing.TryParseInt64(s.Arg(2), out count) || count < 0)) { s.WriteError(MustBePositive); return; }
        var popped = new List<byte[]>();
        bool whole = false;
        var op = SetOp(set =>
        {
            popped.Clear();
            whole = count >= set.Count;
            if (whole)
            {
                popped.AddRange(set.Members);
                set.Clear();
                return true;
            }
            for (long i = 0; i < count; i++) popped.Add(set.RemoveAt(Random.Shared.Next((int)set.Count)));
            return popped.Count > 0;
        });
        if (count == 0)
        {
            // Nothing is popped: only the type is checked (as Redis).
            if (!Run(s, s.Arg(1), SetOp(_ => false), write: false)) return;
            s.PropagateNothing();
            s.Writer.WriteSetHeader(0);
            return;
        }
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (popped.Count > 0) CollectionCommand.Notify(s, op, NotifyClass.Set, "spop"u8, s.Arg(1));
        if (popped.Count == 0) s.PropagateNothing();
        else if (whole && withCount) s.PropagateAs(ArgRef.Of("DEL"), ArgRef.Of(1));
        else
        {
            var args = new ArgRef[popped.Count + 2];
            args[0] = ArgRef.Of("SREM");
            args[1] = ArgRef.Of(1);
            for (int i = 0; i < popped.Count; i++) args[i + 2] = ArgRef.Of(popped[i]);
            s.PropagateAs(args);
        }
        if (!withCount)
        {
            if (popped.Count == 0) s.Writer.WriteNull(); else s.Writer.WriteBulkString(popped[0]);
            return;
        }
        WriteSet(s, popped);
    }

    public static void SRandMember(CommandContext s)
    {
        if (s.Argc > 3) { s.WriteError("ERR syntax error"); return; }
        bool withCount = s.Argc == 3;
        long count = 1;
        if (withCount)
        {
            if (!NumberParsing.TryParseInt64(s.Arg(2), out count)) { s.WriteError(NotInteger); return; }
            if (count == long.MinValue) { s.WriteError("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"); return; }
        }
        List<byte[]> picked = [];
        IReadOnlyList<byte[]>? members = null;
        // A negative count (repeats allowed) may ask for millions from a small set: then the reply is written member by
        // member from a snapshot of the set, with no list of picks (an object reference per reply element). Fewer picks
        // than members are gathered in the read, as for a positive count: references for min(count, size) either way.
        bool repeats = withCount && count < 0;
        var op = SetOp(set =>
        {
            if (repeats && Math.Min(-count, RandomPicks.MaxReplyElements) >= set.Count) members = set.Members;
            else picked = RandomPicks.Pick(set.Slots, count);
            return false;
        });
        if (!Run(s, s.Arg(1), op, write: false)) return;
        if (members is not null)
        {
            long n = members.Count == 0 ? 0 : Math.Min(-count, RandomPicks.MaxReplyElements);
            s.Writer.WriteArrayHeader((int)n);
            RepeatedPicks.Write(s.Writer, members, n, m => RepeatedPicks.BulkSize(m.Length), (w, m) => w.WriteBulkString(m));
            return;
        }
        if (!withCount)
        {
            if (picked.Count == 0) s.Writer.WriteNull(); else s.Writer.WriteBulkString(picked[0]);
            return;
        }
        s.Writer.WriteArrayHeader(picked.Count); // an array even in RESP3: repeats are allowed
        foreach (var m in picked) s.Writer.WriteBulkString(m);
    }

    public static void SMove(CommandContext s)
    {
        var member = s.Arg(3).ToArray();
        // Redis's order: a missing source answers 0 before any type check; then both types; then the same-key case.
        if (!TryRead(s, s.Arg(1), out var source)) return;
        if (source is null) { s.Writer.WriteInteger(0); return; }
        if (!TryRead(s, s.Arg(2), out _)) return;
        if (s.Arg(1).SequenceEqual(s.Arg(2))) { s.Writer.WriteInteger(source.Contains(member) ? 1 : 0); return; }
        bool removed = false, added = false;
        var remove = SetOp(set => removed = set.Remove(member));
        if (!Run(s, s.Arg(1), remove, write: true)) return;
        if (!removed) { s.Writer.WriteInteger(0); return; }
        // Redis's order: "srem" (and "del") on the source, then the destination ("new" when created, "sadd" when added).
        CollectionCommand.Notify(s, remove, NotifyClass.Set, "srem"u8, s.Arg(1));
        if (!Run(s, s.Arg(2), SetOp(set => added = set.Add(member), creates: true), write: true)) return;
        if (added) s.Notify(NotifyClass.Set, "sadd"u8, s.Arg(2));
        s.Writer.WriteInteger(1);
    }

    public static void SInter(CommandContext s) => Intersect(s, from: 1, destination: false);
    public static void SInterStore(CommandContext s) => Intersect(s, from: 2, destination: true);

    private static void Intersect(CommandContext s, int from, bool destination)
    {
        if (!TryReadAll(s, from, s.Argc, out var sets)) return;
        var result = Intersection(sets, limit: 0);
        if (destination) Store(s, result, "sinterstore"u8);
        else WriteSet(s, result.Members);
    }

    /// <summary>The members every set holds (at most limit of them unless limit is 0), from the smallest set's order.</summary>
    private static SetObject Intersection(SetObject?[] sets, long limit)
    {
        var result = new SetObject();
        if (sets.Any(x => x is null)) return result;
        var ordered = sets.Select(x => x!).OrderBy(x => x.Count).ToArray();
        var common = new List<byte[]>(); // distinct: from one set
        foreach (var m in ordered[0].Members)
        {
            bool all = true;
            for (int j = 1; j < ordered.Length && all; j++) all = ReferenceEquals(ordered[j], ordered[0]) || ordered[j].Contains(m);
            if (!all) continue;
            common.Add(m);
            if (limit > 0 && common.Count >= limit) break;
        }
        result.AddMany(common);
        return result;
    }

    public static void SInterCard(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(1), out long numKeys) || numKeys < 1) { s.WriteError("ERR numkeys should be greater than 0"); return; }
        if (numKeys > s.Argc - 2) { s.WriteError("ERR Number of keys can't be greater than number of args"); return; }
        long limit = 0;
        for (int i = 2 + (int)numKeys; i < s.Argc; i++)
        {
            if (s.ArgEquals(i, "LIMIT"u8) && i + 1 < s.Argc)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(++i), out limit) || limit < 0) { s.WriteError("ERR LIMIT can't be negative"); return; }
            }
            else { s.WriteError("ERR syntax error"); return; }
        }
        if (!TryReadAll(s, 2, 2 + (int)numKeys, out var sets)) return;
        s.Writer.WriteInteger(Intersection(sets, limit).Count);
    }

    public static void SUnion(CommandContext s) => UnionOrDiff(s, from: 1, destination: false, union: true);
    public static void SUnionStore(CommandContext s) => UnionOrDiff(s, from: 2, destination: true, union: true);
    public static void SDiff(CommandContext s) => UnionOrDiff(s, from: 1, destination: false, union: false);
    public static void SDiffStore(CommandContext s) => UnionOrDiff(s, from: 2, destination: true, union: false);

    private static void UnionOrDiff(CommandContext s, int from, bool destination, bool union)
    {
        if (!TryReadAll(s, from, s.Argc, out var sets)) return;
        var result = new SetObject();
        if (union)
        {
            foreach (var set in sets)
                if (set is not null) result.AddMany(set.Members);
        }
        else if (sets[0] is { } first)
        {
            var kept = new List<byte[]>();
            foreach (var m in first.Members)
            {
                bool elsewhere = false;
                for (int j = 1; j < sets.Length && !elsewhere; j++) elsewhere = sets[j] is { } other && (ReferenceEquals(other, first) || other.Contains(m));
                if (!elsewhere) kept.Add(m);
            }
            result.AddMany(kept);
        }
        if (destination) Store(s, result, union ? "sunionstore"u8 : "sdiffstore"u8);
        else WriteSet(s, result.Members);
    }

    /// <summary>xSTORE: result becomes the destination's value (whatever its type was), or the destination is deleted
    /// when result is empty; the reply is the result's cardinality.</summary>
    private static void Store(CommandContext s, SetObject result, ReadOnlySpan<byte> evt)
    {
        long count = result.Count;
        if (count == 0) { if (s.Storage.Delete(s.Arg(1))) s.Notify(NotifyClass.Generic, "del"u8, s.Arg(1)); }
        else
        {
            s.Storage.UpsertObject(s.Arg(1), result);
            s.Notify(NotifyClass.Set, evt, s.Arg(1));
        }
        s.Writer.WriteInteger(count);
    }

    public static void SScan(CommandContext s)
    {
        if (!CollectionScan.TryParse(s, out var scan)) return;
        IReadOnlyList<byte[]> members = [];
        if (!Run(s, s.Arg(1), SetOp(set => { members = set.Members; return false; }), write: false)) return;
        CollectionScan.Write(s, scan, members.Select(m => (m, (byte[]?)null)).ToList());
    }

    private static void WriteSet(CommandContext s, IReadOnlyList<byte[]> members)
    {
        s.Writer.WriteSetHeader(members.Count);
        foreach (var m in members) s.Writer.WriteBulkString(m);
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>SADD, SREM, SMEMBERS, SISMEMBER, SMISMEMBER, SCARD, SPOP, SRANDMEMBER, SMOVE, SINTER, SINTERCARD, SINTERSTORE, SUNION,
    /// SUNIONSTORE, SDIFF, SDIFFSTORE, SSCAN.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        return
        [
            new()
            {
                Name = "sadd", Arity = -3, Flags = Write | DenyOom | Fast, Acl = A.Set, Keys = k1,
                Group = "set", Since = "1.0.0", Summary = "Adds one or more members to a set. Creates the key if it doesn't exist.",
                Complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
                LocksKeysExclusively = true, Handler = SAdd,
            },
            new()
            {
                Name = "srem", Arity = -3, Flags = Write | Fast, Acl = A.Set, Keys = k1,
                Group = "set", Since = "1.0.0", Summary = "Removes one or more members from a set. Deletes the set if the last member was removed.",
                Complexity = "O(N) where N is the number of members to be removed.",
                LocksKeysExclusively = true, Handler = SRem,
            },
            new()
            {
                Name = "smembers", Arity = 2, Flags = ReadOnly, Acl = A.Set, Keys = k1,
                Group = "set", Since = "1.0.0", Summary = "Returns all members of a set.",
                Complexity = "O(N) where N is the set cardinality.",
                Tips = ["nondeterministic_output_order"],
                Handler = SMembers,
            },
            new()
            {
                Name = "sismember", Arity = 3, Flags = ReadOnly | Fast, Acl = A.Set, Keys = k1,
                Group = "set", Since = "1.0.0", Summary = "Determines whether a member belongs to a set.",
                Handler = SIsMember,
            },
            new()
            {
                Name = "smismember", Arity = -3, Flags = ReadOnly | Fast, Acl = A.Set, Keys = k1,
                Group = "set", Since = "6.2.0", Summary = "Determines whether multiple members belong to a set.",
                Complexity = "O(N) where N is the number of elements being checked for membership",
                Handler = SMIsMember,
            },
            new()
            {
                Name = "scard", Arity = 2, Flags = ReadOnly | Fast, Acl = A.Set, Keys = k1,
                Group = "set", Since = "1.0.0", Summary = "Returns the number of members in a set.",
                Handler = SCard,
            },
            new()
            {
                Name = "spop", Arity = -2, Flags = Write | Fast, Acl = A.Set, Keys = k1,
                Group = "set", Since = "1.0.0",
                Summary = "Returns one or more random members from a set after removing them. Deletes the set if the last member was popped.",
                Complexity = "Without the count argument O(1), otherwise O(N) where N is the value of the passed count.",
                Tips = ["nondeterministic_output"],
                LocksKeysExclusively = true, Handler = SPop,
            },
            new()
            {
                Name = "srandmember", Arity = -2, Flags = ReadOnly, Acl = A.Set, Keys = k1,
                Group = "set", Since = "1.0.0", Summary = "Get one or multiple random members from a set",
                Complexity = "Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.",
                Tips = ["nondeterministic_output"],
                Handler = SRandMember,
            },
            new()
            {
                Name = "smove", Arity = 4, Flags = Write | Fast, Acl = A.Set, Keys = new KeyRange(1, 2, 1),
                Group = "set", Since = "1.0.0", Summary = "Moves a member from one set to another.",
                LocksKeysExclusively = true, Handler = SMove,
            },
            new()
            {
                Name = "sinter", Arity = -2, Flags = ReadOnly, Acl = A.Set, Keys = new KeyRange(1, -1, 1),
                Group = "set", Since = "1.0.0", Summary = "Returns the intersect of multiple sets.",
                Complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
                Tips = ["nondeterministic_output_order"],
                Handler = SInter,
            },
            new()
            {
                Name = "sintercard", Arity = -3, Flags = ReadOnly | MovableKeys, Acl = A.Set, Keys = new KeyRange(2, -1, 1),
                Group = "set", Since = "7.0.0", Summary = "Returns the number of members of the intersect of multiple sets.",
                Complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
                Handler = SInterCard,
            },
            new()
            {
                Name = "sinterstore", Arity = -3, Flags = Write | DenyOom, Acl = A.Set, Keys = new KeyRange(1, -1, 1),
                Group = "set", Since = "1.0.0", Summary = "Stores the intersect of multiple sets in a key.",
                Complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
                LocksKeysExclusively = true, Handler = SInterStore,
            },
            new()
            {
                Name = "sunion", Arity = -2, Flags = ReadOnly, Acl = A.Set, Keys = new KeyRange(1, -1, 1),
                Group = "set", Since = "1.0.0", Summary = "Returns the union of multiple sets.",
                Complexity = "O(N) where N is the total number of elements in all given sets.",
                Tips = ["nondeterministic_output_order"],
                Handler = SUnion,
            },
            new()
            {
                Name = "sunionstore", Arity = -3, Flags = Write | DenyOom, Acl = A.Set, Keys = new KeyRange(1, -1, 1),
                Group = "set", Since = "1.0.0", Summary = "Stores the union of multiple sets in a key.",
                Complexity = "O(N) where N is the total number of elements in all given sets.",
                LocksKeysExclusively = true, Handler = SUnionStore,
            },
            new()
            {
                Name = "sdiff", Arity = -2, Flags = ReadOnly, Acl = A.Set, Keys = new KeyRange(1, -1, 1),
                Group = "set", Since = "1.0.0", Summary = "Returns the difference of multiple sets.",
                Complexity = "O(N) where N is the total number of elements in all given sets.",
                Tips = ["nondeterministic_output_order"],
                Handler = SDiff,
            },
            new()
            {
                Name = "sdiffstore", Arity = -3, Flags = Write | DenyOom, Acl = A.Set, Keys = new KeyRange(1, -1, 1),
                Group = "set", Since = "1.0.0", Summary = "Stores the difference of multiple sets in a key.",
                Complexity = "O(N) where N is the total number of elements in all given sets.",
                LocksKeysExclusively = true, Handler = SDiffStore,
            },
            new()
            {
                Name = "sscan", Arity = -3, Flags = ReadOnly, Acl = A.Set, Keys = k1,
                Group = "set", Since = "2.8.0", Summary = "Iterates over members of a set.",
                Complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to " +
                    "0. N is the number of elements inside the collection.",
                Tips = ["nondeterministic_output"],
                Handler = SScan,
            },
        ];
    }
}
