// BitmapCommands: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP (Redis 7.2 semantics and error texts).
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class BitmapCommands
{
    private const string BadOffset = "ERR bit offset is not an integer or out of range";
    private const long MaxBitOffset = (512L * 1024 * 1024 * 8) - 1;

    private static bool Error(CommandContext s)
    {
        if (s.Storage.Result.Error is not { } e) return false;
        s.WriteError(e);
        return true;
    }

    public static void SetBit(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long offset) || offset < 0 || offset > MaxBitOffset) { s.WriteError(BadOffset); return; }
        var v = s.Arg(3);
        if (v.Length != 1 || (v[0] != '0' && v[0] != '1')) { s.WriteError("ERR bit is not an integer or out of range"); return; }
        var input = new StringInput { Op = StringOp.SetBit, Number = offset, Flags = (byte)(v[0] - '0') };
        s.Storage.Rmw(s.Arg(1), ref input);
        if (Error(s)) return;
        s.Notify(PubSub.NotifyClass.String, "setbit"u8, s.Arg(1));
        s.Writer.WriteInteger(s.Storage.Result.Number);
    }

    public static void GetBit(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long offset) || offset < 0 || offset > MaxBitOffset) { s.WriteError(BadOffset); return; }
        var input = new StringInput { Op = StringOp.GetBit, Number = offset };
        var st = s.Storage.Read(s.Arg(1), ref input);
        s.CountKeyLookup(st.IsFound(), s.Arg(1));
        if (Error(s)) return;
        s.Writer.WriteInteger(st.IsFound() ? s.Storage.Result.Number : 0);
    }

    /// <summary>Parses [start end [BYTE|BIT]] from argument first on; false after writing the error.</summary>
    private static bool Range(CommandContext s, int first, bool endOptional, ref StringInput input)
    {
        var flags = (BitFlags)input.Flags;
        int n = s.Argc - first;
        if (n == 0) return true;
        if (n > 3 || (!endOptional && n == 1)) { s.WriteError("ERR syntax error"); return false; }
        if (!NumberParsing.TryParseInt64(s.Arg(first), out input.Number)) { s.WriteError("ERR value is not an integer or out of range"); return false; }
        flags |= BitFlags.HasStart;
        if (n >= 2)
        {
            if (!NumberParsing.TryParseInt64(s.Arg(first + 1), out input.Number2)) { s.WriteError("ERR value is not an integer or out of range"); return false; }
            flags |= BitFlags.HasEnd;
        }
        if (n == 3)
        {
            if (StringCommands.Ascii(s.Arg(first + 2), "BIT")) flags |= BitFlags.BitMode;
            else if (!StringCommands.Ascii(s.Arg(first + 2), "BYTE")) { s.WriteError("ERR syntax error"); return false; }
        }
        input.Flags = (byte)flags;
        return true;
    }

    public static void BitCount(CommandContext s)
    {
        var input = new StringInput { Op = StringOp.BitCount };
        if (!Range(s, 2, endOptional: false, ref input)) return;
        var st = s.Storage.Read(s.Arg(1), ref input);
        s.CountKeyLookup(st.IsFound(), s.Arg(1));
        if (Error(s)) return;
        s.Writer.WriteInteger(st.IsFound() ? s.Storage.Result.Number : 0);
    }

    public static void BitPos(CommandContext s)
    {
        var b = s.Arg(2);
        if (b.Length != 1 || (b[0] != '0' && b[0] != '1')) { s.WriteError("ERR The bit argument must be 1 or 0."); return; }
        var input = new StringInput { Op = StringOp.BitPos, Flags = (byte)(b[0] == '1' ? BitFlags.Bit : 0) };
        if (!Range(s, 3, endOptional: true, ref input)) return;
        var st = s.Storage.Read(s.Arg(1), ref input);
        s.CountKeyLookup(st.IsFound(), s.Arg(1));
        if (Error(s)) return;
        // A missing key is an empty string: no 1 anywhere, and the first 0 is at position 0.
        s.Writer.WriteInteger(st.IsFound() ? s.Storage.Result.Number : (b[0] == '1' ? -1 : 0));
    }

    public static void BitOp(CommandContext s)
    {
        var op = s.ArgString(1).ToUpperInvariant();
        if (op is not ("AND" or "OR" or "XOR" or "NOT")) { s.WriteError("ERR syntax error"); return; }
        if (op == "NOT" && s.Argc != 4) { s.WriteError("ERR BITOP NOT must be called with a single source key."); return; }
        var sources = new List<byte[]>();
        for (int i = 3; i < s.Argc; i++)
        {
            var input = new StringInput { Op = StringOp.Copy };
            var st = s.Storage.Read(s.Arg(i), ref input);
            s.CountKeyLookup(st.IsFound(), s.Arg(i));
            if (Error(s)) return;
            sources.Add(st.IsFound() ? s.Storage.Result.Old ?? [] : []);
        }
        int length = sources.Max(x => x.Length);
        var result = new byte[length];
        if (op == "NOT") for (int i = 0; i < length; i++) result[i] = (byte)~sources[0][i];
        else
        {
            sources[0].CopyTo(result, 0);
            foreach (var src in sources.Skip(1))
                for (int i = 0; i < length; i++)
                {
                    byte x = i < src.Length ? src[i] : (byte)0;
                    result[i] = op switch { "AND" => (byte)(result[i] & x), "OR" => (byte)(result[i] | x), _ => (byte)(result[i] ^ x) };
                }
        }
        if (length == 0) { if (s.Storage.Delete(s.Arg(2))) s.Notify(PubSub.NotifyClass.Generic, "del"u8, s.Arg(2)); }
        else
        {
            s.Storage.Upsert(s.Arg(2), result);
            s.Notify(PubSub.NotifyClass.String, "set"u8, s.Arg(2));
        }
        s.Writer.WriteInteger(length);
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        return
        [
            new()
            {
                Name = "setbit", Arity = 4, Flags = Write | DenyOom, Acl = A.Bitmap, Keys = k1,
                Group = "bitmap", Since = "2.2.0",
                Summary = "Sets or clears the bit at offset of the string value. Creates the key if it doesn't exist.",
                Handler = SetBit,
            },
            new()
            {
                Name = "getbit", Arity = 3, Flags = ReadOnly | Fast, Acl = A.Bitmap, Keys = k1,
                Group = "bitmap", Since = "2.2.0", Summary = "Returns a bit value by offset.",
                Handler = GetBit,
            },
            new()
            {
                Name = "bitcount", Arity = -2, Flags = ReadOnly, Acl = A.Bitmap, Keys = k1,
                Group = "bitmap", Since = "2.6.0", Summary = "Counts the number of set bits (population counting) in a string.",
                Handler = BitCount,
            },
            new()
            {
                Name = "bitpos", Arity = -3, Flags = ReadOnly, Acl = A.Bitmap, Keys = k1,
                Group = "bitmap", Since = "2.8.7", Summary = "Finds the first set (1) or clear (0) bit in a string.",
                Handler = BitPos,
            },
            new()
            {
                Name = "bitop", Arity = -4, Flags = Write | DenyOom, Acl = A.Bitmap, Keys = new KeyRange(2, -1, 1),
                Group = "bitmap", Since = "2.6.0", Summary = "Performs bitwise operations on multiple strings, and stores the result.",
                Handler = BitOp,
            },
        ];
    }
}
