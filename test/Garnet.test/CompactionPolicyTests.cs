using Garnet.client;
using Garnet.Options;
using Garnet.server.Storage;
using Garnet.storage.Store;

namespace Garnet.test;

/// <summary>Periodic log compaction copies only when a run pays: a log written once is never rewritten, garbage still goes.</summary>
[TestFixture]
public class CompactionPolicyTests
{
    [Test]
    public void WorthARunNeedsHalfTheRangeDeadOrTheLogTwiceTheLiveData()
    {
        // 100 records of 100 bytes sampled from 10,000 bytes.
        LiveShareSample Sample(long liveBytes) => new(10_000, liveBytes, 100, liveBytes / 100);
        Assert.That(LogCompaction.WorthARun(Sample(5_000), logBytes: 1_000_000, liveKeys: 10_000), Is.True, "half dead: the run frees as much as it copies");
        Assert.That(LogCompaction.WorthARun(Sample(9_000), logBytes: 1_000_000, liveKeys: 10_000), Is.False, "mostly live, log = live data");
        Assert.That(LogCompaction.WorthARun(Sample(9_000), logBytes: 2_000_000, liveKeys: 10_000), Is.False, "log exactly twice the live data");
        Assert.That(LogCompaction.WorthARun(Sample(9_000), logBytes: 2_000_001, liveKeys: 10_000), Is.True, "log more than twice the live data");
        Assert.That(LogCompaction.WorthARun(Sample(0), logBytes: 1_000_000, liveKeys: 0), Is.True, "nothing live");
        Assert.That(LogCompaction.WorthARun(default, logBytes: 1_000_000, liveKeys: 10), Is.True, "nothing sampled: no estimate, the run goes ahead");
    }

    [Test]
    public async Task PeriodicRunLeavesALogWrittenOnceAloneAndCompactsOnceGarbageDominates()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-compact-policy-").FullName;
        var settings = SettingsBuilder.Build(new GarnetServerOptions { Port = 0, Bind = "127.0.0.1", Dir = dir, Save = "", Memory = "8mb", CompactionInterval = 0 });
        settings.SegmentBits = 22; // 4 MB segments
        using var server = new GarnetServer(settings);
        server.Start();
        try
        {
            var compaction = server.Server.Store.Compaction;
            using var c = new RespClient("127.0.0.1", server.Port, 30000);
            // Each version a little longer, so an overwrite writes a new record (no update in place).
            string Value(string key, int version) => key + ":" + version + ":" + new string('v', 1000 + 8 * version);
            // 16,000 keys of about 1 KB, written once: about 17 MB, most of it on disk, all live.
            const int cold = 16_000;
            for (int i = 0; i < cold; i++) c.Send("SET", "cold:" + i, Value("cold:" + i, 0));
            for (int i = 0; i < cold; i++) c.Read();
            var log = server.Server.Store.Store.Log;
            long tailBefore = log.TailAddress;

            var first = await compaction.RunAsync(onlyIfWorthwhile: true);
            TestContext.Out.WriteLine($"written once: {first}, sample {compaction.LastSample}");
            Assert.That(first.Skipped, Is.True, "a log that is all live is not worth a run");
            Assert.That(first.Copied, Is.EqualTo(0));
            Assert.That(compaction.LastSample.Records, Is.GreaterThan(0), "the run sampled its range");
            Assert.That(compaction.LastSample.LiveShare, Is.GreaterThan(0.9));
            Assert.That(compaction.SkippedRuns, Is.EqualTo(1));
            Assert.That(log.TailAddress, Is.EqualTo(tailBefore), "nothing rewritten");
            Assert.That(c.Execute("INFO", "stats").Text, Does.Contain("compaction_runs_skipped:1"));

            // COMPACT while a periodic run samples: it runs after that run skips, not in its place.
            var periodic = compaction.RunAsync(onlyIfWorthwhile: true);
            var forced = compaction.RunAsync();
            Assert.That((await periodic).Skipped, Is.True);
            var forcedResult = await forced;
            Assert.That(forcedResult.Skipped, Is.False, "COMPACT is never skipped");
            Assert.That(forcedResult.Copied, Is.GreaterThan(0));

            // A few hot keys overwritten until the log is well over twice the live data: the oldest range is still all
            // live (the cold keys), but the run now pays, because the garbage behind it can only go after it.
            for (int round = 1; round <= 200; round++)
            {
                for (int i = 0; i < 100; i++) c.Send("SET", "hot:" + i, Value("hot:" + i, round));
                for (int i = 0; i < 100; i++) c.Read();
            }
            var second = await compaction.RunAsync(onlyIfWorthwhile: true);
            TestContext.Out.WriteLine($"after overwrites: {second}, sample {compaction.LastSample}");
            Assert.That(second.Skipped, Is.False, "the log is more than twice the live data");
            Assert.That(second.Copied, Is.GreaterThan(0), "the cold keys of the oldest range were carried forward");
            Assert.That(second.BytesReclaimed, Is.GreaterThan(0));

            // A forced run (COMPACT) never samples.
            long skipped = compaction.SkippedRuns;
            await compaction.RunAsync();
            Assert.That(compaction.SkippedRuns, Is.EqualTo(skipped));

            for (int i = 0; i < cold; i += 97) Assert.That(c.Execute("GET", "cold:" + i).Text, Is.EqualTo(Value("cold:" + i, 0)));
            for (int i = 0; i < 100; i += 7) Assert.That(c.Execute("GET", "hot:" + i).Text, Is.EqualTo(Value("hot:" + i, 200)));
        }
        finally
        {
            server.Dispose();
            try { Directory.Delete(dir, true); } catch { }
        }
    }
    [Test]
    public async Task SampleReadsObjectRecordsAndALogOfObjectsWrittenOnceIsLeftAlone()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-compact-objects-").FullName;
        var settings = SettingsBuilder.Build(new GarnetServerOptions { Port = 0, Bind = "127.0.0.1", Dir = dir, Save = "", Memory = "8mb", CompactionInterval = 0 });
        settings.SegmentBits = 22;
        using var server = new GarnetServer(settings);
        server.Start();
        try
        {
            var compaction = server.Server.Store.Compaction;
            using var c = new RespClient("127.0.0.1", server.Port, 30000);
            // Hashes and strings interleaved, written once: most of them end up on disk.
            const int n = 16000;
            for (int i = 0; i < n; i++)
            {
                c.Send("HSET", "h:" + i, "a", new string('a', 400), "b", new string('b', 400), "n", i.ToString());
                c.Send("SET", "s:" + i, new string('s', 1000));
            }
            for (int i = 0; i < 2 * n; i++) c.Read();
            var result = await compaction.RunAsync(onlyIfWorthwhile: true);
            TestContext.Out.WriteLine($"{result}, sample {compaction.LastSample}");
            Assert.That(compaction.LastSample.Records, Is.GreaterThan(0));
            Assert.That(result.Skipped, Is.True, "every record is live");
            Assert.That(result.Copied, Is.EqualTo(0));
            for (int i = 0; i < n; i += 211)
            {
                Assert.That(c.Execute("HGET", "h:" + i, "n").Text, Is.EqualTo(i.ToString()));
                Assert.That(c.Execute("GET", "s:" + i).Text, Has.Length.EqualTo(1000));
            }
        }
        finally
        {
            server.Dispose();
            try { Directory.Delete(dir, true); } catch { }
        }
    }
}
