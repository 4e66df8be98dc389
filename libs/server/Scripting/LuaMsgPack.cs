// LuaMsgPack: cmsgpack.pack(...) / cmsgpack.unpack(s) as Redis's lua-cmsgpack: pack encodes each argument and
// concatenates; tables with keys 1..n are arrays, others maps; integers use the smallest int/uint form, other numbers
// float64 (float32 when exact, as lua-cmsgpack); unpack returns every value the string holds.
// Invariants: nesting is capped (MaxDepth) both ways; a truncated or unknown input is an error result.
using System.Buffers.Binary;
using KeraLua;

namespace Garnet.server.Scripting;

internal static class LuaMsgPack
{
    private const int MaxDepth = 1000;

    public static int Pack(Lua l)
    {
        int n = l.GetTop();
        if (n == 0) return LuaCallbacks.Fail(l, "MessagePack pack needs input.");
        var buf = new List<byte>();
        for (int i = 1; i <= n; i++) Encode(l, i, buf, 0);
        l.PushBoolean(true);
        LuaNative.Push(l.Handle, buf.ToArray());
        return 2;
    }

    private static void Encode(Lua l, int index, List<byte> o, int depth)
    {
        index = l.AbsIndex(index);
        switch (l.Type(index))
        {
            case LuaType.Boolean: o.Add(l.ToBoolean(index) ? (byte)0xc3 : (byte)0xc2); return;
            case LuaType.Number:
                if (l.IsInteger(index)) { EncodeInt(l.ToInteger(index), o); return; }
                double d = l.ToNumber(index);
                if (Math.Floor(d) == d && Math.Abs(d) < 9.2e18) { EncodeInt((long)d, o); return; }
                if ((double)(float)d == d) { o.Add(0xca); Be(o, BitConverter.SingleToInt32Bits((float)d), 4); }
                else { o.Add(0xcb); Be(o, BitConverter.DoubleToInt64Bits(d), 8); }
                return;
            case LuaType.String:
            {
                var s = LuaNative.ToSpan(l.Handle, index);
                int len = s.Length;
                if (len < 32) o.Add((byte)(0xa0 | len));
                else if (len <= 0xff) { o.Add(0xd9); o.Add((byte)len); }
                else if (len <= 0xffff) { o.Add(0xda); Be(o, len, 2); }
                else { o.Add(0xdb); Be(o, len, 4); }
                foreach (byte b in s) o.Add(b);
                return;
            }
            case LuaType.Table:
            {
                if (depth >= MaxDepth) { o.Add(0xc0); return; }
                l.CheckStack(6);
                long max = 0;
                int count = 0;
                bool array = true;
                l.PushNil();
                while (l.Next(index))
                {
                    count++;
                    if (array && l.Type(-2) == LuaType.Number && l.IsInteger(-2) && l.ToInteger(-2) >= 1) max = Math.Max(max, l.ToInteger(-2));
                    else array = false;
                    l.Pop(1);
                }
                if (array && max == count)
                {
                    Header(o, count, 0x90, 0xdc);
                    for (int i = 1; i <= count; i++) { l.RawGetInteger(index, i); Encode(l, -1, o, depth + 1); l.Pop(1); }
                    return;
                }
                Header(o, count, 0x80, 0xde);
                l.PushNil();
                while (l.Next(index))
                {
                    Encode(l, -2, o, depth + 1);
                    Encode(l, -1, o, depth + 1);
                    l.Pop(1);
                }
                return;
            }
            default: o.Add(0xc0); return;
        }
    }

    private static void Header(List<byte> o, int count, byte fix, byte wide)
    {
        if (count < 16) o.Add((byte)(fix | count));
        else if (count <= 0xffff) { o.Add(wide); Be(o, count, 2); }
        else { o.Add((byte)(wide + 1)); Be(o, count, 4); }
    }

    private static void EncodeInt(long v, List<byte> o)
    {
        if (v >= 0)
        {
            if (v < 128) o.Add((byte)v);
            else if (v <= 0xff) { o.Add(0xcc); o.Add((byte)v); }
            else if (v <= 0xffff) { o.Add(0xcd); Be(o, v, 2); }
            else if (v <= 0xffffffffL) { o.Add(0xce); Be(o, v, 4); }
            else { o.Add(0xcf); Be(o, v, 8); }
        }
        else
        {
            if (v >= -32) o.Add((byte)(sbyte)v);
            else if (v >= sbyte.MinValue) { o.Add(0xd0); o.Add((byte)(sbyte)v); }
            else if (v >= short.MinValue) { o.Add(0xd1); Be(o, v, 2); }
            else if (v >= int.MinValue) { o.Add(0xd2); Be(o, v, 4); }
            else { o.Add(0xd3); Be(o, v, 8); }
        }
    }

    private static void Be(List<byte> o, long v, int bytes)
    {
        for (int i = bytes - 1; i >= 0; i--) o.Add((byte)(v >> (i * 8)));
    }

    public static int Unpack(Lua l)
    {
        if (l.Type(1) != LuaType.String) return LuaCallbacks.Fail(l, "MessagePack unpack needs a string.");
        var data = LuaNative.ToSpan(l.Handle, 1).ToArray();
        l.PushBoolean(true);
        int pos = 0, n = 0;
        while (pos < data.Length)
        {
            if (!l.CheckStack(2)) throw new LuaArgumentException("too many values to unpack");
            Decode(l, data, ref pos, 0);
            n++;
        }
        return n + 1;
    }

