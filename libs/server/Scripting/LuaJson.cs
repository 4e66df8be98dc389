// LuaJson: cjson.encode / cjson.decode as Redis's lua-cjson does them, with its error texts.
// encode: tables whose keys are all integral numbers >= 1 are arrays of length max key (holes are null), unless
// excessively sparse (max > 2 * count and max > 10: an error, as cjson's defaults); other tables (and {}) are objects;
// strings are bytes, escaped with cjson's table (" \ / control characters and DEL); numbers print as integers when Lua
// integers, else %.14g; cjson.null (a NULL light userdata) and nil are null.
// decode: cjson's tokenizer and messages ("Expected value but found T_END at character 4", ...); a NUL byte ends the
// input as in C; numbers are what C strtod reads (Redis 7.0 builds cjson with decode_invalid_numbers on: +1, 0x10, 01,
// inf, nan pass); null is cjson.null, arrays are tables from 1, numbers are integers when written as integers.
// Invariants: nesting is capped at 1000 levels both ways (cjson's default, same texts); the output is built by
// CodecOutput within the script's memory budget; decoded values count against it as they are pushed; every failure
// is a LuaArgumentException with cjson's text, never a .NET message.
using System.Buffers;
using System.Globalization;
using System.Runtime.CompilerServices;
using KeraLua;

namespace Garnet.server.Scripting;

internal static unsafe class LuaJson
{
    public const int MaxDepth = 1000;

    // ---------------------------------------------------------------- encode

    public static int Encode(Lua l)
    {
        if (l.GetTop() != 1) return LuaCallbacks.Fail(l, "bad argument #1 to 'encode' (expected 1 argument)");
        return CodecErrors.Run(l, "Cannot serialise: internal error", () =>
        {
            l.PushBoolean(true);
            CodecOutput.Produce(l, ScriptMemoryBudget.ForCallback(), o => EncodeValue(l, 1, o, 0));
            return 2;
        });
    }

    private static void EncodeValue(Lua l, int index, CodecOutput o, int depth)
    {
        o.Budget.Poll();
        switch (l.Type(index))
        {
            case LuaType.Nil: o.Bytes("null"u8); return;
            case LuaType.Boolean: o.Bytes(l.ToBoolean(index) ? "true"u8 : "false"u8); return;
            case LuaType.LightUserData when l.ToUserData(index) == IntPtr.Zero: o.Bytes("null"u8); return;
            case LuaType.Number: Number(l, index, o); return;
            case LuaType.String: Quote(LuaNative.ToSpan(l.Handle, index), o); return;
            case LuaType.Table:
                depth++;
                if (depth > MaxDepth || !l.CheckStack(6) || !RuntimeHelpers.TryEnsureSufficientExecutionStack()) throw new LuaArgumentException($"Cannot serialise, excessive nesting ({depth})");
                long max = ArrayLength(l, index);
                if (max > 0) EncodeArray(l, index, o, depth, max);
                else EncodeObject(l, index, o, depth);
                return;
            default:
                throw new LuaArgumentException("Cannot serialise " + l.TypeName(l.Type(index)) + ": type not supported");
        }
    }

    private static void Number(Lua l, int index, CodecOutput o)
    {
        Span<byte> b = stackalloc byte[32];
        if (l.IsInteger(index))
        {
            l.ToInteger(index).TryFormat(b, out int n, default, CultureInfo.InvariantCulture);
            o.Bytes(b[..n]);
            return;
        }
        double d = l.ToNumber(index);
        if (double.IsNaN(d) || double.IsInfinity(d)) throw new LuaArgumentException("Cannot serialise number: must not be NaN or Inf");
        foreach (char c in LuaCallbacks.FormatG14(d)) o.Byte((byte)c);
    }

