// The bytes the benchmark sends: RespCommandWriter's encoding, RequestWriter's command for each op, the load
// commands, and Batch offsets.
using System.Text;
using Resp.benchmark;

namespace Garnet.client.test;

[TestFixture]
public class BatchBuilderTests
{
    private static readonly KeySpace Keys = new(dbSize: 1000, keyLength: 4, valueLength: 5);

    private static string Resp(params string[] args) =>
        $"*{args.Length}\r\n" + string.Concat(args.Select(a => $"${Encoding.UTF8.GetByteCount(a)}\r\n{a}\r\n"));

    /// <summary>The keys a chooser with this seed will draw, as text.</summary>
    private static string[] DrawKeys(ulong seed, int n)
    {
        var c = new KeyChooser(1000, null, seed);
        return Enumerable.Range(0, n).Select(_ => Keys.KeyText(c.NextKey())).ToArray();
    }

    private static string Write(OpType op, ulong seed, int mkeys = 3)
    {
        var w = new RespCommandWriter(16);
        new RequestWriter(Keys, mkeys, ttl: 60).Write(w, op, new KeyChooser(1000, null, seed));
        Assert.That(w.Commands, Is.EqualTo(1));
        return Encoding.UTF8.GetString(w.Written);
    }

    [Test]
    public void CommandWriterEncodesBulkArraysAndGrows()
    {
        var w = new RespCommandWriter(64);
        w.WriteCommand("SET"u8, "k"u8, ""u8);
        w.BeginCommand(2);
        w.WriteArg("INCRBY"u8);
        w.WriteArg(-1234567890123L);
        var big = new string('v', 1000);
        w.WriteCommand("ECHO"u8, Encoding.ASCII.GetBytes(big));
        Assert.That(Encoding.UTF8.GetString(w.Written),
            Is.EqualTo("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n" + "*2\r\n$6\r\nINCRBY\r\n$14\r\n-1234567890123\r\n" + Resp("ECHO", big)));
        Assert.That(w.Commands, Is.EqualTo(3));
        w.Reset();
        Assert.That(w.Length, Is.EqualTo(0));
        Assert.That(w.Commands, Is.EqualTo(0));
    }

    [Test]
    public void KeysAreZeroPaddedIndexes()
    {
        Assert.That(Keys.KeyText(0), Is.EqualTo("0000"));
        Assert.That(Keys.KeyText(42), Is.EqualTo("0042"));
        Assert.That(Keys.KeyText(999), Is.EqualTo("0999"));
        Assert.That(Encoding.ASCII.GetString(Keys.Value), Is.EqualTo("abcde"));
    }

    [Test]
    public void BytesOfEachOp()
    {
        var k = DrawKeys(7, 3);
        Assert.That(Write(OpType.GET, 7), Is.EqualTo(Resp("GET", k[0])));
        Assert.That(Write(OpType.SET, 7), Is.EqualTo(Resp("SET", k[0], "abcde")));
        Assert.That(Write(OpType.INCR, 7), Is.EqualTo(Resp("INCR", k[0])));
        Assert.That(Write(OpType.DEL, 7), Is.EqualTo(Resp("DEL", k[0])));
        Assert.That(Write(OpType.PING, 7), Is.EqualTo("*1\r\n$4\r\nPING\r\n"));
        Assert.That(Write(OpType.SETEX, 7), Is.EqualTo(Resp("SETEX", k[0], "60", "abcde")));
        Assert.That(Write(OpType.MGET, 7), Is.EqualTo(Resp("MGET", k[0], k[1], k[2])));
        Assert.That(Write(OpType.MSET, 7), Is.EqualTo(Resp("MSET", k[0], "abcde", k[1], "abcde", k[2], "abcde")));
        Assert.That(Write(OpType.PFADD, 7), Is.EqualTo(Resp("PFADD", k[0], k[1])));
        Assert.That(Write(OpType.ZREM, 7), Is.EqualTo(Resp("ZREM", k[0], k[0])));
        Assert.That(Write(OpType.LPUSH, 7), Is.EqualTo(Resp("LPUSH", k[0], "abcde")));
        Assert.That(Write(OpType.LPOP, 7), Is.EqualTo(Resp("LPOP", k[0])));
        Assert.That(Write(OpType.HSET, 7), Is.EqualTo(Resp("HSET", k[0], k[0], "abcde")));
        Assert.That(Write(OpType.HGET, 7), Is.EqualTo(Resp("HGET", k[0], k[0])));

        // ZADD's score is the chooser's second draw, below 1,000,000.
        var c = new KeyChooser(1000, null, 7);
        c.NextKey();
        long score = c.NextBelow(1_000_000);
        Assert.That(Write(OpType.ZADD, 7), Is.EqualTo(Resp("ZADD", k[0], score.ToString(), k[0])));
    }

    [Test]
    public void LoadCommands()
    {
        string Load(LoaderType l)
        {
            var w = new RespCommandWriter();
            new RequestWriter(Keys, 3, 60).WriteLoad(w, l, 17);
            return Encoding.UTF8.GetString(w.Written);
        }
        Assert.That(Load(LoaderType.String), Is.EqualTo(Resp("SET", "0017", "abcde")));
        Assert.That(Load(LoaderType.Integer), Is.EqualTo(Resp("SET", "0017", "0")));
        Assert.That(Load(LoaderType.HyperLogLog), Is.EqualTo(Resp("PFADD", "0017", "0017")));
        Assert.That(Load(LoaderType.SortedSet), Is.EqualTo(Resp("ZADD", "0017", "1", "0017")));
        Assert.That(Load(LoaderType.List), Is.EqualTo(Resp("LPUSH", "0017", "abcde")));
        Assert.That(Load(LoaderType.Hash), Is.EqualTo(Resp("HSET", "0017", "0017", "abcde")));
    }

    [Test]
    public void BatchOffsetsCutWholeCommands()
    {
        var batch = Batch.Build(OpType.GET, 50, new RequestWriter(Keys, 3, 60), new KeyChooser(1000, null, 11));
        var keys = DrawKeys(11, 50);
        Assert.That(batch.Count, Is.EqualTo(50));
        Assert.That(Encoding.UTF8.GetString(batch.Prefix(50)), Is.EqualTo(string.Concat(keys.Select(k => Resp("GET", k)))));
        for (int n = 0; n <= 50; n++)
            Assert.That(Encoding.UTF8.GetString(batch.Prefix(n)), Is.EqualTo(string.Concat(keys.Take(n).Select(k => Resp("GET", k)))));
    }

    [Test]
    public void SameSeedSameBatchDifferentSeedDifferentBatch()
    {
        var a = Batch.Build(OpType.SET, 100, new RequestWriter(Keys, 3, 60), new KeyChooser(1000, null, 1));
        var b = Batch.Build(OpType.SET, 100, new RequestWriter(Keys, 3, 60), new KeyChooser(1000, null, 1));
        var c = Batch.Build(OpType.SET, 100, new RequestWriter(Keys, 3, 60), new KeyChooser(1000, null, 2));
        Assert.That(a.Bytes, Is.EqualTo(b.Bytes));
        Assert.That(a.Bytes, Is.Not.EqualTo(c.Bytes));
    }
}
