// Sorted sets through raw RESP: replies (RESP2 and RESP3 shapes), errors and edge cases as Redis 7.2 gives them, ranges
// by rank, score and lex, ranks on a 100k-member set, the store commands, DUMP/RESTORE (with a payload captured from
// Redis 7.0.15), and the ordered structure itself against a simple model.
using Garnet.client;
using Garnet.server.Commands;
using Garnet.server.Objects;

namespace Garnet.test;

[TestFixture]
public class SortedSetCommandTests : ServerFixture
{
    private RespClient C() => new("127.0.0.1", _server.Port);

    private static string[] Texts(RespValue v) => v.Elements!.Select(e => e.Text!).ToArray();

    [Test]
    public void AddScoreCardAndOptions()
    {
        using var c = C();
        Assert.That(c.Execute("ZADD", "z1", "1", "a", "2", "b", "3", "c").Integer, Is.EqualTo(3));
        Assert.That(c.Execute("ZADD", "z1", "10", "a", "4", "d").Integer, Is.EqualTo(1), "only new members count");
        Assert.That(c.Execute("ZADD", "z1", "CH", "11", "a", "4", "d", "5", "e").Integer, Is.EqualTo(2), "CH: added + changed");
        Assert.That(c.Execute("ZCARD", "z1").Integer, Is.EqualTo(5));
        Assert.That(c.Execute("ZCARD", "nosuch").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("ZSCORE", "z1", "a").Text, Is.EqualTo("11"));
        Assert.That(c.Execute("ZSCORE", "z1", "zz").IsNull);
        Assert.That(c.Execute("ZSCORE", "nosuch", "a").IsNull);
        // NX / XX / GT / LT
        Assert.That(c.Execute("ZADD", "z1", "NX", "100", "a", "6", "f").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("ZSCORE", "z1", "a").Text, Is.EqualTo("11"), "NX never updates");
        Assert.That(c.Execute("ZADD", "z1", "XX", "CH", "12", "a", "7", "g").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("ZSCORE", "z1", "g").IsNull, "XX never adds");
        Assert.That(c.Execute("ZADD", "z1", "GT", "CH", "1", "a", "13", "b").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("ZSCORE", "z1", "a").Text, Is.EqualTo("12"));
        Assert.That(c.Execute("ZSCORE", "z1", "b").Text, Is.EqualTo("13"));
        Assert.That(c.Execute("ZADD", "z1", "LT", "CH", "20", "a", "0", "c", "9", "h").Integer, Is.EqualTo(2), "LT adds new members");
        Assert.That(c.Execute("ZSCORE", "z1", "c").Text, Is.EqualTo("0"));
        // INCR
        Assert.That(c.Execute("ZADD", "z1", "INCR", "2.5", "a").Text, Is.EqualTo("14.5"));
        Assert.That(c.Execute("ZADD", "z1", "NX", "INCR", "1", "a").IsNull, "NX INCR on an existing member");
        Assert.That(c.Execute("ZADD", "z1", "XX", "INCR", "1", "new").IsNull);
        Assert.That(c.Execute("ZADD", "z1", "GT", "INCR", "-1", "a").IsNull);
        Assert.That(c.Execute("ZADD", "nokey", "XX", "1", "a").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXISTS", "nokey").Integer, Is.EqualTo(0), "XX creates nothing");
        Assert.That(c.Execute("ZINCRBY", "z1", "0.5", "a").Text, Is.EqualTo("15"));
        Assert.That(c.Execute("ZINCRBY", "zi", "0.1", "x").Text, Is.EqualTo("0.1"));
        Assert.That(c.Execute("ZINCRBY", "zi", "0.2", "x").Text, Is.EqualTo("0.30000000000000004"));
        // errors
        Assert.That(c.Execute("ZADD", "z1", "NX", "XX", "1", "a").Text, Is.EqualTo("ERR XX and NX options at the same time are not compatible"));
        Assert.That(c.Execute("ZADD", "z1", "GT", "LT", "1", "a").Text, Is.EqualTo("ERR GT, LT, and/or NX options at the same time are not compatible"));
        Assert.That(c.Execute("ZADD", "z1", "GT", "NX", "1", "a").Text, Is.EqualTo("ERR GT, LT, and/or NX options at the same time are not compatible"));
        Assert.That(c.Execute("ZADD", "z1", "INCR", "1", "a", "2", "b").Text, Is.EqualTo("ERR INCR option supports a single increment-element pair"));
        Assert.That(c.Execute("ZADD", "z1", "x", "a").Text, Is.EqualTo("ERR value is not a valid float"));
        Assert.That(c.Execute("ZADD", "z1", "nan", "a").Text, Is.EqualTo("ERR value is not a valid float"));
        Assert.That(c.Execute("ZADD", "z1", "1", "a", "2").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("ZADD", "z1", "CH", "1").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("ZADD", "z1", "1", "a", "x", "b").Text, Is.EqualTo("ERR value is not a valid float"));
        Assert.That(c.Execute("ZSCORE", "z1", "b").Text, Is.EqualTo("13"), "a bad score changes nothing");
        Assert.That(c.Execute("ZINCRBY", "z1", "abc", "a").Text, Is.EqualTo("ERR value is not a valid float"));
        c.Execute("ZADD", "zinf", "inf", "a");
        Assert.That(c.Execute("ZINCRBY", "zinf", "-inf", "a").Text, Is.EqualTo("ERR resulting score is not a number (NaN)"));
        Assert.That(c.Execute("ZADD", "zinf", "INCR", "-inf", "a").Text, Is.EqualTo("ERR resulting score is not a number (NaN)"));
        Assert.That(c.Execute("ZSCORE", "zinf", "a").Text, Is.EqualTo("inf"));
        // ZMSCORE and ZREM
        var ms = c.Execute("ZMSCORE", "z1", "a", "nope", "b");
        Assert.That(ms.Elements![0].Text, Is.EqualTo("15"));
        Assert.That(ms.Elements[1].IsNull);
        Assert.That(ms.Elements[2].Text, Is.EqualTo("13"));
        Assert.That(c.Execute("ZMSCORE", "nosuch", "a", "b").Elements!.All(e => e.IsNull));
        Assert.That(c.Execute("ZREM", "zinf", "zz", "a").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("EXISTS", "zinf").Integer, Is.EqualTo(0), "Redis never keeps an empty sorted set");
        Assert.That(c.Execute("ZREM", "nosuch", "a").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("TYPE", "z1").Text, Is.EqualTo("zset"));
    }

    [Test]
    public void ScoresPrintAsRedis72()
    {
        using var c = C();
        var cases = new (string In, string Out)[]
        {
            ("1", "1"), ("-2", "-2"), ("1.5", "1.5"), ("1.1", "1.1"), ("0.1", "0.1"), ("100", "100"), ("1e3", "1000"),
            ("3.0e-5", "0.00003"), ("1e-7", "1e-7"), ("1.5e-10", "1.5e-10"), ("1e21", "1e+21"), ("1.2345e22", "1.2345e+22"),
            ("123456789012345678", "123456789012345680"), ("9007199254740993", "9007199254740992"), ("5e18", "5e+18"), ("4e18", "4000000000000000000"),
            ("1e19", "1e+19"), ("inf", "inf"), ("-inf", "-inf"), ("+inf", "inf"), ("-0", "-0"), ("0.0", "0"),
            ("3.14159265358979", "3.14159265358979"), ("1e300", "1e+300"), ("-1.5e-300", "-1.5e-300"),
        };
        foreach (var (input, output) in cases)
        {
            c.Execute("DEL", "fmt");
            c.Execute("ZADD", "fmt", input, "m");
            Assert.That(c.Execute("ZSCORE", "fmt", "m").Text, Is.EqualTo(output), input);
        }
        Assert.That(SortedSetCommands.FormatScore(0.30000000000000004), Is.EqualTo("0.30000000000000004"));
        Assert.That(SortedSetCommands.FormatScore(1e-6), Is.EqualTo("0.000001"));
        Assert.That(SortedSetCommands.FormatScore(1.25e20), Is.EqualTo("1.25e+20"));
        Assert.That(c.Execute("ZADD", "fmt", "1e400", "m").Text, Is.EqualTo("ERR value is not a valid float"), "overflow is not infinity");
        Assert.That(c.Execute("ZADD", "fmt", " 1", "m").Text, Is.EqualTo("ERR value is not a valid float"));
        Assert.That(c.Execute("ZADD", "fmt", "0x1.8p1", "h", "-0X10", "g", "infinity", "i").Integer, Is.EqualTo(3), "strtod's forms");
        Assert.That(Texts(c.Execute("ZRANGE", "fmt", "0", "-1", "WITHSCORES")), Is.EqualTo(new[] { "g", "-16", "m", "-1.5e-300", "h", "3", "i", "inf" }));
    }

    [Test]
    public void RangesByRankScoreAndLex()
    {
        using var c = C();
        c.Execute("ZADD", "r", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e");
        Assert.That(Texts(c.Execute("ZRANGE", "r", "0", "-1")), Is.EqualTo(new[] { "a", "b", "c", "d", "e" }));
        Assert.That(Texts(c.Execute("ZRANGE", "r", "1", "2", "WITHSCORES")), Is.EqualTo(new[] { "b", "2", "c", "3" }));
        Assert.That(Texts(c.Execute("ZRANGE", "r", "-2", "100")), Is.EqualTo(new[] { "d", "e" }));
        Assert.That(Texts(c.Execute("ZRANGE", "r", "3", "1")), Is.Empty);
        Assert.That(Texts(c.Execute("ZRANGE", "r", "0", "1", "REV")), Is.EqualTo(new[] { "e", "d" }));
        Assert.That(Texts(c.Execute("ZREVRANGE", "r", "0", "1", "WITHSCORES")), Is.EqualTo(new[] { "e", "5", "d", "4" }));
        Assert.That(Texts(c.Execute("ZRANGE", "nosuch", "0", "-1")), Is.Empty);
        // by score
        Assert.That(Texts(c.Execute("ZRANGE", "r", "(1", "3", "BYSCORE")), Is.EqualTo(new[] { "b", "c" }));
        Assert.That(Texts(c.Execute("ZRANGEBYSCORE", "r", "-inf", "+inf", "LIMIT", "1", "2")), Is.EqualTo(new[] { "b", "c" }));
        Assert.That(Texts(c.Execute("ZRANGEBYSCORE", "r", "2", "(4", "WITHSCORES")), Is.EqualTo(new[] { "b", "2", "c", "3" }));
        Assert.That(Texts(c.Execute("ZRANGEBYSCORE", "r", "(2", "(3")), Is.Empty);
        Assert.That(Texts(c.Execute("ZRANGEBYSCORE", "r", "3", "3")), Is.EqualTo(new[] { "c" }));
        Assert.That(Texts(c.Execute("ZRANGEBYSCORE", "r", "5", "1")), Is.Empty);
        Assert.That(Texts(c.Execute("ZREVRANGEBYSCORE", "r", "+inf", "(2")), Is.EqualTo(new[] { "e", "d", "c" }));
        Assert.That(Texts(c.Execute("ZREVRANGEBYSCORE", "r", "4", "1", "LIMIT", "1", "2")), Is.EqualTo(new[] { "c", "b" }));
        Assert.That(Texts(c.Execute("ZRANGE", "r", "4", "1", "BYSCORE", "REV", "LIMIT", "0", "1", "WITHSCORES")), Is.EqualTo(new[] { "d", "4" }));
        Assert.That(Texts(c.Execute("ZRANGEBYSCORE", "r", "-inf", "+inf", "LIMIT", "-1", "2")), Is.Empty, "a negative offset gives nothing");
        Assert.That(Texts(c.Execute("ZRANGEBYSCORE", "r", "-inf", "+inf", "LIMIT", "3", "-1")), Is.EqualTo(new[] { "d", "e" }), "a negative count is all");
        Assert.That(Texts(c.Execute("ZRANGEBYSCORE", "r", "-inf", "+inf", "LIMIT", "9", "1")), Is.Empty);
        Assert.That(c.Execute("ZCOUNT", "r", "(1", "3").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("ZCOUNT", "r", "-inf", "+inf").Integer, Is.EqualTo(5));
        Assert.That(c.Execute("ZCOUNT", "r", "4", "2").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("ZCOUNT", "nosuch", "0", "1").Integer, Is.EqualTo(0));
        // by lex (equal scores)
        c.Execute("ZADD", "lx", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e", "0", "ab");
        Assert.That(Texts(c.Execute("ZRANGEBYLEX", "lx", "-", "+")), Is.EqualTo(new[] { "a", "ab", "b", "c", "d", "e" }));
        Assert.That(Texts(c.Execute("ZRANGEBYLEX", "lx", "[a", "(c")), Is.EqualTo(new[] { "a", "ab", "b" }));
        Assert.That(Texts(c.Execute("ZRANGEBYLEX", "lx", "(a", "[c", "LIMIT", "1", "1")), Is.EqualTo(new[] { "b" }));
        Assert.That(Texts(c.Execute("ZREVRANGEBYLEX", "lx", "+", "[d")), Is.EqualTo(new[] { "e", "d" }));
        Assert.That(Texts(c.Execute("ZRANGE", "lx", "[e", "(b", "BYLEX", "REV")), Is.EqualTo(new[] { "e", "d", "c" }));
        Assert.That(Texts(c.Execute("ZRANGEBYLEX", "lx", "+", "-")), Is.Empty);
        Assert.That(c.Execute("ZLEXCOUNT", "lx", "[ab", "+").Integer, Is.EqualTo(5));
        Assert.That(c.Execute("ZLEXCOUNT", "lx", "(a", "(b").Integer, Is.EqualTo(1));
        // errors
        Assert.That(c.Execute("ZRANGE", "r", "0", "1", "LIMIT", "0", "1").Text, Is.EqualTo("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"));
        Assert.That(c.Execute("ZRANGE", "lx", "-", "+", "BYLEX", "WITHSCORES").Text, Is.EqualTo("ERR syntax error, WITHSCORES not supported in combination with BYLEX"));
        Assert.That(c.Execute("ZRANGEBYLEX", "lx", "-", "+", "WITHSCORES").Text, Is.EqualTo("ERR syntax error, WITHSCORES not supported in combination with BYLEX"));
        Assert.That(c.Execute("ZRANGE", "r", "x", "1").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        Assert.That(c.Execute("ZRANGE", "r", "0", "1", "BYSCORE", "BYLEX").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("ZRANGEBYSCORE", "r", "0", "1", "REV").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("ZRANGE", "r", "0", "1", "LIMIT", "0").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("ZRANGEBYSCORE", "r", "a", "1").Text, Is.EqualTo("ERR min or max is not a float"));
        Assert.That(c.Execute("ZRANGEBYSCORE", "r", "(nan", "1").Text, Is.EqualTo("ERR min or max is not a float"));
        Assert.That(c.Execute("ZCOUNT", "r", "1", "x").Text, Is.EqualTo("ERR min or max is not a float"));
        Assert.That(c.Execute("ZRANGEBYLEX", "lx", "a", "+").Text, Is.EqualTo("ERR min or max not valid string range item"));
        Assert.That(c.Execute("ZLEXCOUNT", "lx", "-", "+x").Text, Is.EqualTo("ERR min or max not valid string range item"));
        Assert.That(c.Execute("ZRANGEBYSCORE", "r", "0", "1", "LIMIT", "a", "1").Text, Is.EqualTo("ERR value is not an integer or out of range"));
    }

    [Test]
    public void RanksAndRemovals()
    {
        using var c = C();
        c.Execute("ZADD", "k", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e");
        Assert.That(c.Execute("ZRANK", "k", "a").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("ZRANK", "k", "e").Integer, Is.EqualTo(4));
        Assert.That(c.Execute("ZREVRANK", "k", "e").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("ZRANK", "k", "zz").IsNull);
        Assert.That(c.Execute("ZRANK", "nosuch", "zz").IsNull);
        var ws = c.Execute("ZRANK", "k", "c", "WITHSCORE");
        Assert.That(ws.Elements![0].Integer, Is.EqualTo(2));
        Assert.That(ws.Elements[1].Text, Is.EqualTo("3"));
        Assert.That(c.Execute("ZREVRANK", "k", "c", "WITHSCORE").Elements![0].Integer, Is.EqualTo(2));
        Assert.That(c.Execute("ZRANK", "k", "zz", "WITHSCORE").IsNullArray);
        Assert.That(c.Execute("ZRANK", "k", "c", "WITHSCORES").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("ZRANK", "k", "c", "WITHSCORE", "x").Text, Is.EqualTo("ERR wrong number of arguments for 'zrank' command"));
        Assert.That(c.Execute("ZREMRANGEBYRANK", "k", "0", "1").Integer, Is.EqualTo(2));
        Assert.That(Texts(c.Execute("ZRANGE", "k", "0", "-1")), Is.EqualTo(new[] { "c", "d", "e" }));
        Assert.That(c.Execute("ZREMRANGEBYRANK", "k", "5", "10").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("ZREMRANGEBYSCORE", "k", "(3", "4").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("ZREMRANGEBYSCORE", "k", "x", "4").Text, Is.EqualTo("ERR min or max is not a float"));
        Assert.That(c.Execute("ZREMRANGEBYRANK", "k", "x", "4").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        Assert.That(c.Execute("ZREMRANGEBYRANK", "k", "0", "-1").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("EXISTS", "k").Integer, Is.EqualTo(0));
        c.Execute("ZADD", "kl", "0", "a", "0", "b", "0", "c");
        Assert.That(c.Execute("ZREMRANGEBYLEX", "kl", "[b", "+").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("ZREMRANGEBYLEX", "kl", "b", "+").Text, Is.EqualTo("ERR min or max not valid string range item"));
        Assert.That(c.Execute("ZREMRANGEBYLEX", "nosuch", "-", "+").Integer, Is.EqualTo(0));
    }

    [Test]
    public void PopsAndMPop()
    {
        using var c = C();
        c.Execute("ZADD", "p", "1", "a", "2", "b", "3", "c", "4", "d");
        Assert.That(Texts(c.Execute("ZPOPMIN", "p")), Is.EqualTo(new[] { "a", "1" }));
        Assert.That(Texts(c.Execute("ZPOPMAX", "p", "2")), Is.EqualTo(new[] { "d", "4", "c", "3" }));
        Assert.That(Texts(c.Execute("ZPOPMIN", "p", "0")), Is.Empty);
        Assert.That(Texts(c.Execute("ZPOPMIN", "p", "10")), Is.EqualTo(new[] { "b", "2" }));
        Assert.That(c.Execute("EXISTS", "p").Integer, Is.EqualTo(0));
        Assert.That(Texts(c.Execute("ZPOPMIN", "p")), Is.Empty);
        Assert.That(c.Execute("ZPOPMIN", "p", "-1").Text, Is.EqualTo("ERR value is out of range, must be positive"));
        Assert.That(c.Execute("ZPOPMIN", "p", "x").Text, Is.EqualTo("ERR value is out of range, must be positive"));
        Assert.That(c.Execute("ZPOPMIN", "p", "1", "2").Text, Is.EqualTo("ERR syntax error"));
        c.Execute("ZADD", "m2", "1", "x", "2", "y", "3", "z");
        var r = c.Execute("ZMPOP", "2", "m1", "m2", "MAX", "COUNT", "2");
        Assert.That(r.Elements![0].Text, Is.EqualTo("m2"));
        Assert.That(r.Elements[1].Elements!.Select(Texts), Is.EqualTo(new[] { new[] { "z", "3" }, new[] { "y", "2" } }));
        r = c.Execute("ZMPOP", "1", "m2", "MIN");
        Assert.That(r.Elements![1].Elements!.Select(Texts), Is.EqualTo(new[] { new[] { "x", "1" } }));
        Assert.That(c.Execute("ZMPOP", "2", "m1", "m2", "MIN").IsNullArray);
        Assert.That(c.Execute("ZMPOP", "0", "m1", "MIN").Text, Is.EqualTo("ERR numkeys should be greater than 0"));
        Assert.That(c.Execute("ZMPOP", "x", "m1", "MIN").Text, Is.EqualTo("ERR numkeys should be greater than 0"));
        Assert.That(c.Execute("ZMPOP", "2", "m1", "MIN").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("ZMPOP", "1", "m1", "LEFT").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("ZMPOP", "1", "m1", "MIN", "COUNT", "0").Text, Is.EqualTo("ERR count should be greater than 0"));
        Assert.That(c.Execute("ZMPOP", "1", "m1", "MIN", "COUNT", "1", "COUNT", "1").Text, Is.EqualTo("ERR syntax error"));
        c.Execute("SET", "s", "v");
        Assert.That(c.Execute("ZMPOP", "2", "m1", "s", "MIN").Text, Does.StartWith("WRONGTYPE"));
    }

    [Test]
    public void Resp3ReplyShapes()
    {
        using var c = C();
        c.Execute("HELLO", "3");
        c.Execute("ZADD", "r3", "1", "a", "2.5", "b", "3", "c");
        var score = c.Execute("ZSCORE", "r3", "b");
        Assert.That(score.Type, Is.EqualTo(RespType.Double));
        Assert.That(score.Text, Is.EqualTo("2.5"));
        Assert.That(c.Execute("ZINCRBY", "r3", "1", "a").Type, Is.EqualTo(RespType.Double));
        var range = c.Execute("ZRANGE", "r3", "0", "-1", "WITHSCORES");
        Assert.That(range.Elements, Has.Length.EqualTo(3), "RESP3: [member, score] pairs");
        Assert.That(range.Elements![0].Type, Is.EqualTo(RespType.Array));
        Assert.That(range.Elements[0].Elements![0].Text, Is.EqualTo("a"));
        Assert.That(range.Elements[0].Elements![1].Type, Is.EqualTo(RespType.Double));
        Assert.That(c.Execute("ZRANGE", "r3", "0", "-1").Elements![0].Type, Is.EqualTo(RespType.BulkString));
        var rank = c.Execute("ZRANK", "r3", "c", "WITHSCORE");
        Assert.That(rank.Elements![1].Type, Is.EqualTo(RespType.Double));
        Assert.That(c.Execute("ZRANK", "r3", "nope", "WITHSCORE").IsNull);
        var ms = c.Execute("ZMSCORE", "r3", "c", "nope");
        Assert.That(ms.Elements![0].Type, Is.EqualTo(RespType.Double));
        Assert.That(ms.Elements[1].IsNull);
        var popOne = c.Execute("ZPOPMIN", "r3");
        Assert.That(popOne.Elements, Has.Length.EqualTo(2), "no count: flat [member, score] even in RESP3");
        Assert.That(popOne.Elements![1].Type, Is.EqualTo(RespType.Double));
        var popCount = c.Execute("ZPOPMAX", "r3", "1");
        Assert.That(popCount.Elements![0].Type, Is.EqualTo(RespType.Array), "with a count: pairs");
        c.Execute("ZADD", "r3", "7", "q", "8", "w");
        var rand = c.Execute("ZRANDMEMBER", "r3", "-5", "WITHSCORES");
        Assert.That(rand.Elements, Has.Length.EqualTo(5));
        Assert.That(rand.Elements!.All(e => e.Type == RespType.Array && e.Elements![1].Type == RespType.Double));
        var union = c.Execute("ZUNION", "1", "r3", "WITHSCORES");
        Assert.That(union.Elements!.All(e => e.Type == RespType.Array), Is.True);
        c.Execute("ZADD", "inf3", "inf", "x", "-inf", "y");
        Assert.That(c.Execute("ZSCORE", "inf3", "x").Text, Is.EqualTo("inf"));
        Assert.That(c.Execute("ZSCORE", "inf3", "y").Type, Is.EqualTo(RespType.Double));
    }

    [Test]
    public void RanksOnAHundredThousandMembers()
    {
        using var c = C();
        const int n = 100_000;
        for (int start = 0; start < n; start += 1000)
        {
            var args = new List<object> { "ZADD", "big" };
            // Scores out of order of insertion, and in pairs of equal scores (then ordered by member).
            for (int i = start; i < start + 1000; i++) { int v = (int)((i * 7919L) % n); args.Add((v / 2).ToString()); args.Add("m" + v.ToString("D6")); }
            Assert.That(c.Execute([.. args]).Integer, Is.EqualTo(1000));
        }
        Assert.That(c.Execute("ZCARD", "big").Integer, Is.EqualTo(n));
        Assert.That(c.Execute("OBJECT", "ENCODING", "big").Text, Is.EqualTo("skiplist"));
        foreach (int v in new[] { 0, 1, 2, 4999, 50_000, 77_777, n - 1 })
        {
            string m = "m" + v.ToString("D6");
            Assert.That(c.Execute("ZRANK", "big", m).Integer, Is.EqualTo(v), m);
            Assert.That(c.Execute("ZREVRANK", "big", m).Integer, Is.EqualTo(n - 1 - v), m);
            Assert.That(Texts(c.Execute("ZRANGE", "big", v.ToString(), v.ToString())), Is.EqualTo(new[] { m }));
            Assert.That(Texts(c.Execute("ZREVRANGE", "big", (n - 1 - v).ToString(), (n - 1 - v).ToString())), Is.EqualTo(new[] { m }));
        }
        Assert.That(c.Execute("ZCOUNT", "big", "1000", "(2000").Integer, Is.EqualTo(2000));
        Assert.That(Texts(c.Execute("ZRANGEBYSCORE", "big", "(25000", "+inf", "LIMIT", "0", "3")), Is.EqualTo(new[] { "m050002", "m050003", "m050004" }));
        Assert.That(Texts(c.Execute("ZREVRANGEBYSCORE", "big", "(25000", "-inf", "LIMIT", "1", "2")), Is.EqualTo(new[] { "m049998", "m049997" }));
        // Removals keep ranks right.
        Assert.That(c.Execute("ZREMRANGEBYRANK", "big", "10", "19").Integer, Is.EqualTo(10));
        Assert.That(c.Execute("ZREM", "big", "m050000", "m000000").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("ZRANK", "big", "m050001").Integer, Is.EqualTo(50_001 - 12));
        Assert.That(c.Execute("ZRANK", "big", "m000001").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("ZRANK", "big", "m000020").Integer, Is.EqualTo(9));
        Assert.That(c.Execute("ZINCRBY", "big", "100000", "m000001").Text, Is.EqualTo("100000"));
        Assert.That(c.Execute("ZREVRANK", "big", "m000001").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("ZCARD", "big").Integer, Is.EqualTo(n - 12));
        Assert.That(c.Execute("ZRANDMEMBER", "big", "-3").Elements, Has.Length.EqualTo(3));
        Assert.That(c.Execute("ZRANDMEMBER", "big", "5").Elements!.Select(e => e.Text).Distinct().Count(), Is.EqualTo(5));
    }

    [Test]
    public void UnionInterDiffAndStores()
    {
        using var c = C();
        c.Execute("ZADD", "{s}1", "1", "a", "2", "b", "3", "c");
        c.Execute("ZADD", "{s}2", "10", "b", "20", "c", "30", "d");
        Assert.That(Texts(c.Execute("ZUNION", "2", "{s}1", "{s}2", "WITHSCORES")), Is.EqualTo(new[] { "a", "1", "b", "12", "c", "23", "d", "30" }));
        Assert.That(Texts(c.Execute("ZUNION", "2", "{s}1", "{s}2", "WEIGHTS", "2", "1", "AGGREGATE", "MIN", "WITHSCORES")), Is.EqualTo(new[] { "a", "2", "b", "4", "c", "6", "d", "30" }));
        Assert.That(Texts(c.Execute("ZINTER", "2", "{s}1", "{s}2", "WITHSCORES")), Is.EqualTo(new[] { "b", "12", "c", "23" }));
        Assert.That(Texts(c.Execute("ZINTER", "2", "{s}1", "{s}2", "AGGREGATE", "MAX")), Is.EqualTo(new[] { "b", "c" }));
        Assert.That(Texts(c.Execute("ZINTER", "2", "{s}1", "{s}2", "AGGREGATE", "MAX", "WITHSCORES")), Is.EqualTo(new[] { "b", "10", "c", "20" }));
        Assert.That(Texts(c.Execute("ZINTER", "2", "{s}1", "nosuch")), Is.Empty);
        Assert.That(Texts(c.Execute("ZDIFF", "2", "{s}1", "{s}2", "WITHSCORES")), Is.EqualTo(new[] { "a", "1" }));
        Assert.That(Texts(c.Execute("ZDIFF", "1", "{s}1")), Is.EqualTo(new[] { "a", "b", "c" }));
        Assert.That(Texts(c.Execute("ZDIFF", "2", "nosuch", "{s}1")), Is.Empty);
        Assert.That(c.Execute("ZINTERCARD", "2", "{s}1", "{s}2").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("ZINTERCARD", "2", "{s}1", "{s}2", "LIMIT", "1").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("ZINTERCARD", "2", "{s}1", "{s}2", "LIMIT", "0").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("ZINTERCARD", "2", "{s}1", "{s}2", "LIMIT", "-1").Text, Is.EqualTo("ERR LIMIT can't be negative"));
        // inf x 0 weights and inf + -inf sums are 0, as in Redis
        c.Execute("ZADD", "{s}inf", "inf", "a", "-inf", "b");
        Assert.That(Texts(c.Execute("ZUNION", "2", "{s}inf", "{s}inf", "WEIGHTS", "1", "-1", "WITHSCORES")), Is.EqualTo(new[] { "a", "0", "b", "0" }));
        Assert.That(Texts(c.Execute("ZUNION", "1", "{s}inf", "WEIGHTS", "0", "WITHSCORES")), Is.EqualTo(new[] { "a", "0", "b", "0" }));
        // stores
        c.Execute("SET", "{s}dst", "string");
        c.Execute("EXPIRE", "{s}dst", "100");
        Assert.That(c.Execute("ZUNIONSTORE", "{s}dst", "2", "{s}1", "{s}2", "WEIGHTS", "1", "2").Integer, Is.EqualTo(4));
        Assert.That(c.Execute("TTL", "{s}dst").Integer, Is.EqualTo(-1), "the destination is replaced, TTL and all");
        Assert.That(Texts(c.Execute("ZRANGE", "{s}dst", "0", "-1", "WITHSCORES")), Is.EqualTo(new[] { "a", "1", "b", "22", "c", "43", "d", "60" }));
        Assert.That(c.Execute("OBJECT", "ENCODING", "{s}dst").Text, Is.EqualTo("listpack"));
        Assert.That(c.Execute("ZINTERSTORE", "{s}dst", "2", "{s}1", "{s}2").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("ZDIFFSTORE", "{s}dst", "2", "{s}1", "{s}2").Integer, Is.EqualTo(1));
        Assert.That(Texts(c.Execute("ZRANGE", "{s}dst", "0", "-1")), Is.EqualTo(new[] { "a" }));
        Assert.That(c.Execute("ZINTERSTORE", "{s}dst", "2", "{s}1", "nosuch").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXISTS", "{s}dst").Integer, Is.EqualTo(0), "an empty result deletes the destination");
        Assert.That(c.Execute("ZUNIONSTORE", "{s}1", "2", "{s}1", "{s}2").Integer, Is.EqualTo(4), "the destination may be a source");
        Assert.That(c.Execute("ZRANGESTORE", "{s}rs", "{s}2", "0", "1").Integer, Is.EqualTo(2));
        Assert.That(Texts(c.Execute("ZRANGE", "{s}rs", "0", "-1", "WITHSCORES")), Is.EqualTo(new[] { "b", "10", "c", "20" }));
        Assert.That(c.Execute("ZRANGESTORE", "{s}rs", "{s}2", "+inf", "(10", "BYSCORE", "REV", "LIMIT", "0", "1").Integer, Is.EqualTo(1));
        Assert.That(Texts(c.Execute("ZRANGE", "{s}rs", "0", "-1")), Is.EqualTo(new[] { "d" }));
        Assert.That(c.Execute("ZRANGESTORE", "{s}rs", "{s}2", "5", "9").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXISTS", "{s}rs").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("ZRANGESTORE", "{s}rs", "{s}2", "0", "1", "WITHSCORES").Text, Is.EqualTo("ERR syntax error"));
        // errors
        Assert.That(c.Execute("ZUNION", "0", "{s}1").Text, Is.EqualTo("ERR at least 1 input key is needed for 'zunion' command"));
        Assert.That(c.Execute("ZINTERSTORE", "{s}d", "0", "{s}1").Text, Is.EqualTo("ERR at least 1 input key is needed for 'zinterstore' command"));
        Assert.That(c.Execute("ZUNION", "x", "{s}1").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        Assert.That(c.Execute("ZUNION", "3", "{s}1", "{s}2").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("ZUNION", "2", "{s}1", "{s}2", "WEIGHTS", "1").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("ZUNION", "2", "{s}1", "{s}2", "WEIGHTS", "1", "x").Text, Is.EqualTo("ERR weight value is not a float"));
        Assert.That(c.Execute("ZUNION", "2", "{s}1", "{s}2", "AGGREGATE", "AVG").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("ZDIFF", "2", "{s}1", "{s}2", "WEIGHTS", "1", "1").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("ZUNIONSTORE", "{s}d", "1", "{s}1", "WITHSCORES").Text, Is.EqualTo("ERR syntax error"));
        c.Execute("SET", "{s}str", "v");
        Assert.That(c.Execute("ZUNION", "2", "{s}1", "{s}str").Text, Does.StartWith("WRONGTYPE"));
        Assert.That(c.Execute("ZUNION", "2", "{s}1", "{s}str", "BOGUS").Text, Does.StartWith("WRONGTYPE"), "types are checked before options");
        Assert.That(c.Execute("ZINTERSTORE", "{s}d", "2", "{s}1", "{s}str").Text, Does.StartWith("WRONGTYPE"));
    }

    [Test]
    public void RandomMemberAndScan()
    {
        using var c = C();
        var args = new List<object> { "ZADD", "rz" };
        for (int i = 0; i < 30; i++) { args.Add(i.ToString()); args.Add("m" + i); }
        c.Execute([.. args]);
        Assert.That(c.Execute("ZRANDMEMBER", "rz").Text, Does.StartWith("m"));
        Assert.That(c.Execute("ZRANDMEMBER", "nosuch").IsNull);
        Assert.That(Texts(c.Execute("ZRANDMEMBER", "nosuch", "3")), Is.Empty);
        Assert.That(Texts(c.Execute("ZRANDMEMBER", "rz", "0")), Is.Empty);
        Assert.That(Texts(c.Execute("ZRANDMEMBER", "rz", "10")).Distinct().Count(), Is.EqualTo(10));
        Assert.That(Texts(c.Execute("ZRANDMEMBER", "rz", "100")), Has.Length.EqualTo(30));
        Assert.That(Texts(c.Execute("ZRANDMEMBER", "rz", "-100")), Has.Length.EqualTo(100));
        var ws = Texts(c.Execute("ZRANDMEMBER", "rz", "-4", "WITHSCORES"));
        Assert.That(ws, Has.Length.EqualTo(8));
        for (int i = 0; i < 8; i += 2) Assert.That(ws[i], Is.EqualTo("m" + ws[i + 1]));
        Assert.That(c.Execute("ZRANDMEMBER", "rz", "3", "WITHSCORE").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("ZRANDMEMBER", "rz", "x").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        Assert.That(c.Execute("ZRANDMEMBER", "rz", "-9223372036854775807", "WITHSCORES").Text, Is.EqualTo("ERR value is out of range"));
        var scan = c.Execute("ZSCAN", "rz", "0", "MATCH", "m1*");
        Assert.That(scan.Elements![0].Text, Is.EqualTo("0"));
        var found = Texts(scan.Elements[1]);
        Assert.That(found.Where((_, i) => i % 2 == 0), Is.EquivalentTo(new[] { "m1", "m10", "m11", "m12", "m13", "m14", "m15", "m16", "m17", "m18", "m19" }));
        Assert.That(found[Array.IndexOf(found, "m12") + 1], Is.EqualTo("12"));
        Assert.That(Texts(c.Execute("ZSCAN", "nosuch", "0").Elements![1]), Is.Empty);
        Assert.That(c.Execute("ZSCAN", "rz", "0", "NOVALUES").Text, Is.EqualTo("ERR syntax error"));
    }

    [Test]
    public void EncodingsWrongTypeAndDumpRestore()
    {
        using var c = C();
        c.Execute("ZADD", "e1", "1", "a");
        Assert.That(c.Execute("OBJECT", "ENCODING", "e1").Text, Is.EqualTo("listpack"));
        for (int i = 0; i < 128; i++) c.Execute("ZADD", "e1", i.ToString(), "x" + i);
        Assert.That(c.Execute("OBJECT", "ENCODING", "e1").Text, Is.EqualTo("skiplist"));
        c.Execute("ZREMRANGEBYRANK", "e1", "0", "-10");
        Assert.That(c.Execute("OBJECT", "ENCODING", "e1").Text, Is.EqualTo("skiplist"), "no conversion back");
        c.Execute("ZADD", "e2", "1", new string('v', 65));
        Assert.That(c.Execute("OBJECT", "ENCODING", "e2").Text, Is.EqualTo("skiplist"));
        c.Execute("ZADD", "e3", "1", new string('v', 64));
        Assert.That(c.Execute("OBJECT", "ENCODING", "e3").Text, Is.EqualTo("listpack"));
        Assert.That(c.Execute("ZRANGESTORE", "e4", "e1", "0", "2").Integer, Is.EqualTo(3));
        Assert.That(c.Execute("OBJECT", "ENCODING", "e4").Text, Is.EqualTo("listpack"), "a small stored result is compact again");
        // WRONGTYPE both ways
        c.Execute("SET", "str", "v");
        foreach (var cmd in new[] { new object[] { "ZADD", "str", "1", "a" }, ["ZSCORE", "str", "a"], ["ZRANGE", "str", "0", "-1"], ["ZCARD", "str"], ["ZPOPMIN", "str"], ["ZRANGESTORE", "e9", "str", "0", "1"] })
            Assert.That(c.Execute(cmd).Text, Does.StartWith("WRONGTYPE"), string.Join(" ", cmd));
        Assert.That(c.Execute("GET", "e3").Text, Does.StartWith("WRONGTYPE"));
        Assert.That(c.Execute("LPUSH", "e3", "x").Text, Does.StartWith("WRONGTYPE"));
        // DUMP / RESTORE, ours and Redis's
        var dump = c.Execute("DUMP", "e1");
        Assert.That(dump.Bytes![0], Is.EqualTo(5), "RDB_TYPE_ZSET_2");
        Assert.That(c.Execute("RESTORE", "e1copy", "0", dump.Bytes).Text, Is.EqualTo("OK"));
        Assert.That(Texts(c.Execute("ZRANGE", "e1copy", "0", "-1", "WITHSCORES")), Is.EqualTo(Texts(c.Execute("ZRANGE", "e1", "0", "-1", "WITHSCORES"))));
        // DUMP of "ZADD zz 1.5 a 2 b -3.25 c" from Redis 7.0.15 (zset-max-listpack-entries 0, so skiplist: RDB type 5).
        var redis = Convert.FromHexString("0503016200000000000000400161000000000000f83f01630000000000000ac00a00f1ca94247e417be7");
        Assert.That(c.Execute("RESTORE", "fromredis", "0", redis).Text, Is.EqualTo("OK"));
        Assert.That(Texts(c.Execute("ZRANGE", "fromredis", "0", "-1", "WITHSCORES")), Is.EqualTo(new[] { "c", "-3.25", "a", "1.5", "b", "2" }));
        var bad = (byte[])redis.Clone();
        bad[5] ^= 1;
        Assert.That(c.Execute("RESTORE", "bad", "0", bad).Text, Is.EqualTo("ERR DUMP payload version or checksum are wrong"));
        c.Execute("EXPIRE", "e3", "1000");
        Assert.That(c.Execute("RENAME", "e3", "e3b").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("ZSCORE", "e3b", new string('v', 64)).Text, Is.EqualTo("1"));
        Assert.That(c.Execute("COPY", "e3b", "e3c").Integer, Is.EqualTo(1));
        c.Execute("ZADD", "e3c", "5", "other");
        Assert.That(c.Execute("ZCARD", "e3b").Integer, Is.EqualTo(1), "a copy is independent");
    }

    [Test]
    public void OrderedStructureMatchesAModel()
    {
        var rng = new Random(12345);
        var z = new SortedSetObject();
        var model = new Dictionary<string, double>();
        for (int step = 0; step < 20_000; step++)
        {
            string m = "k" + rng.Next(2000);
            var bytes = System.Text.Encoding.ASCII.GetBytes(m);
            if (rng.Next(4) == 0) { Assert.That(z.Remove(bytes), Is.EqualTo(model.Remove(m))); }
            else
            {
                double score = rng.Next(50);
                Assert.That(z.Set(bytes, score), Is.EqualTo(!model.ContainsKey(m)));
                model[m] = score;
            }
            if (step % 997 != 0) continue;
            var expected = model.OrderBy(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal).Select(kv => kv.Key).ToList();
            var actual = z.Entries.Select(e => System.Text.Encoding.ASCII.GetString(e.Member)).ToList();
            Assert.That(actual, Is.EqualTo(expected));
            Assert.That(z.Count, Is.EqualTo(model.Count));
            for (int i = 0; i < expected.Count; i += 37)
            {
                Assert.That(z.Rank(System.Text.Encoding.ASCII.GetBytes(expected[i])), Is.EqualTo(i));
                Assert.That(System.Text.Encoding.ASCII.GetString(z.ElementAt(i).Member), Is.EqualTo(expected[i]));
            }
            var (first, last) = z.ScoreRange(new ScoreBound(10, true), new ScoreBound(20, false));
            Assert.That(last - first + 1, Is.EqualTo(model.Values.Count(v => v > 10 && v <= 20)));
            var clone = (SortedSetObject)z.Clone();
            Assert.That(clone.Entries.Select(e => System.Text.Encoding.ASCII.GetString(e.Member)), Is.EqualTo(expected));
            Assert.That(clone.HeapBytes, Is.EqualTo(z.HeapBytes));
            if (expected.Count > 0) Assert.That(clone.Rank(System.Text.Encoding.ASCII.GetBytes(expected[^1])), Is.EqualTo(expected.Count - 1));
            var buffer = new System.Buffers.ArrayBufferWriter<byte>();
            z.WritePayload(buffer);
            var back = (SortedSetObject)CollectionObject.Read(ObjectKind.SortedSet, buffer.WrittenSpan);
            Assert.That(back.Entries.Select(e => System.Text.Encoding.ASCII.GetString(e.Member)), Is.EqualTo(expected));
            // a change of a clone leaves the original as it was
            if (expected.Count > 0) { clone.Remove(System.Text.Encoding.ASCII.GetBytes(expected[0])); Assert.That(z.Count, Is.EqualTo(model.Count)); }
        }
    }
}

/// <summary>Sorted sets survive SAVE and restart, and AOF replay without a checkpoint.</summary>
[TestFixture]
public class SortedSetPersistenceTests
{
    private string _dir = null!;

    [SetUp]
    public void NewDir() => _dir = Path.Combine(Path.GetTempPath(), "garnet-zset-" + Guid.NewGuid().ToString("N"));

    [TearDown]
    public void RemoveDir()
    {
        try { Directory.Delete(_dir, true); } catch { }
    }

    private static void Fill(RespClient c)
    {
        for (int i = 0; i < 50; i++) c.Execute("ZADD", "z:" + i, i.ToString(), "a", "1.5", "b", "-inf", "c");
        var args = new List<object> { "ZADD", "zbig" };
        for (int i = 0; i < 500; i++) { args.Add((i * 0.25).ToString(System.Globalization.CultureInfo.InvariantCulture)); args.Add("m" + i); }
        c.Execute([.. args]);
        c.Execute("ZADD", "zttl", "1", "x");
        c.Execute("EXPIRE", "zttl", "1000");
    }

    private static void Check(RespClient c)
    {
        for (int i = 0; i < 50; i += 7)
            Assert.That(c.Execute("ZRANGE", "z:" + i, "0", "-1", "WITHSCORES").Elements!.Select(e => e.Text), Is.EqualTo(i < 2
                ? (i == 0 ? new[] { "c", "-inf", "a", "0", "b", "1.5" } : ["c", "-inf", "a", "1", "b", "1.5"])
                : new[] { "c", "-inf", "b", "1.5", "a", i.ToString() }));
        Assert.That(c.Execute("ZCARD", "zbig").Integer, Is.EqualTo(500));
        Assert.That(c.Execute("ZRANK", "zbig", "m321").Integer, Is.EqualTo(321));
        Assert.That(c.Execute("ZSCORE", "zbig", "m321").Text, Is.EqualTo("80.25"));
        Assert.That(c.Execute("OBJECT", "ENCODING", "zbig").Text, Is.EqualTo("skiplist"));
        Assert.That(c.Execute("TYPE", "z:3").Text, Is.EqualTo("zset"));
        Assert.That(c.Execute("TTL", "zttl").Integer, Is.InRange(900, 1000));
    }

    [Test]
    public void SaveAndRestart()
    {
        using (var server = new TestServer(null, _dir))
        using (var c = server.Client())
        {
            Fill(c);
            Assert.That(c.Execute("SAVE").Text, Is.EqualTo("OK"));
        }
        using (var server = new TestServer(null, _dir))
        using (var c = server.Client())
        {
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(52));
            Check(c);
        }
    }

    [Test]
    public void AofReplayWithoutCheckpoint()
    {
        Action<Garnet.Options.GarnetServerOptions> aof = o => { o.Aof = true; o.AofFsync = "always"; };
        using (var server = new TestServer(aof, _dir))
        using (var c = server.Client())
        {
            Fill(c);
            c.Execute("ZINCRBY", "z:1", "0.1", "b");
            c.Execute("ZPOPMIN", "zbig", "2");
            c.Execute("ZUNIONSTORE", "zu", "2", "z:1", "z:2", "WEIGHTS", "1", "2");
            c.Execute("ZREM", "z:2", "a", "b", "c");
            server.Server.Server.SaveOnStop = false;
        }
        using (var server = new TestServer(aof, _dir))
        using (var c = server.Client())
        {
            Assert.That(c.Execute("ZSCORE", "z:1", "b").Text, Is.EqualTo("1.6"));
            Assert.That(c.Execute("ZCARD", "zbig").Integer, Is.EqualTo(498));
            Assert.That(c.Execute("ZRANK", "zbig", "m321").Integer, Is.EqualTo(319));
            Assert.That(c.Execute("ZRANGE", "zu", "0", "-1", "WITHSCORES").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "c", "-inf", "b", "4.6", "a", "5" }));
            Assert.That(c.Execute("EXISTS", "z:2").Integer, Is.EqualTo(0));
        }
    }
}

[TestFixture]
public class SortedSetWithPlainSetInputTests : ServerFixture
{
    [Test]
    public void PlainSetsAreInputsWithScoreOne()
    {
        using var c = _server.Client();
        c.Execute("ZADD", "zp", "5", "a", "2", "b");
        c.Execute("SADD", "sp", "a", "c");
        var union = c.Execute("ZUNION", "2", "zp", "sp", "WITHSCORES").Elements!.Select(e => e.Text).ToArray();
        Assert.That(union, Is.EqualTo(new[] { "c", "1", "b", "2", "a", "6" }));
        var inter = c.Execute("ZINTER", "2", "zp", "sp", "WEIGHTS", "1", "10", "WITHSCORES").Elements!.Select(e => e.Text).ToArray();
        Assert.That(inter, Is.EqualTo(new[] { "a", "15" }));
        Assert.That(c.Execute("ZDIFF", "2", "sp", "zp").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "c" }));
        Assert.That(c.Execute("ZINTERCARD", "2", "sp", "zp").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("ZUNIONSTORE", "zout", "2", "sp", "zp").Integer, Is.EqualTo(3));
        Assert.That(c.Execute("ZSCORE", "zout", "a").Text, Is.EqualTo("6"));
        c.Execute("SET", "str", "x");
        Assert.That(c.Execute("ZUNION", "2", "zp", "str").Text, Does.StartWith("WRONGTYPE"));
        c.Execute("RPUSH", "lst", "x");
        Assert.That(c.Execute("ZINTER", "2", "lst", "zp").Text, Does.StartWith("WRONGTYPE"));
    }
}
