// LuaTokens: splits Lua 5.4 source into tokens (names, strings, numbers, symbols) with their byte offsets, skipping
// whitespace and comments. Only for TailCalls, which reads the shape of `return` statements.
// Invariants:
//  - Never throws: text that is not valid Lua (an unfinished string or long bracket) ends the token list there
//    (Complete false); the compiler refuses such text by itself.
//  - Keywords are Name tokens (the reader compares their text). Strings keep their quotes or brackets; a string's
//    escapes are skipped, not decoded.
namespace Garnet.server.Scripting;

internal enum LuaTokenKind : byte { Name, String, Number, Symbol }

internal readonly record struct LuaToken(LuaTokenKind Kind, int Start, int End)
{
    public int Length => End - Start;
}

internal static class LuaTokens
{
    /// <summary>The tokens of src; complete is false when the text ended inside a string or long bracket.</summary>
    public static List<LuaToken> Read(ReadOnlySpan<byte> src, out bool complete)
    {
        var tokens = new List<LuaToken>();
        complete = false;
        int i = 0, n = src.Length;
        while (true)
        {
            while (i < n && src[i] is (byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n' or (byte)'\f' or (byte)'\v') i++;
            if (i >= n) break;
            byte c = src[i];
            int start = i;
            if (c == '-' && i + 1 < n && src[i + 1] == '-')
            {
                i += 2;
                int level = LongBracket(src, i);
                if (level >= 0)
                {
                    i = SkipLong(src, i, level);
                    if (i < 0) return tokens;
                }
                else while (i < n && src[i] != '\n') i++;
                continue;
            }
            if (c == '[' && LongBracket(src, i) is >= 0 and var lvl)
            {
                i = SkipLong(src, i, lvl);
                if (i < 0) return tokens;
                tokens.Add(new(LuaTokenKind.String, start, i));
                continue;
            }
            if (c is (byte)'"' or (byte)'\'')
            {
                i++;
                while (i < n && src[i] != c && src[i] != '\n')
                {
                    if (src[i] == '\\') i++; // the escaped byte (a newline after '\' is part of the string)
                    i++;
                }
                if (i >= n || src[i] != c) return tokens;
                i++;
                tokens.Add(new(LuaTokenKind.String, start, i));
                continue;
            }
            if (IsNameStart(c))
            {
                while (i < n && IsNamePart(src[i])) i++;
                tokens.Add(new(LuaTokenKind.Name, start, i));
                continue;
            }
            if (c is >= (byte)'0' and <= (byte)'9' || (c == '.' && i + 1 < n && src[i + 1] is >= (byte)'0' and <= (byte)'9'))
            {
                // digits, letters (hex, exponents), dots, and an exponent's sign
                while (i < n && (IsNamePart(src[i]) || src[i] == '.' ||
                                 (src[i] is (byte)'+' or (byte)'-' && src[i - 1] is (byte)'e' or (byte)'E' or (byte)'p' or (byte)'P')))
                    i++;
                tokens.Add(new(LuaTokenKind.Number, start, i));
                continue;
            }
            i += SymbolLength(src, i);
            tokens.Add(new(LuaTokenKind.Symbol, start, i));
        }
        complete = true;
        return tokens;
    }

    /// <summary>Whether token t of src is exactly text.</summary>
    public static bool Is(ReadOnlySpan<byte> src, LuaToken t, ReadOnlySpan<byte> text) => src[t.Start..t.End].SequenceEqual(text);

    private static int SymbolLength(ReadOnlySpan<byte> s, int i)
    {
        if (i + 2 < s.Length && s[i] == '.' && s[i + 1] == '.' && s[i + 2] == '.') return 3;
        if (i + 1 < s.Length)
        {
            var two = s.Slice(i, 2);
            if (two.SequenceEqual("=="u8) || two.SequenceEqual("~="u8) || two.SequenceEqual("<="u8) || two.SequenceEqual(">="u8) ||
                two.SequenceEqual("//"u8) || two.SequenceEqual("::"u8) || two.SequenceEqual("<<"u8) || two.SequenceEqual(">>"u8) ||
                two.SequenceEqual(".."u8))
                return 2;
        }
        return 1;
    }

    /// <summary>The level of a long bracket "[" "="* "[" at i, or -1.</summary>
    private static int LongBracket(ReadOnlySpan<byte> s, int i)
    {
        if (i >= s.Length || s[i] != '[') return -1;
        int j = i + 1;
        while (j < s.Length && s[j] == '=') j++;
        return j < s.Length && s[j] == '[' ? j - i - 1 : -1;
    }

    /// <summary>Past the long string or comment opened at i; -1 when it is never closed.</summary>
    private static int SkipLong(ReadOnlySpan<byte> s, int i, int level)
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
        return -1;
    }

    private static bool IsNameStart(byte c) => c is >= (byte)'a' and <= (byte)'z' or >= (byte)'A' and <= (byte)'Z' or (byte)'_' || c >= 0x80;
    private static bool IsNamePart(byte c) => IsNameStart(c) || c is >= (byte)'0' and <= (byte)'9';
}
