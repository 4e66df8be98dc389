// The record of a collection carries its type (a kind tag in its header), so TYPE, SCAN ... TYPE and WRONGTYPE on a
// collection whose record is only on disk answer from the record alone: no object is read back from the object log
// (INFO's disk_objects_read stays put) and no request thread waits for the disk (disk_reads_waited_on_thread).
// DEL and UNLINK do not load objects either; the other key commands read ahead with their objects (docs/objects.md).
// A command that does need the collection still loads it, and the counter moves (so the checks above can fail).
using Garnet.client;
using Garnet.Options;

namespace Garnet.test;

[TestFixture]
public class ObjectKindTagTests : ServerFixture
{
    private const int PerType = 20;
    private static readonly string[] Types = ["hash", "list", "set", "zset", "stream"];

    protected override void Configure(GarnetServerOptions options) => options.Memory = "8mb";

    [OneTimeSetUp]
    public void Load()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        for (int i = 0; i < PerType; i++)
        {
            Assert.That(c.Execute("HSET", "hash:" + i, "f", "v" + i).IsError, Is.False);
            Assert.That(c.Execute("RPUSH", "list:" + i, "a", "b").IsError, Is.False);
            Assert.That(c.Execute("SADD", "set:" + i, "1", "2", "3").IsError, Is.False);
            Assert.That(c.Execute("ZADD", "zset:" + i, "1", "m").IsError, Is.False);
            Assert.That(c.Execute("XADD", "stream:" + i, "*", "f", "v").IsError, Is.False);
            Assert.That(c.Execute("SET", "big:" + i, new string('x', 40_000)).IsError, Is.False); // a large string: an object too
        }
        // Push them out of memory with strings.
        string pad = new('p', 600);
        for (int start = 0; start < 30_000; start += 500)
        {
            for (int i = start; i < start + 500; i++) c.Send("SET", "pad:" + i, pad);
            for (int i = start; i < start + 500; i++) Assert.That(c.Read().IsError, Is.False);
        }
        var store = _server.Server.Server.Store.Store;
        Assume.That(store.Log.HeadAddress, Is.GreaterThan(store.Log.TailAddress / 2), "the collections left memory");
    }

    private static long Info(RespClient c, string field)
    {
        string text = c.Execute("INFO", "stats").Text!;
        var line = text.Split("\r\n").Single(l => l.StartsWith(field + ":"));
        return long.Parse(line[(field.Length + 1)..]);
    }

    [Test, Order(1), CancelAfter(60_000)]
    public void TypeScanTypeAndWrongTypeOnDiskNeverLoadTheObject()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 30_000);
        long loadedBefore = Info(c, "disk_objects_read"), waitedBefore = Info(c, "disk_reads_waited_on_thread"), readsBefore = Info(c, "disk_reads");

        foreach (var t in Types)
            for (int i = 0; i < PerType; i++)
                Assert.That(c.Execute("TYPE", t + ":" + i).Text, Is.EqualTo(t), "TYPE " + t + ":" + i);
        Assert.That(c.Execute("TYPE", "big:3").Text, Is.EqualTo("string"));
        Assert.That(c.Execute("EXISTS", "hash:1", "set:2", "nokey").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("TTL", "zset:4").Integer, Is.EqualTo(-1));

        const string wrong = "WRONGTYPE Operation against a key holding the wrong kind of value";
        (string[] Cmd, string Why)[] wrongType =
        [
            (["HGET", "set:5", "f"], "hash read on a set"),
            (["LPUSH", "hash:5", "x"], "list write on a hash"),
            (["SADD", "zset:5", "x"], "set write on a zset"),
            (["ZSCORE", "list:5", "m"], "zset read on a list"),
            (["XLEN", "hash:6"], "stream read on a hash"),
            (["HSET", "stream:6", "f", "v"], "hash write on a stream"),
            (["GET", "list:6"], "string read on a list"),
            (["INCR", "set:6"], "string write on a set"),
            (["SMEMBERS", "big:5"], "set read on a large string"),
        ];
        foreach (var (cmd, why) in wrongType)
        {
            var r = c.Execute(cmd.Cast<object>().ToArray());
            Assert.That(r.IsError ? r.Text : "(no error)", Is.EqualTo(wrong), why);
        }
        // Pipelined, so the read-ahead of later requests runs while earlier ones wait.
        for (int i = 7; i < PerType; i++) { c.Send("TYPE", "set:" + i); c.Send("HLEN", "list:" + i); }
        for (int i = 7; i < PerType; i++)
        {
            Assert.That(c.Read().Text, Is.EqualTo("set"));
            Assert.That(c.Read().Text, Is.EqualTo(wrong));
        }

        foreach (var t in Types)
        {
            var found = new HashSet<string>();
            string cursor = "0";
            do
            {
                var r = c.Execute("SCAN", cursor, "MATCH", "[hlsz]*", "COUNT", "1000", "TYPE", t);
                cursor = r.Elements![0].Text!;
                foreach (var k in r.Elements![1].Elements!) found.Add(k.Text!);
            } while (cursor != "0");
            Assert.That(found, Is.EquivalentTo(Enumerable.Range(0, PerType).Select(i => t + ":" + i)), "SCAN TYPE " + t);
        }

        long loaded = Info(c, "disk_objects_read") - loadedBefore, waited = Info(c, "disk_reads_waited_on_thread") - waitedBefore;
        long reads = Info(c, "disk_reads") - readsBefore;
        TestContext.Out.WriteLine($"{reads} disk reads, {loaded} objects loaded, {waited} waits on a request thread");
        Assert.That(reads, Is.GreaterThan(PerType * Types.Length), "the records were on disk");
        Assert.That(loaded, Is.EqualTo(0), "no object was read back to answer a type question");
        Assert.That(waited, Is.EqualTo(0), "no request thread waited for the disk");

        // A command that needs the object still gets it (and the counter sees it). Small hashes and sets have none: they
        // are inline in their records (InlineCollection), read back with the record itself.
        Assert.That(c.Execute("HGET", "hash:9", "f").Text, Is.EqualTo("v9"));
        Assert.That(c.Execute("SISMEMBER", "set:9", "2").Integer, Is.EqualTo(1));
        Assert.That(Info(c, "disk_objects_read") - loadedBefore, Is.EqualTo(0), "inline collections load no object");
        Assert.That(c.Execute("LINDEX", "list:9", "1").Text, Is.EqualTo("b"));
        Assert.That(c.Execute("ZSCORE", "zset:9", "m").Text, Is.EqualTo("1"));
        Assert.That(Info(c, "disk_objects_read") - loadedBefore, Is.GreaterThanOrEqualTo(2));
    }

    [Test, Order(2), CancelAfter(60_000)]
    public void SetOverACollectionOnDiskReplacesItWithoutLoadingIt()
    {
        using var c = new RespClient("127.0.0.1", _server.Port, 30_000);
        long loadedBefore = Info(c, "disk_objects_read");
        Assert.That(c.Execute("SET", "list:15", "now a string").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "list:15").Text, Is.EqualTo("now a string"));
        Assert.That(c.Execute("TYPE", "list:15").Text, Is.EqualTo("string"));
        Assert.That(Info(c, "disk_objects_read") - loadedBefore, Is.EqualTo(0));
        Assert.That(c.Execute("DEL", "zset:15").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("TYPE", "zset:15").Text, Is.EqualTo("none"));
        // DEL and UNLINK of collections on disk, alone and pipelined: answered from the records, no object loaded, no
        // request thread waiting.
        long waitedBefore = Info(c, "disk_reads_waited_on_thread");
        Assert.That(c.Execute("UNLINK", "hash:16", "list:16", "nokey").Integer, Is.EqualTo(2));
        for (int i = 17; i < PerType; i++) { c.Send("DEL", "stream:" + i); c.Send("UNLINK", "zset:" + i, "set:" + i); }
        for (int i = 17; i < PerType; i++)
        {
            Assert.That(c.Read().Integer, Is.EqualTo(1), "DEL stream:" + i);
            Assert.That(c.Read().Integer, Is.EqualTo(2), "UNLINK zset:" + i + " set:" + i);
        }
        Assert.That(c.Execute("EXISTS", "hash:16", "list:16", "stream:18", "zset:19", "set:17").Integer, Is.EqualTo(0));
        Assert.That(Info(c, "disk_objects_read") - loadedBefore, Is.EqualTo(0), "DEL/UNLINK loaded no object");
        Assert.That(Info(c, "disk_reads_waited_on_thread") - waitedBefore, Is.EqualTo(0));
        // Key commands that need the value itself load it: RENAME keeps the elements.
        Assert.That(c.Execute("RENAME", "set:15", "renamed:15").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("SCARD", "renamed:15").Integer, Is.EqualTo(3));
        Assert.That(c.Execute("TYPE", "renamed:15").Text, Is.EqualTo("set"));
    }
}
