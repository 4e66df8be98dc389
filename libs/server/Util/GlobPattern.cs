// GlobPattern: Redis's stringmatchlen (util.c): * ? [abc] [^a] [a-z] and backslash escapes, optionally case-insensitive,
// on bytes (pub/sub channels and patterns, keys) or on chars (command and parameter names).
// Invariants:
//  - Same results as Redis 7.2 for every input, including its corner cases: an unterminated [ matches as if the pattern
//    ended there, a range's ends are swapped before they are lower-cased, a backslash inside [] compares case-sensitively,
//    a trailing backslash is a literal one; case folding is ASCII only (C's tolower in the C locale).
//  - Recursion depth is bounded by the number of '*' groups (consecutive '*' collapse) and cut at 1000, and a failed
//    '*' tail stops the outer '*'s from retrying (Redis's skipLongerMatches), so hostile patterns cannot blow the stack
//    or take exponential time.
using System.Numerics;

namespace Garnet.server.Util;

public static class GlobPattern
{
    public static bool Matches(ReadOnlySpan<char> pattern, ReadOnlySpan<char> text, bool ignoreCase = false)
    {
        bool skipLongerMatches = false;
        return Match(pattern, text, ignoreCase, ref skipLongerMatches, 0);
    }

    public static bool Matches(ReadOnlySpan<byte> pattern, ReadOnlySpan<byte> text, bool ignoreCase = false)
    {
        bool skipLongerMatches = false;
        return Match(pattern, text, ignoreCase, ref skipLongerMatches, 0);
    }

    private static int Fold<T>(T c, bool nocase) where T : IBinaryInteger<T>
    {
        int v = int.CreateTruncating(c);
        return nocase && v >= 'A' && v <= 'Z' ? v + 32 : v;
    }

    private static bool Is<T>(T c, char ch) where T : IBinaryInteger<T> => int.CreateTruncating(c) == ch;

    private static bool Match<T>(ReadOnlySpan<T> p, ReadOnlySpan<T> s, bool nocase, ref bool skipLonger, int depth) where T : IBinaryInteger<T>
    {
        if (depth > 1000) return false;
        while (p.Length > 0 && s.Length > 0)
        {
            int head = int.CreateTruncating(p[0]);
            switch (head)
            {
                case '*':
                    while (p.Length > 1 && Is(p[1], '*')) p = p[1..];
                    if (p.Length == 1) return true;
                    while (s.Length > 0)
                    {
                        if (Match(p[1..], s, nocase, ref skipLonger, depth + 1)) return true;
                        if (skipLonger) return false;
                        s = s[1..];
                    }
                    // The rest of the pattern matches nowhere in the rest of the text: earlier '*'s need not try longer runs.
                    skipLonger = true;
                    return false;
                case '?':
                    s = s[1..];
                    break;
                case '[':
                {
                    p = p[1..];
                    bool not = p.Length > 0 && Is(p[0], '^');
                    if (not) p = p[1..];
                    bool match = false;
                    while (true)
                    {
                        if (p.Length >= 2 && Is(p[0], '\\'))
                        {
                            p = p[1..];
                            if (p[0] == s[0]) match = true;
                        }
                        else if (p.Length > 0 && Is(p[0], ']')) break;
                        else if (p.Length == 0)
                        {
                            // Unterminated: the class ends with the pattern (Redis steps back so that the p[1..] below empties it).
                            break;
                        }
                        else if (p.Length >= 3 && Is(p[1], '-'))
                        {
                            int start = int.CreateTruncating(p[0]), end = int.CreateTruncating(p[2]);
                            if (start > end) (start, end) = (end, start);
                            int c = int.CreateTruncating(s[0]);
                            if (nocase)
                            {
                                start = Fold(start, true);
                                end = Fold(end, true);
                                c = Fold(c, true);
                            }
                            p = p[2..];
                            if (c >= start && c <= end) match = true;
                        }
                        else if (Fold(p[0], nocase) == Fold(s[0], nocase)) match = true;
                        p = p[1..];
                    }
                    if (not) match = !match;
                    if (!match) return false;
                    s = s[1..];
                    if (p.Length == 0) return s.Length == 0;
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
                while (p.Length > 0 && Is(p[0], '*')) p = p[1..];
                break;
            }
        }
        return p.Length == 0 && s.Length == 0;
    }
}
