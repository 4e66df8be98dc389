// HyperLogLogCommands: PFADD, PFCOUNT, PFMERGE on Redis-format HLL strings (see Storage/HyperLogLog.cs).
// PFADD is one engine RMW per key (atomic); PFCOUNT computes from the registers on every call (it does not write the
// cached cardinality back, so it stays a read); PFMERGE reads the sources and writes the destination (not atomic
// against concurrent writers of the destination).
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class HyperLogLogCommands
{
    public static void PfAdd(CommandContext s)
    {
        var elements = new byte[s.Argc - 2][];
        for (int i = 2; i < s.Argc; i++) elements[i - 2] = s.Arg(i).ToArray();
        var input = new StringInput { Op = StringOp.PfAdd, Extra = elements };
        s.Storage.Rmw(s.Arg(1), ref input);
        if (s.Storage.Result.Error is { } e) { s.WriteError(e); return; }
        if (s.Storage.Result.Number != 0) s.Notify(PubSub.NotifyClass.String, "pfadd"u8, s.Arg(1));
        s.Writer.WriteInteger(s.Storage.Result.Number);
    }

    /// <summary>Registers of key (null when missing); false after writing the error for a non-HLL value.</summary>
    private static bool TryLoad(CommandContext s, ReadOnlySpan<byte> key, out byte[]? registers, out bool sparse) =>
        TryLoad(s, key, out registers, out sparse, out _);

    private static bool TryLoad(CommandContext s, ReadOnlySpan<byte> key, out byte[]? registers, out bool sparse, out long expiration)
    {
        registers = null;
        sparse = true;
        expiration = 0;
        var input = new StringInput { Op = StringOp.Copy };
        var st = s.Storage.Read(key, ref input);
        s.CountKeyLookup(st.IsFound(), key); // PFCOUNT and PFMERGE read every key as a read (lookupKeyRead)
        if (s.Storage.Result.Error is not null) { s.WriteError(HyperLogLog.NotHll); return false; }
        if (!st.IsFound()) return true;
        expiration = s.Storage.Result.Number;
        var v = s.Storage.Result.Old!;
        if (!HyperLogLog.IsValid(v)) { s.WriteError(HyperLogLog.NotHll); return false; }
        registers = new byte[HyperLogLog.Registers];
        if (!HyperLogLog.TryRegisters(v, registers)) { s.WriteError(HyperLogLog.Corrupt); return false; }
        sparse = v[4] == 1;
        return true;
    }

    private static void MergeInto(byte[] into, byte[] from)
    {
        for (int i = 0; i < into.Length; i++) if (from[i] > into[i]) into[i] = from[i];
    }

    public static void PfCount(CommandContext s)
    {
        var max = new byte[HyperLogLog.Registers];
        for (int i = 1; i < s.Argc; i++)
        {
            if (!TryLoad(s, s.Arg(i), out var regs, out _)) return;
            if (regs is not null) MergeInto(max, regs);
        }
        s.Writer.WriteInteger(HyperLogLog.Count(max));
    }

    public static void PfMerge(CommandContext s)
    {
        var max = new byte[HyperLogLog.Registers];
        bool allSparse = true;
        long destinationExpiration = 0;
        for (int i = 1; i < s.Argc; i++) // the destination (argument 1) counts as a source when it exists
        {
            if (!TryLoad(s, s.Arg(i), out var regs, out bool sparse, out long expiration)) return;
            if (i == 1) destinationExpiration = expiration; // Redis changes the destination in place: its TTL stays
            if (regs is null) continue;
            allSparse &= sparse;
            MergeInto(max, regs);
        }
        s.Storage.Upsert(s.Arg(1), HyperLogLog.Encode(max, allSparse), destinationExpiration);
        s.Notify(PubSub.NotifyClass.String, "pfadd"u8, s.Arg(1));
        s.Writer.WriteOk();
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>PFADD, PFCOUNT, PFMERGE.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        return
        [
            new()
            {
                Name = "pfadd", Arity = -2, Flags = Write | DenyOom | Fast, Acl = A.HyperLogLog, Keys = k1,
                Group = "hyperloglog", Since = "2.8.9", Summary = "Adds elements to a HyperLogLog key. Creates the key if it doesn't exist.",
                Handler = PfAdd,
            },
            new()
            {
                Name = "pfcount", Arity = -2, Flags = ReadOnly | MayReplicate, Acl = A.HyperLogLog, Keys = new KeyRange(1, -1, 1),
                Group = "hyperloglog", Since = "2.8.9",
                Summary = "Returns the approximated cardinality of the set(s) observed by the HyperLogLog key(s).",
                Handler = PfCount,
            },
            new()
            {
                Name = "pfmerge", Arity = -2, Flags = Write | DenyOom, Acl = A.HyperLogLog, Keys = new KeyRange(1, -1, 1),
                Group = "hyperloglog", Since = "2.8.9", Summary = "Merges one or more HyperLogLog values into a single key.",
                LocksKeysExclusively = true, Handler = PfMerge,
            },
        ];
    }
}
