using Garnet.client;
using Garnet.Options;
using Garnet.server.Persistence;

namespace Garnet.test;

/// <summary>Checkpoints (SAVE, BGSAVE, shutdown) and recovery from them at start.</summary>
[TestFixture]
public class CheckpointTests
{
    private string _dir = null!;

    [SetUp]
    public void NewDir() => _dir = Path.Combine(Path.GetTempPath(), "garnet-cp-" + Guid.NewGuid().ToString("N"));

    [TearDown]
    public void RemoveDir()
    {
        try { Directory.Delete(_dir, true); } catch { }
    }

    private TestServer Start(Action<GarnetServerOptions>? configure = null) => new(configure, _dir);

    private static string[] CheckpointFiles(string dir) =>
        Checkpointer.Existing(dir).Select(f => Path.GetFileName(f.path)).ToArray();

    [Test]
    public void SaveThenRestartRecoversKeysDatabasesTtlsAndLargeValues()
    {
        var large = new string('L', 3 << 20);
        var soonSet = new System.Diagnostics.Stopwatch();
        using (var server = Start())
        using (var c = server.Client())
        {
            for (int i = 0; i < 2000; i++) c.Send("SET", "k:" + i, "v" + i);
            for (int i = 0; i < 2000; i++) c.Read();
            c.Execute("SET", "counter", "41");
            c.Execute("INCR", "counter");
            c.Execute("SET", "ttl", "t", "EX", "1000");
            c.Execute("SET", "gone", "g", "PX", "1");      // expired before the save: not written
            // Expires between the save and the restart: not loaded (4 s: alive at the save's cut even on a stalled machine).
            c.Execute("SET", "soon", "s", "PX", "4000");
            soonSet.Start();
            c.Execute("SET", "large", large);
            c.Execute("SELECT", "3");
            c.Execute("SET", "in3", "three");
            long before = c.Execute("LASTSAVE").Integer;
            Assert.That(c.Execute("SAVE").Text, Is.EqualTo("OK"));
            Assert.That(c.Execute("LASTSAVE").Integer, Is.GreaterThanOrEqualTo(before));
            var info = c.Execute("INFO", "persistence").Text!;
            Assert.That(info, Does.Contain("rdb_saves:1"));
            Assert.That(info, Does.Contain("rdb_changes_since_last_save:0"));
            Assert.That(info, Does.Contain("rdb_last_bgsave_status:ok"));
            c.Execute("SET", "after", "not saved"); // --save "" in tests: nothing is saved at shutdown
        }
        Assert.That(CheckpointFiles(_dir), Has.Length.EqualTo(1));
        Thread.Sleep(Math.Max(0, 4100 - (int)soonSet.ElapsedMilliseconds)); // 'soon' has expired

        using (var server = Start())
        using (var c = server.Client())
        {
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(2000 + 3), "k:*, counter, ttl, large");
            Assert.That(c.Execute("GET", "k:1234").Text, Is.EqualTo("v1234"));
            Assert.That(c.Execute("GET", "counter").Text, Is.EqualTo("42"));
            Assert.That(c.Execute("TTL", "ttl").Integer, Is.InRange(990, 1000));
            Assert.That(c.Execute("EXISTS", "gone").Integer, Is.EqualTo(0));
            Assert.That(c.Execute("STRLEN", "large").Integer, Is.EqualTo(large.Length));
            Assert.That(c.Execute("EXISTS", "after").Integer, Is.EqualTo(0));
            c.Execute("SELECT", "3");
            Assert.That(c.Execute("GET", "in3").Text, Is.EqualTo("three"));
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(1));
            Assert.That(c.Execute("INFO", "persistence").Text, Does.Contain("rdb_last_load_keys_loaded:2004").And.Contain("rdb_last_load_keys_expired:1"));
        }
    }

    [Test]
    public void CleanShutdownWithDefaultOptionsSurvivesRestart()
    {
        using (var server = Start(o => o.Save = null)) // the default rules: save at shutdown
        using (var c = server.Client())
        {
            c.Execute("SET", "survives", "yes");
            c.Execute("SELECT", "5");
            c.Execute("SET", "in5", "five");
        }
        using (var server = Start(o => o.Save = null))
        using (var c = server.Client())
        {
            Assert.That(c.Execute("GET", "survives").Text, Is.EqualTo("yes"));
            c.Execute("SELECT", "5");
            Assert.That(c.Execute("GET", "in5").Text, Is.EqualTo("five"));
        }
    }

    [Test]
    public void BgsaveWhileTwoClientsWriteHoldsAConsistentCut()
    {
        using (var server = Start())
        {
            var stop = 0;
            var acknowledgedBeforeBgsave = new long[2];
            var writers = Enumerable.Range(0, 2).Select(t => Task.Run(() =>
            {
                using var c = server.Client();
                for (long i = 0; Volatile.Read(ref stop) == 0 && i < 200_000; i++)
                {
                    // The key first, then the counter: a consistent cut holds keys 0..counter-1, maybe key counter, nothing beyond.
                    c.Execute("SET", $"w{t}:{i}", i.ToString());
                    c.Execute("INCR", $"count{t}");
                    Volatile.Write(ref acknowledgedBeforeBgsave[t], i + 1);
                }
            })).ToArray();
            using var admin = server.Client();
            var started = DateTime.UtcNow.AddSeconds(10);
            while ((Volatile.Read(ref acknowledgedBeforeBgsave[0]) < 100 || Volatile.Read(ref acknowledgedBeforeBgsave[1]) < 100) && DateTime.UtcNow < started)
                Thread.Sleep(10);
            long[] floor = [Volatile.Read(ref acknowledgedBeforeBgsave[0]), Volatile.Read(ref acknowledgedBeforeBgsave[1])];
            Assert.That(admin.Execute("BGSAVE").Text, Is.EqualTo("Background saving started"));
            var deadline = DateTime.UtcNow.AddSeconds(30);
            while (!admin.Execute("INFO", "persistence").Text!.Contains("rdb_saves:1") && DateTime.UtcNow < deadline) Thread.Sleep(20);
            // Writes go on after the cut: each writer acknowledges 100 more (or has written all it would).
            long[] atSave = [Volatile.Read(ref acknowledgedBeforeBgsave[0]), Volatile.Read(ref acknowledgedBeforeBgsave[1])];
            Poll.True(() => Enumerable.Range(0, 2).All(t => Volatile.Read(ref acknowledgedBeforeBgsave[t]) >= Math.Min(atSave[t] + 100, 200_000) || writers[t].IsCompleted),
                "100 more writes of each writer after the save");
            Volatile.Write(ref stop, 1);
            Task.WaitAll(writers);
            Assert.That(floor[0] + floor[1], Is.GreaterThan(0), "writers were running");
            // Recover and compare with what the cut must hold.
            server.Dispose();
            using var again = Start();
            using var c = again.Client();
            for (int t = 0; t < 2; t++)
            {
                long n = long.Parse(c.Execute("GET", $"count{t}").Text ?? "0");
                Assert.That(n, Is.GreaterThanOrEqualTo(floor[t]), "writes acknowledged before BGSAVE are in the checkpoint");
                for (long i = 0; i < n; i++) Assert.That(c.Execute("GET", $"w{t}:{i}").Text, Is.EqualTo(i.ToString()), $"w{t}:{i}");
                Assert.That(c.Execute("EXISTS", $"w{t}:{n + 1}").Integer, Is.EqualTo(0), "nothing beyond the cut");
                long dbsizeShare = n + c.Execute("EXISTS", $"w{t}:{n}").Integer;
                Assert.That(dbsizeShare, Is.InRange(n, n + 1));
            }
        }
    }

    [Test]
    public void CorruptNewestCheckpointFallsBackToThePreviousOne()
    {
        using (var server = Start())
        using (var c = server.Client())
        {
            c.Execute("SET", "k", "first");
            c.Execute("SAVE");
            c.Execute("SET", "k", "second");
            c.Execute("SAVE");
        }
        var files = Checkpointer.Existing(_dir);
        Assert.That(files, Has.Count.EqualTo(2));
        FlipLastByte(files[0].path);
        using (var server = Start())
        using (var c = server.Client())
            Assert.That(c.Execute("GET", "k").Text, Is.EqualTo("first"));
        Assert.That(File.Exists(files[0].path + ".unreadable"), "the bad file is put aside");
        Assert.That(CheckpointFiles(_dir), Is.EqualTo(new[] { Path.GetFileName(files[1].path) }));
    }

    [Test]
    public void UnreadableOnlyCheckpointStopsTheStartUnlessTold()
    {
        using (var server = Start())
        using (var c = server.Client())
        {
            c.Execute("SET", "k", "v");
            c.Execute("SAVE");
        }
        string file = Checkpointer.Existing(_dir)[0].path;
        using (var f = new FileStream(file, FileMode.Open)) f.SetLength(f.Length - 20); // a torn write
        var ex = Assert.Throws<PersistenceException>(() => Start());
        Assert.That(ex!.Message, Does.Contain(file).And.Contain("--ignore-unreadable-data").And.Contain("truncated"));
        Assert.That(File.Exists(file), "nothing is changed when refusing to start");

        using (var server = Start(o => o.IgnoreUnreadableData = true))
        using (var c = server.Client())
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(0));
        Assert.That(File.Exists(file + ".unreadable"));
    }

    // A dump.rdb written by Debian's redis-server 7.0.15: plain, INT16, LZF-compressed and expiring strings, database 2.
    private const string RedisRdb =
        "524544495330303130fa0972656469732d76657206372e302e3135fa0a72656469732d62697473c040fa056374696d65c2867c026bfa08757365642d6d656dc2e0b60e00fa08616f662d62617365c000fe00fb040100046c6f6e67c30a407802616261e06a0101616200036e756dc139300005706c61696e0568656c6c6ffc00d8c32cbb030000000374746c0176fe02fb010000056f746865720178ff9360232b27dcbd06";

    [Test]
    public void LoadsACheckpointWrittenByRedis()
    {
        Directory.CreateDirectory(_dir);
        File.WriteAllBytes(Path.Combine(_dir, "checkpoint.1.rdb"), Convert.FromHexString(RedisRdb));
        using var server = Start();
        using var c = server.Client();
        Assert.That(c.Execute("GET", "plain").Text, Is.EqualTo("hello"));
        Assert.That(c.Execute("GET", "num").Text, Is.EqualTo("12345"));
        Assert.That(c.Execute("GET", "long").Text, Is.EqualTo(string.Concat(Enumerable.Repeat("ab", 60))));
        Assert.That(c.Execute("PEXPIRETIME", "ttl").Integer, Is.EqualTo(4102444800000));
        c.Execute("SELECT", "2");
        Assert.That(c.Execute("GET", "other").Text, Is.EqualTo("x"));
    }

    [Test]
    public void OurCheckpointFileIsAValidRdbFile()
    {
        using (var server = Start())
        using (var c = server.Client())
        {
            c.Execute("SET", "a", "1");
            c.Execute("SET", "b", "hello", "PXAT", "4102444800000");
            c.Execute("SELECT", "7");
            c.Execute("SET", "c", new string('z', 100));
            c.Execute("SAVE");
        }
        var bytes = File.ReadAllBytes(Checkpointer.Existing(_dir)[0].path);
        Assert.That(System.Text.Encoding.ASCII.GetString(bytes, 0, 9), Is.EqualTo("REDIS0010"));
        Assert.That(bytes[^9], Is.EqualTo(0xFF), "EOF opcode before the checksum");
        Assert.That(BitConverter.ToUInt64(bytes, bytes.Length - 8), Is.EqualTo(RdbEncoding.Crc64(0, bytes.AsSpan(0, bytes.Length - 8))));
        var entries = new List<RdbEntry>();
        using (var r = new RdbFileReader(Checkpointer.Existing(_dir)[0].path)) r.Read(entries.Add);
        Assert.That(entries.Select(e => (e.Db, System.Text.Encoding.ASCII.GetString(e.Key), e.ExpirationMs)).OrderBy(x => x.Item2),
            Is.EqualTo(new[] { (0, "a", 0L), (0, "b", 4102444800000L), (7, "c", 0L) }));
    }

    [Test]
    public void BgsaveAndSaveReplies()
    {
        using var server = Start();
        using var c = server.Client();
        c.Execute("SET", "x", "1");
        Assert.That(c.Execute("BGSAVE", "NOW").Text, Is.EqualTo("ERR syntax error"));
        var first = c.Execute("BGSAVE", "SCHEDULE").Text;
        Assert.That(first, Is.EqualTo("Background saving started"));
        var deadline = DateTime.UtcNow.AddSeconds(20);
        while (c.Execute("INFO", "persistence").Text!.Contains("rdb_bgsave_in_progress:1") && DateTime.UtcNow < deadline) Thread.Sleep(10);
        Assert.That(c.Execute("SAVE").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("INFO", "persistence").Text, Does.Contain("rdb_saves:2"));
        Assert.That(c.Execute("SAVE", "x").Text, Is.EqualTo("ERR wrong number of arguments for 'save' command"));
    }

    private static void FlipLastByte(string path)
    {
        using var f = new FileStream(path, FileMode.Open);
        f.Seek(-1, SeekOrigin.End);
        int b = f.ReadByte();
        f.Seek(-1, SeekOrigin.End);
        f.WriteByte((byte)(b ^ 0xFF));
    }
}
