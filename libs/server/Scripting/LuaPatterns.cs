// LuaPatterns: Lua 5.4's pattern matcher (lstrlib.c: match, classes, sets, %b, %f, captures, back references) in C#,
// behind string.find/match/gmatch/gsub (LuaPrelude), so that a backtracking match can be stopped: Lua's own matcher is
// one C call, where the kill hook never runs.
// Invariants:
//  - Same results and error texts as Lua 5.4's C matcher, same evaluation order (pattern errors are found lazily, as the
//    matcher reaches them); checked against the native functions by ScriptPatternTests.
//  - Time is bounded by the kill only: the matcher counts its work (one unit per match call, one per subject byte a
//    class repetition, %b or a back reference examines) and every PollEvery units asks the runtime (LuaRuntime.Poll:
//    the kill, SHUTDOWN, the FUNCTION LOAD timeout, and the hand-over of the network loop); when the run must stop it
//    returns (false, reason) for the wrapper to raise. No loop runs more than PollEvery units between two counts, so a
//    kill is seen within about a millisecond of matching, whatever the subject's length.
//  - Stack: Match recurses at most MaxCalls (200) deep, as Lua's MAXCCALLS.
//  - Primitives never raise: (true, results...), (false, message), or a lone nil when an argument is of a type the
//    native function refuses (the wrapper then calls the native function, which raises Lua's own argument error before
//    it matches anything). They read the subject and pattern in place (LuaNative.ToSpan, both stay on the stack).
//  - gsub output counts against lua-memory-limit (ScriptMemoryBudget) before it is built.
using KeraLua;

namespace Garnet.server.Scripting;

internal static class LuaPatterns
{
    private const int MaxCalls = 200, MaxCaptures = 32, CapUnfinished = -1, CapPosition = -2;
    /// <summary>Work units between two polls: about a millisecond of matching (a unit is a match call, or one byte
    /// examined by a scan), well under the kill's promise and far above the poll's cost.</summary>
    private const int PollEvery = 1 << 16;
    private const string Specials = "^$*+?.([%-";

    /// <summary>A pattern error (Lua's text) or the run's stop reason: ends the primitive with (false, message).</summary>
    private sealed class MatchFailure(string message) : Exception(message);

