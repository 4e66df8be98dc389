// Sets survive: checkpoint and restart (RDB_TYPE_SET), AOF replay without a checkpoint (SPOP logged as the SREM or
// DEL of what it popped, so the replay ends with the same members), and sets many times the memory budget read back
// from disk.
using System.Text;
using Garnet.Options;
using Garnet.server.Persistence;

namespace Garnet.test;

[TestFixture]
public class SetPersistenceTests
{
    private string _dir = null!;

    [SetUp]
    public void NewDir() => _dir = Path.Combine(Path.GetTempPath(), "garnet-set-" + Guid.NewGuid().ToString("N"));

    [TearDown]
    public void RemoveDir()
    {
        try { Directory.Delete(_dir, true); } catch { }
    }

    private static string[] Members(Garnet.client.RespClient c, string key) =>
        c.Execute("SMEMBERS", key).Elements!.Select(e => e.Text!).OrderBy(t => t, StringComparer.Ordinal).ToArray();

    [Test]
    public void SaveAndRestart()
    {
        using (var server = new TestServer(null, _dir))
        using (var c = server.Client())
        {
            for (int i = 0; i < 100; i++) c.Execute("SADD", "s:" + i, "a" + i, "b" + i, i.ToString());
            c.Execute("SADD", "ints", "3", "1", "2");
            for (int i = 0; i < 300; i++) c.Send("SADD", "big", "member" + i);
            for (int i = 0; i < 300; i++) c.Read();
            c.Execute("SADD", "ttlset", "x");
            c.Execute("EXPIRE", "ttlset", "1000");
            Assert.That(c.Execute("SAVE").Text, Is.EqualTo("OK"));
        }
        using (var server = new TestServer(null, _dir))
        using (var c = server.Client())
        {
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(103));
            for (int i = 0; i < 100; i += 7) Assert.That(Members(c, "s:" + i), Is.EquivalentTo(new[] { "a" + i, "b" + i, i.ToString() }));
            Assert.That(c.Execute("TYPE", "s:5").Text, Is.EqualTo("set"));
            Assert.That(c.Execute("OBJECT", "ENCODING", "ints").Text, Is.EqualTo("intset"));
            Assert.That(c.Execute("SMEMBERS", "ints").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "1", "2", "3" }));
            Assert.That(c.Execute("SCARD", "big").Integer, Is.EqualTo(300));
            Assert.That(c.Execute("OBJECT", "ENCODING", "big").Text, Is.EqualTo("hashtable"));
            Assert.That(c.Execute("SISMEMBER", "big", "member299").Integer, Is.EqualTo(1));
            Assert.That(c.Execute("TTL", "ttlset").Integer, Is.InRange(900, 1000));
        }
    }

    [Test]
    public void AofReplayEndsWithThePoppedMembersGone()
    {
        Action<GarnetServerOptions> aof = o => { o.Aof = true; o.AofFsync = "always"; };
        string[] before, whole;
        string single;
        using (var server = new TestServer(aof, _dir))
        using (var c = server.Client())
        {
            for (int i = 0; i < 100; i++) c.Execute("SADD", "pop", "m" + i);
            c.Execute("SADD", "all", "x", "y");
            c.Execute("SADD", "one", "only");
            Assert.That(c.Execute("SPOP", "pop", "10").Elements!, Has.Length.EqualTo(10));
            single = c.Execute("SPOP", "pop").Text!;
            Assert.That(c.Execute("SPOP", "pop", "0").Elements, Is.Empty);
            Assert.That(c.Execute("SPOP", "nosuch").IsNull);
            whole = c.Execute("SPOP", "all", "5").Elements!.Select(e => e.Text!).ToArray();
            Assert.That(c.Execute("SPOP", "one").Text, Is.EqualTo("only"));
            c.Execute("SADD", "moved", "first");
            long movedOne = c.Execute("SMOVE", "pop", "moved", "m50").Integer;
            c.Execute("SUNIONSTORE", "union", "pop", "moved");
            before = Members(c, "pop");
            Assert.That(before, Has.Length.EqualTo(89 - movedOne));
            server.Server.Server.SaveOnStop = false;
        }
        Assert.That(whole, Is.EquivalentTo(new[] { "x", "y" }));
        var log = string.Concat(AofLog.Existing(_dir).Select(f => Encoding.Latin1.GetString(File.ReadAllBytes(f.path))));
        Assert.That(log, Does.Contain("SREM"));
        Assert.That(log, Does.Not.Contain("SPOP").And.Not.Contain("spop"), "SPOP is random: it is never logged as itself");
        using (var server = new TestServer(aof, _dir))
        using (var c = server.Client())
        {
            Assert.That(Members(c, "pop"), Is.EqualTo(before), "the replay popped exactly the same members");
            Assert.That(c.Execute("SISMEMBER", "pop", single).Integer, Is.EqualTo(0));
            Assert.That(c.Execute("EXISTS", "all").Integer, Is.EqualTo(0));
            Assert.That(c.Execute("EXISTS", "one").Integer, Is.EqualTo(0));
            Assert.That(c.Execute("SCARD", "union").Integer, Is.EqualTo(before.Length + c.Execute("SCARD", "moved").Integer));
        }
    }

    [Test]
    public void LargerThanMemoryReadsBackFromDisk()
    {
        using var server = new TestServer(o => o.Memory = "8mb", _dir);
        using var c = server.Client();
        string pad = new('p', 600);
        const int n = 20_000; // ~ 20,000 sets of a ~600 B member and a short one: 12 MB, past the 8 MB budget
        for (int start = 0; start < n; start += 500)
        {
            for (int i = start; i < start + 500; i++) c.Send("SADD", "bs:" + i, pad + i, "m" + i);
            for (int i = start; i < start + 500; i++) c.Read();
        }
        Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(n));
        long objectLog = Directory.GetFiles(_dir, "obj.*").Sum(f => new FileInfo(f).Length);
        Assert.That(objectLog, Is.GreaterThan(4L << 20), "sets left memory for the object log");
        for (int i = 0; i < n; i += 997)
        {
            Assert.That(c.Execute("SISMEMBER", "bs:" + i, pad + i).Integer, Is.EqualTo(1));
            Assert.That(c.Execute("SCARD", "bs:" + i).Integer, Is.EqualTo(2));
            Assert.That(c.Execute("OBJECT", "ENCODING", "bs:" + i).Text, Is.EqualTo("hashtable"), "a 600-byte member");
        }
        // Changes and multi-key reads of sets that were on disk.
        Assert.That(c.Execute("SADD", "bs:0", "new").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("SCARD", "bs:0").Integer, Is.EqualTo(3));
        Assert.That(c.Execute("SREM", "bs:1", "m1").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("SUNIONSTORE", "bs:u", "bs:2", "bs:3").Integer, Is.EqualTo(4));
        Assert.That(c.Execute("SINTERCARD", "2", "bs:4", "bs:4").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("GET", "bs:5").Text, Does.StartWith("WRONGTYPE"));
    }
}
