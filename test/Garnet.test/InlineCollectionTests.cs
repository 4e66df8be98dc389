// Small hashes and sets are held inline in their records (InlineCollection: a byte record tagged with the type, no
// object): checked through RESP for the conversions at Redis's thresholds and at InlineCollection.MaxBytes, every key
// command on inline values, records that go to disk and come back (and through COMPACT), DUMP/RESTORE, a restart from
// a checkpoint and AOF replay. Shape() looks at the key's newest record in the store, so each check of "inline" or
// "object" can fail.
using System.Text;
using Garnet.client;
using Garnet.Options;
using Garnet.server.Objects;
using Garnet.storage.Store;

namespace Garnet.test;

[TestFixture]
public class InlineCollectionTests
{
    private const string WrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";
    private string _dir = null!;

    [SetUp]
    public void NewDir() => _dir = Path.Combine(Path.GetTempPath(), "garnet-inline-" + Guid.NewGuid().ToString("N"));

    [TearDown]
    public void RemoveDir()
    {
        try { Directory.Delete(_dir, true); } catch { }
    }

    /// <summary>The newest live record of key (database 0): whether it is an object record, and its kind tag.</summary>
    private static (bool IsObject, byte Kind) Shape(TestServer server, string key) => Shape(server.Server, key);

    private static (bool IsObject, byte Kind) Shape(GarnetServer server, string key)
    {
        var store = server.Server.Store.Store;
        int id = server.Server.Store.PhysicalId(0);
        var want = new byte[key.Length + 2];
        want[0] = (byte)(id >> 8);
        want[1] = (byte)id;
        Encoding.UTF8.GetBytes(key, want.AsSpan(2));
        (bool, byte)? found = null;
        using var it = new KeyIterator(store);
        var batch = new List<IteratedRecord>();
        bool more = true;
        while (more)
        {
            batch.Clear();
            more = it.NextBatchAsync(batch, 4096).AsTask().GetAwaiter().GetResult();
            foreach (var r in batch)
                if (r.Key.AsSpan().SequenceEqual(want) && store.IsNewestRecordAsync(r.Key, r.Address).AsTask().GetAwaiter().GetResult())
                    found = (r.IsObject, r.Kind);
        }
        Assert.That(found, Is.Not.Null, "no live record of " + key);
        return found!.Value;
    }

    private static void AssertInline(TestServer server, string key, ObjectKind kind) => AssertInline(server.Server, key, kind);

    private static void AssertInline(GarnetServer server, string key, ObjectKind kind) =>
        Assert.That(Shape(server, key), Is.EqualTo((false, (byte)kind)), key + " is inline");

    private static void AssertObject(TestServer server, string key) =>
        Assert.That(Shape(server, key).IsObject, Is.True, key + " is an object record");

    private static string[] Texts(RespValue v) => v.Elements!.Select(e => e.Text!).ToArray();

