using Garnet.client;
using Garnet.server.Storage;

namespace Garnet.test;

/// <summary>DUMP and RESTORE in Redis's payload format, checked against payloads captured from Redis 7.0.15.</summary>
[TestFixture]
public class DumpRestoreTests : ServerFixture
{
    // DUMP output of Debian's redis-server 7.0.15 (RDB version 10).
    private const string RedisPlain = "000568656c6c6f0a006372df766534200a";          // "hello"
    private const string RedisInt = "00c139300a009d94ea2793fc08b9";                 // "12345" (INT16)
    private const string RedisNegative = "00c0f90a005e26d130d7a242ab";              // "-7" (INT8)
    private const string RedisLzf = "00c31040a0016161e0590002626364e02e020163640a004cabb3765d35724e"; // 'a'*100 + 'bcd'*20

    [Test]
    public void Crc64MatchesRedis() =>
        Assert.That(Garnet.server.Persistence.RdbEncoding.Crc64(0, "123456789"u8), Is.EqualTo(0xe9c6d914c4b8d9caUL));

    [Test]
    public void OurPayloadsAreRedisPayloads()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        c.Execute("SET", "d:plain", "hello");
        c.Execute("SET", "d:int", "12345");
        c.Execute("SET", "d:neg", "-7");
        Assert.That(Convert.ToHexString(c.Execute("DUMP", "d:plain").Bytes!).ToLowerInvariant(), Is.EqualTo(RedisPlain));
        Assert.That(Convert.ToHexString(c.Execute("DUMP", "d:int").Bytes!).ToLowerInvariant(), Is.EqualTo(RedisInt));
        Assert.That(Convert.ToHexString(c.Execute("DUMP", "d:neg").Bytes!).ToLowerInvariant(), Is.EqualTo(RedisNegative));
        Assert.That(c.Execute("DUMP", "d:missing").IsNull, Is.True);
    }

    [Test]
    public void RestoreIdletimeSetsTheKeysIdleTime()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        var payload = Convert.FromHexString(RedisPlain);
        Assert.That(c.Execute("RESTORE", "d:idle", "0", payload, "IDLETIME", "1000").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("OBJECT", "IDLETIME", "d:idle").Integer, Is.InRange(1000, 1002));
        Assert.That(c.Execute("RESTORE", "d:fresh", "0", payload).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("OBJECT", "IDLETIME", "d:fresh").Integer, Is.InRange(0, 1));
        Assert.That(c.Execute("GET", "d:idle").Text, Is.EqualTo("hello"));
        Assert.That(c.Execute("OBJECT", "IDLETIME", "d:idle").Integer, Is.InRange(0, 1), "a read touches it again (a clock second may pass)");
    }

    [Test]
    public void RestoresRedisPayloadsIncludingLzf()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        Assert.That(c.Execute("RESTORE", "r:plain", "0", Convert.FromHexString(RedisPlain)).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "r:plain").Text, Is.EqualTo("hello"));
        Assert.That(c.Execute("RESTORE", "r:int", "0", Convert.FromHexString(RedisInt)).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "r:int").Text, Is.EqualTo("12345"));
        Assert.That(c.Execute("RESTORE", "r:lzf", "0", Convert.FromHexString(RedisLzf)).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "r:lzf").Text, Is.EqualTo(new string('a', 100) + string.Concat(Enumerable.Repeat("bcd", 20))));

        Assert.That(c.Execute("RESTORE", "r:plain", "0", Convert.FromHexString(RedisPlain)).Text, Is.EqualTo("BUSYKEY Target key name already exists."));
        Assert.That(c.Execute("RESTORE", "r:plain", "5000", Convert.FromHexString(RedisInt), "REPLACE").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "r:plain").Text, Is.EqualTo("12345"));
        Assert.That(c.Execute("PTTL", "r:plain").Integer, Is.InRange(4000, 5000));
        long at = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() + 100_000;
        Assert.That(c.Execute("RESTORE", "r:abs", at.ToString(), Convert.FromHexString(RedisPlain), "ABSTTL").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("PEXPIRETIME", "r:abs").Integer, Is.EqualTo(at));
        Assert.That(c.Execute("RESTORE", "r:past", "1", Convert.FromHexString(RedisPlain), "ABSTTL").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("EXISTS", "r:past").Integer, Is.EqualTo(0), "an already expired payload creates nothing");

        // Round trip of our own payloads, large and binary.
        var big = new byte[100_000];
        new Random(4).NextBytes(big);
        c.Execute("SET", "r:big", big);
        var payload = c.Execute("DUMP", "r:big").Bytes!;
        Assert.That(c.Execute("RESTORE", "r:big2", "0", payload).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "r:big2").Bytes, Is.EqualTo(big));
    }

    [Test]
    public void CorruptPayloadsAreRejected()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        var good = Convert.FromHexString(RedisPlain);
        var flipped = (byte[])good.Clone();
        flipped[2] ^= 1;
        Assert.That(c.Execute("RESTORE", "x:1", "0", flipped).Text, Is.EqualTo("ERR DUMP payload version or checksum are wrong"));
        var future = (byte[])good.Clone();
        future[^10] = 99;
        Assert.That(c.Execute("RESTORE", "x:1", "0", future).Text, Is.EqualTo("ERR DUMP payload version or checksum are wrong"));
        Assert.That(c.Execute("RESTORE", "x:1", "0", "short").Text, Is.EqualTo("ERR DUMP payload version or checksum are wrong"));
        Assert.That(c.Execute("RESTORE", "x:1", "-1", good).Text, Is.EqualTo("ERR Invalid TTL value, must be >= 0"));
        Assert.That(c.Execute("RESTORE", "x:1", "0", good, "BOGUS").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("EXISTS", "x:1").Integer, Is.EqualTo(0));
        // A payload with a valid CRC whose body is not a string value.
        var body = new List<byte> { 14, 0x05 };
        body.AddRange("hello"u8.ToArray());
        body.Add(10); body.Add(0);
        var crc = BitConverter.GetBytes(Garnet.server.Persistence.RdbEncoding.Crc64(0, body.ToArray()));
        Assert.That(c.Execute("RESTORE", "x:1", "0", body.Concat(crc).ToArray()).Text, Is.EqualTo("ERR Bad data format"));
    }
}
