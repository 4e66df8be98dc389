// Expired keys are reclaimed: a steady workload of ever-new keys with a 1-second TTL, well beyond the memory budget, reaches
// flat DBSIZE, resident memory and disk use, and once it stops the keys leave DBSIZE and the server goes quiet.
using System.Diagnostics;
using System.Text;
using Garnet.client;

namespace Garnet.test.Faults;

[TestFixture, Category("Faults"), NonParallelizable]
public class ExpiryReclaimTests
{
    private readonly record struct Sample(double Seconds, long DbSize, long Rss, long Disk);

    [Test, CancelAfter(300_000)]
    public void SteadyTtlWorkloadReachesFlatMemoryAndDisk()
    {
        string work = Directory.CreateTempSubdirectory("garnet-ttl-").FullName;
        string dir = Path.Combine(work, "data");
        try
        {
            using var server = new ServerProcess($"--dir \"{dir}\" --memory 64mb --save \"\"", work);
            var run = TimeSpan.FromSeconds(45);
            var samples = new List<Sample>();
            long written = 0;
            var sw = Stopwatch.StartNew();
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
            Assert.That(secondHalf.Max(s => s.DbSize), Is.LessThan(rate * 10), "expired keys leave DBSIZE within seconds\n" + table);
            Assert.That(secondHalf.Max(s => s.Rss), Is.LessThan(firstHalf.Max(s => s.Rss) * 1.5 + (64L << 20)), "resident memory is flat\n" + table);
            Assert.That(secondHalf.Max(s => s.Disk), Is.LessThan(Math.Max(firstHalf.Max(s => s.Disk) * 1.5, 256L << 20)), "disk use is flat\n" + table);

            // Idle: every key expires and leaves DBSIZE within a bounded time, the disk is given back, and the server goes quiet.
            var idle = Stopwatch.StartNew();
            long dbsize;
            while ((dbsize = probe.Execute("DBSIZE").Integer) > 0 && idle.Elapsed < TimeSpan.FromSeconds(60)) Thread.Sleep(500);
            Assert.That(dbsize, Is.EqualTo(0), "every expired key left DBSIZE within 60 s of the last write\n" + server.Output[^Math.Min(3000, server.Output.Length)..]);
            TestContext.Out.WriteLine($"DBSIZE 0 after {idle.Elapsed.TotalSeconds:F1} s idle; disk {DiskBytes(dir) >> 20} MB");
            Thread.Sleep(12_000); // a compaction interval or two
            var cpu = server.CpuTime();
            Thread.Sleep(10_000);
            var idleCpu = server.CpuTime() - cpu;
            TestContext.Out.WriteLine($"idle CPU over 10 s: {idleCpu.TotalMilliseconds:F0} ms; disk {DiskBytes(dir) >> 20} MB");
            Assert.That(idleCpu, Is.LessThan(TimeSpan.FromSeconds(1)), "an idle server is quiet");
            Assert.That(DiskBytes(dir), Is.LessThan(200L << 20), "the disk of expired keys is given back");
        }
        finally { try { Directory.Delete(work, true); } catch { } }
    }

    private static long DiskBytes(string dir) =>
        Directory.Exists(dir) ? Directory.EnumerateFiles(dir).Sum(f => { try { return new FileInfo(f).Length; } catch (IOException) { return 0L; } }) : 0;
}
