using Garnet.client;

namespace Garnet.test;

/// <summary>Key and database commands through raw RESP (and StackExchange.Redis where it has them).</summary>
[TestFixture]
public class KeyCommandTests : ServerFixture
{
    private RespClient Raw() => new("127.0.0.1", _server.Port);

    [Test]
    public void DelExistsTypeTouch()
    {
        using var c = Raw();
        c.Execute("SELECT", "1");
        c.Execute("MSET", "a", "1", "b", "2", "c", "3");
        Assert.That(c.Execute("TYPE", "a").Text, Is.EqualTo("string"));
        Assert.That(c.Execute("TYPE", "zz").Text, Is.EqualTo("none"));
        Assert.That(c.Execute("TOUCH", "a", "b", "zz").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("DEL", "a", "b", "zz").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("UNLINK", "c", "c").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("EXISTS", "a", "b", "c").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(0));
    }

    [Test]
    public void ExpireFamily()
    {
        using var c = Raw();
        c.Execute("SELECT", "2");
        c.Execute("SET", "k", "v");
        Assert.That(c.Execute("TTL", "k").Integer, Is.EqualTo(-1));
        Assert.That(c.Execute("TTL", "nokey").Integer, Is.EqualTo(-2));
        Assert.That(c.Execute("EXPIRE", "nokey", "10").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXPIRE", "k", "100", "XX").Integer, Is.EqualTo(0), "XX: no TTL yet");
        Assert.That(c.Execute("EXPIRE", "k", "100", "NX").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("EXPIRE", "k", "200", "NX").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXPIRE", "k", "50", "GT").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXPIRE", "k", "150", "GT").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("EXPIRE", "k", "120", "LT").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("TTL", "k").Integer, Is.InRange(118, 120));
        Assert.That(c.Execute("PEXPIRE", "k", "100000").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("PTTL", "k").Integer, Is.InRange(99_000, 100_000));
        long at = DateTimeOffset.UtcNow.ToUnixTimeSeconds() + 1000;
        Assert.That(c.Execute("EXPIREAT", "k", at.ToString()).Integer, Is.EqualTo(1));
        Assert.That(c.Execute("EXPIRETIME", "k").Integer, Is.EqualTo(at));
        Assert.That(c.Execute("PEXPIRETIME", "k").Integer, Is.EqualTo(at * 1000));
        Assert.That(c.Execute("PEXPIREAT", "k", (at * 1000 + 5).ToString()).Integer, Is.EqualTo(1));
        Assert.That(c.Execute("PEXPIRETIME", "k").Integer, Is.EqualTo(at * 1000 + 5));
        Assert.That(c.Execute("EXPIRETIME", "nokey").Integer, Is.EqualTo(-2));
        Assert.That(c.Execute("PERSIST", "k").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("PERSIST", "k").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXPIRETIME", "k").Integer, Is.EqualTo(-1));
        Assert.That(c.Execute("EXPIRE", "k", "10", "NX", "XX").Text, Is.EqualTo("ERR NX and XX, GT or LT options at the same time are not compatible"));
        Assert.That(c.Execute("EXPIRE", "k", "10", "GT", "LT").Text, Is.EqualTo("ERR GT and LT options at the same time are not compatible"));
        Assert.That(c.Execute("EXPIRE", "k", "10", "FOO").Text, Is.EqualTo("ERR Unsupported option FOO"));
        Assert.That(c.Execute("EXPIRE", "k", "x").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        Assert.That(c.Execute("EXPIRE", "k", "9223372036854775807").Text, Is.EqualTo("ERR invalid expire time in 'expire' command"));
        Assert.That(c.Execute("EXPIRE", "k", "-1").Integer, Is.EqualTo(1), "a time in the past deletes the key");
        Assert.That(c.Execute("EXISTS", "k").Integer, Is.EqualTo(0));
    }

    [Test]
    public void ExpiredKeysAreInvisibleAndActiveExpiryFreesThem()
    {
        using var c = Raw();
        c.Execute("SELECT", "3");
        // Long enough that none expires while the 500 SETs run on a loaded machine (active expiry would then count it out).
        for (int i = 0; i < 500; i++) c.Execute("SET", "e" + i, "v", "PX", "1500");
        c.Execute("SET", "keep", "v");
        Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(501));
        var line = System.Text.RegularExpressions.Regex.Match(c.Execute("INFO", "keyspace").Text!, @"db3:keys=501,expires=500,avg_ttl=([0-9]+)\r\n");
        Assert.That(line.Success, Is.True);
        Assert.That(long.Parse(line.Groups[1].Value), Is.InRange(0, 1500), "avg_ttl: the keys' remaining milliseconds");
        Thread.Sleep(1600);
        Assert.That(c.Execute("GET", "e1").IsNull, Is.True);
        Assert.That(c.Execute("EXISTS", "e2").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("TTL", "e3").Integer, Is.EqualTo(-2));
        Assert.That(c.Execute("INCR", "e4").Integer, Is.EqualTo(1), "an expired key counts as missing for INCR");
        // Nobody reads the rest: active expiry deletes them within a few ticks.
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (c.Execute("DBSIZE").Integer > 2 && DateTime.UtcNow < deadline) Thread.Sleep(50);
        Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("INFO", "keyspace").Text, Does.Contain("db3:keys=2,expires=0,avg_ttl=0"));
    }

