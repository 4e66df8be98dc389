using Garnet.client;

namespace Garnet.test;

/// <summary>SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP with Redis's documented examples and errors.</summary>
[TestFixture]
public class BitmapCommandTests : ServerFixture
{
    [Test]
    public void SetAndGetBits()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        Assert.That(c.Execute("SETBIT", "b:k", "7", "1").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("SETBIT", "b:k", "7", "0").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("GETBIT", "b:k", "7").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("SETBIT", "b:k", "1", "1").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("GET", "b:k").Bytes, Is.EqualTo(new byte[] { 0x40 }));
        Assert.That(c.Execute("SETBIT", "b:k", "100", "1").Integer, Is.EqualTo(0), "grows with zero bytes");
        Assert.That(c.Execute("STRLEN", "b:k").Integer, Is.EqualTo(13));
        Assert.That(c.Execute("GETBIT", "b:k", "100").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("GETBIT", "b:k", "99").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("GETBIT", "b:k", "100000").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("GETBIT", "b:none", "3").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("SETBIT", "b:k", "-1", "1").Text, Is.EqualTo("ERR bit offset is not an integer or out of range"));
        Assert.That(c.Execute("SETBIT", "b:k", "4294967296", "1").Text, Is.EqualTo("ERR bit offset is not an integer or out of range"));
        Assert.That(c.Execute("SETBIT", "b:k", "1", "2").Text, Is.EqualTo("ERR bit is not an integer or out of range"));
        // Growing one bit at a time across many records' worth of in-place growth and copies.
        for (int i = 0; i < 2000; i += 7) c.Execute("SETBIT", "b:grow", i.ToString(), "1");
        Assert.That(c.Execute("BITCOUNT", "b:grow").Integer, Is.EqualTo(Enumerable.Range(0, 2000).Count(i => i % 7 == 0)));
    }

    [Test]
    public void CountAndPosition()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        c.Execute("SET", "b:s", "foobar");
        Assert.That(c.Execute("BITCOUNT", "b:s").Integer, Is.EqualTo(26));
        Assert.That(c.Execute("BITCOUNT", "b:s", "0", "0").Integer, Is.EqualTo(4));
        Assert.That(c.Execute("BITCOUNT", "b:s", "1", "1").Integer, Is.EqualTo(6));
        Assert.That(c.Execute("BITCOUNT", "b:s", "1", "1", "BYTE").Integer, Is.EqualTo(6));
        Assert.That(c.Execute("BITCOUNT", "b:s", "5", "30", "BIT").Integer, Is.EqualTo(17));
        Assert.That(c.Execute("BITCOUNT", "b:s", "-2", "-1").Integer, Is.EqualTo(7));
        Assert.That(c.Execute("BITCOUNT", "b:s", "1").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("BITCOUNT", "b:s", "-20", "-30").Integer, Is.EqualTo(0), "both negative, start after end: empty (Redis)");
        Assert.That(c.Execute("BITPOS", "b:s", "1", "-20", "-30").Integer, Is.EqualTo(1), "BITPOS has no such rule: both clamp to byte 0 (Redis)");
        Assert.That(c.Execute("BITCOUNT", "b:s", "-30", "-20").Integer, Is.EqualTo(4), "clamped to byte 0");
        Assert.That(c.Execute("BITCOUNT", "b:none").Integer, Is.EqualTo(0));

        c.Execute("SET", "b:p", new byte[] { 0xff, 0xf0, 0x00 });
        Assert.That(c.Execute("BITPOS", "b:p", "0").Integer, Is.EqualTo(12));
        c.Execute("SET", "b:p", new byte[] { 0x00, 0xff, 0xf0 });
        Assert.That(c.Execute("BITPOS", "b:p", "1", "0").Integer, Is.EqualTo(8));
        Assert.That(c.Execute("BITPOS", "b:p", "1", "2").Integer, Is.EqualTo(16));
        Assert.That(c.Execute("BITPOS", "b:p", "1", "2", "-1", "BYTE").Integer, Is.EqualTo(16));
        Assert.That(c.Execute("BITPOS", "b:p", "1", "7", "15", "BIT").Integer, Is.EqualTo(8));
        Assert.That(c.Execute("BITPOS", "b:p", "1", "7", "-3", "BIT").Integer, Is.EqualTo(8));
        c.Execute("SET", "b:ones", new byte[] { 0xff, 0xff });
        Assert.That(c.Execute("BITPOS", "b:ones", "0").Integer, Is.EqualTo(16), "no clear bit and no end: the position after the string");
        Assert.That(c.Execute("BITPOS", "b:ones", "0", "0", "-1").Integer, Is.EqualTo(-1), "with an end: not found");
        Assert.That(c.Execute("BITPOS", "b:none", "0").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("BITPOS", "b:none", "1").Integer, Is.EqualTo(-1));
        Assert.That(c.Execute("BITPOS", "b:p", "2").Text, Is.EqualTo("ERR The bit argument must be 1 or 0."));
    }

    [Test]
    public void BitOperations()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        c.Execute("SET", "b:x", "foobar");
        c.Execute("SET", "b:y", "abcdef");
        Assert.That(c.Execute("BITOP", "AND", "b:dest", "b:x", "b:y").Integer, Is.EqualTo(6));
        Assert.That(c.Execute("GET", "b:dest").Text, Is.EqualTo("`bc`ab"));
        Assert.That(c.Execute("BITOP", "OR", "b:dest", "b:x", "b:y").Integer, Is.EqualTo(6));
        Assert.That(c.Execute("GET", "b:dest").Text, Is.EqualTo("goofev"));
        c.Execute("SET", "b:short", "\u0001");
        Assert.That(c.Execute("BITOP", "XOR", "b:dest", "b:x", "b:short").Integer, Is.EqualTo(6));
        Assert.That(c.Execute("GET", "b:dest").Bytes, Is.EqualTo("goobar"u8.ToArray().Select((b, i) => i == 0 ? (byte)('f' ^ 1) : (byte)"foobar"[i]).ToArray()));
        Assert.That(c.Execute("BITOP", "NOT", "b:dest", "b:short").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("GET", "b:dest").Bytes, Is.EqualTo(new byte[] { 0xfe }));
        Assert.That(c.Execute("BITOP", "NOT", "b:dest", "b:x", "b:y").Text, Is.EqualTo("ERR BITOP NOT must be called with a single source key."));
        Assert.That(c.Execute("BITOP", "NAND", "b:dest", "b:x").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("BITOP", "AND", "b:dest", "b:no1", "b:no2").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXISTS", "b:dest").Integer, Is.EqualTo(0), "an empty result deletes the destination");
    }
}