    /// <summary>cjson's lua_array_length: max key when every key is an integral number >= 1, else -1 (an object); 0 for {}.</summary>
    private static long ArrayLength(Lua l, int index)
    {
        long max = 0, items = 0;
        l.PushNil();
        while (l.Next(index))
        {
            l.Pop(1);
            double k;
            if (l.Type(-1) == LuaType.Number && (k = l.ToNumber(-1)) != 0 && Math.Floor(k) == k && k >= 1)
            {
                if (k > max) max = k >= long.MaxValue ? long.MaxValue : (long)k;
                items++;
                continue;
            }
            l.Pop(1);
            return -1;
        }
        if (max > items * 2 && max > 10) throw new LuaArgumentException("Cannot serialise table: excessively sparse array");
        return max;
    }

    private static void EncodeArray(Lua l, int index, CodecOutput o, int depth, long max)
    {
        o.Byte((byte)'[');
        for (long i = 1; i <= max; i++)
        {
            if (i > 1) o.Byte((byte)',');
            l.RawGetInteger(index, i);
            EncodeValue(l, l.GetTop(), o, depth);
            l.Pop(1);
        }
        o.Byte((byte)']');
    }

    private static void EncodeObject(Lua l, int index, CodecOutput o, int depth)
    {
        o.Byte((byte)'{');
        bool first = true;
        l.PushNil();
        while (l.Next(index))
        {
            var kt = l.Type(-2);
            if (!first) o.Byte((byte)',');
            first = false;
            if (kt == LuaType.Number)
            {
                o.Byte((byte)'"');
                Number(l, l.GetTop() - 1, o);
                o.Bytes("\":"u8);
            }
            else if (kt == LuaType.String)
            {
                Quote(LuaNative.ToSpan(l.Handle, -2), o);
                o.Byte((byte)':');
            }
            else throw new LuaArgumentException("Cannot serialise " + l.TypeName(kt) + ": table key must be a number or string");
            EncodeValue(l, l.GetTop(), o, depth);
            l.Pop(1);
        }
        o.Byte((byte)'}');
    }

    private static readonly SearchValues<byte> s_needsEscape = SearchValues.Create(
        [.. Enumerable.Range(0, 0x20).Select(i => (byte)i), (byte)'"', (byte)'\\', (byte)'/', 0x7f]);

    private static void Quote(ReadOnlySpan<byte> s, CodecOutput o)
    {
        o.Byte((byte)'"');
        Span<byte> u = stackalloc byte[6];
        "\\u00"u8.CopyTo(u);
        while (!s.IsEmpty)
        {
            int i = s.IndexOfAny(s_needsEscape);
            if (i < 0) { o.Bytes(s); break; }
            o.Bytes(s[..i]);
            byte c = s[i];
            switch (c)
            {
                case (byte)'"': o.Bytes("\\\""u8); break;
                case (byte)'\\': o.Bytes("\\\\"u8); break;
                case (byte)'/': o.Bytes("\\/"u8); break;
                case (byte)'\n': o.Bytes("\\n"u8); break;
                case (byte)'\r': o.Bytes("\\r"u8); break;
                case (byte)'\t': o.Bytes("\\t"u8); break;
                case (byte)'\b': o.Bytes("\\b"u8); break;
                case (byte)'\f': o.Bytes("\\f"u8); break;
                default:
                    u[4] = Hex(c >> 4);
                    u[5] = Hex(c & 15);
                    o.Bytes(u);
                    break;
            }
            s = s[(i + 1)..];
        }
        o.Byte((byte)'"');
    }

    private static byte Hex(int v) => (byte)(v < 10 ? '0' + v : 'a' + v - 10);

    // ---------------------------------------------------------------- decode