    private ref struct Matcher
    {
        public ReadOnlySpan<byte> S, P;
        public int Level, Depth;
        private long _work;
        public Span<int> CapInit, CapLen;
        public LuaRuntime? Runtime;

        private readonly int Pat(int i) => i < P.Length ? P[i] : 0; // C reads the terminating '\0'
        private readonly int Src(int i) => i < S.Length ? S[i] : 0;

        /// <summary>Counts units of work done; polls the runtime once PollEvery have gathered since the last poll.</summary>
        private void Work(long units)
        {
            _work += units;
            if (_work < PollEvery) return;
            _work = 0;
            if (Runtime?.Poll() is { } reason) throw new MatchFailure(reason);
        }

        private readonly int CheckCapture(int l)
        {
            l -= '1';
            if (l < 0 || l >= Level || CapLen[l] == CapUnfinished) throw new MatchFailure($"invalid capture index %{l + 1}");
            return l;
        }

        private readonly int CaptureToClose()
        {
            for (int level = Level - 1; level >= 0; level--)
                if (CapLen[level] == CapUnfinished) return level;
            throw new MatchFailure("invalid pattern capture");
        }

        private readonly int ClassEnd(int p)
        {
            int c = Pat(p++);
            if (c == '%')
            {
                if (p == P.Length) throw new MatchFailure("malformed pattern (ends with '%')");
                return p + 1;
            }
            if (c == '[')
            {
                if (Pat(p) == '^') p++;
                do
                {
                    if (p == P.Length) throw new MatchFailure("malformed pattern (missing ']')");
                    if (Pat(p++) == '%' && p < P.Length) p++;
                } while (Pat(p) != ']');
                return p + 1;
            }
            return p;
        }

        private readonly bool MatchBracketClass(int c, int p, int ec)
        {
            bool sig = true;
            if (Pat(p + 1) == '^')
            {
                sig = false;
                p++;
            }
            while (++p < ec)
            {
                if (Pat(p) == '%')
                {
                    p++;
                    if (MatchClass(c, Pat(p))) return sig;
                }
                else if (Pat(p + 1) == '-' && p + 2 < ec)
                {
                    p += 2;
                    if (Pat(p - 2) <= c && c <= Pat(p)) return sig;
                }
                else if (Pat(p) == c) return sig;
            }
            return !sig;
        }

        private readonly bool SingleMatch(int s, int p, int ep)
        {
            if (s >= S.Length) return false;
            int c = S[s];
            return Pat(p) switch
            {
                '.' => true,
                '%' => MatchClass(c, Pat(p + 1)),
                '[' => MatchBracketClass(c, p, ep - 1),
                var pc => pc == c,
            };
        }

        private int MatchBalance(int s, int p)
        {
            if (p >= P.Length - 1) throw new MatchFailure("malformed pattern (missing arguments to '%b')");
            if (Src(s) != P[p]) return -1;
            int b = P[p], e = P[p + 1], cont = 1, scanned = 0;
            while (++s < S.Length)
            {
                if (++scanned == PollEvery) { Work(scanned); scanned = 0; }
                if (S[s] == e)
                {
                    if (--cont == 0) { Work(scanned); return s + 1; }
                }
                else if (S[s] == b) cont++;
            }
            Work(scanned);
            return -1;
        }

        private int MaxExpand(int s, int p, int ep)
        {
            int i = 0;
            while (SingleMatch(s + i, p, ep))
                if ((++i & (PollEvery - 1)) == 0) Work(PollEvery);
            Work(i & (PollEvery - 1));
            while (i >= 0)
            {
                int res = Match(s + i, ep + 1);
                if (res >= 0) return res;
                i--;
            }
            return -1;
        }

        private int MinExpand(int s, int p, int ep)
        {
            for (;;)
            {
                int res = Match(s, ep + 1);
                if (res >= 0) return res;
                if (SingleMatch(s, p, ep)) s++;
                else return -1;
            }
        }

        private int StartCapture(int s, int p, int what)
        {
            if (Level >= MaxCaptures) throw new MatchFailure("too many captures");
            CapInit[Level] = s;
            CapLen[Level] = what;
            Level++;
            int res = Match(s, p);
            if (res < 0) Level--;
            return res;
        }

        private int EndCapture(int s, int p)
        {
            int l = CaptureToClose();
            CapLen[l] = s - CapInit[l];
            int res = Match(s, p);
            if (res < 0) CapLen[l] = CapUnfinished;
            return res;
        }

        private int MatchCapture(int s, int l)
        {
            l = CheckCapture(l);
            int len = CapLen[l];
            // a position capture's length (-2) is huge as C's size_t: it never matches
            if ((uint)(S.Length - s) < (uint)len) return -1;
            for (int at = 0; at < len; at += PollEvery)
            {
                int n = Math.Min(PollEvery, len - at);
                Work(n);
                if (!S.Slice(CapInit[l] + at, n).SequenceEqual(S.Slice(s + at, n))) return -1;
            }
            return s + len;
        }

        /// <summary>lstrlib's match: the end of the match of P[p..] at S[s..], or -1.</summary>
        public int Match(int s, int p)
        {
            if (Depth-- == 0) throw new MatchFailure("pattern too complex");
            Work(1);
            while (p != P.Length)
            {
                switch (P[p])
                {
                    case (byte)'(':
                        s = Pat(p + 1) == ')' ? StartCapture(s, p + 2, CapPosition) : StartCapture(s, p + 1, CapUnfinished);
                        goto done;
                    case (byte)')':
                        s = EndCapture(s, p + 1);
                        goto done;
                    case (byte)'$' when p + 1 == P.Length:
                        s = s == S.Length ? s : -1;
                        goto done;
                    case (byte)'%' when Pat(p + 1) == 'b':
                        s = MatchBalance(s, p + 2);
                        if (s < 0) goto done;
                        p += 4;
                        continue;
                    case (byte)'%' when Pat(p + 1) == 'f':
                    {
                        p += 2;
                        if (Pat(p) != '[') throw new MatchFailure("missing '[' after '%f' in pattern");
                        int ep = ClassEnd(p);
                        int previous = s == 0 ? 0 : S[s - 1];
                        if (!MatchBracketClass(previous, p, ep - 1) && MatchBracketClass(Src(s), p, ep - 1))
                        {
                            p = ep;
                            continue;
                        }
                        s = -1;
                        goto done;
                    }
                    case (byte)'%' when Pat(p + 1) is >= '0' and <= '9':
                        s = MatchCapture(s, Pat(p + 1));
                        if (s < 0) goto done;
                        p += 2;
                        continue;
                    default:
                    {
                        int ep = ClassEnd(p);
                        int suffix = Pat(ep);
                        if (!SingleMatch(s, p, ep))
                        {
                            if (suffix is '*' or '?' or '-')
                            {
                                p = ep + 1;
                                continue;
                            }
                            s = -1;
                            goto done;
                        }
                        switch (suffix)
                        {
                            case '?':
                            {
                                int res = Match(s + 1, ep + 1);
                                if (res >= 0) { s = res; goto done; }
                                p = ep + 1;
                                continue;
                            }
                            case '+':
                                s = MaxExpand(s + 1, p, ep);
                                goto done;
                            case '*':
                                s = MaxExpand(s, p, ep);
                                goto done;
                            case '-':
                                s = MinExpand(s, p, ep);
                                goto done;
                            default:
                                s++;
                                p = ep;
                                continue;
                        }
                    }
                }
            }
        done:
            Depth++;
            return s;
        }

        /// <summary>Scans S from init for the first position where P matches (only init when anchored) with an end other
        /// than lastMatch (gmatch's and gsub's rule; -1: any end). The match's start, or -1; end in matchEnd.</summary>
        public int Scan(int init, bool anchor, int lastMatch, out int matchEnd)
        {
            int s1 = init;
            do
            {
                Level = 0;
                int e = Match(s1, 0);
                if (e >= 0 && e != lastMatch)
                {
                    matchEnd = e;
                    return s1;
                }
            } while (s1++ < S.Length && !anchor);
            matchEnd = -1;
            return -1;
        }

        /// <summary>Pushes capture i (the whole match s..e when there are none and i is 0).</summary>
        public readonly void PushCapture(Lua l, int i, int s, int e)
        {
            if (i >= Level)
            {
                if (i != 0) throw new MatchFailure($"invalid capture index %{i + 1}");
                LuaNative.Push(l.Handle, S[s..e]);
                return;
            }
            int len = CapLen[i];
            if (len == CapUnfinished) throw new MatchFailure("unfinished capture");
            if (len == CapPosition) l.PushInteger(CapInit[i] + 1);
            else LuaNative.Push(l.Handle, S.Slice(CapInit[i], len));
        }

        /// <summary>push_captures: every capture, or the whole match when there are none and s >= 0.</summary>
        public readonly int PushCaptures(Lua l, int s, int e)
        {
            int n = Level == 0 && s >= 0 ? 1 : Level;
            if (!l.CheckStack(n + 4)) throw new MatchFailure("too many captures");
            for (int i = 0; i < n; i++) PushCapture(l, i, s, e);
            return n;
        }

        /// <summary>gsub's add_s: the replacement text repl for the match s..e, appended to output.</summary>
        public readonly void AppendReplacement(ReadOnlySpan<byte> repl, int s, int e, ref OutputBuffer output)
        {
            while (true)
            {
                int esc = repl.IndexOf((byte)'%');
                if (esc < 0) break;
                output.Append(repl[..esc]);
                int c = esc + 1 < repl.Length ? repl[esc + 1] : 0;
                if (c == '%') output.Append((byte)'%');
                else if (c == '0') output.Append(S[s..e]);
                else if (c is >= '1' and <= '9')
                {
                    int i = c - '1';
                    if (i >= Level)
                    {
                        if (i != 0) throw new MatchFailure($"invalid capture index %{i + 1}");
                        output.Append(S[s..e]);
                    }
                    else if (CapLen[i] == CapUnfinished) throw new MatchFailure("unfinished capture");
                    else if (CapLen[i] == CapPosition) output.AppendInteger(CapInit[i] + 1);
                    else output.Append(S.Slice(CapInit[i], CapLen[i]));
                }
                else throw new MatchFailure("invalid use of '%' in replacement string");
                repl = repl[Math.Min(esc + 2, repl.Length)..];
            }
            output.Append(repl);
        }
    }