    [Test]
    public void ALookupDeletesTheExpiredKeyItMeetsAsRedisDoes()
    {
        using var c = Raw();
        c.Execute("SELECT", "5");
        RespAssert.Simple(c.Execute("DEBUG", "SET-ACTIVE-EXPIRE", "0"), "OK");
        try
        {
            long expiredBefore = ExpiredKeys(c);
            var lookups = new (string Name, Func<string, RespValue> Run)[]
            {
                ("GET", k => c.Execute("GET", k)), ("EXISTS", k => c.Execute("EXISTS", k)), ("TTL", k => c.Execute("TTL", k)),
                ("TYPE", k => c.Execute("TYPE", k)), ("STRLEN", k => c.Execute("STRLEN", k)), ("HLEN", k => c.Execute("HLEN", k)),
                ("LRANGE", k => c.Execute("LRANGE", k, "0", "-1")),
            };
            foreach (var (name, run) in lookups)
            {
                string key = "lazy:" + name;
                if (name is "HLEN") c.Execute("HSET", key, "f", "v");
                else if (name is "LRANGE") c.Execute("RPUSH", key, "x");
                else c.Execute("SET", key, "v");
                c.Execute("PEXPIRE", key, "1");
                Thread.Sleep(20); // past its 1 ms

                Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(1), name + ": with active expiry off the expired key still counts");
                run(key);
                Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(0), name + " deletes the expired key it meets");
            }
            Assert.That(ExpiredKeys(c) - expiredBefore, Is.EqualTo(lookups.Length), "each lazy deletion counts in expired_keys");
        }
        finally { c.Execute("DEBUG", "SET-ACTIVE-EXPIRE", "1"); c.Execute("FLUSHDB"); }
    }

    private static long ExpiredKeys(RespClient c) =>
        long.Parse(System.Text.RegularExpressions.Regex.Match(c.Execute("INFO", "stats").Text!, @"expired_keys:(\d+)").Groups[1].Value);

    [Test]
    public void RenameCopyMove()
    {
        using var c = Raw();
        c.Execute("SELECT", "4");
        c.Execute("SET", "src", "v", "EX", "100");
        Assert.That(c.Execute("RENAME", "src", "dst").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "dst").Text, Is.EqualTo("v"));
        Assert.That(c.Execute("TTL", "dst").Integer, Is.InRange(98, 100), "RENAME keeps the TTL");
        Assert.That(c.Execute("EXISTS", "src").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("RENAME", "src", "x").Text, Is.EqualTo("ERR no such key"));
        c.Execute("SET", "other", "o");
        Assert.That(c.Execute("RENAMENX", "dst", "other").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("RENAMENX", "dst", "fresh").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("COPY", "fresh", "other").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("COPY", "fresh", "other", "REPLACE").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("GET", "other").Text, Is.EqualTo("v"));
        Assert.That(c.Execute("COPY", "fresh", "fresh").Text, Is.EqualTo("ERR source and destination objects are the same"));
        Assert.That(c.Execute("COPY", "fresh", "indb5", "DB", "5").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("MOVE", "fresh", "5").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("MOVE", "other", "4").Text, Is.EqualTo("ERR source and destination objects are the same"));
        Assert.That(c.Execute("MOVE", "other", "99").Text, Is.EqualTo("ERR DB index is out of range"));
        Assert.That(c.Execute("EXISTS", "fresh").Integer, Is.EqualTo(0));
        c.Execute("SELECT", "5");
        Assert.That(c.Execute("MGET", "fresh", "indb5").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "v", "v" }));
    }

    [Test]
    public void DatabasesAreSeparateAndSwapFlush()
    {
        using var c = Raw();
        c.Execute("SELECT", "6");
        for (int i = 0; i < 100; i++) c.Execute("SET", "k" + i, "six");
        c.Execute("SELECT", "7");
        c.Execute("SET", "k1", "seven");
        Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("SWAPDB", "6", "7").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(100));
        Assert.That(c.Execute("GET", "k1").Text, Is.EqualTo("six"));
        Assert.That(c.Execute("SWAPDB", "6", "x").Text, Is.EqualTo("ERR invalid second DB index"));
        Assert.That(c.Execute("SWAPDB", "6", "100").Text, Is.EqualTo("ERR DB index is out of range"));
        Assert.That(c.Execute("FLUSHDB", "SYNC").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("GET", "k1").IsNull, Is.True);
        c.Execute("SELECT", "6");
        Assert.That(c.Execute("GET", "k1").Text, Is.EqualTo("seven"));
        Assert.That(c.Execute("FLUSHDB", "WHAT").Text, Is.EqualTo("ERR syntax error"));
    }

    [Test]
    public void KeysScanRandomKey()
    {
        using var c = Raw();
        c.Execute("SELECT", "8");
        for (int i = 0; i < 300; i++) c.Execute("SET", (i % 3 == 0 ? "user:" : "item:") + i, "v");
        var keys = c.Execute("KEYS", "user:*").Elements!.Select(e => e.Text!).ToList();
        Assert.That(keys, Has.Count.EqualTo(100));
        Assert.That(keys, Is.All.StartsWith("user:"));
        Assert.That(c.Execute("KEYS", "*").Elements!, Has.Length.EqualTo(300));

        var seen = new List<string>();
        string cursor = "0";
        int calls = 0;
        do
        {
            var r = c.Execute("SCAN", cursor, "COUNT", "20");
            cursor = r.Elements![0].Text!;
            Assert.That(r.Elements[1].Elements!, Has.Length.LessThanOrEqualTo(20), "COUNT bounds the keys one call examines");
            seen.AddRange(r.Elements[1].Elements!.Select(e => e.Text!));
            calls++;
        } while (cursor != "0" && calls < 1000);
        Assert.That(seen.Distinct().Count(), Is.EqualTo(300));
        Assert.That(seen, Has.Count.EqualTo(300));
        Assert.That(calls, Is.InRange(15, 16), "300 keys at 20 per call (the last call may find the end empty)");
        Assert.That(_server.Server.Server.Store.Scans.BufferedKeys, Is.EqualTo(0), "a finished scan holds no keys");
        var matched = new List<string>();
        cursor = "0";
        do
        {
            var r = c.Execute("SCAN", cursor, "MATCH", "item:1*");
            cursor = r.Elements![0].Text!;
            Assert.That(r.Elements[1].Elements!, Has.Length.LessThanOrEqualTo(10), "COUNT defaults to 10");
            matched.AddRange(r.Elements[1].Elements!.Select(e => e.Text!));
        } while (cursor != "0");
        Assert.That(matched.Distinct().OrderBy(x => x), Is.EqualTo(Enumerable.Range(0, 300).Where(i => i % 3 != 0).Select(i => "item:" + i).Where(k => k.StartsWith("item:1")).OrderBy(x => x)));
        Assert.That(c.Execute("SCAN", "abc").Text, Is.EqualTo("ERR invalid cursor"));
        Assert.That(c.Execute("RANDOMKEY").Text, Does.StartWith("user:").Or.StartWith("item:"));
        c.Execute("SELECT", "9");
        Assert.That(c.Execute("RANDOMKEY").IsNull, Is.True);
    }
}

