// Hostile data a client sends or asks for (docs/security.md): a huge intset insert, a huge negative
// SRANDMEMBER/HRANDFIELD count, a BITFIELD offset near long.MaxValue, an LZF payload declaring far more than its bytes
// can produce. The encoding limits are process-wide: NonParallelizable, and the default goes back after each test.
using System.Diagnostics;
using Garnet.client;
using Garnet.server.Persistence;

namespace Garnet.test;

[TestFixture, NonParallelizable]
public class HostileDataTests
{
    [TearDown]
    public void Defaults() => Garnet.server.Objects.EncodingLimits.SetMaxIntsetEntries = 512;

    [Test, CancelAfter(60_000)]
    public void MultiMemberSaddIntoAHugeIntsetIsNotQuadratic()
    {
        using var server = new TestServer();
        using var c = server.Client();
        RespAssert.Simple(c.Execute("CONFIG", "SET", "set-max-intset-entries", "2147483647"), "OK");
        var rnd = new Random(41);
        var first = Enumerable.Range(0, 100_000).Select(i => (object)(100_000 + i)).Prepend("s").Prepend("SADD").ToArray();
        var second = Enumerable.Range(0, 100_000).Select(_ => (object)rnd.NextInt64(-3_000_000_000, 3_000_000_000)).Prepend("s").Prepend("SADD").ToArray();
        var sw = Stopwatch.StartNew();
        RespAssert.Integer(c.Execute(first), 100_000);
        long added = c.Execute(second).Integer;
        sw.Stop();
        // Quadratic insertion took 90 s here (Redis 0.17 s); generous bound.
        Assert.That(sw.Elapsed, Is.LessThan(TimeSpan.FromSeconds(10)), $"two SADDs of 100k integers took {sw.Elapsed}");
        Assert.That(c.Execute("OBJECT", "ENCODING", "s").Text, Is.EqualTo("intset"));
        RespAssert.Integer(c.Execute("SCARD", "s"), 100_000 + added);
        RespAssert.Integer(c.Execute("SISMEMBER", "s", second[2]), 1);
        RespAssert.Integer(c.Execute("SISMEMBER", "s", "199999"), 1);
        sw.Restart();
        RespAssert.Integer(c.Execute("SUNIONSTORE", "u", "s", "s"), 100_000 + added);
        Assert.That(sw.Elapsed, Is.LessThan(TimeSpan.FromSeconds(10)));
    }