    [Test]
    public void HashesConvertAtTheCapAndAtRedisThresholds()
    {
        using var server = new TestServer(null, _dir);
        using var c = server.Client();
        RespAssert.Integer(c.Execute("HSET", "h", "f0", "v0"), 1);
        AssertInline(server, "h", ObjectKind.Hash);
        Assert.That(c.Execute("OBJECT", "ENCODING", "h").Text, Is.EqualTo("listpack"));
        // Grow one field at a time: in place while it fits the record, else copied; inline until MaxBytes.
        int i = 1;
        for (; i < 100; i++)
        {
            c.Execute("HSET", "h", "field" + i, "value" + i);
            if (Shape(server, "h").IsObject) break;
        }
        int inlineBytes = 1 + Enumerable.Range(0, i + 1).Sum(k => 1 + (k == 0 ? 4 : ("field" + k).Length + ("value" + k).Length));
        Assert.That(inlineBytes, Is.GreaterThan(InlineCollection.MaxBytes), "it left the record only past the cap");
        Assert.That(c.Execute("OBJECT", "ENCODING", "h").Text, Is.EqualTo("listpack"), "still Redis's listpack, now as an object");
        Assert.That(c.Execute("HLEN", "h").Integer, Is.EqualTo(i + 1));
        Assert.That(c.Execute("HGET", "h", "field7").Text, Is.EqualTo("value7"));
        // Shrinking does not bring it back (as Redis never converts back).
        for (int k = 1; k <= i; k++) c.Execute("HDEL", "h", "field" + k);
        AssertObject(server, "h");
        Assert.That(Texts(c.Execute("HGETALL", "h")), Is.EqualTo(new[] { "f0", "v0" }));

        // A value over hash-max-listpack-value (64) makes a hashtable, an object record.
        c.Execute("HSET", "h2", "a", "1");
        AssertInline(server, "h2", ObjectKind.Hash);
        c.Execute("HSET", "h2", "b", new string('x', 65));
        AssertObject(server, "h2");
        Assert.That(c.Execute("OBJECT", "ENCODING", "h2").Text, Is.EqualTo("hashtable"));

        // hash-max-listpack-entries.
        RespAssert.Simple(c.Execute("CONFIG", "SET", "hash-max-listpack-entries", "3"), "OK");
        c.Execute("HSET", "h3", "a", "1", "b", "2", "c", "3");
        AssertInline(server, "h3", ObjectKind.Hash);
        c.Execute("HSET", "h3", "d", "4");
        AssertObject(server, "h3");
        Assert.That(c.Execute("OBJECT", "ENCODING", "h3").Text, Is.EqualTo("hashtable"));
        Assert.That(c.Execute("HLEN", "h3").Integer, Is.EqualTo(4));
        c.Execute("CONFIG", "SET", "hash-max-listpack-entries", "128");
    }

    [Test]
    public void SetsConvertFromIntsetToListpackToObjects()
    {
        using var server = new TestServer(null, _dir);
        using var c = server.Client();
        c.Execute("SADD", "s", "3", "1", "2");
        AssertInline(server, "s", ObjectKind.Set);
        Assert.That(c.Execute("OBJECT", "ENCODING", "s").Text, Is.EqualTo("intset"));
        c.Execute("SADD", "s", "100000", "-9000000000"); // wider integers: still an intset, inline
        AssertInline(server, "s", ObjectKind.Set);
        Assert.That(Texts(c.Execute("SMEMBERS", "s")), Is.EqualTo(new[] { "-9000000000", "1", "2", "3", "100000" }));
        c.Execute("SADD", "s", "abc");
        AssertInline(server, "s", ObjectKind.Set);
        Assert.That(c.Execute("OBJECT", "ENCODING", "s").Text, Is.EqualTo("listpack"));
        Assert.That(c.Execute("SCARD", "s").Integer, Is.EqualTo(6));
        Assert.That(c.Execute("SISMEMBER", "s", "abc").Integer, Is.EqualTo(1));

        // An intset of more than MaxBytes/8 wide integers leaves the record but stays an intset.
        var wide = Enumerable.Range(0, 70).Select(k => (5_000_000_000L + k).ToString()).ToArray();
        c.Execute(new object[] { "SADD", "wide" }.Concat(wide).ToArray());
        AssertObject(server, "wide");
        Assert.That(c.Execute("OBJECT", "ENCODING", "wide").Text, Is.EqualTo("intset"));
        var narrow = Enumerable.Range(0, 60).Select(k => (5_000_000_000L + k).ToString()).ToArray();
        c.Execute(new object[] { "SADD", "narrow" }.Concat(narrow).ToArray());
        AssertInline(server, "narrow", ObjectKind.Set);

        // set-max-listpack-entries (128): past it, a hashtable.
        var many = Enumerable.Range(0, 129).Select(k => "m" + k).ToArray();
        c.Execute(new object[] { "SADD", "big" }.Concat(many).ToArray());
        AssertObject(server, "big");
        Assert.That(c.Execute("OBJECT", "ENCODING", "big").Text, Is.EqualTo("hashtable"));

        // Removing every member deletes the key.
        RespAssert.Integer(c.Execute("SREM", "s", "1", "2", "3", "100000", "-9000000000", "abc"), 6);
        RespAssert.Integer(c.Execute("EXISTS", "s"), 0);
    }

