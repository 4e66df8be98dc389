// StringCommands: GET, SET and the other string commands (Redis 7.2 semantics and error texts).
// Each handler parses its arguments, runs one engine operation per key through the session's StorageSession
// (which waits out disk reads) and writes the reply.
using Garnet.server.Persistence;
using Garnet.server.PubSub;
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class StringCommands
{
    private const string Syntax = "ERR syntax error";
    private const string NotInteger = StringFunctions.NotInteger;

    /// <summary>The server's clock (the replay's during AOF replay).</summary>
    internal static long NowMs(CommandContext s) => s.Server.Store.Clock.NowMs;

    private static StringInput Input(CommandContext s, StringOp op, int valueArg = -1)
    {
        var input = new StringInput { Op = op };
        if (valueArg >= 0) s.ArgLocation(valueArg, out input.Data, out input.Offset, out input.Length);
        return input;
    }

    /// <summary>Runs an RMW that captures the previous value (SET GET, GETSET, GETDEL, GETEX) and replies with it, or nil.</summary>
    private static bool RmwReplyingOld(CommandContext s, ref StringInput input)
    {
        s.Storage.Rmw(s.Arg(1), ref input);
        s.CountKeyLookup(s.Storage.Result.Old is not null, s.Arg(1));
        if (ReportError(s)) return false;
        if (s.Storage.Result.Old is { } old) s.Writer.WriteBulkString(old);
        else s.Writer.WriteNull();
        return true;
    }

    /// <summary>The RMW just run changed the key (wrote, created or deleted it).</summary>
    private static bool Wrote(Status st) => (st & (Status.Created | Status.InPlaceUpdated | Status.CopyUpdated | Status.Deleted)) != 0;

    /// <summary>SET's events: "set", and "expire" when it gave the key a time to live.</summary>
    private static void NotifySet(CommandContext s, ReadOnlySpan<byte> key, bool withExpire)
    {
        s.Notify(NotifyClass.String, "set"u8, key);
        if (withExpire) s.Notify(NotifyClass.Generic, "expire"u8, key);
    }

    private static bool ReportError(CommandContext s)
    {
        var e = s.Storage.Result.Error;
        if (e is null) return false;
        s.WriteError(e);
        return true;
    }

    public static void Get(CommandContext s)
    {
        var input = Input(s, StringOp.Get);
        // A key on disk: the read is issued and the command finishes when it completes, holding no thread meanwhile
        // (the connection's later requests wait, in order; other connections go on).
        var storage = s.Storage;
        storage.DeferPending = s.CanFinishLater;
        // Read optimistically (RunLocked): the value is copied without the record's lock, and the reply is thrown away and
        // the GET run again under the key's stripe if a writer of the key ran meanwhile (KeyLocks, optimistic reads).
        var st = storage.Read(s.Arg(1), ref input, validatedByCaller: s.ReadIsValidatedAfter);
        if (st.IsPending())
        {
            s.KeepDeferredKey(s.Arg(1)); // no closure, no key copy, no Task per read from disk
            s.ReplyWhenReadsDone(static (s, error) =>
            {
                if (error is not null) throw error;
                FinishGet(s, s.Storage.Result.Status, s.DeferredKey);
            });
            return;
        }
        FinishGet(s, st, s.Arg(1));
    }

    private static void FinishGet(CommandContext s, Status st, ReadOnlySpan<byte> key)
    {
        s.CountKeyLookup(st.IsFound(), key);
        if (ReportError(s)) return;
        if (!st.IsFound()) s.Writer.WriteNull();
    }

    public static void StrLen(CommandContext s) => StrLen(s, countLookup: true);

    private static void StrLen(CommandContext s, bool countLookup)
    {
        var input = Input(s, StringOp.StrLen);
        var st = s.Storage.Read(s.Arg(1), ref input);
        if (countLookup) s.CountKeyLookup(st.IsFound(), s.Arg(1));
        if (ReportError(s)) return;
        s.Writer.WriteInteger(st.IsFound() ? s.Storage.Result.Number : 0);
    }

    public static void GetRange(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long start) || !NumberParsing.TryParseInt64(s.Arg(3), out long end))
        {
            s.WriteError(NotInteger);
            return;
        }
        var input = Input(s, StringOp.GetRange);
        input.Number = start;
        input.Number2 = end;
        var st = s.Storage.Read(s.Arg(1), ref input);
        s.CountKeyLookup(st.IsFound(), s.Arg(1));
        if (ReportError(s)) return;
        if (!st.IsFound()) s.Writer.WriteBulkString(""u8);
    }

    /// <summary>EX/PX/EXAT/PXAT value to Unix ms; false (with Redis's error) when invalid.</summary>
    internal static bool TryExpiration(CommandContext s, ReadOnlySpan<byte> unit, ReadOnlySpan<byte> arg, string command, out long at)
    {
        if (ExpirationError(unit, arg, command, NowMs(s), out at) is not { } error) return true;
        s.WriteError(error);
        return false;
    }

    /// <summary>The Unix ms an EX/PX/EXAT/PXAT argument means, or Redis's error for it.</summary>
    internal static string? ExpirationError(ReadOnlySpan<byte> unit, ReadOnlySpan<byte> arg, string command, long now, out long at)
    {
        at = 0;
        if (!NumberParsing.TryParseInt64(arg, out long v)) return NotInteger;
        bool seconds = Ascii(unit, "EX") || Ascii(unit, "EXAT");
        bool absolute = Ascii(unit, "EXAT") || Ascii(unit, "PXAT");
        if (v <= 0 || (seconds && v > long.MaxValue / 1000)) return $"ERR invalid expire time in '{command}' command";
        long ms = seconds ? v * 1000 : v;
        if (!absolute)
        {
            if (ms > long.MaxValue - now) return $"ERR invalid expire time in '{command}' command";
            ms += now;
        }
        at = ms;
        return null;
    }

    internal static bool Ascii(ReadOnlySpan<byte> a, string upper) => System.Text.Ascii.EqualsIgnoreCase(a, upper);

    public static void Set(CommandContext s)
    {
        var flags = SetFlags.None;
        long at = 0;
        int expireArg = -1;
        string? unit = null;
        for (int i = 3; i < s.Argc; i++)
        {
            // As in Redis: an option may repeat (the last value wins), but options that exclude each other may not meet.
            var a = s.Arg(i);
            if (Ascii(a, "NX") && (flags & SetFlags.Xx) == 0) flags |= SetFlags.Nx;
            else if (Ascii(a, "XX") && (flags & SetFlags.Nx) == 0) flags |= SetFlags.Xx;
            else if (Ascii(a, "GET")) flags |= SetFlags.Get;
            else if (Ascii(a, "KEEPTTL") && unit is null) flags |= SetFlags.KeepTtl;
            else if ((Ascii(a, "EX") || Ascii(a, "PX") || Ascii(a, "EXAT") || Ascii(a, "PXAT")) && (flags & SetFlags.KeepTtl) == 0
                     && (unit is null || Ascii(a, unit)) && i + 1 < s.Argc)
            {
                unit = System.Text.Encoding.ASCII.GetString(a).ToUpperInvariant();
                expireArg = ++i;
            }
            else { s.WriteError(Syntax); return; }
        }
        if (unit is not null && !TryExpiration(s, System.Text.Encoding.ASCII.GetBytes(unit), s.Arg(expireArg), "set", out at)) return;
        if (unit is not null) PropagateSetAt(s, at, flags);
        var st = s.Storage;
        if (flags == SetFlags.None)
        {
            // A blind write: no old value needed. A large value keeps the buffer it was received into (no copy).
            if (s.TakeLargeArgument(2) is { } large) st.Upsert(s.Arg(1), large, at);
            else st.Upsert(s.Arg(1), s.Arg(2), at);
            NotifySet(s, s.Arg(1), at != 0);
            s.Writer.WriteOk();
            return;
        }
        var input = Input(s, StringOp.Set, 2);
        input.Flags = (byte)flags;
        input.Number = at;
        var status = st.Rmw(s.Arg(1), ref input);
        if ((flags & SetFlags.Get) != 0) s.CountKeyLookup(st.Result.Old is not null, s.Arg(1));
        if (ReportError(s)) return;
        bool written = (status & (Status.Created | Status.InPlaceUpdated | Status.CopyUpdated)) != 0;
        if (written) NotifySet(s, s.Arg(1), unit is not null);
        if ((flags & SetFlags.Get) != 0)
        {
            if (st.Result.Old is { } old) s.Writer.WriteBulkString(old);
            else s.Writer.WriteNull();
        }
        else if (written) s.Writer.WriteOk();
        else s.Writer.WriteNull();
    }

    /// <summary>The AOF gets an absolute expiry (SET key value PXAT ms), so a replay later means the same moment.</summary>
    private static void PropagateSetAt(CommandContext s, long at, SetFlags flags)
    {
        var args = new List<ArgRef> { ArgRef.Of("SET"), ArgRef.Of(1), ArgRef.Of(s.Argc == 4 && !Ascii(s.Arg(0), "SET") ? 3 : 2), ArgRef.Of("PXAT"), ArgRef.Of(at.ToString()) };
        if ((flags & SetFlags.Nx) != 0) args.Add(ArgRef.Of("NX"));
        if ((flags & SetFlags.Xx) != 0) args.Add(ArgRef.Of("XX"));
        s.PropagateAs([.. args]);
    }

    public static void SetNx(CommandContext s)
    {
        var input = Input(s, StringOp.Set, 2);
        input.Flags = (byte)SetFlags.Nx;
        var status = s.Storage.Rmw(s.Arg(1), ref input);
        if (ReportError(s)) return;
        if ((status & Status.Created) != 0) NotifySet(s, s.Arg(1), withExpire: false);
        s.Writer.WriteInteger((status & Status.Created) != 0 ? 1 : 0);
    }

    public static void SetEx(CommandContext s) => SetWithTtl(s, "EX", "setex");
    public static void PSetEx(CommandContext s) => SetWithTtl(s, "PX", "psetex");

    private static void SetWithTtl(CommandContext s, string unit, string command)
    {
        if (!TryExpiration(s, System.Text.Encoding.ASCII.GetBytes(unit), s.Arg(2), command, out long at)) return;
        PropagateSetAt(s, at, SetFlags.None);
        s.Storage.Upsert(s.Arg(1), s.Arg(3), at);
        NotifySet(s, s.Arg(1), withExpire: true);
        s.Writer.WriteOk();
    }

    public static void GetSet(CommandContext s)
    {
        var input = Input(s, StringOp.Set, 2);
        input.Flags = (byte)SetFlags.Get;
        if (RmwReplyingOld(s, ref input)) NotifySet(s, s.Arg(1), withExpire: false);
    }

    public static void GetDel(CommandContext s)
    {
        // One RMW: the value is taken and the key deleted under the same lock (two GETDELs cannot both get it).
        var input = Input(s, StringOp.GetDel);
        if (RmwReplyingOld(s, ref input) && (s.Storage.Result.Status & Status.Deleted) != 0) s.Notify(NotifyClass.Generic, "del"u8, s.Arg(1));
    }

    public static void GetEx(CommandContext s)
    {
        var input = Input(s, StringOp.GetEx);
        bool option = false;
        string? expireError = null;
        for (int i = 2; i < s.Argc; i++)
        {
            var a = s.Arg(i);
            if (Ascii(a, "PERSIST") && !option) { input.Flags = (byte)ExpireFlags.Persist; option = true; }
            else if ((Ascii(a, "EX") || Ascii(a, "PX") || Ascii(a, "EXAT") || Ascii(a, "PXAT")) && !option && i + 1 < s.Argc)
            {
                expireError = ExpirationError(a, s.Arg(i + 1), "getex", NowMs(s), out input.Number);
                option = true;
                i++;
            }
            else { s.WriteError(Syntax); return; }
        }
        if (expireError is not null)
        {
            // As Redis: syntax first, then the key (missing: nil), then the expire value.
            var exists = Input(s, StringOp.Exists);
            bool found = s.Storage.Read(s.Arg(1), ref exists).IsFound();
            s.CountKeyLookup(found, s.Arg(1));
            if (found) s.WriteError(expireError);
            else s.Writer.WriteNull();
            return;
        }
        if (!option) s.PropagateNothing();
        else if (input.Flags == (byte)ExpireFlags.Persist) s.PropagateAs(ArgRef.Of("PERSIST"), ArgRef.Of(1));
        else s.PropagateAs(ArgRef.Of("PEXPIREAT"), ArgRef.Of(1), ArgRef.Of(input.Number.ToString()));
        if (!RmwReplyingOld(s, ref input) || !option || s.Storage.Result.Old is null) return;
        if (input.Flags == (byte)ExpireFlags.Persist)
        {
            if (Wrote(s.Storage.Result.Status)) s.Notify(NotifyClass.Generic, "persist"u8, s.Arg(1));
        }
        // A time already past deletes the key in Redis ("del"); here it leaves an expired record, gone for every reader.
        else s.Notify(NotifyClass.Generic, input.Number <= NowMs(s) ? "del"u8 : "expire"u8, s.Arg(1));
    }

    public static void MGet(CommandContext s)
    {
        s.Writer.WriteArrayHeader(s.Argc - 1);
        for (int i = 1; i < s.Argc; i++)
        {
            var input = Input(s, StringOp.Get);
            var st = s.Storage.Read(s.Arg(i), ref input);
            s.CountKeyLookup(st.IsFound(), s.Arg(i));
            if (s.Storage.Result.Error is not null || !st.IsFound()) s.Writer.WriteNull(); // wrong type reads as nil
        }
    }

    public static void MSet(CommandContext s)
    {
        if ((s.Argc - 1) % 2 != 0) { s.WriteError("ERR wrong number of arguments for 'mset' command"); return; }
        for (int i = 1; i < s.Argc; i += 2)
        {
            s.Storage.Upsert(s.Arg(i), s.Arg(i + 1));
            s.Notify(NotifyClass.String, "set"u8, s.Arg(i));
        }
        s.Writer.WriteOk();
    }

    public static void MSetNx(CommandContext s)
    {
        if ((s.Argc - 1) % 2 != 0) { s.WriteError("ERR wrong number of arguments for 'msetnx' command"); return; }
        for (int i = 1; i < s.Argc; i += 2)
        {
            var input = Input(s, StringOp.Exists);
            if (s.Storage.Read(s.Arg(i), ref input).IsFound()) { s.Writer.WriteInteger(0); return; }
        }
        for (int i = 1; i < s.Argc; i += 2)
        {
            s.Storage.Upsert(s.Arg(i), s.Arg(i + 1));
            s.Notify(NotifyClass.String, "set"u8, s.Arg(i));
        }
        s.Writer.WriteInteger(1);
    }

    public static void Append(CommandContext s)
    {
        var input = Input(s, StringOp.Append, 2);
        input.Number = s.Settings.Limits.ProtoMaxBulkLen; // the longest the string may grow (CVE-2021-41099)
        s.Storage.Rmw(s.Arg(1), ref input);
        if (ReportError(s)) return;
        s.Notify(NotifyClass.String, "append"u8, s.Arg(1));
        s.Writer.WriteInteger(s.Storage.Result.Number);
    }

    public static void SetRange(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long offset)) { s.WriteError(NotInteger); return; }
        if (offset < 0) { s.WriteError("ERR offset is out of range"); return; }
        if (s.Arg(3).Length == 0) { StrLen(s, countLookup: false); return; } // nothing to write: Redis answers the current length
        long max = Math.Min(StringFunctions.MaxValueLength, s.Settings.Limits.ProtoMaxBulkLen);
        if (offset > max - s.Arg(3).Length) { s.WriteError(StringFunctions.TooBig); return; }
        var input = Input(s, StringOp.SetRange, 3);
        input.Number = offset;
        var st = s.Storage.Rmw(s.Arg(1), ref input);
        if (ReportError(s)) return;
        if (Wrote(st)) s.Notify(NotifyClass.String, "setrange"u8, s.Arg(1));
        s.Writer.WriteInteger(st == Status.NotFound ? 0 : s.Storage.Result.Number);
    }

    public static void Incr(CommandContext s) => IncrBy(s, 1);
    public static void Decr(CommandContext s) => IncrBy(s, -1);

    public static void IncrBy(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long d)) { s.WriteError(NotInteger); return; }
        IncrBy(s, d);
    }

    public static void DecrBy(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long d)) { s.WriteError(NotInteger); return; }
        if (d == long.MinValue) { s.WriteError("ERR decrement would overflow"); return; }
        IncrBy(s, -d);
    }

    private static void IncrBy(CommandContext s, long delta)
    {
        var input = Input(s, StringOp.IncrBy);
        input.Number = delta;
        s.Storage.Rmw(s.Arg(1), ref input);
        if (ReportError(s)) return;
        s.Notify(NotifyClass.String, "incrby"u8, s.Arg(1));
        s.Writer.WriteInteger(s.Storage.Result.Number);
    }

    public static void IncrByFloat(CommandContext s)
    {
        if (!NumberParsing.TryParseDouble(s.Arg(2), out double d)) { s.WriteError(StringFunctions.NotFloat); return; }
        var input = Input(s, StringOp.IncrByFloat, 2);
        input.Float = d;
        s.Storage.Rmw(s.Arg(1), ref input);
        if (ReportError(s)) return;
        s.Notify(NotifyClass.String, "incrbyfloat"u8, s.Arg(1));
        // Logged as the value it produced, so a replay does not depend on float arithmetic.
        s.PropagateAs(ArgRef.Of("SET"), ArgRef.Of(1), ArgRef.Of(s.Storage.Result.Text ?? "0"), ArgRef.Of("KEEPTTL"));
        s.Writer.WriteBulkString(s.Storage.Result.Text ?? "0");
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>GET, SET, SETNX, SETEX, PSETEX, GETSET, GETDEL, GETEX, MGET, MSET, MSETNX, APPEND, STRLEN, GETRANGE, SUBSTR, SETRANGE,
    /// INCR, DECR, INCRBY, DECRBY, INCRBYFLOAT.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        return
        [
            new()
            {
                Name = "get", Arity = 2, Flags = ReadOnly | Fast, Acl = A.String, Keys = k1,
                Group = "string", Since = "1.0.0", Summary = "Returns the string value of a key.",
                DefersDiskReads = true, PlainRead = true, Handler = Get,
            },
            new()
            {
                Name = "set", Arity = -3, Flags = Write | DenyOom, Acl = A.String, Keys = k1,
                Group = "string", Since = "1.0.0",
                Summary = "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
                Handler = Set,
            },
            new()
            {
                Name = "setnx", Arity = 3, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1,
                Group = "string", Since = "1.0.0", Summary = "Set the string value of a key only when the key doesn't exist.",
                Handler = SetNx,
            },
            new()
            {
                Name = "setex", Arity = 4, Flags = Write | DenyOom, Acl = A.String, Keys = k1,
                Group = "string", Since = "2.0.0",
                Summary = "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.",
                Handler = SetEx,
            },
            new()
            {
                Name = "psetex", Arity = 4, Flags = Write | DenyOom, Acl = A.String, Keys = k1,
                Group = "string", Since = "2.6.0",
                Summary = "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.",
                Handler = PSetEx,
            },
            new()
            {
                Name = "getset", Arity = 3, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1,
                Group = "string", Since = "1.0.0", Summary = "Returns the previous string value of a key after setting it to a new value.",
                Handler = GetSet,
            },
            new()
            {
                Name = "getdel", Arity = 2, Flags = Write | Fast, Acl = A.String, Keys = k1,
                Group = "string", Since = "6.2.0", Summary = "Returns the string value of a key after deleting the key.",
                Handler = GetDel,
            },
            new()
            {
                Name = "getex", Arity = -2, Flags = Write | Fast, Acl = A.String, Keys = k1,
                Group = "string", Since = "6.2.0", Summary = "Returns the string value of a key after setting its expiration time.",
                Handler = GetEx,
            },
            new()
            {
                Name = "mget", Arity = -2, Flags = ReadOnly | Fast, Acl = A.String, Keys = new KeyRange(1, -1, 1),
                Group = "string", Since = "1.0.0", Summary = "Atomically returns the string values of one or more keys.",
                Tips = ["request_policy:multi_shard"],
                Handler = MGet,
            },
            new()
            {
                Name = "mset", Arity = -3, Flags = Write | DenyOom, Acl = A.String, Keys = new KeyRange(1, -1, 2),
                Group = "string", Since = "1.0.1", Summary = "Atomically creates or modifies the string values of one or more keys.",
                Tips = ["request_policy:multi_shard", "response_policy:all_succeeded"],
                Handler = MSet,
            },
            new()
            {
                Name = "msetnx", Arity = -3, Flags = Write | DenyOom, Acl = A.String, Keys = new KeyRange(1, -1, 2),
                Group = "string", Since = "1.0.1",
                Summary = "Atomically modifies the string values of one or more keys only when all keys don't exist.",
                LocksKeysExclusively = true, Handler = MSetNx,
            },
            new()
            {
                Name = "append", Arity = 3, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1,
                Group = "string", Since = "2.0.0", Summary = "Appends a string to the value of a key. Creates the key if it doesn't exist.",
                Handler = Append,
            },
            new()
            {
                Name = "strlen", Arity = 2, Flags = ReadOnly | Fast, Acl = A.String, Keys = k1,
                Group = "string", Since = "2.2.0", Summary = "Returns the length of a string value.",
                Handler = StrLen,
            },
            new()
            {
                Name = "getrange", Arity = 4, Flags = ReadOnly, Acl = A.String, Keys = k1,
                Group = "string", Since = "2.4.0", Summary = "Returns a substring of the string stored at a key.",
                Handler = GetRange,
            },
            new()
            {
                Name = "substr", Arity = 4, Flags = ReadOnly, Acl = A.String, Keys = k1,
                Group = "string", Since = "1.0.0", Summary = "Returns a substring from a string value.",
                Handler = GetRange,
            },
            new()
            {
                Name = "setrange", Arity = 4, Flags = Write | DenyOom, Acl = A.String, Keys = k1,
                Group = "string", Since = "2.2.0",
                Summary = "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.",
                Handler = SetRange,
            },
            new()
            {
                Name = "incr", Arity = 2, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1,
                Group = "string", Since = "1.0.0",
                Summary = "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
                Handler = Incr,
            },
            new()
            {
                Name = "decr", Arity = 2, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1,
                Group = "string", Since = "1.0.0",
                Summary = "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
                Handler = Decr,
            },
            new()
            {
                Name = "incrby", Arity = 3, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1,
                Group = "string", Since = "1.0.0",
                Summary = "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
                Handler = IncrBy,
            },
            new()
            {
                Name = "decrby", Arity = 3, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1,
                Group = "string", Since = "1.0.0",
                Summary = "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.",
                Handler = DecrBy,
            },
            new()
            {
                Name = "incrbyfloat", Arity = 3, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1,
                Group = "string", Since = "2.6.0",
                Summary = "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
                Handler = IncrByFloat,
            },
        ];
    }
}