    private static void Need(byte[] d, int pos, int n)
    {
        if (pos + n > d.Length) throw new LuaArgumentException("Missing bytes in input.");
    }

    private static void Decode(Lua l, byte[] d, ref int pos, int depth)
    {
        if (depth > MaxDepth) throw new LuaArgumentException("Too deep nesting in input.");
        l.CheckStack(4);
        Need(d, pos, 1);
        byte b = d[pos++];
        if (b <= 0x7f) { l.PushInteger(b); return; }
        if (b >= 0xe0) { l.PushInteger((sbyte)b); return; }
        if ((b & 0xe0) == 0xa0) { Str(l, d, ref pos, b & 0x1f); return; }
        if ((b & 0xf0) == 0x90) { Arr(l, d, ref pos, b & 0x0f, depth); return; }
        if ((b & 0xf0) == 0x80) { Map(l, d, ref pos, b & 0x0f, depth); return; }
        switch (b)
        {
            case 0xc0: l.PushNil(); return;
            case 0xc2: l.PushBoolean(false); return;
            case 0xc3: l.PushBoolean(true); return;
            case 0xcc: Need(d, pos, 1); l.PushInteger(d[pos]); pos += 1; return;
            case 0xcd: Need(d, pos, 2); l.PushInteger(BinaryPrimitives.ReadUInt16BigEndian(d.AsSpan(pos))); pos += 2; return;
            case 0xce: Need(d, pos, 4); l.PushInteger(BinaryPrimitives.ReadUInt32BigEndian(d.AsSpan(pos))); pos += 4; return;
            case 0xcf: Need(d, pos, 8); l.PushInteger((long)BinaryPrimitives.ReadUInt64BigEndian(d.AsSpan(pos))); pos += 8; return;
            case 0xd0: Need(d, pos, 1); l.PushInteger((sbyte)d[pos]); pos += 1; return;
            case 0xd1: Need(d, pos, 2); l.PushInteger(BinaryPrimitives.ReadInt16BigEndian(d.AsSpan(pos))); pos += 2; return;
            case 0xd2: Need(d, pos, 4); l.PushInteger(BinaryPrimitives.ReadInt32BigEndian(d.AsSpan(pos))); pos += 4; return;
            case 0xd3: Need(d, pos, 8); l.PushInteger(BinaryPrimitives.ReadInt64BigEndian(d.AsSpan(pos))); pos += 8; return;
            case 0xca: Need(d, pos, 4); l.PushNumber(BinaryPrimitives.ReadSingleBigEndian(d.AsSpan(pos))); pos += 4; return;
            case 0xcb: Need(d, pos, 8); l.PushNumber(BinaryPrimitives.ReadDoubleBigEndian(d.AsSpan(pos))); pos += 8; return;
            case 0xd9: case 0xc4: Need(d, pos, 1); { int n = d[pos]; pos += 1; Str(l, d, ref pos, n); } return;
            case 0xda: case 0xc5: Need(d, pos, 2); { int n = BinaryPrimitives.ReadUInt16BigEndian(d.AsSpan(pos)); pos += 2; Str(l, d, ref pos, n); } return;
            case 0xdb: case 0xc6: Need(d, pos, 4); { long n = BinaryPrimitives.ReadUInt32BigEndian(d.AsSpan(pos)); pos += 4; Str(l, d, ref pos, (int)Math.Min(n, int.MaxValue)); } return;
            case 0xdc: Need(d, pos, 2); { int n = BinaryPrimitives.ReadUInt16BigEndian(d.AsSpan(pos)); pos += 2; Arr(l, d, ref pos, n, depth); } return;
            case 0xdd: Need(d, pos, 4); { long n = BinaryPrimitives.ReadUInt32BigEndian(d.AsSpan(pos)); pos += 4; Arr(l, d, ref pos, (int)Math.Min(n, int.MaxValue), depth); } return;
            case 0xde: Need(d, pos, 2); { int n = BinaryPrimitives.ReadUInt16BigEndian(d.AsSpan(pos)); pos += 2; Map(l, d, ref pos, n, depth); } return;
            case 0xdf: Need(d, pos, 4); { long n = BinaryPrimitives.ReadUInt32BigEndian(d.AsSpan(pos)); pos += 4; Map(l, d, ref pos, (int)Math.Min(n, int.MaxValue), depth); } return;
            default: throw new LuaArgumentException("Bad data format in input.");
        }
    }

    private static void Str(Lua l, byte[] d, ref int pos, int n)
    {
        Need(d, pos, n);
        LuaNative.Push(l.Handle, d.AsSpan(pos, n));
        pos += n;
    }

    private static void Arr(Lua l, byte[] d, ref int pos, int n, int depth)
    {
        if (n > d.Length - pos) throw new LuaArgumentException("Missing bytes in input.");
        l.CreateTable(n, 0);
        for (int i = 1; i <= n; i++) { Decode(l, d, ref pos, depth + 1); l.RawSetInteger(-2, i); }
    }

    private static void Map(Lua l, byte[] d, ref int pos, int n, int depth)
    {
        if (n > d.Length - pos) throw new LuaArgumentException("Missing bytes in input.");
        l.CreateTable(0, n);
        for (int i = 0; i < n; i++)
        {
            Decode(l, d, ref pos, depth + 1);
            Decode(l, d, ref pos, depth + 1);
            if (l.Type(-2) == LuaType.Nil) l.Pop(2);
            else l.RawSet(-3);
        }
    }
}
