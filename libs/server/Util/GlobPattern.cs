// GlobPattern: Redis's stringmatchlen (util.c): * ? [abc] [^a] [a-z] and backslash escapes, optionally case-insensitive,
// on bytes (pub/sub channels and patterns, keys) or on chars (command and parameter names; keys decoded as Latin-1).
// Invariants:
//  - Same results as Redis 7.2 for every input, including its corner cases: an empty text matches only the empty pattern
//    (so "*" does not match ""), an unterminated [ matches as if the pattern ended there, a range's ends are swapped
//    before they are lower-cased, a backslash inside [] compares case-sensitively, a trailing backslash is a literal one,
//    case folding is ASCII only (C's tolower in the C locale), and bytes 0x80-0xFF compare in ranges as C's signed char.
//  - No recursion: every token other than '*' consumes exactly one character, so the match is the classic greedy scan that
//    remembers only the last '*' (equivalent to Redis's recursion with skipLongerMatches). Worst case
//    O(pattern length x text length) time, O(1) extra space, whatever thread (and stack size) runs it.
//  - Redis's nesting cap (CVE-2024-31228): a pattern whose 1001st group of '*'s is reached with more pattern after it
//    matches nothing, as Redis's recursion gives up past depth 1000.
using System.Numerics;

namespace Garnet.server.Util;

public static class GlobPattern
{
    /// <summary>Redis gives up past this many nested '*' groups (util.c, "nesting > 1000").</summary>
    public const int MaxStarGroups = 1000;

    public static bool Matches(ReadOnlySpan<char> pattern, ReadOnlySpan<char> text, bool ignoreCase = false) =>
        Match(pattern, text, ignoreCase);

    public static bool Matches(ReadOnlySpan<byte> pattern, ReadOnlySpan<byte> text, bool ignoreCase = false) =>
        Match(pattern, text, ignoreCase);

    /// <summary>The value C sees for a pattern or text character: a signed char for 0x80-0xFF.</summary>
    private static int Value<T>(T c) where T : IBinaryInteger<T>
    {
        int v = int.CreateTruncating(c);
        return v is >= 0x80 and <= 0xFF ? v - 256 : v;
    }

    private static int Fold(int v, bool nocase) => nocase && v >= 'A' && v <= 'Z' ? v + 32 : v;

    private static bool Is<T>(T c, char ch) where T : IBinaryInteger<T> => int.CreateTruncating(c) == ch;

    private static bool Match<T>(ReadOnlySpan<T> p, ReadOnlySpan<T> s, bool nocase) where T : IBinaryInteger<T>
    {
        if (s.Length == 0) return p.Length == 0;
        int pi = 0, si = 0;
        int starNext = -1, starText = 0; // pattern index after the last '*' group, and where its run of text ends
        int starGroups = 0, starGroupsAtStar = 0; // '*' groups passed, now and when the last one was
        while (true)
        {
            if (si == s.Length)
            {
                // Text consumed: only '*'s may remain.
                while (pi < p.Length && Is(p[pi], '*')) pi++;
                if (pi == p.Length) return true;
            }
            else if (pi < p.Length && Is(p[pi], '*'))
            {
                while (pi < p.Length && Is(p[pi], '*')) pi++;
                if (pi == p.Length) return true;
                if (++starGroups > MaxStarGroups) return false;
                starNext = pi;
                starText = si;
                starGroupsAtStar = starGroups;
                continue;
            }
            else if (pi < p.Length)
            {
                int next = MatchOne(p, pi, Value(s[si]), nocase);
                if (next >= 0)
                {
                    pi = next;
                    si++;
                    continue;
                }
            }
            // Mismatch (or pattern ended before the text): let the last '*' take one more character.
            if (starNext < 0 || ++starText >= s.Length) return false;
            pi = starNext;
            si = starText;
            starGroups = starGroupsAtStar;
        }
    }

    /// <summary>Matches the single-character token at p[pi] (not '*') against c; the index after it, or -1.</summary>
    private static int MatchOne<T>(ReadOnlySpan<T> p, int pi, int c, bool nocase) where T : IBinaryInteger<T>
    {
        int head = int.CreateTruncating(p[pi]);
        if (head == '?') return pi + 1;
        if (head == '\\')
        {
            if (pi + 1 < p.Length) pi++; // a trailing backslash is a literal one
            return Fold(Value(p[pi]), nocase) == Fold(c, nocase) ? pi + 1 : -1;
        }
        if (head != '[') return Fold(Value(p[pi]), nocase) == Fold(c, nocase) ? pi + 1 : -1;

        pi++;
        bool not = pi < p.Length && Is(p[pi], '^');
        if (not) pi++;
        bool match = false;
        while (pi < p.Length) // an unterminated class ends with the pattern
        {
            if (Is(p[pi], '\\') && pi + 1 < p.Length)
            {
                pi++;
                if (Value(p[pi]) == c) match = true;
            }
            else if (Is(p[pi], ']')) { pi++; break; }
            else if (pi + 2 < p.Length && Is(p[pi + 1], '-'))
            {
                int start = Value(p[pi]), end = Value(p[pi + 2]);
                if (start > end) (start, end) = (end, start);
                int folded = Fold(c, nocase);
                if (Fold(start, nocase) <= folded && folded <= Fold(end, nocase)) match = true;
                pi += 2;
            }
            else if (Fold(Value(p[pi]), nocase) == Fold(c, nocase)) match = true;
            pi++;
        }
        return match != not ? pi : -1;
    }
}
