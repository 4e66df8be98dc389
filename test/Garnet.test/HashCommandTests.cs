// Hashes through raw RESP: replies, errors and edge cases as Redis 7.2 gives them, WRONGTYPE both ways, key commands on
// hashes, and a hash larger than memory read back from disk.
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class HashCommandTests : ServerFixture
{
    private RespClient C() => new("127.0.0.1", _server.Port);

    private static string[] Texts(RespValue v) => v.Elements!.Select(e => e.Text!).ToArray();

    [Test]
    public void SetGetAndCount()
    {
        using var c = C();
        Assert.That(c.Execute("HSET", "h1", "a", "1", "b", "2").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("HSET", "h1", "a", "10", "c", "3").Integer, Is.EqualTo(1), "only new fields count");
        Assert.That(c.Execute("HGET", "h1", "a").Text, Is.EqualTo("10"));
        Assert.That(c.Execute("HGET", "h1", "zz").IsNull);
        Assert.That(c.Execute("HGET", "nosuch", "a").IsNull);
        Assert.That(c.Execute("HLEN", "h1").Integer, Is.EqualTo(3));
        Assert.That(c.Execute("HLEN", "nosuch").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("HEXISTS", "h1", "b").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("HEXISTS", "h1", "q").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("HSTRLEN", "h1", "a").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("HMSET", "h1", "d", "4").Text, Is.EqualTo("OK"));
        var m = c.Execute("HMGET", "h1", "a", "nope", "d");
        Assert.That(m.Elements![0].Text, Is.EqualTo("10"));
        Assert.That(m.Elements[1].IsNull);
        Assert.That(m.Elements[2].Text, Is.EqualTo("4"));
        Assert.That(c.Execute("HMGET", "nosuch", "a", "b").Elements!.All(e => e.IsNull));
        Assert.That(Texts(c.Execute("HKEYS", "h1")), Is.EquivalentTo(new[] { "a", "b", "c", "d" }));
        Assert.That(Texts(c.Execute("HVALS", "h1")), Is.EquivalentTo(new[] { "10", "2", "3", "4" }));
        var all = Texts(c.Execute("HGETALL", "h1"));
        var dict = Enumerable.Range(0, all.Length / 2).ToDictionary(i => all[2 * i], i => all[2 * i + 1]);
        Assert.That(dict, Is.EquivalentTo(new Dictionary<string, string> { ["a"] = "10", ["b"] = "2", ["c"] = "3", ["d"] = "4" }));
        Assert.That(c.Execute("HSETNX", "h1", "a", "x").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("HSETNX", "h1", "e", "5").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("HSET", "h1", "odd").Text, Is.EqualTo("ERR wrong number of arguments for 'hset' command"));
        Assert.That(c.Execute("HSET", "h1", "a", "1", "b").Text, Is.EqualTo("ERR wrong number of arguments for 'hset' command"));
    }

    [Test]
    public void DeletingTheLastFieldDeletesTheKey()
    {
        using var c = C();
        c.Execute("HSET", "h2", "a", "1", "b", "2");
        Assert.That(c.Execute("HDEL", "h2", "a", "zz").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("EXISTS", "h2").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("HDEL", "h2", "b").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("EXISTS", "h2").Integer, Is.EqualTo(0), "Redis never keeps an empty hash");
        Assert.That(c.Execute("TYPE", "h2").Text, Is.EqualTo("none"));
        Assert.That(c.Execute("HDEL", "h2", "b").Integer, Is.EqualTo(0));
    }

    [Test]
    public void IncrementsFollowRedis()
    {
        using var c = C();
        Assert.That(c.Execute("HINCRBY", "h3", "n", "5").Integer, Is.EqualTo(5));
        Assert.That(c.Execute("HINCRBY", "h3", "n", "-7").Integer, Is.EqualTo(-2));
        c.Execute("HSET", "h3", "s", "abc", "big", long.MaxValue.ToString(), "f", "1.5");
        Assert.That(c.Execute("HINCRBY", "h3", "s", "1").Text, Is.EqualTo("ERR hash value is not an integer"));
        Assert.That(c.Execute("HINCRBY", "h3", "big", "1").Text, Is.EqualTo("ERR increment or decrement would overflow"));
        Assert.That(c.Execute("HINCRBY", "h3", "n", "x").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        Assert.That(c.Execute("HINCRBYFLOAT", "h3", "f", "0.1").Text, Is.EqualTo("1.6"));
        Assert.That(c.Execute("HINCRBYFLOAT", "h3", "new", "2.5e3").Text, Is.EqualTo("2500"));
        Assert.That(c.Execute("HINCRBYFLOAT", "h3", "s", "1").Text, Is.EqualTo("ERR hash value is not a float"));
        Assert.That(c.Execute("HINCRBYFLOAT", "h3", "f", "abc").Text, Is.EqualTo("ERR value is not a valid float"));
        Assert.That(c.Execute("HGET", "h3", "f").Text, Is.EqualTo("1.6"));
    }

    [Test]
    public void WrongTypeBothWays()
    {
        using var c = C();
        c.Execute("SET", "str", "v");
        c.Execute("HSET", "hh", "a", "1");
        const string wrong = "WRONGTYPE Operation against a key holding the wrong kind of value";
        Assert.That(c.Execute("HSET", "str", "a", "1").Text, Is.EqualTo(wrong));
        Assert.That(c.Execute("HGET", "str", "a").Text, Is.EqualTo(wrong));
        Assert.That(c.Execute("HGETALL", "str").Text, Is.EqualTo(wrong));
        Assert.That(c.Execute("GET", "hh").Text, Is.EqualTo(wrong));
        Assert.That(c.Execute("APPEND", "hh", "x").Text, Is.EqualTo(wrong));
        Assert.That(c.Execute("INCR", "hh").Text, Is.EqualTo(wrong));
        Assert.That(c.Execute("LPUSH", "hh", "x").Text, Is.EqualTo(wrong));
        Assert.That(c.Execute("GET", "str").Text, Is.EqualTo("v"), "nothing changed");
        Assert.That(c.Execute("HGET", "hh", "a").Text, Is.EqualTo("1"), "nothing changed");
        // SET replaces a value of any type, as in Redis.
        Assert.That(c.Execute("SET", "hh", "now a string").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("TYPE", "hh").Text, Is.EqualTo("string"));
        Assert.That(c.Execute("GET", "hh").Text, Is.EqualTo("now a string"));
    }

    [Test]
    public void KeyCommandsWorkOnHashes()
    {
        using var c = C();
        c.Execute("HSET", "kh", "a", "1", "b", "2");
        Assert.That(c.Execute("TYPE", "kh").Text, Is.EqualTo("hash"));
        Assert.That(c.Execute("OBJECT", "ENCODING", "kh").Text, Is.EqualTo("listpack"));
        Assert.That(c.Execute("EXPIRE", "kh", "100").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("TTL", "kh").Integer, Is.InRange(99, 100));
        Assert.That(c.Execute("PERSIST", "kh").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("TTL", "kh").Integer, Is.EqualTo(-1));
        Assert.That(c.Execute("HGET", "kh", "b").Text, Is.EqualTo("2"), "the fields survive the expiry changes");
        Assert.That(c.Execute("RENAME", "kh", "kh2").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("HGET", "kh2", "a").Text, Is.EqualTo("1"));
        Assert.That(c.Execute("COPY", "kh2", "kh3").Integer, Is.EqualTo(1));
        c.Execute("HSET", "kh3", "a", "changed");
        Assert.That(c.Execute("HGET", "kh2", "a").Text, Is.EqualTo("1"), "a copy is independent");
        var dump = c.Execute("DUMP", "kh2");
        Assert.That(dump.Bytes, Is.Not.Null);
        Assert.That(c.Execute("RESTORE", "kh4", "0", dump.Bytes!).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("HGET", "kh4", "b").Text, Is.EqualTo("2"));
        Assert.That(c.Execute("TYPE", "kh4").Text, Is.EqualTo("hash"));
        Assert.That(c.Execute("MEMORY", "USAGE", "kh4").Integer, Is.GreaterThan(0));
        var scan = c.Execute("SCAN", "0", "MATCH", "kh*", "TYPE", "hash", "COUNT", "1000");
        Assert.That(Texts(scan.Elements![1]), Is.EquivalentTo(new[] { "kh2", "kh3", "kh4" }));
        Assert.That(c.Execute("DEL", "kh2", "kh3", "kh4").Integer, Is.EqualTo(3));
        // Past hash-max-listpack-value the encoding is hashtable.
        c.Execute("HSET", "kh5", "f", new string('x', 100));
        Assert.That(c.Execute("OBJECT", "ENCODING", "kh5").Text, Is.EqualTo("hashtable"));
    }

    [Test]
    public void RandomFieldsAndScan()
    {
        using var c = C();
        for (int i = 0; i < 20; i++) c.Execute("HSET", "rh", "f" + i, "v" + i);
        Assert.That(c.Execute("HRANDFIELD", "rh").Text, Does.StartWith("f"));
        Assert.That(c.Execute("HRANDFIELD", "nosuch").IsNull);
        var distinct = Texts(c.Execute("HRANDFIELD", "rh", "5"));
        Assert.That(distinct.Distinct().Count(), Is.EqualTo(5));
        Assert.That(c.Execute("HRANDFIELD", "rh", "50").Elements!, Has.Length.EqualTo(20), "at most every field once");
        Assert.That(c.Execute("HRANDFIELD", "rh", "-50").Elements!, Has.Length.EqualTo(50), "repeats allowed");
        var withValues = Texts(c.Execute("HRANDFIELD", "rh", "3", "WITHVALUES"));
        Assert.That(withValues, Has.Length.EqualTo(6));
        Assert.That(withValues[1], Is.EqualTo("v" + withValues[0][1..]));
        Assert.That(c.Execute("HRANDFIELD", "rh", "3", "WITHSCORES").Text, Is.EqualTo("ERR syntax error"));
        var scan = c.Execute("HSCAN", "rh", "0", "MATCH", "f1*");
        Assert.That(scan.Elements![0].Text, Is.EqualTo("0"));
        Assert.That(Texts(scan.Elements[1]).Where((_, i) => i % 2 == 0), Is.EquivalentTo(new[] { "f1", "f10", "f11", "f12", "f13", "f14", "f15", "f16", "f17", "f18", "f19" }));
    }

    [Test]
    public void Resp3RepliesAreMaps()
    {
        using var c = C();
        c.Execute("HELLO", "3");
        c.Execute("HSET", "r3", "a", "1");
        var all = c.Execute("HGETALL", "r3");
        Assert.That(all.Type, Is.EqualTo(RespType.Map));
        Assert.That(Texts(all), Is.EqualTo(new[] { "a", "1" }));
        var pairs = c.Execute("HRANDFIELD", "r3", "1", "WITHVALUES");
        Assert.That(pairs.Elements![0].Type, Is.EqualTo(RespType.Array), "RESP3: [field, value] pairs");
    }
}