    /// <summary>gsub's output: grows only within the script's memory budget.</summary>
    private struct OutputBuffer(ScriptMemoryBudget budget)
    {
        private byte[] _buf = [];
        public int Length;

        public readonly ReadOnlySpan<byte> Written => _buf.AsSpan(0, Length);

        private void Grow(int more)
        {
            long need = (long)Length + more;
            if (need > int.MaxValue - 64) throw new MatchFailure(ScriptMemoryBudget.NotEnoughMemory);
            if (need <= _buf.Length) return;
            long size = Math.Max(need, Math.Min(Math.Max(256L, 2L * _buf.Length), int.MaxValue - 64));
            budget.Need(size + need); // the new buffer, and the Lua string made from it
            Array.Resize(ref _buf, (int)size);
        }

        public void Append(ReadOnlySpan<byte> bytes)
        {
            if (Length + (long)bytes.Length > _buf.Length) Grow(bytes.Length);
            bytes.CopyTo(_buf.AsSpan(Length));
            Length += bytes.Length;
        }

        public void Append(byte b)
        {
            if (Length == _buf.Length) Grow(1);
            _buf[Length++] = b;
        }

        public void AppendInteger(long v)
        {
            Span<byte> digits = stackalloc byte[24];
            v.TryFormat(digits, out int n, default, System.Globalization.CultureInfo.InvariantCulture);
            Append(digits[..n]);
        }
    }

