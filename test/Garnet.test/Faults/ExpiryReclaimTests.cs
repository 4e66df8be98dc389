// Expired keys are reclaimed: a steady workload of ever-new keys with a 1-second TTL, well beyond the memory budget, keeps
// DBSIZE flat and gives most of the disk back while it runs; once it stops, every key leaves DBSIZE, the disk is given back
// and the server goes quiet; resident memory stays bounded and does not grow while the idle server sweeps and compacts
// (it used to, by ~25 MB/s: large disk-read buffers from malloc stayed resident in glibc's arenas; see NativeBuffer).
using System.Diagnostics;
using System.Text;
using Garnet.client;

namespace Garnet.test.Faults;

[TestFixture, Category("Faults"), NonParallelizable]
public class ExpiryReclaimTests
{
    private const double PerWriterRate = 25_000;

    private readonly record struct Sample(double Seconds, long DbSize, long Rss, long Disk);

    [Test, CancelAfter(300_000)]
    public void SteadyTtlWorkloadKeepsDbsizeFlatAndGivesDiskBack()
    {
        string work = Directory.CreateTempSubdirectory("garnet-ttl-").FullName;
        string dir = Path.Combine(work, "data");
        try
        {
            using var server = new ServerProcess($"--dir \"{dir}\" --memory 64mb --save \"\" --compaction-interval 20", work);
            var run = TimeSpan.FromSeconds(45);
            var samples = new List<Sample>();
            long written = 0;
            var sw = Stopwatch.StartNew();
            var keysPerWriter = new long[2];
            var writers = Enumerable.Range(0, 2).Select(t => Task.Run(() =>
            {
                using var c = server.Client(30_000);
                var batch = new StringBuilder();
                long n = 0;
                string value = new('v', 64);
                while (sw.Elapsed < run)
                {
                    batch.Clear();
                    for (int i = 0; i < 500; i++, n++)
                        batch.Append($"*5\r\n$3\r\nSET\r\n${$"t{t}:{n}".Length}\r\nt{t}:{n}\r\n$64\r\n{value}\r\n$2\r\nEX\r\n$1\r\n1\r\n");
                    c.SendRaw(Encoding.ASCII.GetBytes(batch.ToString()));
                    for (int i = 0; i < 500; i++) if (c.Read().IsError) throw new InvalidOperationException("SET failed");
                    Interlocked.Add(ref written, 500);
                    keysPerWriter[t] = n;
                    // A steady 2 x 25,000 SET/s (far beyond the budget: ~300 MB of records a minute). Well above that the
                    // reclamation falls behind (see docs/keyspace.md, known limits).
                    double ahead = n / PerWriterRate - sw.Elapsed.TotalSeconds;
                    if (ahead > 0) Thread.Sleep(TimeSpan.FromSeconds(ahead));
                }
            })).ToArray();
            using var probe = server.Client(30_000);
            while (!Task.WaitAll(writers, TimeSpan.FromSeconds(5)))
                samples.Add(new Sample(sw.Elapsed.TotalSeconds, probe.Execute("DBSIZE").Integer, server.ResidentBytes(), DiskBytes(dir)));
            double rate = Interlocked.Read(ref written) / sw.Elapsed.TotalSeconds;
            string table = string.Join("\n", samples.Select(s => $"{s.Seconds,5:F0}s dbsize={s.DbSize} rss={s.Rss >> 20}MB disk={s.Disk >> 20}MB"));
            TestContext.Out.WriteLine($"rate {rate:F0} SET/s, {written} keys written\n{table}");
            TestContext.Out.WriteLine(string.Join("\n", server.Output.Split('\n').Where(l => l.Contains("ompaction")).TakeLast(30)));
            Assert.That(written, Is.GreaterThan(500_000), "the workload wrote far more keys than stay alive");

            // Flat: in the second half, DBSIZE stays within a few seconds' worth of writes, and memory and disk stop growing.
            var secondHalf = samples.Where(s => s.Seconds > run.TotalSeconds / 2).ToList();
            var firstHalf = samples.Where(s => s.Seconds <= run.TotalSeconds / 2 && s.Seconds > 10).ToList();
            // (Without reclamation DBSIZE is the number of keys written: millions, growing by the rate every second.)
            // Measured lag: about 10 s on a quiet machine, up to 22 s on a loaded 2-core one; without reclamation DBSIZE would be
            // the rate times the elapsed time (23-45 s in the second half), so 30 s of lag still tells the two apart.
            Assert.That(secondHalf.Max(s => s.DbSize), Is.LessThan(rate * 30), "expired keys leave DBSIZE within seconds\n" + table);
            // Resident memory: the GC heap under load moves by a few hundred MB, so this is a bound, not flatness; the idle
            // check below is the sharp one.
            Assert.That(secondHalf.Max(s => s.Rss), Is.LessThan(1024L << 20), "resident memory stays bounded\n" + table);
            // Disk: reclaimed while the load runs, though under this load not yet flat (64 MB segments go only whole, and
            // compaction clears what the sweep cannot); what was written is given back once the keys have expired (below).
            Assert.That(secondHalf.Max(s => s.Disk), Is.LessThan(Math.Max(firstHalf.Max(s => s.Disk), 64L << 20) * 3), "disk use levels off during the load\n" + table);

            // Idle: every key expires and leaves DBSIZE within a bounded time, the disk is given back, and the server goes quiet.
            var idle = Stopwatch.StartNew();
            long rssAtIdle = server.ResidentBytes();
            long dbsize;
            // The sweep drops almost all within seconds; the last few (behind another key's tombstone in their index chain) go
            // with the next compaction run: the bound is the compaction interval plus the run.
            while ((dbsize = probe.Execute("DBSIZE").Integer) > 0 && idle.Elapsed < TimeSpan.FromSeconds(90)) Thread.Sleep(500);
            if (dbsize > 0) TestContext.Out.WriteLine(Diagnose(probe, keysPerWriter.Max() + 1));
            Assert.That(dbsize, Is.EqualTo(0), "every expired key left DBSIZE within 90 s of the last write\n" + server.Output[^Math.Min(3000, server.Output.Length)..]);
            TestContext.Out.WriteLine($"DBSIZE 0 after {idle.Elapsed.TotalSeconds:F1} s idle; disk {DiskBytes(dir) >> 20} MB");
            Thread.Sleep(12_000); // a compaction interval or two
            var cpu = server.CpuTime();
            Thread.Sleep(10_000);
            var idleCpu = server.CpuTime() - cpu;
            TestContext.Out.WriteLine($"idle CPU over 10 s: {idleCpu.TotalMilliseconds:F0} ms; disk {DiskBytes(dir) >> 20} MB");
            Assert.That(idleCpu, Is.LessThan(TimeSpan.FromSeconds(1)), "an idle server is quiet");
            long rssIdleGrowth = server.ResidentBytes() - rssAtIdle;
            TestContext.Out.WriteLine($"resident memory while idle: {rssAtIdle >> 20} MB -> {(rssAtIdle + rssIdleGrowth) >> 20} MB");
            Assert.That(rssIdleGrowth, Is.LessThan(128L << 20), "resident memory does not grow while the idle server sweeps and compacts");
            Assert.That(DiskBytes(dir), Is.LessThan(200L << 20), "the disk of expired keys is given back");
        }
        finally { try { Directory.Delete(work, true); } catch { } }
    }

