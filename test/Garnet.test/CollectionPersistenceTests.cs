// Collections survive: checkpoint and restart, AOF replay without a checkpoint, and a working set of hashes and lists
// many times the memory budget, read back from disk.
using Garnet.Options;

namespace Garnet.test;

[TestFixture]
public class CollectionPersistenceTests
{
    private string _dir = null!;

    [SetUp]
    public void NewDir() => _dir = Path.Combine(Path.GetTempPath(), "garnet-coll-" + Guid.NewGuid().ToString("N"));

    [TearDown]
    public void RemoveDir()
    {
        try { Directory.Delete(_dir, true); } catch { }
    }

    private static void Fill(Garnet.client.RespClient c)
    {
        for (int i = 0; i < 200; i++) c.Execute("HSET", "h:" + i, "name", "n" + i, "count", i.ToString());
        for (int i = 0; i < 100; i++) c.Execute("RPUSH", "l:" + i, "a" + i, "b" + i, "c" + i);
        c.Execute("HSET", "ttlhash", "f", "v");
        c.Execute("EXPIRE", "ttlhash", "1000");
    }

    private static void Check(Garnet.client.RespClient c)
    {
        for (int i = 0; i < 200; i += 17)
        {
            Assert.That(c.Execute("HGET", "h:" + i, "name").Text, Is.EqualTo("n" + i));
            Assert.That(c.Execute("HLEN", "h:" + i).Integer, Is.EqualTo(2));
        }
        for (int i = 0; i < 100; i += 9)
            Assert.That(c.Execute("LRANGE", "l:" + i, "0", "-1").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "a" + i, "b" + i, "c" + i }));
        Assert.That(c.Execute("TYPE", "h:3").Text, Is.EqualTo("hash"));
        Assert.That(c.Execute("TYPE", "l:3").Text, Is.EqualTo("list"));
        Assert.That(c.Execute("TTL", "ttlhash").Integer, Is.InRange(900, 1000));
    }

    [Test]
    public void SaveAndRestart()
    {
        using (var server = new TestServer(null, _dir))
        using (var c = server.Client())
        {
            Fill(c);
            Assert.That(c.Execute("SAVE").Text, Is.EqualTo("OK"));
        }
        using (var server = new TestServer(null, _dir))
        using (var c = server.Client())
        {
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(301));
            Check(c);
        }
    }

    [Test]
    public void AofReplayWithoutCheckpoint()
    {
        Action<GarnetServerOptions> aof = o => { o.Aof = true; o.AofFsync = "always"; };
        using (var server = new TestServer(aof, _dir))
        using (var c = server.Client())
        {
            Fill(c);
            c.Execute("HINCRBYFLOAT", "h:1", "score", "1.25");
            c.Execute("LPOP", "l:1");
            server.Server.Server.SaveOnStop = false;
        }
        using (var server = new TestServer(aof, _dir))
        using (var c = server.Client())
        {
            Assert.That(c.Execute("HGET", "h:1", "score").Text, Is.EqualTo("1.25"));
            Assert.That(c.Execute("LRANGE", "l:1", "0", "-1").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "b1", "c1" }));
            Assert.That(c.Execute("HGET", "h:2", "name").Text, Is.EqualTo("n2"));
        }
    }

    [Test]
    public void LargerThanMemoryReadsBackFromDisk()
    {
        using var server = new TestServer(o => o.Memory = "8mb", _dir);
        using var c = server.Client();
        string pad = new('p', 200);
        const int n = 20_000; // ~ 20,000 x (2 fields of ~200 B + a list of 2 items) : several times 8 MB
        for (int start = 0; start < n; start += 500)
        {
            for (int i = start; i < start + 500; i++) { c.Send("HSET", "bh:" + i, "f", pad + i, "g", "x"); c.Send("RPUSH", "bl:" + i, pad, "last" + i); }
            for (int i = start; i < start + 500; i++) { c.Read(); c.Read(); }
        }
        Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(2 * n));
        long objectLog = Directory.GetFiles(_dir, "obj.*").Sum(f => new FileInfo(f).Length);
        Assert.That(objectLog, Is.GreaterThan(4L << 20), "collections left memory for the object log");
        for (int i = 0; i < n; i += 997)
        {
            Assert.That(c.Execute("HGET", "bh:" + i, "f").Text, Is.EqualTo(pad + i));
            Assert.That(c.Execute("LINDEX", "bl:" + i, "-1").Text, Is.EqualTo("last" + i));
            Assert.That(c.Execute("TYPE", "bh:" + i).Text, Is.EqualTo("hash"));
        }
        // Changes to collections that were on disk.
        Assert.That(c.Execute("HSET", "bh:0", "new", "1").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("HLEN", "bh:0").Integer, Is.EqualTo(3));
        Assert.That(c.Execute("RPOP", "bl:1").Text, Is.EqualTo("last1"));
        Assert.That(c.Execute("GET", "bh:5").Text, Does.StartWith("WRONGTYPE"));
    }
}