    [Test]
    public void KeyCommandsOnInlineValues()
    {
        using var server = new TestServer(null, _dir);
        using var c = server.Client();
        c.Execute("HSET", "h", "a", "1", "b", "2");
        c.Execute("SADD", "s", "10", "20", "30");
        c.Execute("SET", "str", "plain");

        Assert.That(c.Execute("TYPE", "h").Text, Is.EqualTo("hash"));
        Assert.That(c.Execute("TYPE", "s").Text, Is.EqualTo("set"));
        Assert.That(c.Execute("TYPE", "str").Text, Is.EqualTo("string"));
        long usage = c.Execute("MEMORY", "USAGE", "h").Integer;
        Assert.That(usage, Is.InRange(24, 200), "the record only");

        // Wrong types, both ways.
        foreach (var cmd in new[] { new object[] { "GET", "h" }, ["INCR", "s"], ["APPEND", "h", "x"], ["LPUSH", "h", "x"], ["HGET", "s", "a"],
                     ["SADD", "h", "x"], ["SMEMBERS", "str"], ["HSET", "str", "f", "v"], ["STRLEN", "s"], ["GETRANGE", "h", "0", "1"] })
            RespAssert.Error(c.Execute(cmd), WrongType);
        Assert.That(c.Execute("GET", "str").Text, Is.EqualTo("plain"));

        // Expiration in place and by copy.
        RespAssert.Integer(c.Execute("EXPIRE", "h", "100"), 1);
        Assert.That(c.Execute("TTL", "h").Integer, Is.InRange(90, 100));
        RespAssert.Integer(c.Execute("EXPIRE", "h", "200"), 1);
        Assert.That(c.Execute("TTL", "h").Integer, Is.InRange(190, 200));
        RespAssert.Integer(c.Execute("PERSIST", "h"), 1);
        RespAssert.Integer(c.Execute("TTL", "h"), -1);
        AssertInline(server, "h", ObjectKind.Hash);
        Assert.That(c.Execute("HGET", "h", "b").Text, Is.EqualTo("2"));

        // COPY, RENAME, MOVE keep them inline.
        RespAssert.Integer(c.Execute("COPY", "h", "h2"), 1);
        AssertInline(server, "h2", ObjectKind.Hash);
        RespAssert.Simple(c.Execute("RENAME", "s", "s2"), "OK");
        AssertInline(server, "s2", ObjectKind.Set);
        RespAssert.Integer(c.Execute("EXISTS", "s"), 0);
        Assert.That(Texts(c.Execute("SMEMBERS", "s2")), Is.EqualTo(new[] { "10", "20", "30" }));
        RespAssert.Integer(c.Execute("MOVE", "h2", "1"), 1);
        c.Execute("SELECT", "1");
        Assert.That(Texts(c.Execute("HGETALL", "h2")), Is.EqualTo(new[] { "a", "1", "b", "2" }));
        c.Execute("SELECT", "0");

        // SCAN TYPE, HSCAN, SSCAN.
        var scan = c.Execute("SCAN", "0", "COUNT", "1000", "TYPE", "set");
        Assert.That(Texts(scan.Elements![1]), Is.EqualTo(new[] { "s2" }));
        Assert.That(Texts(c.Execute("HSCAN", "h", "0").Elements![1]), Is.EqualTo(new[] { "a", "1", "b", "2" }));
        Assert.That(Texts(c.Execute("SSCAN", "s2", "0", "MATCH", "2*").Elements![1]), Is.EqualTo(new[] { "20" }));

        // Commands that change in place, shrink, and store results as new keys.
        RespAssert.Integer(c.Execute("HINCRBY", "h", "a", "41"), 42);
        Assert.That(c.Execute("HGET", "h", "a").Text, Is.EqualTo("42"));
        RespAssert.Integer(c.Execute("SMOVE", "s2", "s3", "10"), 1);
        AssertInline(server, "s3", ObjectKind.Set);
        c.Execute("SADD", "t", "20", "40");
        RespAssert.Integer(c.Execute("SUNIONSTORE", "u", "s2", "t"), 3);
        AssertInline(server, "u", ObjectKind.Set);
        Assert.That(c.Execute("SPOP", "s3").Text, Is.EqualTo("10"));
        RespAssert.Integer(c.Execute("EXISTS", "s3"), 0);

        // SET replaces an inline collection with a string (in place through a blind write, and through RMW).
        RespAssert.Simple(c.Execute("SET", "u", "now a string"), "OK");
        Assert.That(c.Execute("GET", "u").Text, Is.EqualTo("now a string"));
        Assert.That(c.Execute("TYPE", "u").Text, Is.EqualTo("string"));
        c.Execute("MSET", "t", "x");
        Assert.That(c.Execute("TYPE", "t").Text, Is.EqualTo("string"));
        Assert.That(c.Execute("GET", "t").Text, Is.EqualTo("x"));
        RespAssert.Simple(c.Execute("SET", "h2", "y", "KEEPTTL"), "OK");
        Assert.That(c.Execute("TYPE", "h2").Text, Is.EqualTo("string"));
        RespAssert.Integer(c.Execute("DEL", "h"), 1);
        RespAssert.Integer(c.Execute("EXISTS", "h"), 0);
    }

