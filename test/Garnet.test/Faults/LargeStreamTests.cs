// A stream larger than the memory budget, through the real executable: with --memory 8mb a ~20 MB stream takes 10,000 more
// XADDs without the disk growing by more than a few times the data (before the spill file each XADD rewrote the whole
// stream: gigabytes), the stream survives being pushed out of memory (its object-log payload refers to spilled blocks),
// and after a restart (SIGTERM with a checkpoint, SIGKILL with --aof-fsync always) XRANGE - + has every entry, XLEN is
// right and the group's PEL is intact.
using System.Diagnostics;
using Garnet.client;

namespace Garnet.test.Faults;

[TestFixture, Category("Faults"), NonParallelizable]
public class LargeStreamTests
{
    private const int Initial = 200_000, More = 10_000, Delivered = 500, Acked = 100;
    private static readonly string Pad = new('x', 80);

    private static string ValueOf(int i) => $"v{i}-{Pad}";

    /// <summary>About the bytes a client wrote: field names and values of every entry.</summary>
    private static long DataBytes(int entries) => (long)entries * ("field".Length + ValueOf(100_000).Length + "n".Length + 6);

    private static void AddEntries(RespClient c, int from, int count)
    {
        const int Batch = 1000;
        for (int at = from; at < from + count; at += Batch)
        {
            int n = Math.Min(Batch, from + count - at);
            for (int i = at; i < at + n; i++) c.Send("XADD", "big", $"{i + 1}-1", "field", ValueOf(i), "n", i.ToString());
            for (int i = 0; i < n; i++)
            {
                var r = c.Read();
                if (r.IsError) Assert.Fail("XADD failed: " + r.Text);
            }
        }
    }

    private static long WrittenBytes(int pid)
    {
        foreach (var line in File.ReadLines($"/proc/{pid}/io"))
            if (line.StartsWith("write_bytes:")) return long.Parse(line["write_bytes:".Length..].Trim());
        return 0;
    }

    /// <summary>Bytes the files under dir take on disk (allocated blocks, as du counts them).</summary>
    private static long DiskBytes(string dir)
    {
        using var du = Process.Start(new ProcessStartInfo("du", $"-sk \"{dir}\"") { RedirectStandardOutput = true })!;
        string output = du.StandardOutput.ReadToEnd();
        du.WaitForExit();
        return long.Parse(output.Split('\t')[0]) * 1024;
    }

    private static long InfoField(RespClient c, string name)
    {
        foreach (var line in c.Execute("INFO").Text!.Split("\r\n"))
            if (line.StartsWith(name + ":")) return long.Parse(line[(name.Length + 1)..]);
        Assert.Fail("INFO has no " + name);
        return 0;
    }

    private static void CheckStream(RespClient c, string when)
    {
        int total = Initial + More;
        Assert.That(c.Execute("XLEN", "big").Integer, Is.EqualTo(total), when + ": XLEN");
        var all = c.Execute("XRANGE", "big", "-", "+").Elements!;
        Assert.That(all.Length, Is.EqualTo(total), when + ": XRANGE - + has every entry");
        for (int i = 0; i < total; i++)
        {
            var e = all[i].Elements!;
            if (e[0].Text != $"{i + 1}-1" || e[1].Elements![1].Text != ValueOf(i) || e[1].Elements![3].Text != i.ToString())
                Assert.Fail($"{when}: entry {i} is {e[0].Text} {e[1].Elements![1].Text}");
        }
        var tail = c.Execute("XREVRANGE", "big", "+", "-", "COUNT", "3").Elements!;
        Assert.That(tail[0].Elements![0].Text, Is.EqualTo($"{total}-1"), when + ": XREVRANGE");
        var summary = c.Execute("XPENDING", "big", "g").Elements!;
        Assert.That(summary[0].Integer, Is.EqualTo(Delivered - Acked), when + ": pending count");
        Assert.That(summary[1].Text, Is.EqualTo($"{Acked + 1}-1"), when + ": smallest pending ID");
        Assert.That(summary[2].Text, Is.EqualTo($"{Delivered}-1"), when + ": greatest pending ID");
        var group = c.Execute("XINFO", "GROUPS", "big").Elements![0].Elements!;
        Assert.That(group[7].Text, Is.EqualTo($"{Delivered}-1"), when + ": last-delivered-id");
        // The group goes on where it was.
        var next = c.Execute("XREADGROUP", "GROUP", "g", "c2", "COUNT", "2", "STREAMS", "big", ">").Elements![0].Elements![1].Elements!;
        Assert.That(next[0].Elements![0].Text, Is.EqualTo($"{Delivered + 1}-1"), when + ": the next entry delivered");
        c.Execute("XACK", "big", "g", next[0].Elements![0].Text!, next[1].Elements![0].Text!);
        c.Execute("XGROUP", "SETID", "big", "g", $"{Delivered}-1");
        c.Execute("XGROUP", "DELCONSUMER", "big", "g", "c2");
    }

