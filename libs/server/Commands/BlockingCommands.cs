// BlockingCommands: BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN, BZPOPMAX, BZMPOP. A command first tries as its non-blocking form would
// (under its keys' locks, held by Execute); when every key is empty it registers with BlockedClients before those
// locks go, and the client's reply is deferred (RespServerSession.ReplyWhenDone): its connection awaits, holding no
// thread. A write to one of the keys wakes the first waiter, which retries under the keys' locks (BlockingWait).
// What a served waiter pops is written to the AOF as the non-blocking command (LPOP/RPOP/LMOVE/ZPOPMIN/ZPOPMAX), as
// Redis propagates.
using System.Globalization;
using Garnet.server.Clients;
using Garnet.server.Persistence;
using Garnet.server.Session;
using Garnet.server.Storage;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class BlockingCommands
{
    public static void BLPop(CommandContext s) => BPop(s, head: true);
    public static void BRPop(CommandContext s) => BPop(s, head: false);

    private static void BPop(CommandContext s, bool head)
    {
        if (!TryTimeout(s, s.Argc - 1, out long deadline)) return;
        var verb = ArgRef.Of(head ? "LPOP" : "RPOP");
        PopOrBlock(s, CollectionCommand.Args(s, 1)[..^1], deadline,
            (session, key, out error) => ListCommands.TryPop(session, key, head, 1, session.Database, out error),
            (key, _) => [verb, ArgRef.Of(key)],
            (session, key, popped) => WriteKeyAndItem(session, key, popped[0]));
    }

    public static void BLMove(CommandContext s)
    {
        if (!ListCommands.TryEnd(s, 3, out bool fromHead) || !ListCommands.TryEnd(s, 4, out bool toHead)) { s.WriteError("ERR syntax error"); return; }
        BMove(s, fromHead, toHead, timeoutIndex: 5);
    }

    public static void BRPopLPush(CommandContext s) => BMove(s, fromHead: false, toHead: true, timeoutIndex: 3);

    private static void BMove(CommandContext s, bool fromHead, bool toHead, int timeoutIndex)
    {
        if (!TryTimeout(s, timeoutIndex, out long deadline)) return;
        var source = s.Arg(1).ToArray();
        var destination = s.Arg(2).ToArray();
        if (!ListCommands.IsListOrMissing(s, destination, s.Database, out string? error)) { s.WriteError(error!); return; }
        var moved = TryMove(s, source, destination, fromHead, toHead, out error);
        if (error is not null) { s.WriteError(error); return; }
        var propagate = new[] { ArgRef.Of("LMOVE"), ArgRef.Of(source), ArgRef.Of(destination), ArgRef.Of(fromHead ? "LEFT" : "RIGHT"), ArgRef.Of(toHead ? "LEFT" : "RIGHT") };
        if (moved is not null)
        {
            s.PropagateAs(propagate);
            s.Writer.WriteBulkString(moved);
            return;
        }
        s.PropagateNothing();
        Block(s, [source], deadline, (session, _) =>
        {
            var item = TryMove(session, source, destination, fromHead, toHead, out string? e);
            if (item is null || e is not null) return null;
            session.AppendToAof(propagate);
            session.Server.Blocked.Signal(session.Database, destination);
            return item;
        }, [destination], (session, result) =>
        {
            if (result is byte[] item) session.Writer.WriteBulkString(item);
            else session.Writer.WriteNull();
        });
    }

    private static byte[]? TryMove(CommandContext s, byte[] source, byte[] destination, bool fromHead, bool toHead, out string? error)
    {
        if (!ListCommands.IsListOrMissing(s, destination, s.Database, out error)) return null;
        var popped = ListCommands.TryPop(s, source, fromHead, 1, s.Database, out error, out bool emptied);
        if (popped is null) return null;
        ListCommands.TryPush(s, destination, popped[0], toHead, s.Database, out error);
        ListCommands.NotifyMove(s, source, destination, fromHead, toHead, emptied, s.Database);
        return popped[0];
    }

    public static void BLMPop(CommandContext s)
    {
        bool head = false;
        if (!TryMultiPopArgs(s, at => ListCommands.TryEnd(s, at, out head), out long deadline, out var keys, out long count)) return;
        var verb = ArgRef.Of(head ? "LPOP" : "RPOP");
        PopOrBlock(s, keys, deadline,
            (session, key, out error) => ListCommands.TryPop(session, key, head, count, session.Database, out error),
            (key, popped) => [verb, ArgRef.Of(key), ArgRef.Of(popped.Count.ToString(CultureInfo.InvariantCulture))],
            WriteKeyAndItems);
    }

    public static void BZPopMin(CommandContext s) => BZPop(s, max: false);
    public static void BZPopMax(CommandContext s) => BZPop(s, max: true);

    private static void BZPop(CommandContext s, bool max)
    {
        if (!TryTimeout(s, s.Argc - 1, out long deadline)) return;
        var verb = ArgRef.Of(max ? "ZPOPMAX" : "ZPOPMIN");
        PopOrBlock(s, CollectionCommand.Args(s, 1)[..^1], deadline,
            (session, key, out error) => SortedSetCommands.TryPop(session, key, max, 1, session.Database, out error) is { Count: > 0 } p ? p : null,
            (key, _) => [verb, ArgRef.Of(key)],
            (session, key, popped) => WriteKeyMemberScore(session, key, popped[0]));
    }

    public static void BZMPop(CommandContext s)
    {
        bool max = false;
        bool Where(int at) => s.ArgEquals(at, "MIN"u8) || (max = s.ArgEquals(at, "MAX"u8));
        if (!TryMultiPopArgs(s, Where, out long deadline, out var keys, out long count)) return;
        var verb = ArgRef.Of(max ? "ZPOPMAX" : "ZPOPMIN");
        PopOrBlock(s, keys, deadline,
            (session, key, out error) => SortedSetCommands.TryPop(session, key, max, count, session.Database, out error) is { Count: > 0 } p ? p : null,
            (key, popped) => [verb, ArgRef.Of(key), ArgRef.Of(popped.Count.ToString(CultureInfo.InvariantCulture))],
            WriteKeyAndElements);
    }

    /// <summary>BLMPOP / BZMPOP arguments: timeout numkeys key [key ...] where [COUNT count]; where(index) reads the
    /// where word (false: a syntax error). False after writing Redis's error.</summary>
    private static bool TryMultiPopArgs(CommandContext s, Func<int, bool> where, out long deadline, out byte[][] keys, out long count)
    {
        keys = [];
        count = 1;
        if (!TryTimeout(s, 1, out deadline)) return false;
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long numKeys) || numKeys <= 0) { s.WriteError("ERR numkeys should be greater than 0"); return false; }
        if (numKeys > s.Argc - 4) { s.WriteError("ERR syntax error"); return false; }
        int at = 3 + (int)numKeys;
        if (!where(at)) { s.WriteError("ERR syntax error"); return false; }
        if (at + 1 < s.Argc)
        {
            if (at + 3 != s.Argc || !s.ArgEquals(at + 1, "COUNT"u8)) { s.WriteError("ERR syntax error"); return false; }
            if (!NumberParsing.TryParseInt64(s.Arg(at + 2), out count) || count <= 0) { s.WriteError("ERR count should be greater than 0"); return false; }
        }
        keys = new byte[numKeys][];
        for (int i = 0; i < numKeys; i++) keys[i] = s.Arg(3 + i).ToArray();
        return true;
    }

    private delegate T? TryPopFunction<T>(CommandContext s, byte[] key, out string? error) where T : class;

    /// <summary>
    /// The pops: tries each key in order now (an error, such as WRONGTYPE, is the reply); the first that gives something is
    /// logged as logAs says and replied. When none does, the client blocks on all of them, and a served waiter's pop is
    /// logged and replied the same way (a timeout replies a null array).
    /// </summary>
    private static void PopOrBlock<T>(CommandContext s, byte[][] keys, long deadline, TryPopFunction<T> tryPop,
        Func<byte[], T, ArgRef[]> logAs, Action<CommandContext, byte[], T> reply) where T : class
    {
        foreach (var key in keys)
        {
            var popped = tryPop(s, key, out string? error);
            if (error is not null) { s.WriteError(error); return; }
            if (popped is null) continue;
            s.PropagateAs(logAs(key, popped));
            reply(s, key, popped);
            return;
        }
        s.PropagateNothing();
        Block(s, keys, deadline, (session, key) =>
        {
            var popped = tryPop(session, key, out _);
            if (popped is null) return null;
            session.AppendToAof(logAs(key, popped));
            return (key, popped);
        }, [], (session, result) =>
        {
            if (result is ValueTuple<byte[], T> served) reply(session, served.Item1, served.Item2);
            else session.Writer.WriteNullArray();
        });
    }

    private static void WriteKeyMemberScore(CommandContext s, byte[] key, (byte[] Member, double Score) element)
    {
        s.Writer.WriteArrayHeader(3);
        s.Writer.WriteBulkString(key);
        s.Writer.WriteBulkString(element.Member);
        SortedSetCommands.WriteScore(s, element.Score);
    }

    private static void WriteKeyAndElements(CommandContext s, byte[] key, List<(byte[] Member, double Score)> elements)
    {
        s.Writer.WriteArrayHeader(2);
        s.Writer.WriteBulkString(key);
        s.Writer.WriteArrayHeader(elements.Count);
        foreach (var (member, score) in elements)
        {
            s.Writer.WriteArrayHeader(2);
            s.Writer.WriteBulkString(member);
            SortedSetCommands.WriteScore(s, score);
        }
    }

    private static void WriteKeyAndItem(CommandContext s, byte[] key, byte[] item)
    {
        s.Writer.WriteArrayHeader(2);
        s.Writer.WriteBulkString(key);
        s.Writer.WriteBulkString(item);
    }

    private static void WriteKeyAndItems(CommandContext s, byte[] key, List<byte[]> items)
    {
        s.Writer.WriteArrayHeader(2);
        s.Writer.WriteBulkString(key);
        s.Writer.WriteArrayHeader(items.Count);
        foreach (var item in items) s.Writer.WriteBulkString(item);
    }

    /// <summary>Registers the client and defers its reply until an attempt succeeds, the deadline passes, CLIENT
    /// UNBLOCK, or the client goes (attempt runs under the exclusive locks of keys and extraLocks).</summary>
    internal static void Block(CommandContext s, byte[][] keys, long deadlineMs, Func<CommandContext, byte[], object?> attempt,
        byte[][] extraLocks, Action<CommandContext, object?> reply, bool readsOnly = false)
    {
        if (s.InExec)
        {
            // Inside EXEC a blocking command answers at once as its non-blocking form would: nothing to pop is a timeout.
            reply(s, null);
            return;
        }
        var waiter = s.Server.Blocked.Register(s.Client.Id, s.Database, keys, readsOnly);
        var work = BlockingWait.RunAsync(s, waiter, deadlineMs, attempt, extraLocks);
        s.ReplyWhenDone(work, (session, task) =>
        {
            var outcome = ((Task<BlockingWait.Outcome>)task).Result;
            if (outcome.UnblockedWithError) { session.WriteError("UNBLOCKED client unblocked via CLIENT UNBLOCK"); return; }
            reply(session, outcome.Result);
        });
    }

    /// <summary>Parses a blocking command's timeout (seconds, fractions allowed; 0 = forever) into an absolute deadline in
    /// Unix ms (0 = none); false after writing Redis's error.</summary>
    internal static bool TryTimeout(CommandContext s, int index, out long deadlineMs)
    {
        deadlineMs = 0;
        if (!NumberParsing.TryParseDouble(s.Arg(index), out double seconds) || double.IsNaN(seconds)) { s.WriteError("ERR timeout is not a float or out of range"); return false; }
        double ms = Math.Ceiling(seconds * 1000.0);
        if (ms > long.MaxValue) { s.WriteError("ERR timeout is out of range"); return false; }
        if (ms < 0) { s.WriteError("ERR timeout is negative"); return false; }
        if (ms == 0) return true;
        long now = StringCommands.NowMs(s);
        if ((long)ms > long.MaxValue - now) { s.WriteError("ERR timeout is out of range"); return false; }
        deadlineMs = now + (long)ms;
        return true;
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP.</summary>
    internal static CommandDefinition[] ListDeclarations()
    {
        return
        [
            new()
            {
                Name = "blpop", Arity = -3, Flags = Write | NoScript | Blocking, Acl = A.List, Keys = new KeyRange(1, -2, 1),
                Group = "list", Since = "2.0.0",
                Summary = "Removes and returns the first element in a list. Blocks until an element is available otherwise. Deletes the list if " +
                    "the last element was popped.",
                LocksKeysExclusively = true, Handler = BLPop,
            },
            new()
            {
                Name = "brpop", Arity = -3, Flags = Write | NoScript | Blocking, Acl = A.List, Keys = new KeyRange(1, -2, 1),
                Group = "list", Since = "2.0.0",
                Summary = "Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the " +
                    "last element was popped.",
                LocksKeysExclusively = true, Handler = BRPop,
            },
            new()
            {
                Name = "blmove", Arity = 6, Flags = Write | DenyOom | NoScript | Blocking, Acl = A.List, Keys = new KeyRange(1, 2, 1),
                Group = "list", Since = "6.2.0",
                Summary = "Pops an element from a list, pushes it to another list and returns it. Blocks until an element is available otherwise. " +
                    "Deletes the list if the last element was moved.",
                LocksKeysExclusively = true, Handler = BLMove,
            },
            new()
            {
                Name = "brpoplpush", Arity = 4, Flags = Write | DenyOom | NoScript | Blocking, Acl = A.List, Keys = new KeyRange(1, 2, 1),
                Group = "list", Since = "2.2.0",
                Summary = "Pops an element from a list, pushes it to another list and returns it. Block until an element is available otherwise. " +
                    "Deletes the list if the last element was popped.",
                LocksKeysExclusively = true, Handler = BRPopLPush,
            },
            new()
            {
                Name = "blmpop", Arity = -5, Flags = Write | Blocking | MovableKeys, Acl = A.List, Keys = new KeyRange(3, -1, 1),
                Group = "list", Since = "7.0.0",
                Summary = "Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if " +
                    "the last element was popped.",
                LocksKeysExclusively = true, Handler = BLMPop,
            },
        ];
    }

    /// <summary>BZPOPMIN, BZPOPMAX, BZMPOP.</summary>
    internal static CommandDefinition[] SortedSetDeclarations()
    {
        return
        [
            new()
            {
                Name = "bzpopmin", Arity = -3, Flags = Write | NoScript | Blocking | Fast, Acl = A.SortedSet, Keys = new KeyRange(1, -2, 1),
                Group = "sorted_set", Since = "5.0.0",
                Summary = "Removes and returns the member with the lowest score from one or more sorted sets. Blocks until a member is available " +
                    "otherwise. Deletes the sorted set if the last element was popped.",
                Complexity = "O(log(N)) with N being the number of elements in the sorted set.",
                LocksKeysExclusively = true, Handler = BZPopMin,
            },
            new()
            {
                Name = "bzpopmax", Arity = -3, Flags = Write | NoScript | Blocking | Fast, Acl = A.SortedSet, Keys = new KeyRange(1, -2, 1),
                Group = "sorted_set", Since = "5.0.0",
                Summary = "Removes and returns the member with the highest score from one or more sorted sets. Blocks until a member available " +
                    "otherwise.  Deletes the sorted set if the last element was popped.",
                Complexity = "O(log(N)) with N being the number of elements in the sorted set.",
                LocksKeysExclusively = true, Handler = BZPopMax,
            },
            new()
            {
                Name = "bzmpop", Arity = -5, Flags = Write | Blocking | MovableKeys, Acl = A.SortedSet, Keys = new KeyRange(3, -1, 1),
                Group = "sorted_set", Since = "7.0.0",
                Summary = "Removes and returns a member by score from one or more sorted sets. Blocks until a member is available otherwise. " +
                    "Deletes the sorted set if the last element was popped.",
                Complexity = "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M " +
                    "being the number of elements popped.",
                LocksKeysExclusively = true, Handler = BZMPop,
            },
        ];
    }
}