    [Test]
    public void DumpAndRestore()
    {
        using var server = new TestServer(null, _dir);
        using var c = server.Client();
        c.Execute("HSET", "h", "f", "v", "g", "w");
        c.Execute("SADD", "s", "5", "6");
        foreach (var key in new[] { "h", "s" })
        {
            var payload = c.Execute("DUMP", key).Bytes!;
            RespAssert.Simple(c.Execute("RESTORE", key + "-copy", "0", payload), "OK");
            AssertInline(server, key + "-copy", key == "h" ? ObjectKind.Hash : ObjectKind.Set);
        }
        Assert.That(Texts(c.Execute("HGETALL", "h-copy")), Is.EqualTo(new[] { "f", "v", "g", "w" }));
        Assert.That(Texts(c.Execute("SMEMBERS", "s-copy")), Is.EqualTo(new[] { "5", "6" }));
        Assert.That(c.Execute("OBJECT", "ENCODING", "s-copy").Text, Is.EqualTo("intset"));
    }

    [Test]
    public void InlineRecordsGoToDiskAndComeBack()
    {
        var settings = SettingsBuilder.Build(new GarnetServerOptions { Port = 0, Bind = "127.0.0.1", Dir = _dir, Save = "", Memory = "8mb", CompactionInterval = 0 });
        settings.SegmentBits = 22; // 4 MB segments, so COMPACT has whole files to empty
        using var server = new GarnetServer(settings);
        server.Start();
        using var c = new RespClient("127.0.0.1", server.Port, 30_000);
        const int n = 2000;
        for (int i = 0; i < n; i++)
        {
            c.Send("HSET", "h:" + i, "f", "v" + i);
            c.Send("SADD", "s:" + i, i.ToString(), (i + 1).ToString());
        }
        for (int i = 0; i < 2 * n; i++) Assert.That(c.Read().IsError, Is.False);
        string pad = new('p', 600);
        for (int start = 0; start < 30_000; start += 500)
        {
            for (int i = start; i < start + 500; i++) c.Send("SET", "pad:" + i, pad);
            for (int i = start; i < start + 500; i++) Assert.That(c.Read().IsError, Is.False);
        }
        var log = server.Server.Store.Store.Log;
        Assume.That(log.HeadAddress, Is.GreaterThan(log.TailAddress / 2), "the collections left memory");
        for (int round = 0; round < 2; round++)
        {
            for (int i = 0; i < n; i += 37)
            {
                Assert.That(c.Execute("HGET", "h:" + i, "f").Text, Is.EqualTo("v" + i), "round " + round);
                Assert.That(c.Execute("TYPE", "s:" + i).Text, Is.EqualTo("set"));
                Assert.That(Texts(c.Execute("SMEMBERS", "s:" + i)), Is.EqualTo(new[] { i.ToString(), (i + 1).ToString() }));
                RespAssert.Error(c.Execute("GET", "h:" + (i + 1)), WrongType);
            }
            // Writes on disk records: copies at the tail, still inline.
            c.Execute("HSET", "h:76", "g", "w");
            c.Execute("SADD", "s:76", "abc");
            AssertInline(server, "h:76", ObjectKind.Hash);
            AssertInline(server, "s:76", ObjectKind.Set);
            if (round == 0) c.Execute("COMPACT"); // the oldest segment's live records (these among them) move to the tail
        }
        TestContext.Out.WriteLine($"compaction copied {server.Server.Store.Compaction.CopiedTotal} records");
        Assert.That(server.Server.Store.Compaction.CopiedTotal, Is.GreaterThan(0), "COMPACT carried records forward");
        Assert.That(Texts(c.Execute("HGETALL", "h:76")), Is.EqualTo(new[] { "f", "v76", "g", "w" }));
        Assert.That(c.Execute("OBJECT", "ENCODING", "s:76").Text, Is.EqualTo("listpack"));
        Assert.That(c.Execute("SCARD", "s:1999").Integer, Is.EqualTo(2));
    }

