// Lists and hashes move between Redis and this server: DUMP payloads and a dump.rdb captured from Debian's redis-server
// 7.0.15 (listpack, quicklist of listpacks, hashtable-encoded hash with an LZF value) load here, and our payloads are
// the plain RDB encodings Redis loads (checked by hand against redis-server 7.0.15: RESTORE of our DUMP of a hash and a
// list answered OK with the same contents).
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class RedisCollectionCompatTests
{
    // DUMP output of redis-server 7.0.15.
    private const string SmallHash = "102424000000080081610201018162028568656c6c6f06816302ded402816402f270110104ff0a00b13f56e39a31cbeb"; // listpack: a=1 b=hello c=-300 d=70000
    private const string SmallList = "1201021c1c00000005008178020c01dffb02817902f400286bee0000000009ff0a00bfa785a762e8babe";         // quicklist 2: x 12 -5 y 4000000000
    private const string BigHash = "04020167c0020166c3094064017676e057000176760a009482a6570d7eeeab";                                 // hashtable: f=v*100 (LZF) g=2
    private const string IntSet = "0b18040000000400000090eefeff0100000002000000030000000a00a8b63c622cbf2c9c";                           // intset: 1 2 3 -70000
    private const string ZSetListpack = "112c2c0000000a00816302dffd02816102010181620283322e35048164028531652b32300681650283696e6604ff0a009824950d0b8525d4"; // c -3 a 1 b 2.5 d 1e20 e inf
    private const string QuickList = "1203020d0d0000000200816102816202ff020d0d0000000200816302816402ff020a0a0000000100816502ff0a00ec5236a76020a1db"; // 3 listpack nodes: a..e

    // A dump.rdb of redis-server 7.0.15 holding the same four keys (smallhash, smalllist, bighash, qlist).
    private const string RedisRdb =
        "524544495330303130fa0972656469732d76657206372e302e3135fa0a72656469732d62697473c040fa056374696d65c24eef046bfa08757365642d6d656dc2f85b1100fa08616f662d62617365c000fe00fb04001205716c69737403020d0d0000000200816102816202ff020d0d0000000200816302816402ff020a0a0000000100816502ff1009736d616c6c686173682424000000080081610201018162028568656c6c6f06816302ded402816402f270110104ff040762696768617368020167c0020166c3094064017676e057000176761209736d616c6c6c69737401021c1c00000005008178020c01dffb02817902f400286bee0000000009ffff42009b9f08b29670";

    private static void CheckAll(RespClient c, string prefix)
    {
        var h = c.Execute("HGETALL", prefix + "smallhash").Elements!.Select(e => e.Text).ToArray();
        Assert.That(h, Is.EqualTo(new[] { "a", "1", "b", "hello", "c", "-300", "d", "70000" }));
        Assert.That(c.Execute("LRANGE", prefix + "smalllist", "0", "-1").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "x", "12", "-5", "y", "4000000000" }));
        Assert.That(c.Execute("HGET", prefix + "bighash", "f").Text, Is.EqualTo(new string('v', 100)));
        Assert.That(c.Execute("HGET", prefix + "bighash", "g").Text, Is.EqualTo("2"));
        Assert.That(c.Execute("LRANGE", prefix + "qlist", "0", "-1").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "a", "b", "c", "d", "e" }));
        Assert.That(c.Execute("OBJECT", "ENCODING", prefix + "bighash").Text, Is.EqualTo("hashtable"));
    }

    [Test]
    public void RedisDumpPayloadsRestore()
    {
        using var server = new TestServer();
        using var c = server.Client();
        foreach (var (key, hex) in new[] { ("smallhash", SmallHash), ("smalllist", SmallList), ("bighash", BigHash), ("qlist", QuickList) })
            Assert.That(c.Execute("RESTORE", "r:" + key, "0", Convert.FromHexString(hex)).Text, Is.EqualTo("OK"), key);
        CheckAll(c, "r:");
        Assert.That(c.Execute("RESTORE", "r:intset", "0", Convert.FromHexString(IntSet)).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("SMEMBERS", "r:intset").Elements!.Select(e => long.Parse(e.Text!)).Order(), Is.EqualTo(new long[] { -70000, 1, 2, 3 }));
        Assert.That(c.Execute("OBJECT", "ENCODING", "r:intset").Text, Is.EqualTo("intset"));
        // A payload cut short or with a flipped byte is refused and creates nothing.
        var bad = Convert.FromHexString(SmallHash);
        bad[10] ^= 0x40;
        Assert.That(c.Execute("RESTORE", "r:bad", "0", bad).Text, Is.EqualTo("ERR DUMP payload version or checksum are wrong"));
        Assert.That(c.Execute("EXISTS", "r:bad").Integer, Is.EqualTo(0));
    }

    [Test]
    public void RedisRdbFileLoads()
    {
        string dir = Path.Combine(Path.GetTempPath(), "garnet-rdbcoll-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            File.WriteAllBytes(Path.Combine(dir, "checkpoint.1.rdb"), Convert.FromHexString(RedisRdb));
            using var server = new TestServer(null, dir);
            using var c = server.Client();
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(4));
            CheckAll(c, "");
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    /// <summary>A DUMP payload of body: RDB version 10 and the CRC64 Redis checks.</summary>
    private static byte[] Payload(byte[] body)
    {
        var p = body.Concat(new byte[] { 10, 0 }).ToArray();
        ulong crc = Garnet.server.Persistence.RdbEncoding.Crc64(0, p);
        return p.Concat(BitConverter.GetBytes(crc)).ToArray();
    }

    /// <summary>A ziplist of short strings (Redis 6.2 and older write sorted sets as these).</summary>
    private static byte[] Ziplist(params string[] items)
    {
        var entries = new List<byte>();
        int prev = 0, tail = 10;
        foreach (var item in items)
        {
            tail = 10 + entries.Count;
            var e = new List<byte> { (byte)prev, (byte)item.Length };
            e.AddRange(System.Text.Encoding.ASCII.GetBytes(item));
            entries.AddRange(e);
            prev = e.Count;
        }
        var z = new List<byte>();
        z.AddRange(BitConverter.GetBytes(10 + entries.Count + 1));
        z.AddRange(BitConverter.GetBytes(tail));
        z.AddRange(BitConverter.GetBytes((short)items.Length));
        z.AddRange(entries);
        z.Add(0xFF);
        return z.ToArray();
    }

    private static string[] ZRangeWithScores(RespClient c, string key) =>
        c.Execute("ZRANGE", key, "0", "-1", "WITHSCORES").Elements!.Select(e => e.Text!).ToArray();

    [Test]
    public void SortedSetCompactPayloadsRestore()
    {
        using var server = new TestServer();
        using var c = server.Client();
        // Listpack (type 17), from redis-server 7.0.15: integer and text scores, 1e+20, inf.
        Assert.That(c.Execute("RESTORE", "zl", "0", Convert.FromHexString(ZSetListpack)).Text, Is.EqualTo("OK"));
        Assert.That(ZRangeWithScores(c, "zl"), Is.EqualTo(new[] { "c", "-3", "a", "1", "b", "2.5", "d", "1e+20", "e", "inf" }));
        Assert.That(c.Execute("OBJECT", "ENCODING", "zl").Text, Is.EqualTo("listpack"));
        // Ziplist (type 12): member, score text pairs.
        var blob = Ziplist("x", "1.5", "y", "-2");
        var body = new List<byte> { 12, (byte)blob.Length };
        body.AddRange(blob);
        Assert.That(c.Execute("RESTORE", "zz", "0", Payload(body.ToArray())).Text, Is.EqualTo("OK"));
        Assert.That(ZRangeWithScores(c, "zz"), Is.EqualTo(new[] { "y", "-2", "x", "1.5" }));
        // The old type 3: scores as text with a length byte (254 = +inf).
        var old = new byte[] { 3, 2, 1, (byte)'m', 3, (byte)'2', (byte)'.', (byte)'5', 1, (byte)'n', 254 };
        Assert.That(c.Execute("RESTORE", "z3", "0", Payload(old)).Text, Is.EqualTo("OK"));
        Assert.That(ZRangeWithScores(c, "z3"), Is.EqualTo(new[] { "m", "2.5", "n", "inf" }));
        // Malformed: a score that is not a number, a member without a score, NaN: refused, nothing created.
        var badScore = Ziplist("x", "abc");
        var bad1 = new List<byte> { 12, (byte)badScore.Length }; bad1.AddRange(badScore);
        Assert.That(c.Execute("RESTORE", "bad1", "0", Payload(bad1.ToArray())).Text, Is.EqualTo("ERR Bad data format"));
        var odd = Ziplist("x", "1", "y");
        var bad2 = new List<byte> { 12, (byte)odd.Length }; bad2.AddRange(odd);
        Assert.That(c.Execute("RESTORE", "bad2", "0", Payload(bad2.ToArray())).Text, Is.EqualTo("ERR Bad data format"));
        Assert.That(c.Execute("RESTORE", "bad3", "0", Payload(new byte[] { 3, 1, 1, (byte)'m', 253 })).Text, Is.EqualTo("ERR Bad data format"));
        Assert.That(c.Execute("EXISTS", "bad1", "bad2", "bad3").Integer, Is.EqualTo(0));
    }
}
