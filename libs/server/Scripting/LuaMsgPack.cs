// LuaMsgPack: cmsgpack.pack(...) / cmsgpack.unpack(s) as Redis's lua-cmsgpack, with its error texts.
// pack encodes each argument and concatenates; tables whose keys are exactly 1..n are arrays, others maps; a table
// nested 16 deep is encoded as nil (lua-cmsgpack's LUACMSGPACK_MAX_NESTING, which is what makes a cyclic table safe);
// integers use the smallest int/uint form, other numbers float32 when exact, else float64. unpack returns every value
// the string holds ("Missing bytes in input.", "Bad data format in input." as lua-cmsgpack; bin and ext types are
// not part of lua-cmsgpack and are bad data there too); unpack_one and unpack_limit decode from an offset and return
// the next one first (-1 at the end), with lua-cmsgpack's argument checks and texts.
// Invariants:
//  - unpack reads the Lua string in place (no copy); a header's count is checked against what the rest of the input
//    could hold (one byte per element, two per map entry) before anything is built, and a table is pre-sized at most
//    to that and to a small cap, never to the claimed count; every value pushed counts against the script's memory
//    budget (ScriptMemoryBudget), checked as it goes.
//  - Nesting on unpack is capped at MaxUnpackDepth ("stack overflow (in function mp_decode_to_lua_array)", as a deep
//    input ends in Redis) and by the thread's stack; pack output is built by CodecOutput within the budget.
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using KeraLua;

namespace Garnet.server.Scripting;

internal static unsafe class LuaMsgPack
{
    public const int MaxPackNesting = 16;
    public const int MaxUnpackDepth = 1000;
    private const int MaxPresize = 1024;

    public static int Pack(Lua l)
    {
        int n = l.GetTop();
        if (n == 0) return LuaCallbacks.Fail(l, "bad argument #0 to 'pack' (MessagePack pack needs input.)");
        return CodecErrors.Run(l, "Bad data format in input.", () =>
        {
            l.PushBoolean(true);
            CodecOutput.Produce(l, ScriptMemoryBudget.ForCallback(), o =>
            {
                for (int i = 1; i <= n; i++) Encode(l, i, o, 0);
            });
            return 2;
        });
    }

    private static void Encode(Lua l, int index, CodecOutput o, int level)
    {
        o.Budget.Poll();
        var t = l.Type(index);
        if (t == LuaType.Table && level == MaxPackNesting) t = LuaType.Nil;
        switch (t)
        {
            case LuaType.Boolean: o.Byte(l.ToBoolean(index) ? (byte)0xc3 : (byte)0xc2); return;
            case LuaType.Number:
                if (l.IsInteger(index)) { EncodeInt(l.ToInteger(index), o); return; }
                double d = l.ToNumber(index);
                if (Math.Floor(d) == d && Math.Abs(d) < 9.2e18) { EncodeInt((long)d, o); return; }
                if ((double)(float)d == d) { o.Byte(0xca); Be(o, BitConverter.SingleToInt32Bits((float)d), 4); }
                else { o.Byte(0xcb); Be(o, BitConverter.DoubleToInt64Bits(d), 8); }
                return;
            case LuaType.String:
            {
                var s = LuaNative.ToSpan(l.Handle, index);
                long len = s.Length;
                if (len < 32) o.Byte((byte)(0xa0 | len));
                else if (len <= 0xff) { o.Byte(0xd9); o.Byte((byte)len); }
                else if (len <= 0xffff) { o.Byte(0xda); Be(o, len, 2); }
                else { o.Byte(0xdb); Be(o, len, 4); }
                o.Bytes(s);
                return;
            }
            case LuaType.Table:
                if (!l.CheckStack(6) || !RuntimeHelpers.TryEnsureSufficientExecutionStack()) throw new LuaArgumentException("stack overflow (in function mp_encode_lua_table_as_map)");
                EncodeTable(l, index, o, level);
                return;
            default: o.Byte(0xc0); return;
        }
    }

    private static void EncodeTable(Lua l, int index, CodecOutput o, int level)
    {
        long max = 0, count = 0;
        bool array = true;
        l.PushNil();
        while (l.Next(index))
        {
            l.Pop(1);
            count++;
            if (array && l.IsInteger(-1) && l.ToInteger(-1) > 0) max = Math.Max(max, l.ToInteger(-1));
            else array = false;
        }
        if (array && max == count)
        {
            Header(o, count, 0x90, 0xdc);
            for (long i = 1; i <= count; i++)
            {
                l.RawGetInteger(index, i);
                Encode(l, l.GetTop(), o, level + 1);
                l.Pop(1);
            }
            return;
        }
        Header(o, count, 0x80, 0xde);
        l.PushNil();
        while (l.Next(index))
        {
            int top = l.GetTop();
            Encode(l, top - 1, o, level + 1);
            Encode(l, top, o, level + 1);
            l.Pop(1);
        }
    }

    private static void Header(CodecOutput o, long count, byte fix, byte wide)
    {
        if (count < 16) o.Byte((byte)(fix | count));
        else if (count <= 0xffff) { o.Byte(wide); Be(o, count, 2); }
        else { o.Byte((byte)(wide + 1)); Be(o, count, 4); }
    }

