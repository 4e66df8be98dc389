// Hostile data through the real executable: a long glob pattern (600 '*?' groups) matched while part of the data is on
// disk runs on DiskReaders' thread, whose small stack the recursive matcher overflowed (the process died); and a huge
// negative SRANDMEMBER count, whose reply took several times its own size.
using System.Diagnostics;
using Garnet.client;

namespace Garnet.test.Faults;

[TestFixture, Category("Faults"), NonParallelizable]
public class HostileDataProcessTests
{
    [Test, CancelAfter(180_000)]
    public void LongPatternOnDataOnDiskThroughKeysScanAndPsubscribe()
    {
        string dir = Path.Combine(Path.GetTempPath(), "garnet-glob-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            using var server = new ServerProcess($"--dir \"{dir}\" --memory 16mb --save \"\"", dir);
            using var c = server.Client(60_000);
            var value = new string('v', 100_000);
            for (int i = 0; i < 400; i++) c.Send("SET", "key:" + i, value); // 40 MB of values, most of it on disk
            for (int i = 0; i < 400; i++) RespAssert.Simple(c.Read(), "OK");
            string longKey = new string('k', 700);
            c.Execute("SET", longKey, "v");
            string pattern = string.Concat(Enumerable.Repeat("*?", 600));

            var keys = c.Execute("KEYS", pattern);
            Assert.That(server.HasExited, Is.False, server.Output);
            Assert.That(keys.Elements!.Select(e => e.Text), Is.EqualTo(new[] { longKey }));

            var scanned = new List<string>();
            string cursor = "0";
            for (int round = 0; round < 10_000; round++)
            {
                var r = c.Execute("SCAN", cursor, "MATCH", pattern, "COUNT", "100");
                cursor = r.Elements![0].Text!;
                scanned.AddRange(r.Elements[1].Elements!.Select(e => e.Text!));
                if (cursor == "0") break;
            }
            Assert.That(scanned, Is.EqualTo(new[] { longKey }));

            using var sub = server.Client();
            sub.Execute("PSUBSCRIBE", pattern);
            RespAssert.Integer(c.Execute("PUBLISH", longKey, "m"), 1);
            Assert.That(sub.Read().Elements![3].Text, Is.EqualTo("m"));
            RespAssert.Simple(c.Execute("PING"), "PONG");
            Assert.That(server.HasExited, Is.False, server.Output);
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    [Test, CancelAfter(120_000)]
    public void HugeNegativeSrandmemberTakesAboutItsReplySize()
    {
        string dir = Path.Combine(Path.GetTempPath(), "garnet-srand-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            using var server = new ServerProcess($"--dir \"{dir}\" --save \"\"", dir);
            using var c = server.Client(60_000);
            c.Execute(Enumerable.Range(0, 100).Select(i => (object)("member" + i)).Prepend("s").Prepend("SADD").ToArray());
            long before = PeakResident(server.Pid);
            var r = c.Execute("SRANDMEMBER", "s", "-10000000");
            Assert.That(r.Elements!.Length, Is.EqualTo(10_000_000));
            r = null;
            long grew = PeakResident(server.Pid) - before;
            // The reply is about 150 MB; gathering it as a list of picks and regrowing the buffer took about 600 MB.
            Assert.That(grew, Is.LessThan(450L << 20), $"peak resident grew by {grew >> 20} MB");
            RespAssert.Simple(c.Execute("PING"), "PONG");
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    private static long PeakResident(int pid)
    {
        foreach (var line in File.ReadLines($"/proc/{pid}/status"))
            if (line.StartsWith("VmHWM:")) return long.Parse(line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1]) * 1024;
        return 0;
    }
}
