using Garnet.client;
using Garnet.Options;
using Garnet.server.Persistence;

namespace Garnet.test;

/// <summary>The append-only file: logging, replay at start, rotation at checkpoints, torn tails and corruption.</summary>
[TestFixture]
public class AofTests
{
    private string _dir = null!;

    [SetUp]
    public void NewDir() => _dir = Path.Combine(Path.GetTempPath(), "garnet-aof-" + Guid.NewGuid().ToString("N"));

    [TearDown]
    public void RemoveDir()
    {
        try { Directory.Delete(_dir, true); } catch { }
    }

    private TestServer Start(string fsync = "always", Action<GarnetServerOptions>? more = null) => new(o =>
    {
        o.Aof = true;
        o.AofFsync = fsync;
        more?.Invoke(o);
    }, _dir);

    /// <summary>Stops the server as a crash would leave it: no checkpoint at shutdown (the AOF is flushed, as its policy had it).</summary>
    private static void StopWithoutCheckpoint(TestServer server)
    {
        server.Server.Server.SaveOnStop = false;
        server.Dispose();
    }

    [Test]
    public void WritesAreReplayedWithTheirMeaning()
    {
        long ttlAt, floatTtl;
        using (var server = Start())
        using (var c = server.Client())
        {
            for (int i = 0; i < 500; i++) c.Execute("SET", "k" + i, "v" + i);
            c.Execute("INCR", "n");
            c.Execute("INCRBY", "n", "41");
            c.Execute("SET", "ttl", "x", "EX", "1000");
            ttlAt = c.Execute("PEXPIRETIME", "ttl").Integer;
            c.Execute("SET", "f", "1.5", "PX", "900000");
            c.Execute("INCRBYFLOAT", "f", "0.25");
            floatTtl = c.Execute("PEXPIRETIME", "f").Integer;
            c.Execute("SET", "e", "y");
            c.Execute("EXPIRE", "e", "500");
            c.Execute("EXPIRE", "e", "100", "GT"); // not applied: not logged
            c.Execute("SET", "gone", "z");
            c.Execute("EXPIRE", "gone", "-1");      // deleted now: logged as DEL
            c.Execute("DEL", "k0", "k1");
            c.Execute("MSET", "m1", "a", "m2", "b");
            c.Execute("APPEND", "m1", "pp");
            c.Execute("SELECT", "2");
            c.Execute("SET", "in2", "two");
            c.Execute("SELECT", "3");
            c.Execute("SET", "in3", "three");
            c.Execute("FLUSHDB");
            c.Execute("SELECT", "4");
            c.Execute("SET", "moved", "mv");
            c.Execute("MOVE", "moved", "5");
            c.Execute("SET", "wrong", "notanumber");
            Assert.That(c.Execute("INCR", "wrong").IsError, Is.True, "errors are not logged");
            Assert.That(c.Execute("INFO", "persistence").Text, Does.Contain("aof_enabled:1").And.Contain("aof_fsync:always"));
            StopWithoutCheckpoint(server);
        }
        Assert.That(Checkpointer.Existing(_dir), Is.Empty, "nothing but the AOF holds the data");
        using (var server = Start())
        using (var c = server.Client())
        {
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(498 + 6), "k2..k499, n, ttl, f, e, m1, m2");
            Assert.That(c.Execute("GET", "n").Text, Is.EqualTo("42"));
            Assert.That(c.Execute("PEXPIRETIME", "ttl").Integer, Is.EqualTo(ttlAt), "the absolute expiry, not 1000 s from the replay");
            Assert.That(c.Execute("GET", "f").Text, Is.EqualTo("1.75"));
            Assert.That(c.Execute("PEXPIRETIME", "f").Integer, Is.EqualTo(floatTtl));
            Assert.That(c.Execute("TTL", "e").Integer, Is.InRange(490, 500));
            Assert.That(c.Execute("EXISTS", "gone", "k0", "k1").Integer, Is.EqualTo(0));
            Assert.That(c.Execute("GET", "m1").Text, Is.EqualTo("app"));
            c.Execute("SELECT", "4");
            Assert.That(c.Execute("GET", "wrong").Text, Is.EqualTo("notanumber"));
            c.Execute("SELECT", "2");
            Assert.That(c.Execute("GET", "in2").Text, Is.EqualTo("two"));
            c.Execute("SELECT", "3");
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(0));
            c.Execute("SELECT", "5");
            Assert.That(c.Execute("GET", "moved").Text, Is.EqualTo("mv"));
            Assert.That(c.Execute("INFO", "persistence").Text, Does.Contain("aof_replayed_commands:"));
        }
    }

    [Test]
    public void ConcurrentWritesOfOneKeyReplayToTheSameFinalValue()
    {
        var keys = Enumerable.Range(0, 8).Select(i => "race:" + i).ToArray();
        string[] before;
        using (var server = Start("everysec"))
        {
            var writers = Enumerable.Range(0, 4).Select(w => Task.Run(() =>
            {
                using var c = server.Client();
                for (int i = 0; i < 3000; i++)
                {
                    c.Send("SET", keys[i % keys.Length], $"{w}:{i}");
                    c.Send("APPEND", keys[(i + 3) % keys.Length], $"|{w}");
                    c.Read();
                    c.Read();
                }
            })).ToArray();
            Task.WaitAll(writers);
            using (var c = server.Client()) before = c.Execute(new object[] { "MGET" }.Concat(keys).ToArray()).Elements!.Select(e => e.Text!).ToArray();
            server.Server.Server.Aof!.FlushAndSync();
            StopWithoutCheckpoint(server);
        }
        using (var server = Start("everysec"))
        using (var c = server.Client())
        {
            var after = c.Execute(new object[] { "MGET" }.Concat(keys).ToArray()).Elements!.Select(e => e.Text!).ToArray();
            Assert.That(after, Is.EqualTo(before), "the AOF holds each key's writes in the order they ran");
        }
    }

    [Test]
    public void ReplayJudgesExpiryAtTheOriginalTimes()
    {
        using (var server = Start())
        using (var c = server.Client())
        {
            // Margins of 1.2 s either side, so a loaded machine (CI with 2 cores) does not turn this into a race.
            c.Execute("SET", "k", "10", "PX", "3000");
            Thread.Sleep(1800);
            Assert.That(c.Execute("PEXPIRE", "k", "3000").Integer, Is.EqualTo(1), "refreshed before it expired");
            Thread.Sleep(1800);                   // past the first expiry, not the second
            Assert.That(c.Execute("INCR", "k").Integer, Is.EqualTo(11));
            c.Execute("PERSIST", "k");
            StopWithoutCheckpoint(server);
        }
        using (var server = Start())
        using (var c = server.Client())
        {
            Assert.That(c.Execute("GET", "k").Text, Is.EqualTo("11"), "replayed now, the first expiry would have passed and INCR made a new key");
            Assert.That(c.Execute("TTL", "k").Integer, Is.EqualTo(-1));
        }
    }

    [Test]
    public void ACheckpointStartsANewFileAndDropsTheOldOnes()
    {
        using (var server = Start())
        using (var c = server.Client())
        {
            c.Execute("SET", "before", "1");
            c.Execute("INCR", "counter");
            Assert.That(c.Execute("BGREWRITEAOF").Text, Does.StartWith("Background append only file rewriting"));
            var deadline = DateTime.UtcNow.AddSeconds(20);
            while (!c.Execute("INFO", "persistence").Text!.Contains("rdb_saves:1") && DateTime.UtcNow < deadline) Thread.Sleep(10);
            c.Execute("SET", "after", "2");
            c.Execute("INCR", "counter");
            Assert.That(AofLog.Existing(_dir).Select(f => f.sequence), Is.EqualTo(new long[] { 2 }), "file 1 is covered by the checkpoint");
            StopWithoutCheckpoint(server);
        }
        using (var server = Start())
        using (var c = server.Client())
        {
            Assert.That(c.Execute("MGET", "before", "after", "counter").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "1", "2", "2" }),
                "the checkpoint, then only the AOF after it (INCR is not applied twice)");
        }
    }

    [Test]
    public void ATornTailIsCutAtTheLastWholeBlock()
    {
        using (var server = Start())
        using (var c = server.Client())
        {
            for (int i = 0; i < 100; i++) c.Execute("SET", "t" + i, "v");
            StopWithoutCheckpoint(server);
        }
        var (path, _) = AofLog.Existing(_dir).Last();
        long whole = new FileInfo(path).Length;
        // Half of a block, as a crash in the middle of a write leaves it.
        var block = new byte[AofLog.BlockHeader + 40];
        AofLog.BlockMagic.CopyTo(block, 0);
        BitConverter.GetBytes(400).CopyTo(block, 4);
        using (var f = new FileStream(path, FileMode.Append)) f.Write(block);
        using (var server = Start())
        using (var c = server.Client())
        {
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(100));
            Assert.That(new FileInfo(path).Length, Is.EqualTo(whole), "cut back to the last whole block");
        }
    }

    [Test]
    public void ACorruptLastByteLosesOnlyTheLastBlock()
    {
        using (var server = Start())
        using (var c = server.Client())
        {
            for (int i = 0; i < 20; i++) c.Execute("SET", "b" + i, "v"); // always: one block per write
            StopWithoutCheckpoint(server);
        }
        var (path, _) = AofLog.Existing(_dir).Last();
        var bytes = File.ReadAllBytes(path);
        bytes[^1] ^= 0xFF;
        File.WriteAllBytes(path, bytes);
        using var again = Start();
        using var c2 = again.Client();
        Assert.That(c2.Execute("DBSIZE").Integer, Is.EqualTo(19), "the last write's block fails its checksum: cut as a torn tail");
        Assert.That(c2.Execute("EXISTS", "b19").Integer, Is.EqualTo(0));
    }

    [Test]
    public void CorruptionInsideTheFileStopsTheStartUnlessTold()
    {
        using (var server = Start())
        using (var c = server.Client())
        {
            for (int i = 0; i < 50; i++) c.Execute("SET", "c" + i, new string('x', 100)); // one block per write (always)
            StopWithoutCheckpoint(server);
        }
        var (path, _) = AofLog.Existing(_dir).Last();
        var bytes = File.ReadAllBytes(path);
        bytes[AofLog.BlockHeader + 5] ^= 0xFF; // inside the first block's payload: its CRC no longer matches
        File.WriteAllBytes(path, bytes);
        var ex = Assert.Throws<PersistenceException>(() => Start());
        Assert.That(ex!.Message, Does.Contain(path).And.Contain("offset 0").And.Contain("--ignore-unreadable-data"));
        using (var server = Start(more: o => o.IgnoreUnreadableData = true))
        using (var c = server.Client())
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(0), "everything from the bad block on is dropped");
    }

    [Test]
    public void EverysecAndNoPoliciesAlsoReplay()
    {
        foreach (var policy in new[] { "everysec", "no" })
        {
            using (var server = Start(policy))
            using (var c = server.Client())
            {
                c.Execute("SET", "p", policy);
                server.Server.Server.Aof!.FlushAndSync();
                StopWithoutCheckpoint(server);
            }
            using (var server = Start(policy))
            using (var c = server.Client())
                Assert.That(c.Execute("GET", "p").Text, Is.EqualTo(policy));
        }
    }
}