    public static int Decode(Lua l)
    {
        if (l.GetTop() != 1) return LuaCallbacks.Fail(l, "bad argument #1 to 'decode' (expected 1 argument)");
        var t = l.Type(1);
        if (t != LuaType.String && t != LuaType.Number)
            return LuaCallbacks.Fail(l, $"bad argument #1 to 'decode' (string expected, got {l.TypeName(t)})");
        return CodecErrors.Run(l, "Expected value but found invalid token at character 1", () =>
        {
            var input = LuaNative.ToSpan(l.Handle, 1);
            if (input.Length >= 2 && (input[0] == 0 || input[1] == 0)) throw new LuaArgumentException("JSON parser does not support UTF-16 or UTF-32");
            fixed (byte* p = input)
            {
                var parser = new JsonParser(l, p, input.Length, ScriptMemoryBudget.ForCallback());
                try
                {
                    l.PushBoolean(true);
                    var token = parser.Next();
                    parser.Value(token);
                    token = parser.Next();
                    if (token.Type != Tok.End) throw JsonParser.ParseError("the end", token);
                }
                finally { parser.Dispose(); }
            }
            return 2;
        });
    }

    private enum Tok { ObjBegin, ObjEnd, ArrBegin, ArrEnd, String, Number, Boolean, Null, Colon, Comma, End, Whitespace, Error }

    private static readonly string[] s_tokNames =
        ["T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING", "T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR"];

    private struct Token
    {
        public Tok Type;
        public int Index;
        public bool True;
        public string? Error;
    }

    /// <summary>lua-cjson's recursive-descent parser over a NUL-terminated view of the input (end of input reads as NUL).</summary>
    private sealed class JsonParser(Lua l, byte* data, int length, ScriptMemoryBudget budget) : IDisposable
    {
        private int _pos;
        private int _depth;
        private byte[]? _tmp;

        private byte At(int i) => i < length ? data[i] : (byte)0;

        public static LuaArgumentException ParseError(string expected, Token t) =>
            new($"Expected {expected} but found {(t.Type == Tok.Error ? t.Error : s_tokNames[(int)t.Type])} at character {t.Index + 1}");

        private Token Fail(string what) => new() { Type = Tok.Error, Index = _pos, Error = what };

        /// <summary>The next token; a string or number token leaves its Lua value pushed.</summary>
        public Token Next()
        {
            byte c;
            while ((c = At(_pos)) is (byte)' ' or (byte)'\t' or (byte)'\n' or (byte)'\r') _pos++;
            var t = new Token { Index = _pos };
            switch (c)
            {
                case 0: t.Type = Tok.End; return t;
                case (byte)'{': _pos++; t.Type = Tok.ObjBegin; return t;
                case (byte)'}': _pos++; t.Type = Tok.ObjEnd; return t;
                case (byte)'[': _pos++; t.Type = Tok.ArrBegin; return t;
                case (byte)']': _pos++; t.Type = Tok.ArrEnd; return t;
                case (byte)',': _pos++; t.Type = Tok.Comma; return t;
                case (byte)':': _pos++; t.Type = Tok.Colon; return t;
                case (byte)'"': return StringToken();
                case (byte)'-' or (>= (byte)'0' and <= (byte)'9'): return NumberToken();
            }
            if (Match("true"u8)) { t.Type = Tok.Boolean; t.True = true; return t; }
            if (Match("false"u8)) { t.Type = Tok.Boolean; return t; }
            if (Match("null"u8)) { t.Type = Tok.Null; return t; }
            // cjson's json_is_invalid_number: '+', inf and nan go to strtod too
            if (c == '+' || MatchNoCase(_pos, "inf") || MatchNoCase(_pos, "nan")) return NumberToken();
            return Fail("invalid token");
        }

        private bool Match(ReadOnlySpan<byte> word)
        {
            for (int i = 0; i < word.Length; i++) if (At(_pos + i) != word[i]) return false;
            _pos += word.Length;
            return true;
        }