    [TestCase("SIGTERM"), TestCase("SIGKILL")]
    [CancelAfter(600_000)]
    public void StreamLargerThanMemoryTakesWritesWithBoundedDiskAndSurvivesRestart(string signal)
    {
        var dir = Directory.CreateTempSubdirectory("garnet-bigstream-").FullName;
        try
        {
            // SIGTERM: the checkpoint at stop writes the stream (its spilled blocks read back); SIGKILL: the AOF replays it.
            string args = $"--dir \"{dir}\" --memory 8mb --loglevel warning " +
                (signal == "SIGTERM" ? "--save \"3600 1\"" : "--save \"\" --aof --aof-fsync always");
            using (var server = new ServerProcess(args, dir))
            {
                using var c = server.Client(timeoutMs: 120_000);
                Assert.That(c.Execute("XGROUP", "CREATE", "big", "g", "0", "MKSTREAM").Text, Is.EqualTo("OK"));
                AddEntries(c, 0, Initial);
                var read = c.Execute("XREADGROUP", "GROUP", "g", "c1", "COUNT", Delivered.ToString(), "STREAMS", "big", ">");
                Assert.That(read.Elements![0].Elements![1].Elements!.Length, Is.EqualTo(Delivered));
                var ack = new List<object> { "XACK", "big", "g" };
                for (int i = 0; i < Acked; i++) ack.Add($"{i + 1}-1");
                Assert.That(c.Execute([.. ack]).Integer, Is.EqualTo(Acked));

                long writtenBefore = WrittenBytes(server.Pid);
                var sw = Stopwatch.StartNew();
                AddEntries(c, Initial, More);
                long written = WrittenBytes(server.Pid) - writtenBefore;
                TestContext.Out.WriteLine($"{signal}: {More} XADDs to a {DataBytes(Initial) >> 20} MB stream in {sw.ElapsedMilliseconds} ms wrote {written >> 10} KB");
                // The entries themselves (and their AOF records) are about 1 MB; a whole-stream rewrite per XADD is 200 GB.
                Assert.That(written, Is.LessThan(64L << 20), "XADDs write what they add, not the whole stream");

                // Push the stream's record out of memory (its object-log payload then refers to the spilled blocks).
                for (int i = 0; i < 3000; i++) c.Send("SET", "filler" + i, new string('f', 10_000));
                for (int i = 0; i < 3000; i++) Assert.That(c.Read().IsError, Is.False);
                long diskReads = InfoField(c, "disk_reads");
                CheckStream(c, "before restart");
                Assert.That(InfoField(c, "disk_reads"), Is.GreaterThan(diskReads), "the stream was read back from the object log");

                long disk = DiskBytes(dir), data = DataBytes(Initial + More) + 3000L * 10_000;
                TestContext.Out.WriteLine($"{signal}: data directory {disk >> 20} MB for about {data >> 20} MB of data");
                Assert.That(disk, Is.LessThan(4 * data), "the data directory stays within a few times the data");

                if (signal == "SIGTERM")
                {
                    server.Signal("TERM");
                    Assert.That(server.WaitForExit(TimeSpan.FromSeconds(120)), "the server stopped");
                }
                else
                {
                    server.Signal("KILL");
                    Assert.That(server.WaitForExit(TimeSpan.FromSeconds(30)), "the server was killed");
                }
            }
            Assert.That(File.Exists(Path.Combine(dir, "stream-blocks.spill")), Is.EqualTo(signal == "SIGKILL"), "a clean stop removes the spill file");
            using (var server = new ServerProcess(args, dir))
            {
                using var c = server.Client(timeoutMs: 120_000);
                CheckStream(c, "after " + signal);
                // And it goes on taking writes.
                Assert.That(c.Execute("XADD", "big", "*", "field", "after").IsError, Is.False);
                Assert.That(c.Execute("XLEN", "big").Integer, Is.EqualTo(Initial + More + 1));
            }
        }
        finally
        {
            try { Directory.Delete(dir, true); } catch { }
        }
    }
}