/// <summary>The wait of one blocked client (see BlockingCommands).</summary>
internal static class BlockingWait
{
    public readonly record struct Outcome(object? Result, bool UnblockedWithError);

    /// <summary>How often a blocked client checks that its connection is still there.</summary>
    private const int AliveCheckMs = 500;

    public static async Task<Outcome> RunAsync(CommandContext s, BlockedClients.Waiter waiter, long deadlineMs,
        Func<CommandContext, byte[], object?> attempt, byte[][] extraLocks)
    {
        await Task.Yield(); // never on the command's thread: it still holds the keys' locks
        var blocked = s.Server.Blocked;
        try
        {
            while (true)
            {
                long wait = AliveCheckMs;
                if (deadlineMs != 0)
                {
                    long left = deadlineMs - DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
                    if (left <= 0) return new Outcome(null, false);
                    wait = Math.Min(wait, left);
                }
                bool woken = await waiter.Wake.WaitAsync(TimeSpan.FromMilliseconds(wait)).ConfigureAwait(false);
                if (waiter.UnblockedWithError is bool withError) return new Outcome(null, withError);
                if (s.Client.ConnectionGone) return new Outcome(null, false);
                if (!woken) continue;
                foreach (var key in waiter.Keys)
                {
                    if (!waiter.ReadsOnly && !blocked.IsFirst(waiter, key)) continue;
                    var result = WithLocks(s, waiter.Keys, extraLocks, () => attempt(s, key));
                    if (result is not null) return new Outcome(result, false);
                }
            }
        }
        finally { blocked.Unregister(waiter); } // wakes the next in line of each key
    }

    private static object? WithLocks(CommandContext s, byte[][] keys, byte[][] extra, Func<object?> run)
    {
        var stripes = keys.Concat(extra).Select(k => KeyLocks.StripeOf(k)).Distinct().Order().ToArray();
        var locks = s.Server.Store.Locks;
        foreach (int stripe in stripes) locks.Enter(stripe, KeyLockMode.Exclusive);
        try
        {
            var result = run();
            // What a served waiter changed breaks WATCHes on those keys, while their locks are held (see WatchedKeys).
            if (result is not null && (s.Server.Watches.Any || s.Server.Tracking.Active))
                foreach (var key in keys.Concat(extra)) s.KeyChanged(s.Database, key);
            return result;
        }
        finally { foreach (int stripe in stripes) locks.Exit(stripe, KeyLockMode.Exclusive); }
    }
}
