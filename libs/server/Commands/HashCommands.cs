// HashCommands: Redis's hash family (HSET ... HSCAN) on HashObject. Each command is one ObjectOperation run by the
// engine on the key's hash (ObjectFunctions), then a reply written from what the operation found.
using System.Globalization;
using System.Text;
using Garnet.server.Objects;
using Garnet.server.PubSub;
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class HashCommands
{
    private const string NotInteger = StringFunctions.NotInteger;

    private static CollectionOp<HashObject> HashOp(Func<HashObject, bool> apply, bool creates = false) => new(ObjectKind.Hash, apply, creates);

    /// <summary>Runs op on the command's key (argument 1); false after writing its error.</summary>
    private static bool Run(CommandContext s, ObjectOperation op, bool write) => CollectionCommand.Run(s, s.Arg(1), op, write);

    public static void HSet(CommandContext s) => SetFields(s, reply: true);
    public static void HMSet(CommandContext s) => SetFields(s, reply: false);

    private static void SetFields(CommandContext s, bool reply)
    {
        if ((s.Argc - 2) % 2 != 0) { s.WriteError($"ERR wrong number of arguments for '{(reply ? "hset" : "hmset")}' command"); return; }
        var pairs = CollectionCommand.Args(s, 2);
        long added = 0;
        var op = HashOp(h =>
        {
            added = 0;
            // The arrays are this command's own copies, never changed: the hash may keep them (also if this runs again).
            for (int i = 0; i < pairs.Length; i += 2) if (h.SetOwned(pairs[i], pairs[i + 1])) added++;
            return true;
        }, creates: true);
        if (!Run(s, op, write: true)) return;
        s.Notify(NotifyClass.Hash, "hset"u8, s.Arg(1));
        if (reply) s.Writer.WriteInteger(added); else s.Writer.WriteOk();
    }

    public static void HSetNx(CommandContext s)
    {
        var field = s.Arg(2).ToArray();
        var value = s.Arg(3).ToArray();
        bool set = false;
        var op = HashOp(h => set = !h.Contains(field) && h.Set(field, value), creates: true);
        if (!Run(s, op, write: true)) return;
        if (set) s.Notify(NotifyClass.Hash, "hset"u8, s.Arg(1));
        s.Writer.WriteInteger(set ? 1 : 0);
    }

    public static void HGet(CommandContext s)
    {
        var field = s.Arg(2).ToArray();
        byte[]? value = null;
        if (!Run(s, HashOp(h => { value = h.Get(field); return false; }), write: false)) return;
        if (value is null) s.Writer.WriteNull(); else s.Writer.WriteBulkString(value);
    }

    public static void HMGet(CommandContext s)
    {
        var fields = CollectionCommand.Args(s, 2);
        var values = new byte[]?[fields.Length];
        if (!Run(s, HashOp(h => { for (int i = 0; i < fields.Length; i++) values[i] = h.Get(fields[i]); return false; }), write: false)) return;
        s.Writer.WriteArrayHeader(values.Length);
        foreach (var v in values) if (v is null) s.Writer.WriteNull(); else s.Writer.WriteBulkString(v);
    }

    public static void HDel(CommandContext s)
    {
        var fields = CollectionCommand.Args(s, 2);
        long removed = 0;
        var op = HashOp(h =>
        {
            removed = 0;
            foreach (var f in fields) if (h.Remove(f)) removed++;
            return removed > 0;
        });
        if (!Run(s, op, write: true)) return;
        if (removed > 0) CollectionCommand.Notify(s, op, NotifyClass.Hash, "hdel"u8, s.Arg(1));
        s.Writer.WriteInteger(removed);
    }

    public static void HLen(CommandContext s)
    {
        long n = 0;
        if (!Run(s, HashOp(h => { n = h.Count; return false; }), write: false)) return;
        s.Writer.WriteInteger(n);
    }

    public static void HExists(CommandContext s)
    {
        var field = s.Arg(2).ToArray();
        bool found = false;
        if (!Run(s, HashOp(h => { found = h.Contains(field); return false; }), write: false)) return;
        s.Writer.WriteInteger(found ? 1 : 0);
    }

    public static void HStrLen(CommandContext s)
    {
        var field = s.Arg(2).ToArray();
        long n = 0;
        if (!Run(s, HashOp(h => { n = h.Get(field)?.Length ?? 0; return false; }), write: false)) return;
        s.Writer.WriteInteger(n);
    }

    public static void HKeys(CommandContext s) => WriteEntries(s, keys: true, values: false);
    public static void HVals(CommandContext s) => WriteEntries(s, keys: false, values: true);
    public static void HGetAll(CommandContext s) => WriteEntries(s, keys: true, values: true);

    private static void WriteEntries(CommandContext s, bool keys, bool values)
    {
        List<KeyValuePair<byte[], byte[]>> entries = [];
        if (!Run(s, HashOp(h => { entries = h.Entries.ToList(); return false; }), write: false)) return;
        if (keys && values) s.Writer.WriteMapHeader(entries.Count);
        else s.Writer.WriteArrayHeader(entries.Count);
        foreach (var (k, v) in entries)
        {
            if (keys) s.Writer.WriteBulkString(k);
            if (values) s.Writer.WriteBulkString(v);
        }
    }

    public static void HIncrBy(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(3), out long delta)) { s.WriteError(NotInteger); return; }
        var field = s.Arg(2).ToArray();
        long result = 0;
        string? error = null;
        var op = HashOp(h =>
        {
            error = null;
            long current = 0;
            if (h.Get(field) is { } old && !NumberParsing.TryParseInt64(old, out current)) { error = "ERR hash value is not an integer"; return false; }
            if ((delta > 0 && current > long.MaxValue - delta) || (delta < 0 && current < long.MinValue - delta)) { error = StringFunctions.Overflow; return false; }
            result = current + delta;
            h.Set(field, Encoding.ASCII.GetBytes(result.ToString(CultureInfo.InvariantCulture)));
            return true;
        }, creates: true);
        if (!Run(s, op, write: true)) return;
        if (error is not null) { s.WriteError(error); return; }
        s.Notify(NotifyClass.Hash, "hincrby"u8, s.Arg(1));
        s.Writer.WriteInteger(result);
    }

    public static void HIncrByFloat(CommandContext s)
    {
        if (!NumberParsing.TryParseDouble(s.Arg(3), out double delta)) { s.WriteError(StringFunctions.NotFloat); return; }
        if (!double.IsFinite(delta)) { s.WriteError("ERR value is NaN or Infinity"); return; } // Redis checks the increment first
        var field = s.Arg(2).ToArray();
        var deltaText = s.Arg(3).ToArray();
        string text = "";
        string? error = null;
        var op = HashOp(h =>
        {
            error = null;
            double current = 0;
            var old = h.Get(field);
            if (old is not null && !NumberParsing.TryParseDouble(old, out current)) { error = "ERR hash value is not a float"; return false; }
            double value = current + delta;
            if (!double.IsFinite(value)) { error = StringFunctions.NaNOrInfinity; return false; }
            text = NumberParsing.TryAddDecimal(old ?? "0"u8.ToArray(), deltaText, out string? exact) ? exact! : StringFunctions.FormatFloat(value);
            h.Set(field, Encoding.ASCII.GetBytes(text));
            return true;
        }, creates: true);
        if (!Run(s, op, write: true)) return;
        if (error is not null) { s.WriteError(error); return; }
        s.Notify(NotifyClass.Hash, "hincrbyfloat"u8, s.Arg(1));
        s.Writer.WriteBulkString(text);
        // Replicas and the AOF get the result, not the increment (as Redis propagates HSET key field result).
        s.PropagateAs(Persistence.ArgRef.Of("HSET"), Persistence.ArgRef.Of(1), Persistence.ArgRef.Of(2), Persistence.ArgRef.Of(text));
    }

    public static void HRandField(CommandContext s)
    {
        bool withCount = s.Argc >= 3;
        long count = 1;
        bool withValues = false;
        if (withCount)
        {
            if (!NumberParsing.TryParseInt64(s.Arg(2), out count)) { s.WriteError(NotInteger); return; }
            // Redis reads the count in [-LONG_MAX, LONG_MAX] (CVE-2023-25155's fix), with getRangeLong's text.
            if (count == long.MinValue) { s.WriteError("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"); return; }
            if (s.Argc == 4)
            {
                if (!s.ArgEquals(3, "WITHVALUES"u8)) { s.WriteError("ERR syntax error"); return; }
                withValues = true;
            }
            else if (s.Argc > 4) { s.WriteError("ERR syntax error"); return; }
            // Redis refuses counts whose reply could not be built (-count * 2 overflowing).
            if (count < -(long.MaxValue / 2) || count > long.MaxValue / 2) { s.WriteError("ERR value is out of range"); return; }
        }
        List<KeyValuePair<byte[], byte[]>> picked = [];
        // A negative count (repeats allowed): written as they are drawn from a snapshot of the entries, never gathered.
        bool repeats = withCount && count < 0;
        var op = HashOp(h => { picked = repeats ? h.Entries.ToList() : RandomPicks.Pick(h.Entries.ToList(), withCount ? count : 1); return false; });
        if (!Run(s, op, write: false)) return;
        if (repeats && picked.Count > 0)
        {
            long n = Math.Min(-count, RandomPicks.MaxReplyElements);
            bool nested = withValues && s.Protocol >= 3;
            s.Writer.WriteArrayHeader((int)(n * (withValues && !nested ? 2 : 1)));
            RepeatedPicks.Write(s.Writer, picked, n,
                e => (nested ? 4 : 0) + RepeatedPicks.BulkSize(e.Key.Length) + (withValues ? RepeatedPicks.BulkSize(e.Value.Length) : 0),
                (w, e) =>
                {
                    if (nested) w.WriteArrayHeader(2);
                    w.WriteBulkString(e.Key);
                    if (withValues) w.WriteBulkString(e.Value);
                });
            return;
        }
        if (repeats) { s.Writer.WriteArrayHeader(0); return; }
        if (!withCount)
        {
            if (picked.Count == 0) s.Writer.WriteNull(); else s.Writer.WriteBulkString(picked[0].Key);
            return;
        }
        if (withValues && s.Protocol >= 3)
        {
            s.Writer.WriteArrayHeader(picked.Count);
            foreach (var (k, v) in picked) { s.Writer.WriteArrayHeader(2); s.Writer.WriteBulkString(k); s.Writer.WriteBulkString(v); }
            return;
        }
        s.Writer.WriteArrayHeader(picked.Count * (withValues ? 2 : 1));
        foreach (var (k, v) in picked)
        {
            s.Writer.WriteBulkString(k);
            if (withValues) s.Writer.WriteBulkString(v);
        }
    }

    public static void HScan(CommandContext s)
    {
        if (!CollectionScan.TryParse(s, out var scan, allowNoValues: true)) return;
        List<KeyValuePair<byte[], byte[]>> entries = [];
        if (!Run(s, HashOp(h => { entries = h.Entries.ToList(); return false; }), write: false)) return;
        CollectionScan.Write(s, scan, entries.Select(e => (e.Key, (byte[]?)e.Value)).ToList());
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    // Writes lock their key exclusively, as the engine changes collections in place.
    /// <summary>HSET, HMSET, HSETNX, HGET, HMGET, HDEL, HLEN, HEXISTS, HSTRLEN, HKEYS, HVALS, HGETALL, HINCRBY, HINCRBYFLOAT, HRANDFIELD,
    /// HSCAN.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        return
        [
            new()
            {
                Name = "hset", Arity = -4, Flags = Write | DenyOom | Fast, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.0.0", Summary = "Creates or modifies the value of a field in a hash.",
                LocksKeysExclusively = true, Handler = HSet,
            },
            new()
            {
                Name = "hmset", Arity = -4, Flags = Write | DenyOom | Fast, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.0.0", Summary = "Sets the values of multiple fields.",
                LocksKeysExclusively = true, Handler = HMSet,
            },
            new()
            {
                Name = "hsetnx", Arity = 4, Flags = Write | DenyOom | Fast, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.0.0", Summary = "Sets the value of a field in a hash only when the field doesn't exist.",
                LocksKeysExclusively = true, Handler = HSetNx,
            },
            new()
            {
                Name = "hget", Arity = 3, Flags = ReadOnly | Fast, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.0.0", Summary = "Returns the value of a field in a hash.",
                Handler = HGet,
            },
            new()
            {
                Name = "hmget", Arity = -3, Flags = ReadOnly | Fast, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.0.0", Summary = "Returns the values of all fields in a hash.",
                Handler = HMGet,
            },
            new()
            {
                Name = "hdel", Arity = -3, Flags = Write | Fast, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.0.0",
                Summary = "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.",
                LocksKeysExclusively = true, Handler = HDel,
            },
            new()
            {
                Name = "hlen", Arity = 2, Flags = ReadOnly | Fast, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.0.0", Summary = "Returns the number of fields in a hash.",
                Handler = HLen,
            },
            new()
            {
                Name = "hexists", Arity = 3, Flags = ReadOnly | Fast, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.0.0", Summary = "Determines whether a field exists in a hash.",
                Handler = HExists,
            },
            new()
            {
                Name = "hstrlen", Arity = 3, Flags = ReadOnly | Fast, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "3.2.0", Summary = "Returns the length of the value of a field.",
                Handler = HStrLen,
            },
            new()
            {
                Name = "hkeys", Arity = 2, Flags = ReadOnly, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.0.0", Summary = "Returns all fields in a hash.",
                Handler = HKeys,
            },
            new()
            {
                Name = "hvals", Arity = 2, Flags = ReadOnly, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.0.0", Summary = "Returns all values in a hash.",
                Handler = HVals,
            },
            new()
            {
                Name = "hgetall", Arity = 2, Flags = ReadOnly, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.0.0", Summary = "Returns all fields and values in a hash.",
                Handler = HGetAll,
            },
            new()
            {
                Name = "hincrby", Arity = 4, Flags = Write | DenyOom | Fast, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.0.0",
                Summary = "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist.",
                LocksKeysExclusively = true, Handler = HIncrBy,
            },
            new()
            {
                Name = "hincrbyfloat", Arity = 4, Flags = Write | DenyOom | Fast, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.6.0",
                Summary = "Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist.",
                LocksKeysExclusively = true, Handler = HIncrByFloat,
            },
            new()
            {
                Name = "hrandfield", Arity = -2, Flags = ReadOnly, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "6.2.0", Summary = "Returns one or more random fields from a hash.",
                Handler = HRandField,
            },
            new()
            {
                Name = "hscan", Arity = -3, Flags = ReadOnly, Acl = A.Hash, Keys = k1,
                Group = "hash", Since = "2.8.0", Summary = "Iterates over fields and values of a hash.",
                Handler = HScan,
            },
        ];
    }
}
