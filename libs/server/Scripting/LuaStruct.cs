// LuaStruct: Redis's struct library (Roberto Ierusalimschy's lstruct): struct.pack(fmt, ...), struct.unpack(fmt, s [, pos])
// (values, then the next position) and struct.size(fmt). Format: '<' little, '>' big, '=' native (little) endian,
// '!n' max alignment, 'x' pad byte, b/B h/H l/L T i/In I/In (signed/unsigned, 1, 2, 8, 8, n bytes; n defaults to 4),
// f d (float, double), s (zero-terminated string), cn (n chars; c0 = whole string on pack, previous number as length on
// unpack), spaces ignored.
// Invariants: integer sizes 1..8 ("integral size %d is larger than limit of 8"); reads past the string fail ("data string
// too short"); errors are (false, message) results.
using System.Buffers.Binary;
using KeraLua;

namespace Garnet.server.Scripting;

internal static class LuaStruct
{
    private sealed class Fmt(string f)
    {
        public readonly string F = f;
        public int Pos;
        public bool Little = true;
        public int MaxAlign = 1;

        public int Number(int dflt)
        {
            if (Pos >= F.Length || !char.IsDigit(F[Pos])) return dflt;
            long n = 0;
            while (Pos < F.Length && char.IsDigit(F[Pos]) && n < int.MaxValue) n = n * 10 + (F[Pos++] - '0');
            return (int)Math.Min(n, int.MaxValue);
        }
    }

    /// <summary>Size of option c (after reading its count), or -1 for options without one (s, c0 handled by callers).</summary>
    private static int OptionSize(Fmt f, char c)
    {
        switch (c)
        {
            case 'B': case 'b': return 1;
            case 'H': case 'h': return 2;
            case 'L': case 'l': case 'T': return 8;
            case 'f': return 4;
            case 'd': return 8;
            case 'x': return 1;
            case 'c': return f.Number(1);
            case 'i': case 'I':
            {
                int n = f.Number(4);
                if (n < 1 || n > 8) throw new LuaArgumentException($"integral size {n} is larger than limit of 8");
                return n;
            }
            default: return 0;
        }
    }

    private static int Align(int offset, int size, Fmt f, char c)
    {
        if (c is 'c' or 's' or 'x' or 'b' or 'B') return 0;
        int align = Math.Min(size, f.MaxAlign);
        if (align <= 1 || (align & (align - 1)) != 0) return 0;
        return (align - (offset & (align - 1))) & (align - 1);
    }

    private static bool Control(Fmt f, char c)
    {
        switch (c)
        {
            case ' ': return true;
            case '>': f.Little = false; return true;
            case '<': case '=': f.Little = true; return true;
            case '!': f.MaxAlign = f.Number(8); return true;
            default: return false;
        }
    }

    public static int Pack(Lua l)
    {
        if (l.Type(1) != LuaType.String) return LuaCallbacks.Fail(l, "bad argument #1 to 'pack' (string expected)");
        var f = new Fmt(l.ToString(1, false));
        var o = new List<byte>();
        int arg = 2;
        while (f.Pos < f.F.Length)
        {
            char c = f.F[f.Pos++];
            if (Control(f, c)) continue;
            int size = OptionSize(f, c);
            int pad = Align(o.Count, size, f, c);
            for (int i = 0; i < pad; i++) o.Add(0);
            switch (c)
            {
                case 'x': o.Add(0); break;
                case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'T': case 'i': case 'I':
                {
                    long v = ArgInteger(l, arg++);
                    Span<byte> b = stackalloc byte[8];
                    if (f.Little) BinaryPrimitives.WriteInt64LittleEndian(b, v); else BinaryPrimitives.WriteInt64BigEndian(b, v);
                    var part = f.Little ? b[..size] : b[(8 - size)..];
                    foreach (byte x in part) o.Add(x);
                    break;
                }
                case 'f': case 'd':
                {
                    double d = ArgNumber(l, arg++);
                    Span<byte> b = stackalloc byte[8];
                    if (c == 'f') { if (f.Little) BinaryPrimitives.WriteSingleLittleEndian(b, (float)d); else BinaryPrimitives.WriteSingleBigEndian(b, (float)d); }
                    else if (f.Little) BinaryPrimitives.WriteDoubleLittleEndian(b, d); else BinaryPrimitives.WriteDoubleBigEndian(b, d);
                    foreach (byte x in b[..size]) o.Add(x);
                    break;
                }
                case 'c': case 's':
                {
                    if (l.Type(arg) != LuaType.String && l.Type(arg) != LuaType.Number) throw new LuaArgumentException($"bad argument #{arg} to 'pack' (string expected)");
                    var s = LuaNative.ToSpan(l.Handle, arg++);
                    if (c == 'c')
                    {
                        int n = size == 0 ? s.Length : size;
                        if (s.Length < n) throw new LuaArgumentException($"bad argument #{arg - 1} to 'pack' (string too short)");
                        foreach (byte x in s[..n]) o.Add(x);
                    }
                    else
                    {
                        foreach (byte x in s) o.Add(x);
                        o.Add(0);
                    }
                    break;
                }
                default: throw new LuaArgumentException($"invalid format option '{c}'");
            }
        }
        l.PushBoolean(true);
        LuaNative.Push(l.Handle, o.ToArray());
        return 2;
    }

