// GlobPattern: Redis's stringmatchlen: * ? [abc] [^a] [a-z] and backslash escapes, optionally case-insensitive.
// Invariant: recursion depth is bounded by the number of '*' in the pattern, and consecutive '*' collapse,
// so hostile patterns cannot blow the stack.
namespace Garnet.server.Util;

public static class GlobPattern
{
    public static bool Matches(ReadOnlySpan<char> pattern, ReadOnlySpan<char> text, bool ignoreCase = false)
    {
        int skipLongerMatches = 0;
        return Match(pattern, text, ignoreCase, ref skipLongerMatches, 0);
    }

    private static char Fold(char c, bool ignoreCase) => ignoreCase ? char.ToLowerInvariant(c) : c;

    private static bool Match(ReadOnlySpan<char> p, ReadOnlySpan<char> s, bool nocase, ref int skipLonger, int depth)
    {
        if (depth > 1000) return false;
        while (p.Length > 0 && s.Length > 0)
        {
            switch (p[0])
            {
                case '*':
                    while (p.Length > 1 && p[1] == '*') p = p[1..];
                    if (p.Length == 1) return true;
                    while (s.Length > 0)
                    {
                        if (Match(p[1..], s, nocase, ref skipLonger, depth + 1)) return true;
                        if (skipLonger != 0) return false;
                        s = s[1..];
                    }
                    skipLonger = 1;
                    return false;
                case '?':
                    s = s[1..];
                    break;
                case '[':
                {
                    p = p[1..];
                    bool not = p.Length > 0 && p[0] == '^';
                    if (not) p = p[1..];
                    bool match = false;
                    while (true)
                    {
                        if (p.Length == 0) break;
                        if (p[0] == '\\' && p.Length >= 2)
                        {
                            p = p[1..];
                            if (p[0] == s[0]) match = true;
                        }
                        else if (p[0] == ']') break;
                        else if (p.Length >= 3 && p[1] == '-')
                        {
                            char start = Fold(p[0], nocase), end = Fold(p[2], nocase), c = Fold(s[0], nocase);
                            if (start > end) (start, end) = (end, start);
                            p = p[2..];
                            if (c >= start && c <= end) match = true;
                        }
                        else if (Fold(p[0], nocase) == Fold(s[0], nocase)) match = true;
                        p = p[1..];
                    }
                    if (p.Length == 0)
                    {
                        // unterminated [: Redis treats the pattern as ending here
                        if (not) match = !match;
                        if (!match) return false;
                        s = s[1..];
                        return s.Length == 0;
                    }
                    if (not) match = !match;
                    if (!match) return false;
                    s = s[1..];
                    break;
                }
                case '\\':
                    if (p.Length >= 2) p = p[1..];
                    if (Fold(p[0], nocase) != Fold(s[0], nocase)) return false;
                    s = s[1..];
                    break;
                default:
                    if (Fold(p[0], nocase) != Fold(s[0], nocase)) return false;
                    s = s[1..];
                    break;
            }
            p = p[1..];
            if (s.Length == 0)
            {
                while (p.Length > 0 && p[0] == '*') p = p[1..];
                break;
            }
        }
        return p.Length == 0 && s.Length == 0;
    }
}
