// LuaStruct: Redis's struct library (lstruct): struct.pack(fmt, ...), struct.unpack(fmt, s [, pos]) (values, then the
// next position) and struct.size(fmt), with lstruct's error texts. Format: '<' little, '>' big endian (little by
// default), '!n' max alignment (power of 2, default 8), 'x' pad byte, b/B h/H l/L T i/In I/In (signed/unsigned, 1, 2,
// 8, 8, n bytes; n defaults to 4, at most 32: bytes past the 8th are zero on pack and ignored on unpack, as lstruct
// with a 64-bit long), f d (float, double), s (zero-terminated string), cn (n chars; c0 = whole string on pack, the
// previous number as length on unpack), spaces ignored; any other character is "invalid format option".
// Invariants: reads past the string fail ("data string too short") and positions only move forward, so unpack pushes
// at most the data's size in strings (counted against the script's memory budget); pack output is built by
// CodecOutput within the budget; every failure is a LuaArgumentException with lstruct's text.
using System.Buffers.Binary;
using KeraLua;

namespace Garnet.server.Scripting;

internal static class LuaStruct
{
    private const int MaxIntSize = 32;
    private const int MaxAlign = 8;

    private sealed class Fmt(byte[] f, string fn)
    {
        public readonly byte[] F = f;
        public readonly string Fn = fn;
        public int Pos;
        public bool Little = true;
        public int Align = 1;
        public bool More => Pos < F.Length;

        public int Number(int dflt)
        {
            if (Pos >= F.Length || !IsDigit(F[Pos])) return dflt;
            int a = 0;
            do
            {
                int digit = F[Pos] - '0';
                if (a > int.MaxValue / 10 || a * 10 > int.MaxValue - digit) throw new LuaArgumentException("integral size overflow");
                a = a * 10 + digit;
                Pos++;
            } while (Pos < F.Length && IsDigit(F[Pos]));
            return a;
        }
    }

    private static bool IsDigit(byte c) => c is >= (byte)'0' and <= (byte)'9';

    private static long OptionSize(Fmt f, byte opt)
    {
        switch (opt)
        {
            case (byte)'B': case (byte)'b': return 1;
            case (byte)'H': case (byte)'h': return 2;
            case (byte)'L': case (byte)'l': case (byte)'T': return 8;
            case (byte)'f': return 4;
            case (byte)'d': return 8;
            case (byte)'x': return 1;
            case (byte)'c': return f.Number(1);
            case (byte)'i': case (byte)'I':
            {
                int n = f.Number(4);
                if (n > MaxIntSize) throw new LuaArgumentException($"integral size {n} is larger than limit of {MaxIntSize}");
                return n;
            }
            default: return 0;
        }
    }

    private static long ToAlign(long len, Fmt f, byte opt, long size)
    {
        if (size == 0 || opt == 'c') return 0;
        if (size > f.Align) size = f.Align;
        return (size - (len & (size - 1))) & (size - 1);
    }

    private static void Control(Fmt f, byte opt)
    {
        switch (opt)
        {
            case (byte)' ': return;
            case (byte)'>': f.Little = false; return;
            case (byte)'<': f.Little = true; return;
            case (byte)'!':
            {
                int a = f.Number(MaxAlign);
                if (a <= 0 || (a & (a - 1)) != 0) throw new LuaArgumentException($"alignment {a} is not a power of 2");
                f.Align = a;
                return;
            }
            default: throw new LuaArgumentException($"bad argument #1 to '{f.Fn}' (invalid format option '{(char)opt}')");
        }
    }

    private static string Got(Lua l, int arg) => arg > l.GetTop() ? "no value" : l.TypeName(l.Type(arg));

    private static Fmt Format(Lua l, string fn)
    {
        if (l.Type(1) is not (LuaType.String or LuaType.Number)) throw new LuaArgumentException($"bad argument #1 to '{fn}' (string expected, got {Got(l, 1)})");
        return new Fmt(LuaNative.ToSpan(l.Handle, 1).ToArray(), fn);
    }

    // ---------------------------------------------------------------- pack

    public static int Pack(Lua l) => CodecErrors.Run(l, "bad argument #1 to 'pack' (invalid format)", () =>
    {
        int top = l.GetTop();
        Format(l, "pack"); // argument check before anything is pushed
        l.PushBoolean(true);
        CodecOutput.Produce(l, ScriptMemoryBudget.ForCallback(), o => PackInto(l, top, o));
        return 2;
    });

