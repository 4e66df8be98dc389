// BitFieldCommands: BITFIELD and BITFIELD_RO. The subcommands are parsed first (all errors before any change), then
// run as one engine operation on the key: a read when there are only GETs, else one RMW (atomic per key).
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class BitFieldCommands
{
    private const string BadType = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";
    private const string BadOffset = "ERR bit offset is not an integer or out of range";

    public static void BitField(CommandContext s) => Run(s, readOnly: false);
    public static void BitFieldRo(CommandContext s) => Run(s, readOnly: true);

    private static void Run(CommandContext s, bool readOnly)
    {
        var ops = new List<BitFieldCommand>();
        var overflow = BitFieldOverflow.Wrap;
        for (int i = 2; i < s.Argc; i++)
        {
            var a = s.Arg(i);
            bool get = StringCommands.Ascii(a, "GET"), set = StringCommands.Ascii(a, "SET"), incr = StringCommands.Ascii(a, "INCRBY");
            if (get && i + 2 < s.Argc || (set || incr) && i + 3 < s.Argc)
            {
                if (readOnly && !get) { s.WriteError("ERR BITFIELD_RO only supports the GET subcommand"); return; }
                if (!TryType(s.Arg(i + 1), out bool signed, out int bits)) { s.WriteError(BadType); return; }
                if (!TryOffset(s.Arg(i + 2), bits, get, out long offset)) { s.WriteError(BadOffset); return; }
                long value = 0;
                if (!get && !NumberParsing.TryParseInt64(s.Arg(i + 3), out value)) { s.WriteError(StringFunctions.NotInteger); return; }
                ops.Add(new BitFieldCommand(get ? BitFieldOp.Get : set ? BitFieldOp.Set : BitFieldOp.IncrBy, signed, bits, offset, value, overflow));
                i += get ? 2 : 3;
            }
            else if (StringCommands.Ascii(a, "OVERFLOW") && i + 1 < s.Argc && !readOnly)
            {
                var t = s.Arg(++i);
                if (StringCommands.Ascii(t, "WRAP")) overflow = BitFieldOverflow.Wrap;
                else if (StringCommands.Ascii(t, "SAT")) overflow = BitFieldOverflow.Sat;
                else if (StringCommands.Ascii(t, "FAIL")) overflow = BitFieldOverflow.Fail;
                else { s.WriteError("ERR Invalid OVERFLOW type specified"); return; }
            }
            else { s.WriteError(readOnly && (StringCommands.Ascii(a, "SET") || StringCommands.Ascii(a, "INCRBY") || StringCommands.Ascii(a, "OVERFLOW")) ? "ERR BITFIELD_RO only supports the GET subcommand" : "ERR syntax error"); return; }
        }
        var array = ops.ToArray();
        bool writes = array.Any(o => o.Op != BitFieldOp.Get);
        var input = new StringInput { Op = StringOp.BitField, Extra = array };
        var st = writes ? s.Storage.Rmw(s.Arg(1), ref input) : s.Storage.Read(s.Arg(1), ref input);
        if (!writes) s.CountKeyLookup(st.IsFound(), s.Arg(1)); // only GETs: Redis reads the key as a read (lookupKeyRead)
        if (s.Storage.Result.Error is { } e) { s.WriteError(e); return; }
        // A missing key reads as zeros.
        var replies = s.Storage.Result.Replies ?? Storage.BitField.Apply(Array.Empty<byte>(), array, write: false);
        // As Redis: "setbit" when at least one SET or INCRBY was carried out (not stopped by OVERFLOW FAIL).
        if (writes)
            for (int i = 0; i < array.Length && i < replies.Length; i++)
                if (array[i].Op != BitFieldOp.Get && replies[i] is not null) { s.Notify(PubSub.NotifyClass.String, "setbit"u8, s.Arg(1)); break; }
        s.Writer.WriteArrayHeader(replies.Length);
        foreach (var r in replies)
            if (r is { } n) s.Writer.WriteInteger(n);
            else s.Writer.WriteNull();
    }

    private static bool TryType(ReadOnlySpan<byte> t, out bool signed, out int bits)
    {
        signed = false;
        bits = 0;
        if (t.Length < 2 || (t[0] != 'i' && t[0] != 'I' && t[0] != 'u' && t[0] != 'U')) return false;
        signed = t[0] is (byte)'i' or (byte)'I';
        if (!NumberParsing.TryParseInt64(t[1..], out long n)) return false;
        bits = (int)Math.Clamp(n, 0, 100);
        return n >= 1 && (signed ? n <= 64 : n <= 63);
    }

    private static bool TryOffset(ReadOnlySpan<byte> o, int bits, bool get, out long offset)
    {
        bool multiply = o.Length > 0 && o[0] == '#';
        if (!NumberParsing.TryParseInt64(multiply ? o[1..] : o, out offset)) return false;
        if (multiply) offset = unchecked(offset * bits); // wraps as Redis's long long multiply does
        // Redis's test (offset >> 3 within proto-max-bulk-len), and for a write ours that the field ends inside 512 MB (a GET
        // past the end reads zeros), both without overflow: an offset near long.MaxValue is refused, never indexed.
        const long maxBits = 512L * 1024 * 1024 * 8;
        return offset >= 0 && (offset >> 3) < maxBits / 8 && (get || offset <= maxBits - bits);
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>BITFIELD, BITFIELD_RO.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        return
        [
            new()
            {
                Name = "bitfield", Arity = -2, Flags = Write | DenyOom, Acl = A.Bitmap, Keys = k1,
                Group = "bitmap", Since = "3.2.0", Summary = "Performs arbitrary bitfield integer operations on strings.",
                Handler = BitField,
            },
            new()
            {
                Name = "bitfield_ro", Arity = -2, Flags = ReadOnly | Fast, Acl = A.Bitmap, Keys = k1,
                Group = "bitmap", Since = "6.0.0", Summary = "Performs arbitrary read-only bitfield integer operations on strings.",
                Handler = BitFieldRo,
            },
        ];
    }
}