    /// <summary>lstrlib's match_class with the C locale's ctype (Lua runs in the "C" locale: bytes from 0x80 are in no
    /// class); an upper-case class letter is the complement, any other letter matches itself.</summary>
    private static bool MatchClass(int c, int cl)
    {
        bool res;
        switch (cl | 0x20)
        {
            case 'a': res = IsAlpha(c); break;
            case 'c': res = c < 32 || c == 127; break;
            case 'd': res = c is >= '0' and <= '9'; break;
            case 'g': res = c is > 32 and < 127; break;
            case 'l': res = c is >= 'a' and <= 'z'; break;
            case 'p': res = c is > 32 and < 127 && !IsAlpha(c) && c is not (>= '0' and <= '9'); break;
            case 's': res = c == ' ' || c is >= 9 and <= 13; break;
            case 'u': res = c is >= 'A' and <= 'Z'; break;
            case 'w': res = IsAlpha(c) || c is >= '0' and <= '9'; break;
            case 'x': res = c is >= '0' and <= '9' or >= 'a' and <= 'f' or >= 'A' and <= 'F'; break;
            case 'z': res = c == 0; break;
            default: return cl == c;
        }
        return cl is >= 'a' and <= 'z' ? res : !res;
    }

    private static bool IsAlpha(int c) => c is >= 'a' and <= 'z' or >= 'A' and <= 'Z';

    /// <summary>Lua's posrelatI: a 1-based start position, negative from the end, clipped to 1.</summary>
    private static long PosRelatI(long pos, int len)
    {
        if (pos > 0) return pos;
        if (pos == 0) return 1;
        if (pos < -(long)len) return 1;
        return len + pos + 1;
    }