        /// <summary>Redis 7.0's cjson decodes "invalid numbers" too (decode_invalid_numbers on): a number is the longest
        /// prefix C's strtod takes: [sign] then decimal, hex (0x, with p exponent), inf/infinity or nan[(...)].</summary>
        private Token NumberToken()
        {
            int start = _pos;
            int end = StrtodEnd(start, out double value, out bool integral);
            if (end == start) return Fail("invalid number");
            var text = new ReadOnlySpan<byte>(data + start, end - start);
            _pos = end;
            if (integral && value is >= -9.2233720368547758E18 and < 9.2233720368547758E18
                && long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long n)) l.PushInteger(n);
            else if (integral && Math.Abs(value) < 9.2233720368547758E18) l.PushInteger((long)value);
            else l.PushNumber(value);
            return new Token { Type = Tok.Number, Index = start };
        }

        private bool IsDigitAt(int p) => At(p) is >= (byte)'0' and <= (byte)'9';
        private static int HexValue(byte c) => c is >= (byte)'0' and <= (byte)'9' ? c - '0' : (c | 0x20) is >= 'a' and <= 'f' ? (c | 0x20) - 'a' + 10 : -1;

        private bool MatchNoCase(int p, string word)
        {
            for (int i = 0; i < word.Length; i++) if ((At(p + i) | 0x20) != word[i]) return false;
            return true;
        }

        /// <summary>Where strtod would stop reading at start (start itself when it reads nothing), and the value.</summary>
        private int StrtodEnd(int start, out double value, out bool integral)
        {
            value = 0;
            integral = false;
            int p = start;
            bool negative = false;
            if (At(p) is (byte)'+' or (byte)'-') { negative = At(p) == '-'; p++; }
            if (MatchNoCase(p, "inf"))
            {
                p += MatchNoCase(p, "infinity") ? 8 : 3;
                value = negative ? double.NegativeInfinity : double.PositiveInfinity;
                return p;
            }
            if (MatchNoCase(p, "nan"))
            {
                p += 3;
                if (At(p) == '(')
                {
                    int q = p + 1;
                    while ((At(q) | 0x20) is >= (byte)'a' and <= (byte)'z' || IsDigitAt(q) || At(q) == '_') q++;
                    if (At(q) == ')') p = q + 1;
                }
                // as glibc's strtod: a positive quiet NaN unless signed ("-nan" prints as such in Lua)
                value = BitConverter.Int64BitsToDouble(negative ? unchecked((long)0xFFF8000000000000) : 0x7FF8000000000000);
                return p;
            }
            if (At(p) == '0' && (At(p + 1) | 0x20) == 'x' && (HexValue(At(p + 2)) >= 0 || (At(p + 2) == '.' && HexValue(At(p + 3)) >= 0)))
            {
                p += 2;
                double m = 0;
                int exp = 0;
                bool hexIntegral = true;
                for (int h; (h = HexValue(At(p))) >= 0; p++) m = m * 16 + h;
                if (At(p) == '.')
                {
                    p++;
                    hexIntegral = false;
                    for (int h; (h = HexValue(At(p))) >= 0; p++) { m = m * 16 + h; exp -= 4; }
                }
                if ((At(p) | 0x20) == 'p')
                {
                    int q = p + 1;
                    bool eneg = false;
                    if (At(q) is (byte)'+' or (byte)'-') { eneg = At(q) == '-'; q++; }
                    if (IsDigitAt(q))
                    {
                        int e = 0;
                        while (IsDigitAt(q)) { if (e < 100000) e = e * 10 + (At(q) - '0'); q++; }
                        exp += eneg ? -e : e;
                        p = q;
                        hexIntegral = false;
                    }
                }
                value = Math.ScaleB(m, exp) * (negative ? -1 : 1);
                integral = hexIntegral;
                return p;
            }
            int digits = 0;
            while (IsDigitAt(p)) { p++; digits++; }
            integral = true;
            if (At(p) == '.')
            {
                int q = p + 1, frac = 0;
                while (IsDigitAt(q)) { q++; frac++; }
                if (digits + frac > 0) { p = q; digits += frac; integral = false; }
            }
            if (digits == 0) { integral = false; return start; }
            if ((At(p) | 0x20) == 'e')
            {
                int q = p + 1;
                if (At(q) is (byte)'+' or (byte)'-') q++;
                if (IsDigitAt(q))
                {
                    while (IsDigitAt(q)) q++;
                    p = q;
                    integral = false;
                }
            }
            var text = new ReadOnlySpan<byte>(data + start, p - start);
            if (text[0] == '+') text = text[1..];
            value = double.Parse(text, NumberStyles.Float, CultureInfo.InvariantCulture);
            return p;
        }

