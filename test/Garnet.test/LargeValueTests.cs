using Garnet.client;

namespace Garnet.test;

/// <summary>String values larger than a log page (stored as objects) behave like any other string.</summary>
[TestFixture]
public class LargeValueTests : ServerFixture
{
    private static byte[] Pattern(int length, int seed)
    {
        var b = new byte[length];
        new Random(seed).NextBytes(b);
        return b;
    }

    [Test]
    public void SetGetAppendRangeOnValuesLargerThanAPage()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        long objectsBefore = _server.Server.Server.Store.Store.Objects.TotalBytes;
        var big = Pattern(6 << 20, 1); // 6 MB: more than a 4 MB log page
        Assert.That(c.Execute("SET", "lv:a", big).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "lv:a").Bytes, Is.EqualTo(big));
        Assert.That(c.Execute("STRLEN", "lv:a").Integer, Is.EqualTo(big.Length));
        Assert.That(c.Execute("GETRANGE", "lv:a", "100", "199").Bytes, Is.EqualTo(big[100..200]));
        Assert.That(c.Execute("APPEND", "lv:a", "tail").Integer, Is.EqualTo(big.Length + 4));
        Assert.That(c.Execute("GETRANGE", "lv:a", "-4", "-1").Text, Is.EqualTo("tail"));
        Assert.That(c.Execute("EXPIRE", "lv:a", "100").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("TTL", "lv:a").Integer, Is.InRange(98, 100));
        Assert.That(c.Execute("SETRANGE", "lv:a", "0", "head").Integer, Is.EqualTo(big.Length + 4));
        Assert.That(c.Execute("GETRANGE", "lv:a", "0", "3").Text, Is.EqualTo("head"));
        Assert.That(c.Execute("INCR", "lv:a").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        // Growing a small value past the limit, and shrinking a large one back.
        c.Execute("SET", "lv:b", "x");
        Assert.That(c.Execute("SETRANGE", "lv:b", (2 << 20).ToString(), "y").Integer, Is.EqualTo((2 << 20) + 1));
        Assert.That(c.Execute("STRLEN", "lv:b").Integer, Is.EqualTo((2 << 20) + 1));
        Assert.That(c.Execute("SET", "lv:b", "small").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "lv:b").Text, Is.EqualTo("small"));
        Assert.That(c.Execute("RENAME", "lv:a", "lv:c").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("STRLEN", "lv:c").Integer, Is.EqualTo(big.Length + 4));
        Assert.That(c.Execute("DEL", "lv:c").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("GET", "lv:c").IsNull, Is.True);
        Assert.That(_server.Server.Server.Store.Store.Objects.TotalBytes - objectsBefore, Is.LessThan(4 << 20), "deleted and replaced large values free their memory");
    }

    [Test, Category("Stress")]
    public void A512MegabyteValue()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 300_000);
        var big = Pattern(512 << 20, 2);
        Assert.That(c.Execute("SET", "lv:max", big).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("STRLEN", "lv:max").Integer, Is.EqualTo(big.Length));
        Assert.That(c.Execute("GET", "lv:max").Bytes, Is.EqualTo(big));
        Assert.That(c.Execute("APPEND", "lv:max", "x").Text, Is.EqualTo("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
    }
}