    private static void EncodeInt(long v, CodecOutput o)
    {
        if (v >= 0)
        {
            if (v < 128) o.Byte((byte)v);
            else if (v <= 0xff) { o.Byte(0xcc); o.Byte((byte)v); }
            else if (v <= 0xffff) { o.Byte(0xcd); Be(o, v, 2); }
            else if (v <= 0xffffffffL) { o.Byte(0xce); Be(o, v, 4); }
            else { o.Byte(0xcf); Be(o, v, 8); }
        }
        else
        {
            if (v >= -32) o.Byte((byte)(sbyte)v);
            else if (v >= sbyte.MinValue) { o.Byte(0xd0); o.Byte((byte)(sbyte)v); }
            else if (v >= short.MinValue) { o.Byte(0xd1); Be(o, v, 2); }
            else if (v >= int.MinValue) { o.Byte(0xd2); Be(o, v, 4); }
            else { o.Byte(0xd3); Be(o, v, 8); }
        }
    }

    private static void Be(CodecOutput o, long v, int bytes)
    {
        Span<byte> b = stackalloc byte[8];
        BinaryPrimitives.WriteInt64BigEndian(b, v);
        o.Bytes(b[(8 - bytes)..]);
    }

    // ---------------------------------------------------------------- unpack

    /// <summary>cmsgpack.unpack(s): every value s holds.</summary>
    public static int Unpack(Lua l) => UnpackFull(l, "unpack", 0, 0);

    /// <summary>cmsgpack.unpack_one(s [, offset]): the offset after one value (-1 at the end), then that value.</summary>
    public static int UnpackOne(Lua l)
    {
        if (!IntegerArgument(l, 2, "unpack_one", optional: true, out long offset, out string? error)) return LuaCallbacks.Fail(l, error!);
        return UnpackFull(l, "unpack_one", 1, offset);
    }

    /// <summary>cmsgpack.unpack_limit(s, limit [, offset]): the offset after at most limit values (-1 at the end), then
    /// those values; limit and offset both 0 is unpack (no offset returned).</summary>
    public static int UnpackLimit(Lua l)
    {
        if (!IntegerArgument(l, 2, "unpack_limit", optional: false, out long limit, out string? error) ||
            !IntegerArgument(l, 3, "unpack_limit", optional: true, out long offset, out error))
            return LuaCallbacks.Fail(l, error!);
        return UnpackFull(l, "unpack_limit", limit, offset);
    }

    /// <summary>lua-cmsgpack's mp_unpack_full: decodes up to limit values from offset (all of them, and no offset
    /// returned, when both are 0). Its texts, including its quirk of naming the input's length as the limit.</summary>
    private static int UnpackFull(Lua l, string name, long limit, long offset)
    {
        var t = l.Type(1);
        if (t != LuaType.String && t != LuaType.Number)
            return LuaCallbacks.Fail(l, $"bad argument #1 to '{name}' (string expected, got {TypeName(l, t)})");
        bool all = limit == 0 && offset == 0;
        int length = LuaNative.ToSpan(l.Handle, 1).Length;
        if (offset < 0 || limit < 0)
            return LuaCallbacks.Fail(l, $"Invalid request to unpack with offset of {(int)offset} and limit of {length}.");
        if (offset > length) return LuaCallbacks.Fail(l, $"Start offset {(int)offset} greater than input length {length}.");
        return CodecErrors.Run(l, "Bad data format in input.", () =>
        {
            var input = LuaNative.ToSpan(l.Handle, 1)[(int)offset..];
            fixed (byte* p = input)
            {
                var r = new Reader(l, p, input.Length, ScriptMemoryBudget.ForCallback());
                l.PushBoolean(true);
                int first = l.GetTop() + 1, n = 0;
                while (r.Pos < r.Length && (all || n < limit))
                {
                    if (!l.CheckStack(3)) throw new LuaArgumentException("stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)");
                    r.Decode(0);
                    n++;
                }
                if (all) return n + 1;
                l.PushInteger(r.Pos == r.Length ? -1 : offset + r.Pos);
                l.Insert(first);
                return n + 2;
            }
        });
    }

    /// <summary>Argument i as lua-cmsgpack reads it under Lua 5.1 (luaL_checkinteger / luaL_optinteger): a number or a
    /// numeric string, truncated toward zero; none or nil gives 0 when optional.</summary>
    private static bool IntegerArgument(Lua l, int i, string name, bool optional, out long value, out string? error)
    {
        value = 0;
        error = null;
        var t = l.Type(i);
        if (optional && t is LuaType.None or LuaType.Nil) return true;
        if (t is LuaType.Number or LuaType.String)
        {
            if (l.IsInteger(i)) { value = l.ToInteger(i); return true; }
            if (l.ToNumberX(i) is { } d)
            {
                // C's cast: x86-64 gives the "integer indefinite" value for NaN and out-of-range doubles
                value = double.IsNaN(d) || d >= 9.2233720368547758e18 || d < -9.2233720368547758e18 ? long.MinValue : (long)d;
                return true;
            }
        }
        error = $"bad argument #{i} to '{name}' (number expected, got {TypeName(l, t)})";
        return false;
    }