        private Token StringToken()
        {
            int start = _pos;
            int p = _pos + 1;
            // The common case: no escape, pushed straight from the input.
            int rel = new ReadOnlySpan<byte>(data + p, length - p).IndexOfAny((byte)'"', (byte)'\\', (byte)0);
            int q = rel < 0 ? length : p + rel;
            if (At(q) == '"')
            {
                budget.Need(q - p);
                LuaNative.Push(l.Handle, new ReadOnlySpan<byte>(data + p, q - p));
                _pos = q + 1;
                return new Token { Type = Tok.String, Index = start };
            }
            // With escapes: the decoded text is never longer than the input.
            int n = 0;
            while (true)
            {
                EnsureTmp(n + 4);
                byte c = At(p);
                if (c == '"') break;
                if (c == 0) { _pos = p; return Fail("unexpected end of string"); }
                if (c != '\\') { _tmp![n++] = c; p++; continue; }
                byte e = At(p + 1);
                switch (e)
                {
                    case (byte)'"': case (byte)'\\': case (byte)'/': _tmp![n++] = e; p += 2; continue;
                    case (byte)'b': _tmp![n++] = 8; p += 2; continue;
                    case (byte)'f': _tmp![n++] = 12; p += 2; continue;
                    case (byte)'n': _tmp![n++] = 10; p += 2; continue;
                    case (byte)'r': _tmp![n++] = 13; p += 2; continue;
                    case (byte)'t': _tmp![n++] = 9; p += 2; continue;
                    case (byte)'u':
                        int used = UnicodeEscape(p, _tmp!.AsSpan(n), out int wrote);
                        if (used < 0) { _pos = p; return Fail("invalid unicode escape code"); }
                        n += wrote;
                        p += used;
                        continue;
                    default: _pos = p; return Fail("invalid escape code");
                }
            }
            _pos = p + 1;
            budget.Need(n);
            LuaNative.Push(l.Handle, _tmp!.AsSpan(0, n));
            return new Token { Type = Tok.String, Index = start };
        }

        /// <summary>The scratch for a string with escapes holds at least size bytes (counted against the budget).</summary>
        private void EnsureTmp(int size)
        {
            if (_tmp is not null && _tmp.Length >= size) return;
            int want = Math.Max(size, Math.Min(Math.Max(64, (_tmp?.Length ?? 0) * 2), length + 4));
            budget.Take(want);
            var bigger = ArrayPool<byte>.Shared.Rent(want);
            if (_tmp is not null)
            {
                _tmp.AsSpan().CopyTo(bigger);
                ReturnTmp();
            }
            _tmp = bigger;
            _tmpTaken = want;
        }

        private int _tmpTaken;

        private void ReturnTmp()
        {
            if (_tmp is null) return;
            ArrayPool<byte>.Shared.Return(_tmp);
            budget.Give(_tmpTaken);
            _tmp = null;
            _tmpTaken = 0;
        }

        private int Hex4(int p)
        {
            int v = 0;
            for (int i = 0; i < 4; i++)
            {
                int c = At(p + i), d = c is >= '0' and <= '9' ? c - '0' : (c | 0x20) is >= 'a' and <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
                if (d < 0) return -1;
                v = (v << 4) | d;
            }
            return v;
        }

