// GlobPattern against a reference: a plain recursive transcription of Redis 7.2's stringmatchlen (util.c, with its
// skipLongerMatches and nesting cap), run on short random patterns and texts, seeded and bounded in time (the seed is
// printed; GLOB_FUZZ_SEED replays one). Plus hostile patterns (docs/security.md) through a real client: KEYS, SCAN
// MATCH, SSCAN MATCH, PSUBSCRIBE + PUBLISH and PUBSUB CHANNELS answer, and the server keeps serving.
using System.Diagnostics;
using System.Text;
using Garnet.client;
using Garnet.server.Util;

namespace Garnet.test;

[TestFixture]
public class GlobPatternTests
{
    private static readonly byte[] Alphabet = "ab?*[]^-\\Az\u00c0\u00ff"u8.ToArray().Concat(new byte[] { 0xC0, 0xFF, (byte)'B' }).ToArray();

    [Test, CancelAfter(30_000)]
    public void MatchesTheRecursiveReferenceOnRandomPatterns()
    {
        int seed = int.TryParse(Environment.GetEnvironmentVariable("GLOB_FUZZ_SEED"), out int s) ? s : Random.Shared.Next();
        TestContext.Out.WriteLine($"glob fuzz seed {seed} (GLOB_FUZZ_SEED={seed} replays it)");
        var rnd = new Random(seed);
        var sw = Stopwatch.StartNew();
        long cases = 0;
        while (sw.Elapsed < TimeSpan.FromSeconds(3))
        {
            var pattern = RandomBytes(rnd, rnd.Next(0, 10));
            var text = RandomBytes(rnd, rnd.Next(0, 8));
            bool nocase = rnd.Next(4) == 0;
            bool expected = Reference(pattern, text, nocase);
            Assert.That(GlobPattern.Matches(pattern, text, nocase), Is.EqualTo(expected),
                $"seed {seed}: pattern '{Show(pattern)}' text '{Show(text)}' nocase {nocase}");
            // The char overload (keys and patterns decoded as Latin-1) agrees.
            Assert.That(GlobPattern.Matches(Encoding.Latin1.GetString(pattern), Encoding.Latin1.GetString(text), nocase), Is.EqualTo(expected),
                $"seed {seed} (chars): pattern '{Show(pattern)}' text '{Show(text)}'");
            cases++;
        }
        Assert.That(cases, Is.GreaterThan(10_000));
    }

    [Test]
    public void RedisCornerCases()
    {
        Assert.That(GlobPattern.Matches("*", ""), Is.False, "Redis: an empty text matches only the empty pattern");
        Assert.That(GlobPattern.Matches("", ""), Is.True);
        Assert.That(GlobPattern.Matches("a*", "a"), Is.True);
        Assert.That(GlobPattern.Matches("[a-\u00ff]", "\u00c0"), Is.False, "C's signed char: 0xFF is -1, below 'a'");
        Assert.That(GlobPattern.Matches("[\u00c0-\u00ff]", "\u00d0"), Is.True);
        Assert.That(GlobPattern.Matches("[^", "x"), Is.True, "an unterminated class ends with the pattern");
        Assert.That(GlobPattern.Matches("a\\", "a\\"), Is.True, "a trailing backslash is literal");
    }

    [Test, CancelAfter(20_000)]
    public void HostilePatternsAreIterativeAndBounded()
    {
        // 600 '*?' groups on a thread with a 128 KB stack: the recursive matcher overflowed it.
        var pattern = Encoding.ASCII.GetBytes(string.Concat(Enumerable.Repeat("*?", 600)));
        var text = Encoding.ASCII.GetBytes(new string('a', 5000));
        bool? longMatch = null, shortMatch = null;
        var t = new Thread(() =>
        {
            longMatch = GlobPattern.Matches(pattern, text);
            shortMatch = GlobPattern.Matches(pattern, text.AsSpan(0, 599));
        }, 128 * 1024);
        t.Start();
        t.Join();
        Assert.That(longMatch, Is.True);
        Assert.That(shortMatch, Is.False);

        // Redis's nesting cap: past 1000 '*' groups nothing matches (CVE-2024-31228); at 1000 the match is exact.
        Assert.That(GlobPattern.Matches(string.Concat(Enumerable.Repeat("*?", 1001)), new string('a', 5000)), Is.False);
        Assert.That(GlobPattern.Matches(string.Concat(Enumerable.Repeat("*?", 1000)), new string('a', 5000)), Is.True);
        Assert.That(GlobPattern.Matches(string.Concat(Enumerable.Repeat("*?", 1000)) + "*", new string('a', 5000)), Is.True);

        // Time is O(pattern x text): the classic exponential patterns stay cheap.
        var sw = Stopwatch.StartNew();
        Assert.That(GlobPattern.Matches(string.Concat(Enumerable.Repeat("a*", 500)) + "b", new string('a', 20_000)), Is.False);
        Assert.That(GlobPattern.Matches(string.Concat(Enumerable.Repeat("*[a-z]", 900)) + "x", new string('a', 20_000)), Is.False);
        Assert.That(sw.Elapsed, Is.LessThan(TimeSpan.FromSeconds(10)));
    }

