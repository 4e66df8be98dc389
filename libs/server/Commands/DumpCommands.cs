// DumpCommands: DUMP and RESTORE with Redis's payload format (Storage/DumpFormat.cs), so values move between this
// server and Redis in both directions.
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class DumpCommands
{
    public static void Dump(CommandContext s)
    {
        var input = new StringInput { Op = StringOp.Fetch };
        var st = s.Storage.Read(s.Arg(1), ref input);
        s.CountKeyLookup(st.IsFound(), s.Arg(1));
        if (s.Storage.Result.Error is { } e) { s.WriteError(e); return; }
        if (!st.IsFound()) { s.Writer.WriteNull(); return; }
        s.Writer.WriteBulkString(s.Storage.Result.Value is { } collection ? DumpFormat.Dump(collection) : DumpFormat.Dump(s.Storage.Result.Old!));
    }

    public static void Restore(CommandContext s)
    {
        bool replace = false, absolute = false, idle = false, freq = false;
        long idleSeconds = 0;
        for (int i = 4; i < s.Argc; i++)
        {
            var a = s.Arg(i);
            if (StringCommands.Ascii(a, "REPLACE")) replace = true;
            else if (StringCommands.Ascii(a, "ABSTTL")) absolute = true;
            else if (StringCommands.Ascii(a, "IDLETIME") && i + 1 < s.Argc && !freq)
            {
                // The key's last access is set that many seconds back (OBJECT IDLETIME), as Redis does without an LFU policy.
                if (!NumberParsing.TryParseInt64(s.Arg(++i), out idleSeconds)) { s.WriteError(StringFunctions.NotInteger); return; }
                if (idleSeconds < 0) { s.WriteError("ERR Invalid IDLETIME value, must be >= 0"); return; }
                idle = true;
            }
            else if (StringCommands.Ascii(a, "FREQ") && i + 1 < s.Argc && !idle)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(++i), out long v)) { s.WriteError(StringFunctions.NotInteger); return; }
                if (v < 0 || v > 255) { s.WriteError("ERR Invalid FREQ value, must be >= 0 and <= 255"); return; }
                freq = true;
            }
            else { s.WriteError("ERR syntax error"); return; }
        }
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long ttl)) { s.WriteError(StringFunctions.NotInteger); return; }
        if (ttl < 0) { s.WriteError("ERR Invalid TTL value, must be >= 0"); return; }
        var exists = new StringInput { Op = StringOp.Exists };
        if (!replace && s.Storage.Read(s.Arg(1), ref exists).IsFound()) { s.WriteError("BUSYKEY Target key name already exists."); return; }
        var value = DumpFormat.Restore(s.Arg(3), out string? error);
        if (value is null) { s.WriteError(error!); return; }
        long at = 0;
        if (ttl > 0)
        {
            at = absolute ? ttl : ttl + StringCommands.NowMs(s);
            if (at <= StringCommands.NowMs(s))
            {
                // Already expired: nothing is created (an existing key is removed, as REPLACE asked).
                s.PropagateAs(Persistence.ArgRef.Of("DEL"), Persistence.ArgRef.Of(1));
                if (s.Storage.Delete(s.Arg(1))) s.Notify(PubSub.NotifyClass.Generic, "del"u8, s.Arg(1));
                s.Writer.WriteOk();
                return;
            }
        }
        if (ttl > 0 && !absolute)
        {
            // The AOF gets the absolute expiry (ABSTTL), so a replay later means the same moment.
            var args = new List<Persistence.ArgRef> { Persistence.ArgRef.Of("RESTORE"), Persistence.ArgRef.Of(1), Persistence.ArgRef.Of(at.ToString()), Persistence.ArgRef.Of(3), Persistence.ArgRef.Of("ABSTTL") };
            for (int i = 4; i < s.Argc; i++) args.Add(Persistence.ArgRef.Of(i));
            s.PropagateAs([.. args]);
        }
        if (replace && s.NotifyOn(PubSub.NotifyClass.New)) s.Storage.Delete(s.Arg(1)); // as Redis: deleted, then added ("new")
        s.Storage.UpsertFetched(s.Arg(1), value, at);
        s.Notify(PubSub.NotifyClass.Generic, "restore"u8, s.Arg(1));
        if (idle)
        {
            var setIdle = new StringInput { Op = StringOp.SetAccessTime, Number = Math.Max(0, Garnet.storage.Log.AccessClock.NowSeconds - Math.Min(idleSeconds, uint.MaxValue)) };
            s.Storage.Rmw(s.Arg(1), ref setIdle);
        }
        s.Writer.WriteOk();
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>DUMP, RESTORE.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        return
        [
            new()
            {
                Name = "dump", Arity = 2, Flags = ReadOnly, Acl = A.Keyspace, Keys = k1,
                Group = "generic", Since = "2.6.0", Summary = "Returns a serialized representation of the value stored at a key.",
                Tips = ["nondeterministic_output"],
                Handler = Dump,
            },
            new()
            {
                Name = "restore", Arity = -4, Flags = Write | DenyOom, Acl = A.Keyspace | A.Dangerous, Keys = k1,
                Group = "generic", Since = "2.6.0", Summary = "Creates a key from the serialized representation of a value.",
                LocksKeysExclusively = true, Handler = Restore,
            },
        ];
    }
}