    private static long ArgInteger(Lua l, int i)
    {
        if (l.Type(i) != LuaType.Number && l.Type(i) != LuaType.String) throw new LuaArgumentException($"bad argument #{i} to 'pack' (number expected, got {l.TypeName(i)})");
        if (l.IsInteger(i)) return l.ToInteger(i);
        double d = l.ToNumber(i);
        return d >= 9.2e18 ? (long)(ulong)d : (long)d;
    }

    private static double ArgNumber(Lua l, int i)
    {
        if (l.Type(i) != LuaType.Number && l.Type(i) != LuaType.String) throw new LuaArgumentException($"bad argument #{i} to 'pack' (number expected, got {l.TypeName(i)})");
        return l.ToNumber(i);
    }

    public static int Unpack(Lua l)
    {
        if (l.Type(1) != LuaType.String || l.Type(2) != LuaType.String) return LuaCallbacks.Fail(l, "bad argument to 'unpack' (string expected)");
        var f = new Fmt(l.ToString(1, false));
        var data = LuaNative.ToSpan(l.Handle, 2).ToArray();
        long start = l.GetTop() >= 3 && l.Type(3) == LuaType.Number ? l.ToInteger(3) : 1;
        if (start < 1) throw new LuaArgumentException("offset must be 1 or greater");
        int pos = (int)Math.Min(start - 1, int.MaxValue);
        l.PushBoolean(true);
        int n = 0;
        long lastNumber = 0;
        while (f.Pos < f.F.Length)
        {
            char c = f.F[f.Pos++];
            if (Control(f, c)) continue;
            int size = OptionSize(f, c);
            pos += Align(pos, size, f, c);
            if (!l.CheckStack(2)) throw new LuaArgumentException("too many results");
            switch (c)
            {
                case 'x': Need(data, pos, 1); pos += 1; break;
                case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'T': case 'i': case 'I':
                {
                    Need(data, pos, size);
                    ulong u = 0;
                    for (int i = 0; i < size; i++)
                    {
                        byte x = f.Little ? data[pos + size - 1 - i] : data[pos + i];
                        u = (u << 8) | x;
                    }
                    long v = (long)u;
                    bool signed = char.IsLower(c);
                    if (signed && size < 8 && (u & (1UL << (size * 8 - 1))) != 0) v = (long)(u | (ulong.MaxValue << (size * 8)));
                    l.PushInteger(v);
                    lastNumber = v;
                    n++;
                    pos += size;
                    break;
                }
                case 'f': case 'd':
                {
                    Need(data, pos, size);
                    var b = data.AsSpan(pos, size);
                    double d = c == 'f' ? (f.Little ? BinaryPrimitives.ReadSingleLittleEndian(b) : BinaryPrimitives.ReadSingleBigEndian(b))
                        : (f.Little ? BinaryPrimitives.ReadDoubleLittleEndian(b) : BinaryPrimitives.ReadDoubleBigEndian(b));
                    l.PushNumber(d);
                    lastNumber = (long)d;
                    n++;
                    pos += size;
                    break;
                }
                case 'c':
                {
                    int len = size;
                    if (size == 0)
                    {
                        // c0: the length is the number just read, which it replaces among the results (as lstruct).
                        if (n == 0 || l.Type(-1) != LuaType.Number) throw new LuaArgumentException("format 'c0' needs a previous size");
                        len = (int)Math.Clamp(lastNumber, 0, int.MaxValue);
                        l.Pop(1);
                        n--;
                    }
                    Need(data, pos, len);
                    LuaNative.Push(l.Handle, data.AsSpan(pos, len));
                    n++;
                    pos += len;
                    break;
                }
                case 's':
                {
                    int end = Array.IndexOf(data, (byte)0, Math.Min(pos, data.Length));
                    if (end < 0) throw new LuaArgumentException("unfinished string in data");
                    LuaNative.Push(l.Handle, data.AsSpan(pos, end - pos));
                    n++;
                    pos = end + 1;
                    break;
                }
                default: throw new LuaArgumentException($"invalid format option '{c}'");
            }
        }
        l.PushInteger(pos + 1);
        return n + 2;
    }

    private static void Need(byte[] data, int pos, int n)
    {
        if (pos < 0 || (long)pos + n > data.Length) throw new LuaArgumentException("data string too short");
    }

    public static int Size(Lua l)
    {
        if (l.Type(1) != LuaType.String) return LuaCallbacks.Fail(l, "bad argument #1 to 'size' (string expected)");
        var f = new Fmt(l.ToString(1, false));
        long total = 0;
        while (f.Pos < f.F.Length)
        {
            char c = f.F[f.Pos++];
            if (Control(f, c)) continue;
            int size = OptionSize(f, c);
            if (c == 's' || (c == 'c' && size == 0)) throw new LuaArgumentException("options 'c0' - 's' have undefined sizes");
            if (size == 0) throw new LuaArgumentException($"invalid format option '{c}'");
            total += Align((int)total, size, f, c) + size;
        }
        l.PushBoolean(true);
        l.PushInteger(total);
        return 2;
    }
}
