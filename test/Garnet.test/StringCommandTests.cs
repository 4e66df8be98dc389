using Garnet.client;
using StackExchange.Redis;

namespace Garnet.test;

/// <summary>String commands through StackExchange.Redis and raw RESP, against Redis 7.2's documented replies.</summary>
[TestFixture]
public class StringCommandTests : ServerFixture
{
    private RespClient Raw() => new("127.0.0.1", _server.Port);

    [Test]
    public void SetGetThroughStackExchangeRedis([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        using var mux = _server.Multiplexer(protocol);
        var db = mux.GetDatabase();
        string p = "se:" + protocol + ":"; // the fixture's server is shared: each protocol has its own keys
        Assert.That(db.StringSet(p + "a", "hello"), Is.True);
        Assert.That((string?)db.StringGet(p + "a"), Is.EqualTo("hello"));
        Assert.That((string?)db.StringGet(p + "missing"), Is.Null);
        Assert.That(db.StringSet(p + "a", "x", when: When.NotExists), Is.False);
        Assert.That(db.StringSet(p + "b", "y", when: When.Exists), Is.False);
        Assert.That(db.KeyExists(p + "b"), Is.False);
        Assert.That(db.StringSet(p + "a", "world", when: When.Exists), Is.True);
        Assert.That((string?)db.StringGet(p + "a"), Is.EqualTo("world"));
        Assert.That(db.StringSet(p + "ttl", "v", TimeSpan.FromSeconds(100)), Is.True);
        var ttl = db.KeyTimeToLive(p + "ttl");
        Assert.That(ttl!.Value.TotalSeconds, Is.InRange(98, 100));
        Assert.That(db.KeyTimeToLive(p + "a"), Is.Null, "no TTL");
        Assert.That(db.KeyTimeToLive(p + "missing"), Is.Null, "no key");
        // SET ... GET: the old value, or null (RESP3's null type, RESP2's null bulk string).
        Assert.That((string?)db.StringSetAndGet(p + "g", "1"), Is.Null);
        Assert.That((string?)db.StringSetAndGet(p + "g", "2"), Is.EqualTo("1"));
        Assert.That((string?)db.StringGetDelete(p + "g"), Is.EqualTo("2"));
        Assert.That(db.KeyExists(p + "g"), Is.False);
        Assert.That(db.StringGet(new RedisKey[] { p + "a", p + "missing", p + "ttl" }),
            Is.EqualTo(new RedisValue[] { "world", RedisValue.Null, "v" }));
        Assert.That(db.KeyDelete(new RedisKey[] { p + "a", p + "ttl", p + "missing" }), Is.EqualTo(2));
    }

    [Test]
    public void SetGetAndOptions()
    {
        using var c = Raw();
        Assert.That(c.Execute("SET", "s:g", "1", "GET").IsNull, Is.True);
        Assert.That(c.Execute("SET", "s:g", "2", "GET").Text, Is.EqualTo("1"));
        Assert.That(c.Execute("SET", "s:g", "3", "NX", "GET").Text, Is.EqualTo("2"));
        Assert.That(c.Execute("GET", "s:g").Text, Is.EqualTo("2"));
        Assert.That(c.Execute("SET", "s:k", "v", "EX", "100").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("SET", "s:k", "w", "KEEPTTL").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("TTL", "s:k").Integer, Is.InRange(98, 100));
        Assert.That(c.Execute("SET", "s:k", "z").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("TTL", "s:k").Integer, Is.EqualTo(-1), "a plain SET removes the TTL");
        Assert.That(c.Execute("SET", "s:k", "v", "NX", "XX").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("SET", "s:k", "v", "EX", "10", "PX", "100").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("SET", "s:k", "v", "KEEPTTL", "EX", "10").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("SET", "s:k", "v", "EX", "0").Text, Is.EqualTo("ERR invalid expire time in 'set' command"));
        Assert.That(c.Execute("SET", "s:k", "v", "EX", "abc").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        Assert.That(c.Execute("SET", "s:k", "v", "PXAT", "1").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "s:k").IsNull, Is.True, "a key set to expire in the past is gone");
        Assert.That(c.Execute("SET", "s:k").Text, Is.EqualTo("ERR wrong number of arguments for 'set' command"));
    }

    [Test]
    public void SetNxSetExGetSetGetDelGetEx()
    {
        using var c = Raw();
        Assert.That(c.Execute("SETNX", "t:a", "1").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("SETNX", "t:a", "2").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("SETEX", "t:b", "100", "v").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("PTTL", "t:b").Integer, Is.InRange(99_000, 100_000));
        Assert.That(c.Execute("PSETEX", "t:c", "5000", "v").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("PTTL", "t:c").Integer, Is.InRange(4_000, 5_000));
        Assert.That(c.Execute("SETEX", "t:b", "-1", "v").Text, Is.EqualTo("ERR invalid expire time in 'setex' command"));
        Assert.That(c.Execute("GETSET", "t:a", "3").Text, Is.EqualTo("1"));
        Assert.That(c.Execute("GETSET", "t:new", "3").IsNull, Is.True);
        Assert.That(c.Execute("GETDEL", "t:a").Text, Is.EqualTo("3"));
        Assert.That(c.Execute("GETDEL", "t:a").IsNull, Is.True);
        Assert.That(c.Execute("EXISTS", "t:a").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("GETEX", "t:b", "PERSIST").Text, Is.EqualTo("v"));
        Assert.That(c.Execute("TTL", "t:b").Integer, Is.EqualTo(-1));
        Assert.That(c.Execute("GETEX", "t:b", "EX", "50").Text, Is.EqualTo("v"));
        Assert.That(c.Execute("TTL", "t:b").Integer, Is.InRange(49, 50));
        Assert.That(c.Execute("GETEX", "t:missing").IsNull, Is.True);
        Assert.That(c.Execute("GETEX", "t:b", "EX").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("GETEX", "t:b", "EX", "-1").Text, Is.EqualTo("ERR invalid expire time in 'getex' command"));
        Assert.That(c.Execute("GETEX", "t:missing", "EX", "-1").IsNull, Is.True, "a missing key answers nil before the expire value is checked");
    }

    [Test]
    public void MultiKey()
    {
        using var c = Raw();
        Assert.That(c.Execute("MSET", "m:a", "1", "m:b", "2").Text, Is.EqualTo("OK"));
        var r = c.Execute("MGET", "m:a", "m:x", "m:b");
        Assert.That(r.Elements!.Select(e => e.Text), Is.EqualTo(new[] { "1", null, "2" }));
        Assert.That(c.Execute("MSET", "m:a").Text, Is.EqualTo("ERR wrong number of arguments for 'mset' command"));
        Assert.That(c.Execute("MSET", "m:a", "1", "m:b").Text, Is.EqualTo("ERR wrong number of arguments for 'mset' command"));
        Assert.That(c.Execute("MSETNX", "m:c", "3", "m:a", "9").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXISTS", "m:c").Integer, Is.EqualTo(0), "MSETNX sets nothing when one key exists");
        Assert.That(c.Execute("MSETNX", "m:c", "3", "m:d", "4").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("EXISTS", "m:c", "m:d", "m:c", "m:nope").Integer, Is.EqualTo(3));
    }

    [Test]
    public void AppendStrlenRanges()
    {
        using var c = Raw();
        Assert.That(c.Execute("APPEND", "r:a", "Hello").Integer, Is.EqualTo(5));
        Assert.That(c.Execute("APPEND", "r:a", " World").Integer, Is.EqualTo(11));
        Assert.That(c.Execute("GET", "r:a").Text, Is.EqualTo("Hello World"));
        Assert.That(c.Execute("STRLEN", "r:a").Integer, Is.EqualTo(11));
        Assert.That(c.Execute("STRLEN", "r:none").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("GETRANGE", "r:a", "0", "4").Text, Is.EqualTo("Hello"));
        Assert.That(c.Execute("GETRANGE", "r:a", "-5", "-1").Text, Is.EqualTo("World"));
        Assert.That(c.Execute("GETRANGE", "r:a", "0", "-1").Text, Is.EqualTo("Hello World"));
        Assert.That(c.Execute("GETRANGE", "r:a", "5", "3").Text, Is.EqualTo(""));
        Assert.That(c.Execute("GETRANGE", "r:a", "-3", "-5").Text, Is.EqualTo(""));
        Assert.That(c.Execute("GETRANGE", "r:a", "100", "200").Text, Is.EqualTo(""));
        Assert.That(c.Execute("SUBSTR", "r:a", "6", "100").Text, Is.EqualTo("World"));
        Assert.That(c.Execute("GETRANGE", "r:none", "0", "1").Text, Is.EqualTo(""));
        Assert.That(c.Execute("GETRANGE", "r:a", "x", "1").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        Assert.That(c.Execute("SETRANGE", "r:a", "6", "Redis").Integer, Is.EqualTo(11));
        Assert.That(c.Execute("GET", "r:a").Text, Is.EqualTo("Hello Redis"));
        Assert.That(c.Execute("SETRANGE", "r:b", "3", "x").Integer, Is.EqualTo(4));
        Assert.That(c.Execute("GET", "r:b").Bytes, Is.EqualTo(new byte[] { 0, 0, 0, (byte)'x' }));
        Assert.That(c.Execute("SETRANGE", "r:c", "3", "").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXISTS", "r:c").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("SETRANGE", "r:a", "-1", "x").Text, Is.EqualTo("ERR offset is out of range"));
        // Growing a value many times (in place while it fits, by copy when not).
        for (int i = 0; i < 200; i++) c.Execute("APPEND", "r:grow", "0123456789");
        Assert.That(c.Execute("STRLEN", "r:grow").Integer, Is.EqualTo(2000));
    }

    [Test]
    public void CountersThroughStackExchangeRedis([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        using var mux = _server.Multiplexer(protocol);
        var db = mux.GetDatabase();
        string k = "se:" + protocol + ":n";
        Assert.That(db.StringIncrement(k), Is.EqualTo(1));
        Assert.That(db.StringIncrement(k, 41), Is.EqualTo(42));
        Assert.That(db.StringDecrement(k, 50), Is.EqualTo(-8));
        Assert.That(db.StringIncrement(k, 10.5), Is.EqualTo(2.5));
        Assert.That((string?)db.StringGet(k), Is.EqualTo("2.5"));
        var ex = Assert.Throws<RedisServerException>(() => db.StringIncrement(k));
        Assert.That(ex!.Message, Is.EqualTo("ERR value is not an integer or out of range"));
        db.KeyDelete(k);
    }

    [Test]
    public void Counters()
    {
        using var c = Raw();
        Assert.That(c.Execute("INCRBY", "n:a", "-8").Integer, Is.EqualTo(-8));
        Assert.That(c.Execute("DECR", "n:a").Integer, Is.EqualTo(-9));
        Assert.That(c.Execute("SET", "n:big", long.MaxValue.ToString()).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("INCR", "n:big").Text, Is.EqualTo("ERR increment or decrement would overflow"));
        Assert.That(c.Execute("SET", "n:s", "abc").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("INCR", "n:s").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        Assert.That(c.Execute("SET", "n:sp", " 1").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("INCR", "n:sp").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        Assert.That(c.Execute("INCRBY", "n:a", "x").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        Assert.That(c.Execute("DECRBY", "n:a", long.MinValue.ToString()).Text, Is.EqualTo("ERR decrement would overflow"));
        Assert.That(c.Execute("INCRBYFLOAT", "n:f", "10.5").Text, Is.EqualTo("10.5"));
        Assert.That(c.Execute("INCRBYFLOAT", "n:f", "0.1").Text, Is.EqualTo("10.6"));
        Assert.That(c.Execute("INCRBYFLOAT", "n:f", "-5").Text, Is.EqualTo("5.6"));
        Assert.That(c.Execute("INCRBYFLOAT", "n:f", "abc").Text, Is.EqualTo("ERR value is not a valid float"));
        Assert.That(c.Execute("INCRBYFLOAT", "n:s", "1").Text, Is.EqualTo("ERR value is not a valid float"));
        Assert.That(c.Execute("INCRBYFLOAT", "n:f", "inf").Text, Is.EqualTo("ERR increment would produce NaN or Infinity"));
        // Digits grow past the record's capacity: the counter moves by copy and keeps counting.
        Assert.That(c.Execute("SET", "n:g", "9").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("INCRBY", "n:g", "1000000000000").Integer, Is.EqualTo(1000000000009));
        Assert.That(c.Execute("GET", "n:g").Text, Is.EqualTo("1000000000009"));
    }

    [Test]
    public void ConcurrentIncrementsAreNotLost()
    {
        var tasks = Enumerable.Range(0, 4).Select(_ => Task.Run(() =>
        {
            using var c = Raw();
            for (int i = 0; i < 2000; i++) c.Execute("INCR", "n:concurrent");
        })).ToArray();
        Task.WaitAll(tasks);
        using var r = Raw();
        Assert.That(r.Execute("GET", "n:concurrent").Text, Is.EqualTo("8000"));
    }
}

[TestFixture]
public class StringEdgeCaseTests : ServerFixture
{
    [Test]
    public void RedisEdgeCases()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        Assert.That(c.Execute("INCRBYFLOAT", "e:f", "0.1").Text, Is.EqualTo("0.1"));
        Assert.That(c.Execute("INCRBYFLOAT", "e:f", "0.2").Text, Is.EqualTo("0.3"), "long-double-like result, as Redis prints it");
        Assert.That(c.Execute("GET", "e:f").Text, Is.EqualTo("0.3"));
        Assert.That(c.Execute("INCRBYFLOAT", "e:g", "5.0e3").Text, Is.EqualTo("5000"));
        Assert.That(c.Execute("SET", "e:s", "v", "NX", "NX").Text, Is.EqualTo("OK"), "a repeated option is allowed");
        Assert.That(c.Execute("SET", "e:s", "v", "EX", "-1", "FOO").Text, Is.EqualTo("ERR syntax error"), "syntax is checked before the expire value");
        Assert.That(c.Execute("SET", "e:s", "v", "EX", "10", "EX", "20").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("TTL", "e:s").Integer, Is.InRange(19, 20), "the last EX wins");
        Assert.That(c.Execute("EXPIRE", "e:s", "abc", "FOO").Text, Is.EqualTo("ERR Unsupported option FOO"));
        Assert.That(c.Execute("SETRANGE", "e:s", "9223372036854775800", "x").Text, Is.EqualTo("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
        Assert.That(c.Execute("SETRANGE", "e:s", "999999999999", "").Integer, Is.EqualTo(1), "an empty value only reports the length");
        Assert.That(c.Execute("SCAN", "+5").Text, Is.EqualTo("ERR invalid cursor"));
        // Redis (long double) answers 1000000000000000000024696061952; beyond decimal's range we have double precision.
        Assert.That(c.Execute("INCRBYFLOAT", "e:huge", "1e30").Text, Does.StartWith("10000000000000000").And.Length.EqualTo(31));
    }
}

[TestFixture]
public class AtomicDeleteTests : ServerFixture
{
    [Test]
    public void ConcurrentGetDelHandsTheValueToExactlyOneClient()
    {
        var clients = Enumerable.Range(0, 4).Select(_ => new RespClient("127.0.0.1", _server.Port)).ToArray();
        try
        {
            for (int round = 0; round < 200; round++)
            {
                clients[0].Execute("SET", "gd:k", "v" + round);
                using var go = new Barrier(clients.Length);
                var got = clients.Select(c => Task.Run(() => { go.SignalAndWait(); return c.Execute("GETDEL", "gd:k").Text; })).ToArray();
                Task.WaitAll(got);
                Assert.That(got.Count(t => t.Result == "v" + round), Is.EqualTo(1), $"round {round}");
            }
            Assert.That(clients[0].Execute("EXISTS", "gd:k").Integer, Is.EqualTo(0));
            Assert.That(clients[0].Execute("DBSIZE").Integer, Is.EqualTo(0));
        }
        finally { foreach (var c in clients) c.Dispose(); }
    }

    [Test]
    public void ExpireInThePastDeletesOnlyWhenItsConditionHolds()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        c.Execute("SET", "ep:k", "v");
        Assert.That(c.Execute("EXPIRE", "ep:k", "-5", "XX").Integer, Is.EqualTo(0), "XX: the key has no TTL, so nothing happens");
        Assert.That(c.Execute("EXISTS", "ep:k").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("PEXPIREAT", "ep:k", "1").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("EXISTS", "ep:k").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("INFO", "keyspace").Text, Does.Not.Contain("ep:"));
    }
}