        /// <summary>\uXXXX (or a surrogate pair) at p as UTF-8: input bytes used, or -1.</summary>
        private int UnicodeEscape(int p, Span<byte> dst, out int wrote)
        {
            wrote = 0;
            int cp = Hex4(p + 2), used = 6;
            if (cp < 0) return -1;
            if ((cp & 0xF800) == 0xD800)
            {
                if ((cp & 0x400) != 0 || At(p + 6) != '\\' || At(p + 7) != 'u') return -1;
                int low = Hex4(p + 8);
                if (low < 0 || (low & 0xFC00) != 0xDC00) return -1;
                cp = (((cp & 0x3FF) << 10) | (low & 0x3FF)) + 0x10000;
                used = 12;
            }
            if (cp <= 0x7F) { dst[0] = (byte)cp; wrote = 1; }
            else if (cp <= 0x7FF) { dst[0] = (byte)(0xC0 | (cp >> 6)); dst[1] = (byte)(0x80 | (cp & 0x3F)); wrote = 2; }
            else if (cp <= 0xFFFF) { dst[0] = (byte)(0xE0 | (cp >> 12)); dst[1] = (byte)(0x80 | ((cp >> 6) & 0x3F)); dst[2] = (byte)(0x80 | (cp & 0x3F)); wrote = 3; }
            else { dst[0] = (byte)(0xF0 | (cp >> 18)); dst[1] = (byte)(0x80 | ((cp >> 12) & 0x3F)); dst[2] = (byte)(0x80 | ((cp >> 6) & 0x3F)); dst[3] = (byte)(0x80 | (cp & 0x3F)); wrote = 4; }
            return used;
        }

        private void Descend(int slots)
        {
            _depth++;
            if (_depth <= MaxDepth && l.CheckStack(slots) && RuntimeHelpers.TryEnsureSufficientExecutionStack()) return;
            throw new LuaArgumentException($"Found too many nested data structures ({_depth}) at character {_pos}");
        }

        /// <summary>Pushes the value that starts with token t (a string or number is pushed already).</summary>
        public void Value(Token t)
        {
            switch (t.Type)
            {
                case Tok.String: case Tok.Number: break;
                case Tok.Boolean: l.PushBoolean(t.True); break;
                case Tok.Null: l.PushLightUserData(IntPtr.Zero); break;
                case Tok.ObjBegin: Object(); break;
                case Tok.ArrBegin: Array(); break;
                default: throw ParseError("value", t);
            }
            budget.CheckHeap();
        }

        private void Object()
        {
            Descend(3);
            l.NewTable();
            var t = Next();
            if (t.Type == Tok.ObjEnd) { _depth--; return; }
            for (long count = 0; ; count++)
            {
                budget.TableGrowth(count, ScriptMemoryBudget.HashNodeBytes);
                if (t.Type != Tok.String)
                {
                    if (t.Type == Tok.Number) l.Pop(1);
                    throw ParseError("object key string", t);
                }
                t = Next();
                if (t.Type != Tok.Colon) throw ParseError("colon", t);
                Value(Next());
                l.RawSet(-3);
                t = Next();
                if (t.Type == Tok.ObjEnd) { _depth--; return; }
                if (t.Type != Tok.Comma) throw ParseError("comma or object end", t);
                t = Next();
            }
        }

        private void Array()
        {
            Descend(2);
            l.NewTable();
            var t = Next();
            if (t.Type == Tok.ArrEnd) { _depth--; return; }
            for (long i = 1; ; i++)
            {
                budget.TableGrowth(i - 1, ScriptMemoryBudget.ArraySlotBytes);
                Value(t);
                l.RawSetInteger(-2, i);
                t = Next();
                if (t.Type == Tok.ArrEnd) { _depth--; return; }
                if (t.Type != Tok.Comma) throw ParseError("comma or array end", t);
                t = Next();
            }
        }

        public void Dispose() => ReturnTmp();
    }
}