    private static void PackInto(Lua l, int nargs, CodecOutput o)
    {
        var f = Format(l, "pack");
        int arg = 2;
        long total = 0;
        Span<byte> b = stackalloc byte[MaxIntSize];
        while (f.More)
        {
            byte opt = f.F[f.Pos++];
            long size = OptionSize(f, opt);
            long pad = ToAlign(total, f, opt, size);
            total += pad;
            o.Fill(0, pad);
            switch (opt)
            {
                case (byte)'b': case (byte)'B': case (byte)'h': case (byte)'H': case (byte)'l': case (byte)'L': case (byte)'T': case (byte)'i': case (byte)'I':
                {
                    ulong v = (ulong)ArgInteger(l, nargs, arg++);
                    var part = b[..(int)size];
                    for (int i = 0; i < size; i++)
                    {
                        part[f.Little ? i : (int)size - 1 - i] = (byte)v;
                        v >>= 8;
                    }
                    o.Bytes(part);
                    break;
                }
                case (byte)'x': o.Byte(0); break;
                case (byte)'f':
                    if (f.Little) BinaryPrimitives.WriteSingleLittleEndian(b, (float)ArgNumber(l, nargs, arg++));
                    else BinaryPrimitives.WriteSingleBigEndian(b, (float)ArgNumber(l, nargs, arg++));
                    o.Bytes(b[..4]);
                    break;
                case (byte)'d':
                    if (f.Little) BinaryPrimitives.WriteDoubleLittleEndian(b, ArgNumber(l, nargs, arg++));
                    else BinaryPrimitives.WriteDoubleBigEndian(b, ArgNumber(l, nargs, arg++));
                    o.Bytes(b[..8]);
                    break;
                case (byte)'c': case (byte)'s':
                {
                    if (arg > nargs || l.Type(arg) is not (LuaType.String or LuaType.Number))
                        throw new LuaArgumentException($"bad argument #{arg} to 'pack' (string expected, got {PackGot(l, nargs, arg)})");
                    var s = LuaNative.ToSpan(l.Handle, arg++);
                    if (size == 0) size = s.Length;
                    // lstruct checks after moving to the next argument, so its message names that one.
                    if (s.Length < size) throw new LuaArgumentException($"bad argument #{arg} to 'pack' (string too short)");
                    o.Bytes(s[..(int)size]);
                    if (opt == 's') { o.Byte(0); size++; }
                    break;
                }
                default: Control(f, opt); break;
            }
            total += size;
        }
    }

    /// <summary>luaL_checknumber for an integer option: numbers and numeric strings; integers stay exact.</summary>
    private static long ArgInteger(Lua l, int nargs, int i)
    {
        if (i > nargs || !l.IsNumber(i)) throw new LuaArgumentException($"bad argument #{i} to 'pack' (number expected, got {PackGot(l, nargs, i)})");
        if (l.IsInteger(i)) return l.ToInteger(i);
        double d = l.ToNumber(i);
        if (double.IsNaN(d)) return 0;
        if (d < 0) return d <= -9.2233720368547758E18 ? long.MinValue : (long)d;
        return d >= 1.8446744073709552E19 ? -1 : d >= 9.2233720368547758E18 ? (long)(ulong)d : (long)d;
    }

    private static double ArgNumber(Lua l, int nargs, int i)
    {
        if (i > nargs || !l.IsNumber(i)) throw new LuaArgumentException($"bad argument #{i} to 'pack' (number expected, got {PackGot(l, nargs, i)})");
        return l.ToNumber(i);
    }

    /// <summary>The type of pack's argument i as lstruct names it: it pushes a nil after the arguments, so the first
    /// missing one is "nil" and later ones "no value".</summary>
    private static string PackGot(Lua l, int nargs, int i) => i <= nargs ? l.TypeName(l.Type(i)) : i == nargs + 1 ? "nil" : "no value";

    // ---------------------------------------------------------------- unpack