    private static bool IsStringArg(Lua l, int i) => l.Type(i) is LuaType.String or LuaType.Number;

    /// <summary>luaL_optinteger: false when the argument is present but has no integer value.</summary>
    private static bool OptInteger(Lua l, int i, long dflt, out long value)
    {
        value = dflt;
        if (l.Type(i) is LuaType.None or LuaType.Nil) return true;
        if (l.ToIntegerX(i) is not { } v) return false;
        value = v;
        return true;
    }

    private static bool NoSpecials(ReadOnlySpan<byte> p) => p.IndexOfAny("^$*+?.([%-"u8) < 0;

    /// <summary>nil, then the arguments as given (same count), for the wrapper to call the native function with.</summary>
    private static int BadArguments(Lua l, int nargs)
    {
        if (!l.CheckStack(nargs + 1)) return 0;
        l.PushNil();
        for (int i = 1; i <= nargs; i++) l.PushCopy(i);
        return nargs + 1;
    }

    private static int Failed(Lua l, int top, string message)
    {
        l.SetTop(top);
        return LuaCallbacks.Fail(l, message);
    }

    private static Matcher NewMatcher(ReadOnlySpan<byte> s, ReadOnlySpan<byte> p, Span<int> caps) => new()
    {
        S = s, P = p, Depth = MaxCalls, CapInit = caps[..MaxCaptures], CapLen = caps[MaxCaptures..], Runtime = LuaRuntime.Current,
    };

    /// <summary>P.str_find(s, p, init, plain) (find = true) and P.str_match(s, p, init): (true, results...) as
    /// string.find / string.match return them (a lone nil when nothing matches).</summary>
    public static int Find(Lua l, bool find)
    {
        int top = l.GetTop();
        if (!IsStringArg(l, 1) || !IsStringArg(l, 2) || !OptInteger(l, 3, 1, out long initArg)) return BadArguments(l, top);
        var s = LuaNative.ToSpan(l.Handle, 1);
        var p = LuaNative.ToSpan(l.Handle, 2);
        long init = PosRelatI(initArg, s.Length) - 1;
        bool plain = find && (l.ToBoolean(4) || NoSpecials(p));
        l.PushBoolean(true);
        if (init > s.Length)
        {
            l.PushNil();
            return 2;
        }
        if (plain)
        {
            int at = s[(int)init..].IndexOf(p);
            if (at < 0) { l.PushNil(); return 2; }
            l.PushInteger(init + at + 1);
            l.PushInteger(init + at + p.Length);
            return 3;
        }
        bool anchor = p.Length > 0 && p[0] == '^';
        if (anchor) p = p[1..];
        Span<int> caps = stackalloc int[2 * MaxCaptures];
        var m = NewMatcher(s, p, caps);
        try
        {
            int start = m.Scan((int)init, anchor, -1, out int end);
            if (start < 0)
            {
                l.PushNil();
                return 2;
            }
            if (!find) return 1 + m.PushCaptures(l, start, end);
            l.PushInteger(start + 1);
            l.PushInteger(end);
            return 3 + m.PushCaptures(l, -1, 0);
        }
        catch (MatchFailure f) { return Failed(l, top, f.Message); }
    }

    /// <summary>P.str_gmatch(s, p, init): (true, the 0-based offset to start at, s, p) after gmatch's argument checks.</summary>
    public static int GmatchInit(Lua l)
    {
        int top = l.GetTop();
        if (!IsStringArg(l, 1) || !IsStringArg(l, 2) || !OptInteger(l, 3, 1, out long initArg)) return BadArguments(l, top);
        int len = LuaNative.ToSpan(l.Handle, 1).Length;
        long init = PosRelatI(initArg, len) - 1;
        if (init > len) init = len + 1;
        l.PushBoolean(true);
        l.PushInteger(init);
        l.PushCopy(1);
        l.PushCopy(2);
        return 4;
    }