    [Test]
    public void BatchedIntsetInsertKeepsTheOrderOfOneAtATime()
    {
        using var server = new TestServer();
        using var c = server.Client();
        c.Execute("CONFIG", "SET", "set-max-intset-entries", "5");
        // The sixth distinct integer converts the intset (ascending) to a hashtable; later members follow in order.
        RespAssert.Integer(c.Execute("SADD", "a", "5", "3", "1", "9"), 4);
        RespAssert.Integer(c.Execute("SADD", "a", "3", "7", "2", "8", "-4"), 4);
        Assert.That(c.Execute("OBJECT", "ENCODING", "a").Text, Is.EqualTo("hashtable"));
        Assert.That(c.Execute("SMEMBERS", "a").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "1", "2", "3", "5", "7", "9", "8", "-4" }));
        // A member that is not an integer converts to a listpack: the intset's members ascending, then the rest in order.
        RespAssert.Integer(c.Execute("SADD", "b", "3", "1", "x", "2", "1"), 4);
        Assert.That(c.Execute("OBJECT", "ENCODING", "b").Text, Is.EqualTo("listpack"));
        Assert.That(c.Execute("SMEMBERS", "b").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "1", "3", "x", "2" }));
        RespAssert.Integer(c.Execute("SADD", "c", "40000", "1", "70000"), 3);
        Assert.That(c.Execute("SMEMBERS", "c").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "1", "40000", "70000" }));
    }

    [Test]
    public void NegativeRandomCountsAreWrittenInFull()
    {
        using var server = new TestServer();
        using var c = server.Client();
        c.Execute("SADD", "s", "a", "bb", "ccc");
        c.Execute("SADD", "i", "1", "20", "300");
        c.Execute("HSET", "h", "f1", "v1", "f22", "v22");
        var picks = c.Execute("SRANDMEMBER", "s", "-200000").Elements!;
        Assert.That(picks.Length, Is.EqualTo(200_000));
        Assert.That(picks.Select(p => p.Text).Distinct().OrderBy(x => x), Is.EqualTo(new[] { "a", "bb", "ccc" }));
        Assert.That(c.Execute("SRANDMEMBER", "i", "-1000").Elements!.Select(p => p.Text).Distinct().OrderBy(x => x), Is.EqualTo(new[] { "1", "20", "300" }));
        Assert.That(c.Execute("SRANDMEMBER", "missing", "-5").Elements!.Length, Is.EqualTo(0));
        var pairs = c.Execute("HRANDFIELD", "h", "-100000", "WITHVALUES").Elements!;
        Assert.That(pairs.Length, Is.EqualTo(200_000));
        for (int i = 0; i < pairs.Length; i += 2) Assert.That(pairs[i + 1].Text, Is.EqualTo("v" + pairs[i].Text![1..]));
        Assert.That(c.Execute("HRANDFIELD", "h", "-7").Elements!.Length, Is.EqualTo(7));
        c.Execute("HELLO", "3");
        var nested = c.Execute("HRANDFIELD", "h", "-3", "WITHVALUES").Elements!;
        Assert.That(nested.Length, Is.EqualTo(3));
        Assert.That(nested.All(p => p.Elements!.Length == 2));
        RespAssert.Simple(c.Execute("PING"), "PONG");
    }

    [Test]
    public void BitOffsetsNearLongMaxAreRefusedAsRedisRefusesThem()
    {
        using var server = new TestServer();
        using var c = server.Client();
        c.Execute("SET", "b", "foobar");
        const string bad = "ERR bit offset is not an integer or out of range";
        const string max = "9223372036854775807";
        RespAssert.Error(c.Execute("BITFIELD", "b", "GET", "u8", max), bad);
        RespAssert.Error(c.Execute("BITFIELD", "b", "SET", "u8", max, "1"), bad);
        RespAssert.Error(c.Execute("BITFIELD", "b", "INCRBY", "i64", max, "1"), bad);
        RespAssert.Error(c.Execute("BITFIELD", "b", "GET", "u8", "#" + max), bad);
        RespAssert.Error(c.Execute("BITFIELD_RO", "b", "GET", "u8", max), bad);
        RespAssert.Error(c.Execute("BITFIELD", "b", "GET", "u8", "-1"), bad);
        RespAssert.Error(c.Execute("SETBIT", "b", max, "1"), bad);
        RespAssert.Error(c.Execute("GETBIT", "b", max), bad);
        // As Redis: a GET whose field starts inside 512 MB reads zeros past the end; #N wraps as C's multiply does.
        Assert.That(c.Execute("BITFIELD", "b", "GET", "u8", "4294967295").Elements![0].Integer, Is.EqualTo(0));
        Assert.That(c.Execute("BITFIELD", "b", "GET", "u8", "#2305843009213693953").Elements![0].Integer, Is.EqualTo((long)'o'));
        RespAssert.Integer(c.Execute("BITCOUNT", "b", "-9223372036854775808", max, "BIT"), 26);
        RespAssert.Integer(c.Execute("BITPOS", "b", "1", "-9223372036854775808", max, "BIT"), 1);
        RespAssert.Bulk(c.Execute("GET", "b"), "foobar");
    }

    [Test]
    public void LzfPayloadDeclaringMoreThanItsBytesCanProduceIsRefusedCheaply()
    {
        using var server = new TestServer();
        using var c = server.Client();
        // A string of 512 MB in 22 bytes of LZF (at most 264 bytes per 3 bytes of input can come out).
        var body = new List<byte> { 0, 0xC3, 22, 0x80, 0x20, 0, 0, 0, 0x14 };
        body.AddRange(Enumerable.Repeat((byte)'a', 21));
        body.AddRange(new byte[] { 10, 0 });
        var payload = body.Concat(BitConverter.GetBytes(RdbEncoding.Crc64(0, body.ToArray()))).ToArray();
        long allocated = GC.GetTotalAllocatedBytes(precise: true);
        var sw = Stopwatch.StartNew();
        RespAssert.Error(c.Execute("RESTORE", "k", "0", payload), "ERR Bad data format");
        sw.Stop();
        allocated = GC.GetTotalAllocatedBytes(precise: true) - allocated;
        Assert.That(allocated, Is.LessThan(64L << 20), $"RESTORE of a 22-byte LZF string allocated {allocated >> 20} MB");
        Assert.That(sw.Elapsed, Is.LessThan(TimeSpan.FromSeconds(1)));
        RespAssert.Integer(c.Execute("EXISTS", "k"), 0);

        // Within the bound (4 MB can produce up to 352 MB) but decoding to far less: refused without allocating the
        // declared 300 MB (the output grows as it is produced).
        var literals = new List<byte>();
        while (literals.Count < (4 << 20) - 33) { literals.Add(0x1F); literals.AddRange(Enumerable.Repeat((byte)'x', 32)); }
        var framed = new List<byte> { 0, 0xC3 };
        framed.Add(0x80); framed.AddRange(BigEndian(literals.Count));
        framed.Add(0x80); framed.AddRange(BigEndian(300 << 20));
        framed.AddRange(literals);
        framed.AddRange(new byte[] { 10, 0 });
        var payload2 = framed.Concat(BitConverter.GetBytes(RdbEncoding.Crc64(0, framed.ToArray()))).ToArray();
        allocated = GC.GetTotalAllocatedBytes(precise: true);
        RespAssert.Error(c.Execute("RESTORE", "k", "0", payload2), "ERR Bad data format");
        allocated = GC.GetTotalAllocatedBytes(precise: true) - allocated;
        Assert.That(allocated, Is.LessThan(160L << 20), $"RESTORE of 4 MB declaring 300 MB allocated {allocated >> 20} MB");

        // A real LZF string still decodes: "a" then back references, 2 + 264 * n bytes.
        var ok = new List<byte> { 0x01, (byte)'a', (byte)'a' };
        for (int i = 0; i < 10; i++) { ok.Add(0xE0); ok.Add(0xFF); ok.Add(0); }
        int expected = 2 + 10 * 264;
        var framedOk = new List<byte> { 0, 0xC3, (byte)ok.Count, (byte)(0x40 | (expected >> 8)), (byte)expected };
        framedOk.AddRange(ok);
        framedOk.AddRange(new byte[] { 10, 0 });
        var payloadOk = framedOk.Concat(BitConverter.GetBytes(RdbEncoding.Crc64(0, framedOk.ToArray()))).ToArray();
        RespAssert.Simple(c.Execute("RESTORE", "k", "0", payloadOk), "OK");
        RespAssert.Bulk(c.Execute("GET", "k"), new string('a', expected));
    }

    private static byte[] BigEndian(int v) => [(byte)(v >> 24), (byte)(v >> 16), (byte)(v >> 8), (byte)v];
}