    [Test, CancelAfter(60_000)]
    public void LongPatternThroughEveryCommandThatMatches()
    {
        using var server = new TestServer();
        using var c = server.Client();
        string pattern = string.Concat(Enumerable.Repeat("*?", 600));
        string longKey = new string('k', 700);
        c.Execute("SET", longKey, "v");
        for (int i = 0; i < 100; i++) c.Execute("SET", "short:" + i, "v");
        c.Execute("SADD", "set", longKey, "m1", "m2");
        c.Execute("HSET", "hash", longKey, "v");
        c.Execute("ZADD", "zset", "1", longKey);

        var keys = c.Execute("KEYS", pattern);
        Assert.That(keys.Elements!.Select(e => e.Text), Is.EqualTo(new[] { longKey }));
        var scanned = new List<string>();
        string cursor = "0";
        for (int round = 0; round < 1000; round++)
        {
            var r = c.Execute("SCAN", cursor, "MATCH", pattern, "COUNT", "1000");
            cursor = r.Elements![0].Text!;
            scanned.AddRange(r.Elements[1].Elements!.Select(e => e.Text!));
            if (cursor == "0") break;
        }
        Assert.That(scanned, Is.EqualTo(new[] { longKey }));
        Assert.That(c.Execute("SSCAN", "set", "0", "MATCH", pattern).Elements![1].Elements!.Select(e => e.Text), Is.EqualTo(new[] { longKey }));
        Assert.That(c.Execute("HSCAN", "hash", "0", "MATCH", pattern).Elements![1].Elements!.Length, Is.EqualTo(2));
        Assert.That(c.Execute("ZSCAN", "zset", "0", "MATCH", pattern).Elements![1].Elements!.Length, Is.EqualTo(2));
        Assert.That(c.Execute("CONFIG", "GET", pattern).Elements!.Length, Is.EqualTo(0));
        Assert.That(c.Execute("COMMAND", "LIST", "FILTERBY", "PATTERN", pattern).Elements!.Length, Is.EqualTo(0));
        Assert.That(c.Execute("FUNCTION", "LIST", "LIBRARYNAME", pattern).Elements!.Length, Is.EqualTo(0));

        using var sub = server.Client();
        sub.Execute("PSUBSCRIBE", pattern);
        using var sub2 = server.Client();
        sub2.Execute("SUBSCRIBE", longKey);
        Assert.That(c.Execute("PUBLISH", longKey, "hello").Integer, Is.EqualTo(2));
        var message = sub.Read();
        Assert.That(message.Elements![0].Text, Is.EqualTo("pmessage"));
        Assert.That(message.Elements[3].Text, Is.EqualTo("hello"));
        Assert.That(c.Execute("PUBLISH", "short", "x").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("PUBSUB", "CHANNELS", pattern).Elements!.Select(e => e.Text), Is.EqualTo(new[] { longKey }));
        RespAssert.Simple(c.Execute("PING"), "PONG");
    }

    private static byte[] RandomBytes(Random rnd, int n)
    {
        var b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = Alphabet[rnd.Next(Alphabet.Length)];
        return b;
    }

    private static string Show(byte[] b) => string.Concat(b.Select(x => x is >= 32 and < 127 ? ((char)x).ToString() : $"\\x{x:x2}"));

    // ---- reference: Redis 7.2's recursive algorithm, transcribed on (array, offset, length) with C's signed char ----

    private static bool Reference(byte[] p, byte[] s, bool nocase)
    {
        bool skip = false;
        return Ref(p, 0, p.Length, s, 0, s.Length, nocase, ref skip, 0);
    }

    private static int C(byte[] a, int i) => i < a.Length ? (sbyte)a[i] : 0; // reading the NUL past the end, as C does

    private static int Lower(int c) => c >= 'A' && c <= 'Z' ? c + 32 : c;

    private static bool Ref(byte[] pat, int p, int plen, byte[] str, int s, int slen, bool nocase, ref bool skip, int nesting)
    {
        if (nesting > 1000) return false;
        while (plen > 0 && slen > 0)
        {
            switch (C(pat, p))
            {
                case '*':
                    while (plen > 0 && C(pat, p + 1) == '*') { p++; plen--; }
                    if (plen == 1) return true;
                    while (slen > 0)
                    {
                        if (Ref(pat, p + 1, plen - 1, str, s, slen, nocase, ref skip, nesting + 1)) return true;
                        if (skip) return false;
                        s++; slen--;
                    }
                    skip = true;
                    return false;
                case '?':
                    s++; slen--;
                    break;
                case '[':
                {
                    p++; plen--;
                    bool not = C(pat, p) == '^';
                    if (not) { p++; plen--; }
                    bool match = false;
                    while (true)
                    {
                        if (C(pat, p) == '\\' && plen >= 2)
                        {
                            p++; plen--;
                            if (C(pat, p) == C(str, s)) match = true;
                        }
                        else if (C(pat, p) == ']') break;
                        else if (plen == 0) { p--; plen++; break; }
                        else if (plen >= 3 && C(pat, p + 1) == '-')
                        {
                            int start = C(pat, p), end = C(pat, p + 2), c = C(str, s);
                            if (start > end) (start, end) = (end, start);
                            if (nocase) { start = Lower(start); end = Lower(end); c = Lower(c); }
                            p += 2; plen -= 2;
                            if (c >= start && c <= end) match = true;
                        }
                        else if (nocase ? Lower(C(pat, p)) == Lower(C(str, s)) : C(pat, p) == C(str, s)) match = true;
                        p++; plen--;
                    }
                    if (not) match = !match;
                    if (!match) return false;
                    s++; slen--;
                    break;
                }
                default:
                    if (C(pat, p) == '\\' && plen >= 2) { p++; plen--; }
                    if (nocase ? Lower(C(pat, p)) != Lower(C(str, s)) : C(pat, p) != C(str, s)) return false;
                    s++; slen--;
                    break;
            }
            p++; plen--;
            if (slen == 0)
            {
                while (C(pat, p) == '*') { p++; plen--; }
                break;
            }
        }
        return plen == 0 && slen == 0;
    }
}
