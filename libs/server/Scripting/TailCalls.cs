// TailCalls: keeps `return redis.call(...)` from being a Lua tail call, so its error still names the script's line.
// Redis's redis.call is a C function: a tail call to it keeps the script's frame (Lua 5.1 and 5.4 alike), and its error
// ends with " script: <sha>, on @user_script:N.". Ours is a Lua wrapper (C# primitives never raise), whose tail call
// replaces the script's frame; the line was then lost. The fix is in the text compiled: `return redis.call(...)` becomes
// `return (redis.call(...))` (a parenthesised call is no tail call).
// Invariants:
//  - Only parentheses are added, on the same lines: line numbers, and the SHA (computed on the body as sent), are unchanged.
//  - Only `return redis.call(` outside strings and comments, with whitespace between the tokens; redis.call returns one
//    value, so the parentheses change nothing else. Text that is not valid Lua is left for the compiler to refuse.
namespace Garnet.server.Scripting;

internal static class TailCalls
{
    /// <summary>The source with every `return redis.call(...)` parenthesised (the same array when there is none).</summary>
    public static byte[] Rewrite(byte[] src)
    {
        if (src.AsSpan().IndexOf("redis"u8) < 0) return src;
        var pairs = new List<(int At, byte Ch)>(); // "(" before "redis", ")" after the call's closing parenthesis
        var pending = new Stack<(int Depth, int OpenAt)>(); // rewritten calls whose closing parenthesis is still ahead
        int depth = 0;
        int i = 0, n = src.Length;
        while (i < n)
        {
            byte c = src[i];
            if (c == '-' && i + 1 < n && src[i + 1] == '-')
            {
                i += 2;
                int level = LongBracket(src, i);
                if (level >= 0) i = SkipLong(src, i, level);
                else while (i < n && src[i] != '\n') i++;
                continue;
            }
            if (c == '[')
            {
                int level = LongBracket(src, i);
                if (level >= 0) { i = SkipLong(src, i, level); continue; }
                i++;
                continue;
            }
            if (c == '"' || c == '\'')
            {
                i++;
                while (i < n && src[i] != c && src[i] != '\n')
                {
                    if (src[i] == '\\') i++;
                    i++;
                }
                i++;
                continue;
            }
            if (c == '(') { depth++; i++; continue; }
            if (c == ')')
            {
                depth--;
                i++;
                if (pending.Count > 0 && pending.Peek().Depth == depth)
                {
                    pairs.Add((pending.Pop().OpenAt, (byte)'('));
                    pairs.Add((i, (byte)')'));
                }
                continue;
            }
            if (IsIdentStart(c))
            {
                int start = i;
                while (i < n && IsIdentPart(src[i])) i++;
                if (i - start == 6 && src.AsSpan(start, 6).SequenceEqual("return"u8) && MatchCall(src, i, out int redisAt, out int parenAt))
                {
                    pending.Push((depth, redisAt));
                    depth++;
                    i = parenAt + 1;
                }
                continue;
            }
            if (c is >= (byte)'0' and <= (byte)'9')
            {
                while (i < n && (IsIdentPart(src[i]) || src[i] == '.')) i++;
                continue;
            }
            i++;
        }
        if (pairs.Count == 0) return src; // (a call never closed is left as is: the compiler refuses it)
        var result = pairs;
        result.Sort((x, y) => x.At.CompareTo(y.At));
        var outp = new byte[src.Length + result.Count];
        int from = 0, o = 0;
        foreach (var (at, ch) in result)
        {
            src.AsSpan(from, at - from).CopyTo(outp.AsSpan(o));
            o += at - from;
            outp[o++] = ch;
            from = at;
        }
        src.AsSpan(from).CopyTo(outp.AsSpan(o));
        return outp;
    }

    /// <summary>After "return": whitespace, "redis", ".", "call", "(" (whitespace allowed between them).</summary>
    private static bool MatchCall(byte[] s, int i, out int redisAt, out int parenAt)
    {
        redisAt = parenAt = -1;
        int j = SkipSpace(s, i);
        if (j == i) return false;
        if (!Word(s, j, "redis"u8)) return false;
        redisAt = j;
        j = SkipSpace(s, j + 5);
        if (j >= s.Length || s[j] != '.') return false;
        j = SkipSpace(s, j + 1);
        if (!Word(s, j, "call"u8)) return false;
        j = SkipSpace(s, j + 4);
        if (j >= s.Length || s[j] != '(') return false;
        parenAt = j;
        return true;
    }

    private static bool Word(byte[] s, int j, ReadOnlySpan<byte> w) =>
        j + w.Length <= s.Length && s.AsSpan(j, w.Length).SequenceEqual(w) && (j + w.Length == s.Length || !IsIdentPart(s[j + w.Length]));

    private static int SkipSpace(byte[] s, int j)
    {
        while (j < s.Length && s[j] is (byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n') j++;
        return j;
    }

    /// <summary>The level of a long bracket "[" "="* "[" at i, or -1.</summary>
    private static int LongBracket(byte[] s, int i)
    {
        if (i >= s.Length || s[i] != '[') return -1;
        int j = i + 1;
        while (j < s.Length && s[j] == '=') j++;
        return j < s.Length && s[j] == '[' ? j - i - 1 : -1;
    }

    /// <summary>Past the long string or comment opened at i (its end, or the text's end).</summary>
    private static int SkipLong(byte[] s, int i, int level)
    {
        int j = i + level + 2;
        while (j < s.Length)
        {
            if (s[j] == ']')
            {
                int k = j + 1;
                while (k < s.Length && s[k] == '=') k++;
                if (k < s.Length && s[k] == ']' && k - j - 1 == level) return k + 1;
            }
            j++;
        }
        return s.Length;
    }

    private static bool IsIdentStart(byte c) => c is >= (byte)'a' and <= (byte)'z' or >= (byte)'A' and <= (byte)'Z' or (byte)'_' || c >= 0x80;
    private static bool IsIdentPart(byte c) => IsIdentStart(c) || c is >= (byte)'0' and <= (byte)'9';
}