    [Test]
    public void CheckpointRestartAndAofReplay()
    {
        Action<GarnetServerOptions> aof = o => { o.Aof = true; o.AofFsync = "always"; };
        using (var server = new TestServer(aof, _dir))
        using (var c = server.Client())
        {
            c.Execute("HSET", "h", "a", "1");
            c.Execute("SADD", "s", "1", "2");
            c.Execute("EXPIRE", "s", "1000");
            RespAssert.Simple(c.Execute("SAVE"), "OK");
            // After the checkpoint: only in the AOF.
            c.Execute("HSET", "h", "b", "2");
            c.Execute("SADD", "s", "x");
            c.Execute("SADD", "s2", "7");
            server.Server.Server.SaveOnStop = false;
        }
        using (var server = new TestServer(aof, _dir))
        using (var c = server.Client())
        {
            Assert.That(Texts(c.Execute("HGETALL", "h")), Is.EqualTo(new[] { "a", "1", "b", "2" }));
            Assert.That(Texts(c.Execute("SMEMBERS", "s")), Is.EquivalentTo(new[] { "1", "2", "x" }));
            Assert.That(c.Execute("TTL", "s").Integer, Is.InRange(900, 1000));
            Assert.That(Texts(c.Execute("SMEMBERS", "s2")), Is.EqualTo(new[] { "7" }));
            AssertInline(server, "h", ObjectKind.Hash);
            AssertInline(server, "s", ObjectKind.Set);
            RespAssert.Simple(c.Execute("SAVE"), "OK");
        }
        using (var server = new TestServer(null, _dir))
        using (var c = server.Client())
        {
            AssertInline(server, "h", ObjectKind.Hash); // recovered from the checkpoint: inline again
            Assert.That(c.Execute("HGET", "h", "b").Text, Is.EqualTo("2"));
            Assert.That(c.Execute("OBJECT", "ENCODING", "s").Text, Is.EqualTo("listpack"));
        }
    }
}