    private static string TypeName(Lua l, LuaType t) => t == LuaType.None ? "no value" : l.TypeName(t);

    private sealed class Reader(Lua l, byte* d, int length, ScriptMemoryBudget budget)
    {
        public int Pos;
        public int Length => length;

        private void Need(long n)
        {
            if (n > length - Pos) throw new LuaArgumentException("Missing bytes in input.");
        }

        private ReadOnlySpan<byte> Take(int n)
        {
            Need(n);
            var s = new ReadOnlySpan<byte>(d + Pos, n);
            Pos += n;
            return s;
        }

        public void Decode(int depth)
        {
            Need(1);
            byte b = d[Pos++];
            if (b <= 0x7f) { l.PushInteger(b); return; }
            if (b >= 0xe0) { l.PushInteger((sbyte)b); return; }
            if ((b & 0xe0) == 0xa0) { Str(b & 0x1f); return; }
            if ((b & 0xf0) == 0x90) { Arr(b & 0x0f, depth); return; }
            if ((b & 0xf0) == 0x80) { Map(b & 0x0f, depth); return; }
            switch (b)
            {
                case 0xc0: l.PushNil(); return;
                case 0xc2: l.PushBoolean(false); return;
                case 0xc3: l.PushBoolean(true); return;
                case 0xcc: l.PushInteger(Take(1)[0]); return;
                case 0xcd: l.PushInteger(BinaryPrimitives.ReadUInt16BigEndian(Take(2))); return;
                case 0xce: l.PushInteger(BinaryPrimitives.ReadUInt32BigEndian(Take(4))); return;
                case 0xcf: l.PushInteger((long)BinaryPrimitives.ReadUInt64BigEndian(Take(8))); return;
                case 0xd0: l.PushInteger((sbyte)Take(1)[0]); return;
                case 0xd1: l.PushInteger(BinaryPrimitives.ReadInt16BigEndian(Take(2))); return;
                case 0xd2: l.PushInteger(BinaryPrimitives.ReadInt32BigEndian(Take(4))); return;
                case 0xd3: l.PushInteger(BinaryPrimitives.ReadInt64BigEndian(Take(8))); return;
                case 0xca: l.PushNumber(BinaryPrimitives.ReadSingleBigEndian(Take(4))); return;
                case 0xcb: l.PushNumber(BinaryPrimitives.ReadDoubleBigEndian(Take(8))); return;
                case 0xd9: Str(Take(1)[0]); return;
                case 0xda: Str(BinaryPrimitives.ReadUInt16BigEndian(Take(2))); return;
                case 0xdb: Str(BinaryPrimitives.ReadUInt32BigEndian(Take(4))); return;
                case 0xdc: Arr(BinaryPrimitives.ReadUInt16BigEndian(Take(2)), depth); return;
                case 0xdd: Arr(BinaryPrimitives.ReadUInt32BigEndian(Take(4)), depth); return;
                case 0xde: Map(BinaryPrimitives.ReadUInt16BigEndian(Take(2)), depth); return;
                case 0xdf: Map(BinaryPrimitives.ReadUInt32BigEndian(Take(4)), depth); return;
                default: throw new LuaArgumentException("Bad data format in input.");
            }
        }

        private void Str(long n)
        {
            Need(n);
            budget.Need(n);
            LuaNative.Push(l.Handle, new ReadOnlySpan<byte>(d + Pos, (int)n));
            Pos += (int)n;
            budget.CheckHeap();
        }

        private void Descend(int depth, string function)
        {
            if (depth >= MaxUnpackDepth || !l.CheckStack(4) || !RuntimeHelpers.TryEnsureSufficientExecutionStack())
                throw new LuaArgumentException($"stack overflow (in function {function})");
        }

        private void Arr(long n, int depth)
        {
            Need(n); // each element takes at least one byte
            Descend(depth, "mp_decode_to_lua_array");
            l.CreateTable((int)Math.Min(n, MaxPresize), 0);
            budget.CheckHeap();
            for (long i = 1; i <= n; i++)
            {
                budget.TableGrowth(i - 1, ScriptMemoryBudget.ArraySlotBytes);
                Decode(depth + 1);
                l.RawSetInteger(-2, i);
                budget.CheckHeap();
            }
        }

        private void Map(long n, int depth)
        {
            Need(2 * n); // a key and a value, one byte each at least
            Descend(depth, "mp_decode_to_lua_hash");
            l.CreateTable(0, (int)Math.Min(n, MaxPresize));
            budget.CheckHeap();
            for (long i = 0; i < n; i++)
            {
                budget.TableGrowth(i, ScriptMemoryBudget.HashNodeBytes);
                Decode(depth + 1);
                Decode(depth + 1);
                var kt = l.Type(-2);
                if (kt == LuaType.Nil) throw new LuaArgumentException("table index is nil");
                if (kt == LuaType.Number && double.IsNaN(l.ToNumber(-2))) throw new LuaArgumentException("table index is NaN");
                l.RawSet(-3);
                budget.CheckHeap();
            }
        }
    }
}
