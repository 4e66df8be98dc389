using Garnet.client;
using Garnet.Options;
using Garnet.server.Storage;

namespace Garnet.test;

/// <summary>Log compaction: under steady overwrite and expiry, disk use stays proportional to the live data.</summary>
[TestFixture]
public class CompactionTests
{
    [Test]
    public void DiskUseStaysBoundedUnderOverwriteAndExpiry()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-compact-").FullName;
        var settings = SettingsBuilder.Build(new GarnetServerOptions { Port = 0, Bind = "127.0.0.1", Dir = dir, Save = "", Memory = "8mb", CompactionInterval = 0 });
        settings.SegmentBits = 22; // 4 MB segments, so a small test frees whole files
        using var server = new GarnetServer(settings);
        server.Start();
        try
        {
            using var c = new RespClient("127.0.0.1", server.Port, 30000);
            const int keys = 1000, rounds = 32;
            // Each round's values are a little longer, so every overwrite copies the record to the tail (no update in place).
            string Value(int round) => new string('v', 1000 + 16 * round);
            long peakWithoutCompaction = 0, peak = 0;
            // Cold keys, written once: they sit in the oldest segment, and compaction must carry them forward.
            for (int i = 0; i < 200; i++) c.Execute("SET", "cold:" + i, "cold value " + i);
            c.Execute("SELECT", "1");
            c.Execute("SET", "flushed", "gone");
            c.Execute("FLUSHDB");
            c.Execute("SELECT", "0");
            for (int round = 0; round < rounds; round++)
            {
                for (int i = 0; i < keys; i++) c.Send("SET", "live:" + i, round + ":" + Value(round), "EX", "3600");
                for (int i = 0; i < keys / 2; i++) c.Send("SET", $"short:{round}:{i}", Value(round), "PX", "100"); // expiry traffic
                for (int i = 0; i < keys + keys / 2; i++) c.Read();
                Thread.Sleep(20);
                if (round == rounds / 2 - 1)
                {
                    // Flushes are asynchronous: wait (at most 20 s) until every read-only page is on disk, so a slow
                    // machine's flush lag does not hide a segment (CI once measured 20 MB here, one segment short of 24).
                    var log = server.Server.Store.Store.Log;
                    Poll.Until(() => log.FlushedUntilAddress >= log.ReadOnlyAddress, TimeSpan.FromSeconds(20));
                    peakWithoutCompaction = LogCompaction.DiskBytes(dir);
                }
                if (round >= rounds / 2) for (int k = 0; k < 3; k++) c.Execute("COMPACT");
                peak = Math.Max(peak, LogCompaction.DiskBytes(dir));
            }
            for (int k = 0; k < 10 && c.Execute("COMPACT").Integer > 0; k++) { }
            long final = LogCompaction.DiskBytes(dir);
            long written = rounds * (keys + keys / 2) * (1050L + 8 * rounds);
            TestContext.Out.WriteLine($"written ~{written >> 20} MB; disk after {rounds / 2} rounds without compaction {peakWithoutCompaction >> 20} MB; with compaction: peak {peak >> 20} MB, final {final >> 20} MB");
            Assert.That(peakWithoutCompaction, Is.GreaterThan(20L << 20), "without compaction the log keeps every overwrite");
            Assert.That(final, Is.LessThan(16L << 20), "about the live data (1 MB) plus the memory budget and a few segments");
            Assert.That(final, Is.LessThan(peakWithoutCompaction / 2));
            Assert.That(server.Server.Store.Compaction.CopiedTotal, Is.GreaterThanOrEqualTo(200), "the cold keys were copied forward");
            for (int i = 0; i < 200; i++) Assert.That(c.Execute("GET", "cold:" + i).Text, Is.EqualTo("cold value " + i));
            c.Execute("SELECT", "1");
            Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(0), "a flushed database's keys are not carried forward");
            c.Execute("SELECT", "0");
            for (int i = 0; i < keys; i++) Assert.That(c.Execute("GET", "live:" + i).Text, Is.EqualTo((rounds - 1) + ":" + Value(rounds - 1)), "live:" + i);
        }
        finally
        {
            server.Dispose();
            try { Directory.Delete(dir, true); } catch { }
        }
    }
}