    /// <summary>P.str_scan(s, p, src, lastmatch, anchored, firstonly): the next match at or after offset src (only at src
    /// when anchored, a leading '^' of p then stripped) whose end is not lastmatch: (true, start offset, end offset,
    /// captures or the whole match... (only the first with firstonly: gsub's table index)), or (true, nil) when none. s and p are strings (the wrapper checked).</summary>
    public static int Scan(Lua l)
    {
        int top = l.GetTop();
        var s = LuaNative.ToSpan(l.Handle, 1);
        var p = LuaNative.ToSpan(l.Handle, 2);
        int src = (int)l.ToInteger(3), lastMatch = (int)l.ToInteger(4);
        bool anchor = l.ToBoolean(5), firstOnly = l.ToBoolean(6);
        if (anchor && p.Length > 0 && p[0] == '^') p = p[1..];
        l.PushBoolean(true);
        if (src > s.Length)
        {
            l.PushNil();
            return 2;
        }
        Span<int> caps = stackalloc int[2 * MaxCaptures];
        var m = NewMatcher(s, p, caps);
        try
        {
            int start = m.Scan(src, anchor, lastMatch, out int end);
            if (start < 0)
            {
                l.PushNil();
                return 2;
            }
            l.PushInteger(start);
            l.PushInteger(end);
            if (!firstOnly) return 3 + m.PushCaptures(l, start, end);
            m.PushCapture(l, 0, start, end);
            return 4;
        }
        catch (MatchFailure f) { return Failed(l, top, f.Message); }
    }

    /// <summary>P.str_gsub(s, p, repl, n): with a string (or number) replacement, the whole gsub: (true, result, count).
    /// With a table or function: (true, nil, max replacements, s, p, repl) and the wrapper loops over P.str_scan, so the script's
    /// code runs as ordinary hooked Lua.</summary>
    public static int Gsub(Lua l)
    {
        int top = l.GetTop();
        if (!IsStringArg(l, 1) || !IsStringArg(l, 2)) return BadArguments(l, top);
        var s = LuaNative.ToSpan(l.Handle, 1);
        if (!OptInteger(l, 4, (long)s.Length + 1, out long maxN)) return BadArguments(l, top);
        var tr = l.Type(3);
        if (tr is not (LuaType.String or LuaType.Number or LuaType.Table or LuaType.Function)) return BadArguments(l, top);
        l.PushBoolean(true);
        if (tr is LuaType.Table or LuaType.Function)
        {
            l.PushNil();
            l.PushInteger(maxN);
            l.PushCopy(1);
            l.PushCopy(2);
            l.PushCopy(3);
            return 6;
        }
        var p = LuaNative.ToSpan(l.Handle, 2);
        var repl = LuaNative.ToSpan(l.Handle, 3);
        bool anchor = p.Length > 0 && p[0] == '^';
        if (anchor) p = p[1..];
        Span<int> caps = stackalloc int[2 * MaxCaptures];
        var m = NewMatcher(s, p, caps);
        var output = new OutputBuffer(ScriptMemoryBudget.ForCallback());
        try
        {
            long n = 0;
            int src = 0, lastMatch = -1, copied = 0;
            while (n < maxN)
            {
                m.Level = 0;
                int e = m.Match(src, 0);
                if (e >= 0 && e != lastMatch)
                {
                    n++;
                    output.Append(s[copied..src]);
                    m.AppendReplacement(repl, src, e, ref output);
                    src = copied = lastMatch = e;
                }
                else if (src < s.Length) src++;
                else break;
                if (anchor) break;
            }
            if (n == 0) l.PushCopy(1); // unchanged: the subject itself
            else
            {
                output.Append(s[copied..]);
                LuaNative.Push(l.Handle, output.Written);
            }
            l.PushInteger(n);
            return 3;
        }
        catch (MatchFailure f) { return Failed(l, top, f.Message); }
        catch (LuaArgumentException f) { return Failed(l, top, f.Message); }
    }
}