[TestFixture]
public class LcsTests : ServerFixture
{
    [Test]
    public void LcsAsRedisDocumentsIt()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        c.Execute("MSET", "key1", "ohmytext", "key2", "mynewtext");
        Assert.That(c.Execute("LCS", "key1", "key2").Text, Is.EqualTo("mytext"));
        Assert.That(c.Execute("LCS", "key1", "key2", "LEN").Integer, Is.EqualTo(6));
        var r = c.Execute("LCS", "key1", "key2", "IDX");
        Assert.That(r.ToString(), Is.EqualTo("[matches, [[[4, 7], [5, 8]], [[2, 3], [0, 1]]], len, 6]"));
        r = c.Execute("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4");
        Assert.That(r.ToString(), Is.EqualTo("[matches, [[[4, 7], [5, 8]]], len, 6]"));
        r = c.Execute("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN");
        Assert.That(r.ToString(), Is.EqualTo("[matches, [[[4, 7], [5, 8], 4]], len, 6]"));
        Assert.That(c.Execute("LCS", "key1", "key2", "LEN", "IDX").Text, Is.EqualTo("ERR If you want both the length and indexes, please just use IDX."));
        Assert.That(c.Execute("LCS", "key1", "nokey").Text, Is.EqualTo(""));
        Assert.That(c.Execute("LCS", "key1", "key2", "FOO").Text, Is.EqualTo("ERR syntax error"));
    }
}

