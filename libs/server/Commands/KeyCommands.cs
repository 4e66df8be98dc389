// KeyCommands: commands on keys of any type (DEL, EXISTS, EXPIRE, TTL, RENAME, SCAN, ...) and on databases
// (DBSIZE, FLUSHDB, FLUSHALL, SWAPDB). Redis 7.2 semantics and error texts.
using System.Text;
using Garnet.server.PubSub;
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.server.Util;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class KeyCommands
{
    private const string NotInteger = StringFunctions.NotInteger;

    internal static bool Exists(CommandContext s, ReadOnlySpan<byte> key, int db = -1, bool touch = false)
    {
        var input = new StringInput { Op = StringOp.Exists, Flags = touch ? StringFunctions.TouchFlag : (byte)0 };
        return s.Storage.Read(key, ref input, db).IsFound();
    }

    public static void Del(CommandContext s)
    {
        long n = 0;
        for (int i = 1; i < s.Argc; i++)
            if (s.Storage.Delete(s.Arg(i)))
            {
                n++;
                s.Notify(NotifyClass.Generic, "del"u8, s.Arg(i));
            }
        if (n == 0) s.PropagateNothing(); // nothing changed: not logged, breaks no WATCH, invalidates no cache
        s.Writer.WriteInteger(n);
    }

    public static void ExistsCommand(CommandContext s) => CountExisting(s, touch: false);

    private static void CountExisting(CommandContext s, bool touch)
    {
        long n = 0;
        for (int i = 1; i < s.Argc; i++)
        {
            bool found = Exists(s, s.Arg(i), touch: touch);
            s.CountKeyLookup(found, s.Arg(i));
            if (found) n++;
        }
        s.Writer.WriteInteger(n);
    }

    public static void Type(CommandContext s)
    {
        var input = new StringInput { Op = StringOp.Exists };
        bool found = s.Storage.Read(s.Arg(1), ref input).IsFound();
        s.CountKeyLookup(found, s.Arg(1));
        s.Writer.WriteSimpleString(found ? s.Storage.Result.Text ?? "string" : "none");
    }

    public static void Expire(CommandContext s) => ExpireCore(s, seconds: true, absolute: false, "expire");
    public static void PExpire(CommandContext s) => ExpireCore(s, seconds: false, absolute: false, "pexpire");
    public static void ExpireAt(CommandContext s) => ExpireCore(s, seconds: true, absolute: true, "expireat");
    public static void PExpireAt(CommandContext s) => ExpireCore(s, seconds: false, absolute: true, "pexpireat");

    private static void ExpireCore(CommandContext s, bool seconds, bool absolute, string command)
    {
        var flags = ExpireFlags.None;
        for (int i = 3; i < s.Argc; i++)
        {
            var a = s.Arg(i);
            if (StringCommands.Ascii(a, "NX")) flags |= ExpireFlags.Nx;
            else if (StringCommands.Ascii(a, "XX")) flags |= ExpireFlags.Xx;
            else if (StringCommands.Ascii(a, "GT")) flags |= ExpireFlags.Gt;
            else if (StringCommands.Ascii(a, "LT")) flags |= ExpireFlags.Lt;
            else { s.WriteError("ERR Unsupported option " + s.ArgString(i)); return; }
        }
        if (flags.HasFlag(ExpireFlags.Nx) && (flags & (ExpireFlags.Xx | ExpireFlags.Gt | ExpireFlags.Lt)) != 0)
        { s.WriteError("ERR NX and XX, GT or LT options at the same time are not compatible"); return; }
        if (flags.HasFlag(ExpireFlags.Gt) && flags.HasFlag(ExpireFlags.Lt))
        { s.WriteError("ERR GT and LT options at the same time are not compatible"); return; }
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long v)) { s.WriteError(NotInteger); return; }
        long ms;
        try
        {
            ms = seconds ? checked(v * 1000) : v;
            if (!absolute) ms = checked(ms + StringCommands.NowMs(s));
        }
        catch (OverflowException) { s.WriteError($"ERR invalid expire time in '{command}' command"); return; }
        // 0 means "no expiration" in the store: a time at or before the epoch is simply in the past.
        if (ms <= 0) ms = 1;
        // A time in the past deletes the key (as Redis does), in the same operation that checks the conditions.
        if (ms <= StringCommands.NowMs(s)) flags |= ExpireFlags.DeleteNow;
        var input = new StringInput { Op = StringOp.Expire, Flags = (byte)flags, Number = ms };
        s.Storage.Rmw(s.Arg(1), ref input);
        long changed = s.Storage.Result.Number;
        if (changed != 0) s.Notify(NotifyClass.Generic, flags.HasFlag(ExpireFlags.DeleteNow) ? "del"u8 : "expire"u8, s.Arg(1));
        if (changed == 0) s.PropagateNothing();
        else if (flags.HasFlag(ExpireFlags.DeleteNow)) s.PropagateAs(Persistence.ArgRef.Of("DEL"), Persistence.ArgRef.Of(1));
        else s.PropagateAs(Persistence.ArgRef.Of("PEXPIREAT"), Persistence.ArgRef.Of(1), Persistence.ArgRef.Of(ms.ToString()));
        s.Writer.WriteInteger(changed);
    }

    public static void Ttl(CommandContext s) => TtlCore(s, t => (t - StringCommands.NowMs(s) + 500) / 1000);
    public static void PTtl(CommandContext s) => TtlCore(s, t => t - StringCommands.NowMs(s));
    public static void ExpireTime(CommandContext s) => TtlCore(s, t => t / 1000);
    public static void PExpireTime(CommandContext s) => TtlCore(s, t => t);

    private static void TtlCore(CommandContext s, Func<long, long> convert)
    {
        var input = new StringInput { Op = StringOp.Ttl };
        bool found = s.Storage.Read(s.Arg(1), ref input).IsFound();
        s.CountKeyLookup(found, s.Arg(1));
        if (!found) { s.Writer.WriteInteger(-2); return; }
        long at = s.Storage.Result.Number;
        s.Writer.WriteInteger(at == 0 ? -1 : Math.Max(0, convert(at)));
    }

    public static void Persist(CommandContext s)
    {
        var input = new StringInput { Op = StringOp.Persist };
        s.Storage.Rmw(s.Arg(1), ref input);
        long removed = s.Storage.Result.Number;
        if (removed != 0) s.Notify(NotifyClass.Generic, "persist"u8, s.Arg(1));
        s.Writer.WriteInteger(removed);
    }

    public static void Touch(CommandContext s) => CountExisting(s, touch: true);

    // ---- copying keys ----

    /// <summary>Reads key's value (a string's bytes or a collection's copy) and expiration together, from one record
    /// (null when the key does not exist).</summary>
    private static object? Fetch(CommandContext s, ReadOnlySpan<byte> key, out long expiration, int db = -1)
    {
        var input = new StringInput { Op = StringOp.Fetch };
        bool found = s.Storage.Read(key, ref input, db).IsFound();
        expiration = found ? s.Storage.Result.Number : 0;
        return found ? (object?)s.Storage.Result.Value ?? s.Storage.Result.Old : null;
    }

    /// <summary>Fetch for RENAME, COPY and MOVE, whose value is held outside any record until it is stored again: a
    /// stream's spilled blocks stay registered as moving (StreamSpillReclaimer) until the returned scope is disposed;
    /// for any other value (or none) the registration ends at once. It starts before the fetch, so no reclaim round can
    /// begin between the two.</summary>
    private static IDisposable FetchToMove(CommandContext s, ReadOnlySpan<byte> key, out object? value, out long expiration)
    {
        var moving = s.Storage.Host.StreamSpill.Moving();
        value = Fetch(s, key, out expiration);
        if (value is not Garnet.server.Objects.StreamObject) moving.Dispose();
        return moving;
    }

    public static void Rename(CommandContext s) => RenameCore(s, nx: false);
    public static void RenameNx(CommandContext s) => RenameCore(s, nx: true);

    private static void RenameCore(CommandContext s, bool nx)
    {
        using var moving = FetchToMove(s, s.Arg(1), out var value, out long expiration);
        if (value is null) { s.WriteError("ERR no such key"); return; }
        bool same = s.Arg(1).SequenceEqual(s.Arg(2));
        if (nx && Exists(s, s.Arg(2))) { s.Writer.WriteInteger(0); return; }
        if (same) { if (nx) s.Writer.WriteInteger(0); else s.Writer.WriteOk(); return; }
        // Redis deletes an existing destination and adds the key anew ("new" even then).
        if (s.NotifyOn(NotifyClass.New)) s.Storage.Delete(s.Arg(2));
        s.Storage.UpsertFetched(s.Arg(2), value, expiration);
        s.Storage.Delete(s.Arg(1));
        s.Notify(NotifyClass.Generic, "rename_from"u8, s.Arg(1));
        s.Notify(NotifyClass.Generic, "rename_to"u8, s.Arg(2));
        if (nx) s.Writer.WriteInteger(1);
        else s.Writer.WriteOk();
    }

    public static void Copy(CommandContext s)
    {
        int db = s.Database;
        bool replace = false;
        for (int i = 3; i < s.Argc; i++)
        {
            if (StringCommands.Ascii(s.Arg(i), "REPLACE")) replace = true;
            else if (StringCommands.Ascii(s.Arg(i), "DB") && i + 1 < s.Argc)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(++i), out long d)) { s.WriteError(NotInteger); return; }
                if (d < 0 || d >= s.Settings.Databases) { s.WriteError("ERR DB index is out of range"); return; }
                db = (int)d;
            }
            else { s.WriteError("ERR syntax error"); return; }
        }
        if (db == s.Database && s.Arg(1).SequenceEqual(s.Arg(2))) { s.WriteError("ERR source and destination objects are the same"); return; }
        using var moving = FetchToMove(s, s.Arg(1), out var value, out long expiration);
        s.CountKeyLookup(value is not null, s.Arg(1)); // Redis reads COPY's source as a read (lookupKeyRead)
        if (value is null) { s.Writer.WriteInteger(0); return; }
        if (!replace && Exists(s, s.Arg(2), db)) { s.Writer.WriteInteger(0); return; }
        if (s.NotifyOn(NotifyClass.New)) s.Storage.Delete(s.Arg(2), db); // as Redis: REPLACE deletes, then adds ("new")
        s.Storage.UpsertFetched(s.Arg(2), value, expiration, db);
        s.Notify(NotifyClass.Generic, "copy_to"u8, s.Arg(2), db);
        if (db != s.Database) s.KeyChanged(db, s.Arg(2)); // the table's keys are the current database's
        s.Writer.WriteInteger(1);
    }

    public static void Move(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long d)) { s.WriteError(NotInteger); return; }
        if (d < 0 || d >= s.Settings.Databases) { s.WriteError("ERR DB index is out of range"); return; }
        if (d == s.Database) { s.WriteError("ERR source and destination objects are the same"); return; }
        using var moving = FetchToMove(s, s.Arg(1), out var value, out long expiration);
        if (value is null || Exists(s, s.Arg(1), (int)d)) { s.Writer.WriteInteger(0); return; }
        s.Storage.UpsertFetched(s.Arg(1), value, expiration, (int)d);
        s.Storage.Delete(s.Arg(1));
        s.Notify(NotifyClass.Generic, "move_from"u8, s.Arg(1));
        s.Notify(NotifyClass.Generic, "move_to"u8, s.Arg(1), (int)d);
        s.KeyChanged((int)d, s.Arg(1));
        s.Writer.WriteInteger(1);
    }

    // ---- databases ----

    public static void DbSize(CommandContext s) => s.Writer.WriteInteger(s.Server.Store.KeyCount(s.Database));

    public static void FlushDb(CommandContext s) => FlushCore(s, all: false);
    public static void FlushAll(CommandContext s) => FlushCore(s, all: true);

    private static void FlushCore(CommandContext s, bool all)
    {
        bool sync = false;
        if (s.Argc > 2) { s.WriteError("ERR syntax error"); return; }
        if (s.Argc == 2)
        {
            if (StringCommands.Ascii(s.Arg(1), "SYNC")) sync = true;
            else if (!StringCommands.Ascii(s.Arg(1), "ASYNC")) { s.WriteError("ERR syntax error"); return; }
        }
        var host = s.Server.Store;
        // As Redis: the watches of keys that exist in an emptied database break (watched keys that do not exist stay).
        BreakWatchesOfExistingKeys(s, db => all || db == s.Database, db => db);
        if (s.Server.Tracking.Active) s.Server.Tracking.InvalidateAll();
        if (all)
        {
            host.FlushAll();
            // As Redis: with save rules, FLUSHALL is followed by a checkpoint of the empty store (taken in the background,
            // once this command has released the key locks).
            if (s.Settings.SaveRules.Length > 0 && !s.Server.Checkpoints.TryStartBackground("FLUSHALL")) s.Server.Checkpoints.ScheduleAfterCurrent("FLUSHALL");
        }
        else host.FlushDb(s.Database);
        // SYNC: the reply waits until the old keys are deleted, off this connection's thread (and after the key locks are released).
        // Inside EXEC (which holds every key lock) the reply cannot wait for the purge: it answers as ASYNC does.
        if (sync && !s.InExec) s.ReplyWhenDone(host.PurgeCompletion, static (s, _) => s.Writer.WriteOk());
        else s.Writer.WriteOk();
    }

    public static void SwapDb(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(1), out long a)) { s.WriteError("ERR invalid first DB index"); return; }
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long b)) { s.WriteError("ERR invalid second DB index"); return; }
        if (a < 0 || a >= s.Settings.Databases || b < 0 || b >= s.Settings.Databases) { s.WriteError("ERR DB index is out of range"); return; }
        // As Redis: a watched key of either database breaks when it exists on either side of the swap.
        BreakWatchesOfExistingKeys(s, db => db == a || db == b, db => db == a ? (int)b : (int)a);
        s.Server.Store.SwapDb((int)a, (int)b);
        s.Writer.WriteOk();
    }

    /// <summary>Breaks the watches of watched keys in the databases dbs that exist there or in other(db).</summary>
    private static void BreakWatchesOfExistingKeys(CommandContext s, Func<int, bool> dbs, Func<int, int> other)
    {
        foreach (var (db, key, watchers) in s.Server.Watches.WatchedIn(dbs))
        {
            if (!Exists(s, key, db) && !Exists(s, key, other(db))) continue;
            foreach (var t in watchers) t.WatchBroken = true;
        }
    }

    // ---- iteration ----

    public static void Keys(CommandContext s)
    {
        string pattern = Encoding.Latin1.GetString(s.Arg(1));
        OffThread.Reply(s, KeysAsync(s.Server.Store.Store, s.Server.Store.PhysicalId(s.Database), pattern), static (s, keys) =>
        {
            s.Writer.WriteArrayHeader(keys.Count);
            foreach (var k in keys) s.Writer.WriteBulkString(k);
        });
    }

    private static async Task<List<byte[]>> KeysAsync(KVStore store, int id, string pattern)
    {
        var keys = new List<byte[]>();
        using var it = new KeyIterator(store);
        var batch = new List<IteratedRecord>();
        bool more = true;
        while (more)
        {
            batch.Clear();
            more = await it.NextBatchAsync(batch, 4096).ConfigureAwait(false);
            foreach (var r in batch)
                if (InDb(r.Key, id) && (pattern == "*" || GlobPattern.Matches(pattern, Encoding.Latin1.GetString(r.Key, 2, r.Key.Length - 2))))
                    keys.Add(r.Key[2..]);
        }
        return keys;
    }

    private static bool InDb(byte[] storedKey, int id) => storedKey.Length >= 2 && ((storedKey[0] << 8) | storedKey[1]) == id;

    /// <summary>
    /// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]. The cursor is a token for a server-side iteration
    /// (ScanCursors) whose end is fixed when it starts, so a key present for the whole iteration is returned exactly
    /// once. An unknown or expired token starts over (keys may then repeat, none is missed).
    /// </summary>
    public static void Scan(CommandContext s)
    {
        if (!ulong.TryParse(s.ArgString(1), System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out ulong cursor))
        { s.WriteError("ERR invalid cursor"); return; }
        string? pattern = null, type = null;
        long count = 10;
        for (int i = 2; i < s.Argc; i++)
        {
            if (i + 1 >= s.Argc) { s.WriteError("ERR syntax error"); return; }
            if (StringCommands.Ascii(s.Arg(i), "MATCH")) pattern = Encoding.Latin1.GetString(s.Arg(++i));
            else if (StringCommands.Ascii(s.Arg(i), "COUNT"))
            {
                if (!NumberParsing.TryParseInt64(s.Arg(++i), out count)) { s.WriteError(NotInteger); return; }
                if (count < 1) { s.WriteError("ERR syntax error"); return; }
            }
            else if (StringCommands.Ascii(s.Arg(i), "TYPE")) type = s.ArgString(++i).ToLowerInvariant();
            else { s.WriteError("ERR syntax error"); return; }
        }
        int id = s.Server.Store.PhysicalId(s.Database);
        long token = (long)Math.Min(cursor, long.MaxValue);
        var scans = s.Server.Store.Scans;
        var state = scans.Resume(ref token);
        OffThread.Reply(s, ScanAsync(s, scans, state, token, id, count, pattern, type), static (s, result) =>
        {
            s.Writer.WriteArrayHeader(2);
            s.Writer.WriteBulkString(result.Next.ToString());
            s.Writer.WriteArrayHeader(result.Found.Count);
            foreach (var k in result.Found) s.Writer.WriteBulkString(k);
        });
    }

    private static async Task<(long Next, List<byte[]> Found)> ScanAsync(CommandContext s, ScanCursors scans, ScanCursors.Cursor state,
        long token, int id, long count, string? pattern, string? type)
    {
        var found = new List<byte[]>();
        try
        {
            await state.Gate.WaitAsync().ConfigureAwait(false); // one call at a time per cursor
            try
            {
                var it = state.Iterator;
                // COUNT is the work of one call: the keys of this database it examines. Keys of other databases share the log,
                // and so do garbage records (superseded, deleted, expired), so those are bounded too: a call reads at most
                // about skipLimit records, a page at a time, however little of the log is live.
                long examined = 0, skipped = 0, skipLimit = Math.Min(count, 1L << 32) * 16 + 65536;
                long seenAtStart = it.RecordsSeen;
                var batch = new List<IteratedRecord>();
                try
                {
                    while (examined < count && skipped < skipLimit)
                    {
                        if (!scans.TryTake(state, out var key))
                        {
                            if (it.Done || it.RecordsSeen - seenAtStart >= skipLimit) break;
                            batch.Clear();
                            await it.NextBatchAsync(batch, 4096, maxPages: 1).ConfigureAwait(false);
                            scans.Buffer(state, batch);
                            continue;
                        }
                        if (!InDb(key, id)) { skipped++; continue; }
                        examined++;
                        if (pattern is not null && pattern != "*" && !GlobPattern.Matches(pattern, Encoding.Latin1.GetString(key, 2, key.Length - 2))) continue;
                        found.Add(key[2..]);
                    }
                }
                catch { scans.Finish(token); throw; }
                bool more = state.Buffered.Count > 0 || !it.Done;
                if (!more) scans.Finish(token);
                if (type is not null) found = await OfTypeAsync(s, found, type).ConfigureAwait(false);
                return (more ? token : 0, found);
            }
            finally { state.Gate.Release(); }
        }
        finally { scans.Release(state); }
    }

    /// <summary>SCAN's TYPE filter: the headers of the keys' records on disk are read first (ReadAhead, header only: no
    /// object is loaded, a collection's kind tag says its type), a chunk at a time (the session remembers that many
    /// headers), then typed without waiting.</summary>
    private static async Task<List<byte[]>> OfTypeAsync(CommandContext s, List<byte[]> keys, string type)
    {
        var st = s.Storage;
        var result = new List<byte[]>();
        for (int from = 0; from < keys.Count; from += TypeChunk)
        {
            int to = Math.Min(keys.Count, from + TypeChunk);
            bool any = false;
            for (int i = from; i < to; i++) any |= st.ReadAhead(keys[i], Garnet.storage.Store.RecordRef.HeaderOnly);
            if (any) await st.ReadAheadDone().ConfigureAwait(false);
            for (int i = from; i < to; i++)
                if (TypeOf(s, keys[i]) == type) result.Add(keys[i]);
        }
        return result;
    }

    /// <summary>Keys typed per round of SCAN's TYPE filter: at most half the headers a store session remembers.</summary>
    private const int TypeChunk = 32;

    /// <summary>TYPE's answer for key ("none" when it does not exist), without marking it accessed.</summary>
    private static string TypeOf(CommandContext s, ReadOnlySpan<byte> key)
    {
        var input = new StringInput { Op = StringOp.Exists };
        return s.Storage.Read(key, ref input).IsFound() ? s.Storage.Result.Text ?? "string" : "none";
    }

    public static void RandomKey(CommandContext s)
    {
        if (s.Server.Store.KeyCount(s.Database) == 0) { s.Writer.WriteNull(); return; }
        OffThread.Reply(s, RandomKeyAsync(s.Server.Store.Store, s.Server.Store.PhysicalId(s.Database)), static (s, key) =>
        {
            if (key is null) s.Writer.WriteNull();
            else s.Writer.WriteBulkString(key);
        });
    }

    private static async Task<byte[]?> RandomKeyAsync(KVStore store, int id)
    {
        long begin = store.Log.BeginAddress, tail = store.Log.TailAddress;
        foreach (long start in new[] { begin + (long)(Random.Shared.NextDouble() * (tail - begin)), 0 })
        {
            using var it = new KeyIterator(store, start);
            var batch = new List<IteratedRecord>();
            bool more = true;
            while (more)
            {
                batch.Clear();
                more = await it.NextBatchAsync(batch, 256).ConfigureAwait(false);
                var mine = batch.Where(r => InDb(r.Key, id)).ToList();
                if (mine.Count > 0) return mine[Random.Shared.Next(mine.Count)].Key[2..];
            }
        }
        return null;
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>DEL, UNLINK, EXISTS, TYPE, EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST, TOUCH,
    /// RENAME, RENAMENX, COPY, MOVE.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        return
        [
            new()
            {
                Name = "del", ReadsHeaderOnly = true, Arity = -2, Flags = Write, Acl = A.Keyspace, Keys = new KeyRange(1, -1, 1),
                Group = "generic", Since = "1.0.0", Summary = "Deletes one or more keys.",
                Tips = ["request_policy:multi_shard", "response_policy:agg_sum"],
                Handler = Del,
            },
            new()
            {
                Name = "unlink", ReadsHeaderOnly = true, Arity = -2, Flags = Write | Fast, Acl = A.Keyspace, Keys = new KeyRange(1, -1, 1),
                Group = "generic", Since = "4.0.0", Summary = "Asynchronously deletes one or more keys.",
                Tips = ["request_policy:multi_shard", "response_policy:agg_sum"],
                Handler = Del,
            },
            new()
            {
                Name = "exists", ReadsHeaderOnly = true, Arity = -2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = new KeyRange(1, -1, 1),
                Group = "generic", Since = "1.0.0", Summary = "Determines whether one or more keys exist.",
                Tips = ["request_policy:multi_shard", "response_policy:agg_sum"],
                Handler = ExistsCommand,
            },
            new()
            {
                Name = "type", ReadsHeaderOnly = true, Arity = 2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = k1,
                Group = "generic", Since = "1.0.0", Summary = "Determines the type of value stored at a key.",
                Handler = Type,
            },
            new()
            {
                Name = "expire", Arity = -3, Flags = Write | Fast, Acl = A.Keyspace, Keys = k1,
                Group = "generic", Since = "1.0.0", Summary = "Sets the expiration time of a key in seconds.",
                Handler = Expire,
            },
            new()
            {
                Name = "pexpire", Arity = -3, Flags = Write | Fast, Acl = A.Keyspace, Keys = k1,
                Group = "generic", Since = "2.6.0", Summary = "Sets the expiration time of a key in milliseconds.",
                Handler = PExpire,
            },
            new()
            {
                Name = "expireat", Arity = -3, Flags = Write | Fast, Acl = A.Keyspace, Keys = k1,
                Group = "generic", Since = "1.2.0", Summary = "Sets the expiration time of a key to a Unix timestamp.",
                Handler = ExpireAt,
            },
            new()
            {
                Name = "pexpireat", Arity = -3, Flags = Write | Fast, Acl = A.Keyspace, Keys = k1,
                Group = "generic", Since = "2.6.0", Summary = "Sets the expiration time of a key to a Unix milliseconds timestamp.",
                Handler = PExpireAt,
            },
            new()
            {
                Name = "ttl", ReadsHeaderOnly = true, Arity = 2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = k1,
                Group = "generic", Since = "1.0.0", Summary = "Returns the expiration time in seconds of a key.",
                Tips = ["nondeterministic_output"],
                Handler = Ttl,
            },
            new()
            {
                Name = "pttl", ReadsHeaderOnly = true, Arity = 2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = k1,
                Group = "generic", Since = "2.6.0", Summary = "Returns the expiration time in milliseconds of a key.",
                Tips = ["nondeterministic_output"],
                Handler = PTtl,
            },
            new()
            {
                Name = "expiretime", ReadsHeaderOnly = true, Arity = 2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = k1,
                Group = "generic", Since = "7.0.0", Summary = "Returns the expiration time of a key as a Unix timestamp.",
                Handler = ExpireTime,
            },
            new()
            {
                Name = "pexpiretime", ReadsHeaderOnly = true, Arity = 2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = k1,
                Group = "generic", Since = "7.0.0", Summary = "Returns the expiration time of a key as a Unix milliseconds timestamp.",
                Handler = PExpireTime,
            },
            new()
            {
                Name = "persist", Arity = 2, Flags = Write | Fast, Acl = A.Keyspace, Keys = k1,
                Group = "generic", Since = "2.2.0", Summary = "Removes the expiration time of a key.",
                Handler = Persist,
            },
            new()
            {
                Name = "touch", Arity = -2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = new KeyRange(1, -1, 1),
                Group = "generic", Since = "3.2.1",
                Summary = "Returns the number of existing keys out of those specified after updating the time they were last accessed.",
                Tips = ["request_policy:multi_shard", "response_policy:agg_sum"],
                Handler = Touch,
            },
            new()
            {
                Name = "rename", Arity = 3, Flags = Write, Acl = A.Keyspace, Keys = new KeyRange(1, 2, 1),
                Group = "generic", Since = "1.0.0", Summary = "Renames a key and overwrites the destination.",
                Handler = Rename,
            },
            new()
            {
                Name = "renamenx", Arity = 3, Flags = Write | Fast, Acl = A.Keyspace, Keys = new KeyRange(1, 2, 1),
                Group = "generic", Since = "1.0.0", Summary = "Renames a key only when the target key name doesn't exist.",
                Handler = RenameNx,
            },
            new()
            {
                Name = "copy", Arity = -3, Flags = Write | DenyOom, Acl = A.Keyspace, Keys = new KeyRange(1, 2, 1),
                Group = "generic", Since = "6.2.0", Summary = "Copies the value of a key to a new key.",
                Handler = Copy,
            },
            new()
            {
                Name = "move", Arity = 3, Flags = Write | Fast, Acl = A.Keyspace, Keys = k1,
                Group = "generic", Since = "1.0.0", Summary = "Moves a key to another database.",
                LocksKeysExclusively = true, Handler = Move,
            },
        ];
    }

    /// <summary>KEYS, SCAN, RANDOMKEY, DBSIZE, FLUSHDB, FLUSHALL, SWAPDB, the commands on a whole database: the table lists
    /// them after DUMP, RESTORE, OBJECT and MEMORY.</summary>
    internal static CommandDefinition[] DatabaseDeclarations()
    {
        return
        [
            new()
            {
                Name = "keys", Arity = 2, Flags = ReadOnly, Acl = A.Keyspace | A.Dangerous,
                Group = "generic", Since = "1.0.0", Summary = "Returns all key names that match a pattern.",
                Tips = ["request_policy:all_shards", "nondeterministic_output_order"],
                Handler = Keys,
            },
            new()
            {
                Name = "scan", Arity = -2, Flags = ReadOnly, Acl = A.Keyspace,
                Group = "generic", Since = "2.8.0", Summary = "Iterates over the key names in the database.",
                Tips = ["nondeterministic_output", "request_policy:special", "response_policy:special"],
                Handler = Scan,
            },
            new()
            {
                Name = "randomkey", Arity = 1, Flags = ReadOnly, Acl = A.Keyspace,
                Group = "generic", Since = "1.0.0", Summary = "Returns a random key name from the database.",
                Tips = ["request_policy:all_shards", "response_policy:special", "nondeterministic_output"],
                Handler = RandomKey,
            },
            new()
            {
                Name = "dbsize", Arity = 1, Flags = ReadOnly | Fast, Acl = A.Keyspace,
                Group = "server", Since = "1.0.0", Summary = "Returns the number of keys in the database.",
                Tips = ["request_policy:all_shards", "response_policy:agg_sum"],
                Handler = DbSize,
            },
            new()
            {
                Name = "flushdb", Arity = -1, Flags = Write, Acl = A.Keyspace | A.Dangerous,
                Group = "server", Since = "1.0.0", Summary = "Remove all keys from the current database.",
                Tips = ["request_policy:all_shards", "response_policy:all_succeeded"],
                Handler = FlushDb,
            },
            new()
            {
                Name = "flushall", Arity = -1, Flags = Write, Acl = A.Keyspace | A.Dangerous,
                Group = "server", Since = "1.0.0", Summary = "Removes all keys from all databases.",
                Tips = ["request_policy:all_shards", "response_policy:all_succeeded"],
                Handler = FlushAll,
            },
            new()
            {
                Name = "swapdb", Arity = 3, Flags = Write | Fast, Acl = A.Keyspace | A.Dangerous,
                Group = "server", Since = "4.0.0", Summary = "Swaps two Redis databases.",
                Handler = SwapDb,
            },
        ];
    }
}