[TestFixture]
public class ObjectCommandTests : ServerFixture
{
    [Test]
    public void IdleTimeCountsFromTheLastTouchingAccess()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        foreach (var k in new[] { "it:read", "it:looked", "it:touched", "it:written" }) c.Execute("SET", k, "v");
        Assert.That(c.Execute("OBJECT", "IDLETIME", "it:read").Integer, Is.InRange(0, 1));
        Thread.Sleep(2200);
        // The access clock moves in whole seconds (the cron, 10 times a second): a boundary may fall between the access
        // and its OBJECT IDLETIME, so a touched key reads 0 or 1; one only looked at reads at least 2.
        c.Execute("GET", "it:read");
        c.Execute("TOUCH", "it:touched");
        c.Execute("APPEND", "it:written", "w");
        foreach (var look in new[] { "EXISTS", "TYPE", "TTL", "PTTL", "EXPIRETIME" }) c.Execute(look, "it:looked");
        c.Execute("OBJECT", "ENCODING", "it:looked");
        c.Execute("MEMORY", "USAGE", "it:looked");
        Assert.That(c.Execute("OBJECT", "IDLETIME", "it:looked").Integer, Is.InRange(2, 4), "looking without touching");
        Assert.That(c.Execute("OBJECT", "IDLETIME", "it:read").Integer, Is.InRange(0, 1));
        Assert.That(c.Execute("OBJECT", "IDLETIME", "it:touched").Integer, Is.InRange(0, 1));
        Assert.That(c.Execute("OBJECT", "IDLETIME", "it:written").Integer, Is.InRange(0, 1));
        Assert.That(c.Execute("OBJECT", "IDLETIME", "it:none").IsNull, Is.True);
        Assert.That(c.Execute("OBJECT", "IDLETIME").Text, Is.EqualTo("ERR wrong number of arguments for 'object|idletime' command"));
    }

    [Test]
    public void ObjectAndMemoryUsage()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        c.Execute("SET", "o:int", "12345");
        c.Execute("SET", "o:small", "hello");
        c.Execute("SET", "o:big", new string('x', 100));
        c.Execute("SET", "o:shared", "42");
        Assert.That(c.Execute("OBJECT", "ENCODING", "o:int").Text, Is.EqualTo("int"));
        Assert.That(c.Execute("OBJECT", "ENCODING", "o:small").Text, Is.EqualTo("embstr"));
        Assert.That(c.Execute("OBJECT", "ENCODING", "o:big").Text, Is.EqualTo("raw"));
        Assert.That(c.Execute("OBJECT", "ENCODING", "o:none").IsNull, Is.True);
        Assert.That(c.Execute("OBJECT", "REFCOUNT", "o:shared").Integer, Is.EqualTo(int.MaxValue));
        Assert.That(c.Execute("OBJECT", "REFCOUNT", "o:small").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("OBJECT", "FREQ", "o:small").Text, Does.StartWith("ERR An LFU maxmemory policy is not selected"));
        Assert.That(c.Execute("OBJECT", "HELP").Elements!.First().Text, Does.StartWith("OBJECT <subcommand>"));
        Assert.That(c.Execute("OBJECT", "FOO", "x").Text, Does.StartWith("ERR unknown subcommand 'FOO'"));
        long small = c.Execute("MEMORY", "USAGE", "o:small").Integer, big = c.Execute("MEMORY", "USAGE", "o:big").Integer;
        Assert.That(small, Is.InRange(24, 64));
        Assert.That(big - small, Is.InRange(88, 104), "the value's bytes are counted");
        Assert.That(c.Execute("MEMORY", "USAGE", "o:none").IsNull, Is.True);
        c.Execute("SET", "o:large", new string('y', 2 << 20));
        Assert.That(c.Execute("MEMORY", "USAGE", "o:large").Integer, Is.GreaterThan(2 << 20), "a large value's heap bytes are counted");
    }
}