[TestFixture]
public class BitFieldTests : ServerFixture
{
    [Test]
    public void BitFieldAsRedisDocumentsIt()
    {
        using var c = new RespClient("127.0.0.1", _server.Port);
        Assert.That(c.Execute("BITFIELD", "bf:a", "INCRBY", "i5", "100", "1", "GET", "u4", "0").ToString(), Is.EqualTo("[1, 0]"));
        // Overflow control, from the BITFIELD documentation.
        Assert.That(c.Execute("BITFIELD", "bf:b", "INCRBY", "u2", "100", "1", "OVERFLOW", "SAT", "INCRBY", "u2", "102", "1").ToString(), Is.EqualTo("[1, 1]"));
        for (int i = 0; i < 2; i++) c.Execute("BITFIELD", "bf:b", "INCRBY", "u2", "100", "1", "OVERFLOW", "SAT", "INCRBY", "u2", "102", "1");
        Assert.That(c.Execute("BITFIELD", "bf:b", "INCRBY", "u2", "100", "1", "OVERFLOW", "SAT", "INCRBY", "u2", "102", "1").ToString(), Is.EqualTo("[0, 3]"));
        Assert.That(c.Execute("BITFIELD", "bf:c", "OVERFLOW", "FAIL", "INCRBY", "u2", "102", "4").ToString(), Is.EqualTo("[(nil)]"));
        // SET returns the old value; #N offsets are multiples of the width; signed wrap.
        Assert.That(c.Execute("BITFIELD", "bf:d", "SET", "i8", "#0", "100", "SET", "i8", "#1", "200").ToString(), Is.EqualTo("[0, 0]"));
        Assert.That(c.Execute("BITFIELD", "bf:d", "GET", "i8", "#0", "GET", "i8", "#1", "GET", "u8", "8").ToString(), Is.EqualTo("[100, -56, 200]"));
        Assert.That(c.Execute("BITFIELD", "bf:d", "INCRBY", "i8", "0", "100").ToString(), Is.EqualTo("[-56]"), "100 + 100 wraps in i8");
        Assert.That(c.Execute("BITFIELD", "bf:d", "OVERFLOW", "SAT", "INCRBY", "i8", "0", "-1000").ToString(), Is.EqualTo("[-128]"));
        Assert.That(c.Execute("BITFIELD", "bf:e", "SET", "i64", "0", "-1", "GET", "u63", "0", "GET", "i64", "0").ToString(), Is.EqualTo("[0, 9223372036854775807, -1]"));
        Assert.That(c.Execute("SETBIT", "bf:f", "7", "1").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("BITFIELD", "bf:f", "GET", "u8", "0").ToString(), Is.EqualTo("[1]"), "bits are big-endian, as SETBIT's");
        Assert.That(c.Execute("BITFIELD_RO", "bf:f", "GET", "u8", "0").ToString(), Is.EqualTo("[1]"));
        Assert.That(c.Execute("BITFIELD_RO", "bf:missing", "GET", "i16", "5").ToString(), Is.EqualTo("[0]"));
        Assert.That(c.Execute("EXISTS", "bf:missing").Integer, Is.EqualTo(0));
        // Errors.
        Assert.That(c.Execute("BITFIELD_RO", "bf:f", "SET", "u8", "0", "1").Text, Is.EqualTo("ERR BITFIELD_RO only supports the GET subcommand"));
        Assert.That(c.Execute("BITFIELD", "bf:f", "GET", "u64", "0").Text, Is.EqualTo("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."));
        Assert.That(c.Execute("BITFIELD", "bf:f", "GET", "i65", "0").Text, Does.StartWith("ERR Invalid bitfield type"));
        Assert.That(c.Execute("BITFIELD", "bf:f", "GET", "u8", "-1").Text, Is.EqualTo("ERR bit offset is not an integer or out of range"));
        Assert.That(c.Execute("BITFIELD", "bf:f", "OVERFLOW", "MAYBE").Text, Is.EqualTo("ERR Invalid OVERFLOW type specified"));
        Assert.That(c.Execute("BITFIELD", "bf:f", "SET", "u8", "0", "x").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        Assert.That(c.Execute("BITFIELD", "bf:f", "FOO").Text, Is.EqualTo("ERR syntax error"));
    }
}