    /// <summary>What the server says about reclamation while keys are left, then which of the written keys were left
    /// (a DEL of each written key, so DBSIZE drops at those still reachable): tells counted-but-unreachable from unreached keys.</summary>
    private static string Diagnose(RespClient probe, long keysPerWriter)
    {
        var info = probe.Execute("INFO", "everything").Text ?? "";
        var lines = info.Split("\r\n").Where(l => l.StartsWith("expir") || l.StartsWith("compaction") || l.StartsWith("db0") || l.StartsWith("disk_"));
        var left = new List<string>();
        long dbsize = probe.Execute("DBSIZE").Integer;
        for (int t = 0; t < 2 && dbsize > 0; t++)
            for (long from = 0; from < keysPerWriter && dbsize > 0; from += 10_000)
            {
                var batch = new StringBuilder();
                long to = Math.Min(from + 10_000, keysPerWriter);
                for (long n = from; n < to; n++) batch.Append($"*2\r\n$3\r\nDEL\r\n${$"t{t}:{n}".Length}\r\nt{t}:{n}\r\n");
                probe.SendRaw(Encoding.ASCII.GetBytes(batch.ToString()));
                for (long n = from; n < to; n++) probe.Read();
                long now = probe.Execute("DBSIZE").Integer;
                if (now < dbsize) left.Add($"{dbsize - now} in t{t}:{from}..{to - 1}");
                dbsize = now;
            }
        return $"left behind ({string.Join(", ", left)}); DBSIZE after a DEL of every written key: {dbsize}\n" + string.Join("\n", lines);
    }

    private static long DiskBytes(string dir) =>
        Directory.Exists(dir) ? Directory.EnumerateFiles(dir).Sum(f => { try { return new FileInfo(f).Length; } catch (IOException) { return 0L; } }) : 0;
}