[TestFixture]
public class ScanGuaranteeTests : ServerFixture
{
    [Test]
    public void FullScanReturnsEachStableKeyExactlyOnceWhileTheyAreRewritten()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        const int keys = 5000;
        for (int start = 0; start < keys; start += 500)
        {
            for (int i = start; i < start + 500; i++) c.Send("SET", "sg:" + i, "v");
            for (int i = start; i < start + 500; i++) c.Read();
        }
        using var stop = new CancellationTokenSource();
        var writer = Task.Run(() =>
        {
            using var w = new RespClient("127.0.0.1", _server.Port);
            var rnd = new Random(3);
            while (!stop.IsCancellationRequested)
                w.Execute("SET", "sg:" + rnd.Next(keys), new string('x', rnd.Next(1, 200))); // sizes change: copies to the tail
        });
        var seen = new List<string>();
        string cursor = "0";
        int calls = 0;
        do
        {
            var r = c.Execute("SCAN", cursor, "COUNT", "50");
            cursor = r.Elements![0].Text!;
            seen.AddRange(r.Elements[1].Elements!.Select(e => e.Text!));
            calls++;
            Thread.Sleep(1);
        } while (cursor != "0" && calls < 100_000);
        stop.Cancel();
        writer.Wait();
        Assert.That(seen, Has.Count.EqualTo(keys), "no duplicates");
        Assert.That(seen.Distinct().Count(), Is.EqualTo(keys), "no misses");
        Assert.That(_server.Server.Server.Store.Scans.OpenCount, Is.EqualTo(0), "a finished scan lets the store reuse space again");
    }

    [Test]
    public void ScanOverALogOfMostlyGarbageBoundsEachCallAndStillFindsEveryKey()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        c.Execute("SET", "garbage:first", "live");
        // 200,000 records that are dead by the time SCAN runs (set, then deleted), then one more live key.
        const int dead = 100_000;
        for (int start = 0; start < dead; start += 1000)
        {
            for (int i = start; i < start + 1000; i++) c.Send("SET", "garbage:" + i, "x");
            for (int i = start; i < start + 1000; i++) c.Read();
            for (int i = start; i < start + 1000; i++) c.Send("DEL", "garbage:" + i);
            for (int i = start; i < start + 1000; i++) c.Read();
        }
        c.Execute("SET", "garbage:last", "live");
        var seen = new List<string>();
        string cursor = "0";
        int calls = 0;
        do
        {
            var r = c.Execute("SCAN", cursor, "MATCH", "garbage:*", "COUNT", "10");
            cursor = r.Elements![0].Text!;
            seen.AddRange(r.Elements[1].Elements!.Select(e => e.Text!));
            calls++;
        } while (cursor != "0" && calls < 10_000);
        // Each call reads about COUNT*16 + 65536 records at most: the 200,000 dead ones take more than one call.
        Assert.That(calls, Is.GreaterThan(1), "one call did not walk the whole log");
        Assert.That(seen, Is.SupersetOf(new[] { "garbage:first", "garbage:last" }));
        Assert.That(seen.Where(k => k is not "garbage:first" and not "garbage:last"), Is.Empty, "no deleted key comes back");
    }
}
