using Garnet.client;

namespace Garnet.test;

/// <summary>PFADD, PFCOUNT, PFMERGE: Redis's format (sparse, then dense), its replies, errors and error bounds.</summary>
[TestFixture]
public class HyperLogLogTests : ServerFixture
{
    [Test]
    public void AddCountMerge()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        Assert.That(c.Execute("PFADD", "h:a", "a", "b", "c", "d", "e", "f", "g").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("PFADD", "h:a", "a", "b").Integer, Is.EqualTo(0), "no register changed");
        Assert.That(c.Execute("PFCOUNT", "h:a").Integer, Is.EqualTo(7));
        Assert.That(c.Execute("PFADD", "h:empty").Integer, Is.EqualTo(1), "creates the key");
        Assert.That(c.Execute("PFADD", "h:empty").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("PFCOUNT", "h:empty").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("PFCOUNT", "h:missing").Integer, Is.EqualTo(0));
        var value = c.Execute("GET", "h:a").Bytes!;
        Assert.That(value[..4], Is.EqualTo("HYLL"u8.ToArray()));
        Assert.That(value[4], Is.EqualTo(1), "small sets are sparse");
        c.Execute("PFADD", "h:b", "f", "g", "h", "i");
        Assert.That(c.Execute("PFCOUNT", "h:a", "h:b").Integer, Is.EqualTo(9));
        Assert.That(c.Execute("PFMERGE", "h:u", "h:a", "h:b").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("PFCOUNT", "h:u").Integer, Is.EqualTo(9));
        Assert.That(c.Execute("EXPIRE", "h:u", "100").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("PFMERGE", "h:u").Text, Is.EqualTo("OK"), "merging only the destination keeps it");
        Assert.That(c.Execute("TTL", "h:u").Integer, Is.InRange(98, 100), "and its TTL");
        Assert.That(c.Execute("PFCOUNT", "h:u").Integer, Is.EqualTo(9));

        c.Execute("SET", "h:str", "not an hll");
        Assert.That(c.Execute("PFADD", "h:str", "x").Text, Is.EqualTo("WRONGTYPE Key is not a valid HyperLogLog string value."));
        Assert.That(c.Execute("PFCOUNT", "h:str").Text, Is.EqualTo("WRONGTYPE Key is not a valid HyperLogLog string value."));
        Assert.That(c.Execute("PFMERGE", "h:u", "h:str").Text, Is.EqualTo("WRONGTYPE Key is not a valid HyperLogLog string value."));
        Assert.That(c.Execute("PFADD").Text, Is.EqualTo("ERR wrong number of arguments for 'pfadd' command"));
    }

    [Test]
    public void RegistersAreByteForByteRedis()
    {
        // Captured from Debian's redis-server 7.0.15: PFADD hx a b c d e f g foo bar baz, then GET hx (bytes after the
        // 16-byte header; the header differs only in the cached cardinality, which Redis fills in on PFCOUNT).
        const string redisSparse = "466d80532e8c42dc80369044048438804621804a8e84498c80426d80425a";
        using var c = new RespClient("127.0.0.1", _server.Port);
        c.Execute("PFADD", "h:x", "a", "b", "c", "d", "e", "f", "g", "foo", "bar", "baz");
        var value = c.Execute("GET", "h:x").Bytes!;
        Assert.That(Convert.ToHexString(value[16..]).ToLowerInvariant(), Is.EqualTo(redisSparse));
        Assert.That(c.Execute("PFCOUNT", "h:x").Integer, Is.EqualTo(10));
        // A value in Redis's format with a valid cached cardinality (as Redis writes it) is read too.
        var fromRedis = Convert.FromHexString("48594c4c010000000a00000000000000" + redisSparse);
        c.Execute("SET", "h:r", fromRedis);
        Assert.That(c.Execute("PFCOUNT", "h:r").Integer, Is.EqualTo(10));
        Assert.That(c.Execute("PFADD", "h:r", "a").Integer, Is.EqualTo(0));
    }

    [Test]
    public void ErrorBoundsAndDenseConversion()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        const int n = 100_000, batch = 1000;
        for (int start = 0; start < n; start += batch)
        {
            var args = new object[batch + 2];
            args[0] = "PFADD"; args[1] = "h:big";
            for (int i = 0; i < batch; i++) args[i + 2] = "element:" + (start + i);
            c.Execute(args);
            if (start == 0)
            {
                long small = c.Execute("PFCOUNT", "h:big").Integer;
                Assert.That(Math.Abs(small - batch), Is.LessThan(batch * 0.02), "1000 elements within 2%");
            }
        }
        long count = c.Execute("PFCOUNT", "h:big").Integer;
        TestContext.Out.WriteLine($"{n} distinct elements estimated as {count}");
        Assert.That(Math.Abs(count - n), Is.LessThan(n * 0.02), "Redis's standard error is 0.81%: 2% is more than two of them");
        var value = c.Execute("GET", "h:big").Bytes!;
        Assert.That(value[4], Is.EqualTo(0), "large sets are dense");
        Assert.That(value.Length, Is.EqualTo(16 + 12288));
    }
}