    public static int Unpack(Lua l) => CodecErrors.Run(l, "bad argument #2 to 'unpack' (data string too short)", () =>
    {
        var f = Format(l, "unpack");
        if (l.Type(2) is not (LuaType.String or LuaType.Number)) throw new LuaArgumentException($"bad argument #2 to 'unpack' (string expected, got {Got(l, 2)})");
        long start = 1;
        if (l.Type(3) is not (LuaType.None or LuaType.Nil))
        {
            if (!l.IsNumber(3)) throw new LuaArgumentException($"bad argument #3 to 'unpack' (number expected, got {l.TypeName(l.Type(3))})");
            if (!l.IsInteger(3) && Math.Floor(l.ToNumber(3)) != l.ToNumber(3)) throw new LuaArgumentException("bad argument #3 to 'unpack' (number has no integer representation)");
            start = l.IsInteger(3) ? l.ToInteger(3) : (long)l.ToNumber(3);
        }
        if (start <= 0) throw new LuaArgumentException("bad argument #3 to 'unpack' (offset must be 1 or greater)");
        var budget = ScriptMemoryBudget.ForCallback();
        int data = 2;
        long ld = LuaNative.ToSpan(l.Handle, data).Length;
        long pos = start - 1;
        l.PushBoolean(true);
        int n = 0;
        while (f.More)
        {
            byte opt = f.F[f.Pos++];
            long size = OptionSize(f, opt);
            pos += ToAlign(pos, f, opt, size);
            if (!(size <= ld && pos <= ld - size)) throw new LuaArgumentException("bad argument #2 to 'unpack' (data string too short)");
            if (!l.CheckStack(2)) throw new LuaArgumentException("stack overflow (too many results)");
            var bytes = LuaNative.ToSpan(l.Handle, data);
            switch (opt)
            {
                case (byte)'b': case (byte)'B': case (byte)'h': case (byte)'H': case (byte)'l': case (byte)'L': case (byte)'T': case (byte)'i': case (byte)'I':
                {
                    var part = bytes.Slice((int)pos, (int)size);
                    ulong u = 0;
                    for (int i = 0; i < size; i++) u = (u << 8) | part[f.Little ? (int)size - 1 - i : i];
                    if (opt is >= (byte)'a' and <= (byte)'z' && size > 0)
                    {
                        ulong mask = ulong.MaxValue << (int)((size * 8 - 1) & 63); // as lstruct's shift on x86-64
                        if ((u & mask) != 0) u |= mask;
                    }
                    l.PushInteger((long)u);
                    n++;
                    break;
                }
                case (byte)'x': break;
                case (byte)'f':
                {
                    var part = bytes.Slice((int)pos, 4);
                    l.PushNumber(f.Little ? BinaryPrimitives.ReadSingleLittleEndian(part) : BinaryPrimitives.ReadSingleBigEndian(part));
                    n++;
                    break;
                }
                case (byte)'d':
                {
                    var part = bytes.Slice((int)pos, 8);
                    l.PushNumber(f.Little ? BinaryPrimitives.ReadDoubleLittleEndian(part) : BinaryPrimitives.ReadDoubleBigEndian(part));
                    n++;
                    break;
                }
                case (byte)'c':
                {
                    if (size == 0)
                    {
                        if (n == 0 || !l.IsNumber(-1)) throw new LuaArgumentException("format 'c0' needs a previous size");
                        double len = l.ToNumber(-1);
                        size = len < 0 || double.IsNaN(len) ? long.MaxValue : len >= long.MaxValue ? long.MaxValue : (long)len;
                        l.Pop(1);
                        n--;
                        if (!(size <= ld && pos <= ld - size)) throw new LuaArgumentException("bad argument #2 to 'unpack' (data string too short)");
                    }
                    budget.Need(size);
                    LuaNative.Push(l.Handle, LuaNative.ToSpan(l.Handle, data).Slice((int)pos, (int)size));
                    n++;
                    budget.CheckHeap();
                    break;
                }
                case (byte)'s':
                {
                    int end = bytes[(int)pos..].IndexOf((byte)0);
                    if (end < 0) throw new LuaArgumentException("unfinished string in data");
                    size = end + 1;
                    budget.Need(end);
                    LuaNative.Push(l.Handle, bytes.Slice((int)pos, end));
                    n++;
                    budget.CheckHeap();
                    break;
                }
                default: Control(f, opt); break;
            }
            pos += size;
        }
        l.PushInteger(pos + 1);
        return n + 2;
    });

    // ---------------------------------------------------------------- size

    public static int Size(Lua l) => CodecErrors.Run(l, "bad argument #1 to 'size' (invalid format)", () =>
    {
        var f = Format(l, "size");
        long pos = 0;
        while (f.More)
        {
            byte opt = f.F[f.Pos++];
            long size = OptionSize(f, opt);
            pos += ToAlign(pos, f, opt, size);
            if (opt == 's') throw new LuaArgumentException("bad argument #1 to 'size' (option 's' has no fixed size)");
            if (opt == 'c' && size == 0) throw new LuaArgumentException("bad argument #1 to 'size' (option 'c0' has no fixed size)");
            if (!char.IsAsciiLetterOrDigit((char)opt)) Control(f, opt);
            pos += size;
        }
        l.PushBoolean(true);
        l.PushInteger(pos);
        return 2;
    });
}
