// A full disk, through the real executable on a small tmpfs: writes are refused with MISCONF (nothing acknowledged is
// lost), reads go on, the server recovers by itself when space returns, SIGTERM does not exit while the checkpoint cannot
// be written, and the restart has every acknowledged write.
using System.Diagnostics;
using Garnet.client;

namespace Garnet.test.Faults;

[TestFixture, Category("Faults"), NonParallelizable]
public class FullDiskTests
{
    private static string ValueOf(int i) => new((char)('a' + i % 26), 4096);

    private static string Tail(string s) => s.Length <= 6000 ? s : s[^6000..];

    // With --aof-fsync always, a write whose fsync fails is not acknowledged until the AOF can be written again (its reply
    // waits), so this test fills the disk with everysec, where the failure shows as MISCONF on the next writes.
    [TestCase(false), TestCase(true)]
    [CancelAfter(240_000)]
    public void WritesRefusedWhileFullRecoverWhenSpaceReturnsAndNothingAcknowledgedIsLost(bool aof)
    {
        // The log and the checkpoints (the newest is kept until the next one is durable) each hold the data on disk, so the
        // space given back must fit the log and two checkpoints: about three times the data (see persistence.md).
        using var disk = new SmallDisk(160);
        // The ballast stands for other files on the disk; deleting it gives back more than the data needs for its checkpoint.
        string ballast = disk.Fill("ballast", 136L << 20);
        string dir = Path.Combine(disk.Path, "data");
        string args = $"--dir \"{dir}\" --memory 16mb --save \"1 1\" --compaction-interval 0" + (aof ? " --aof --aof-fsync everysec" : "");
        var acknowledged = new List<int>();
        using (var server = new ServerProcess(args, disk.Path))
        {
            using var c = server.Client();
            string? firstError = null;
            for (int i = 0; i < 20_000 && firstError is null; i++)
            {
                var r = c.Execute("SET", "k" + i, ValueOf(i));
                if (r.IsError) firstError = r.Text;
                else acknowledged.Add(i);
            }
            Assert.That(firstError, Is.Not.Null, "the disk filled up");
            Assert.That(firstError, Does.StartWith("MISCONF"), "a full disk refuses writes as Redis does");
            Assert.That(acknowledged.Count, Is.GreaterThan(1000));
            // Writes stay refused with the same kind of error; reads go on, also for keys whose records are on disk.
            for (int i = 0; i < 20; i++) Assert.That(c.Execute("SET", "more" + i, "x").Text, Does.StartWith("MISCONF"));
            foreach (int i in acknowledged.Take(200).Concat(acknowledged.TakeLast(50)))
                Assert.That(c.Execute("GET", "k" + i).Text, Is.EqualTo(ValueOf(i)), $"k{i} reads back while the disk is full");

            // SIGTERM while the checkpoint cannot be written: Redis's "can't exit"; the server keeps serving.
            server.Signal("TERM");
            Thread.Sleep(8000);
            Assert.That(server.HasExited, Is.False, "no exit while the checkpoint at stop fails: " + server.Output);
            Assert.That(server.Output, Does.Contain("can't exit"));
            using (var c2 = server.Client()) RespAssert.Simple(c2.Execute("PING"), "PONG");

            // Space returns: writes are accepted again by themselves.
            File.Delete(ballast);
            var sw = Stopwatch.StartNew();
            RespValue reply;
            using var c3 = server.Client();
            do { Thread.Sleep(250); reply = c3.Execute("SET", "after", "space"); }
            while (reply.IsError && sw.Elapsed < TimeSpan.FromSeconds(60));
            Assert.That(reply.IsError, Is.False, "writes resume once space is back: " + reply.Text + "\n" + Tail(server.Output));

            server.Signal("TERM");
            Assert.That(server.WaitForExit(TimeSpan.FromSeconds(90)), "exits once the checkpoint can be written\n" + Tail(server.Output));
            Assert.That(server.ExitCode, Is.EqualTo(0));
            // One line per failure episode, not a stack trace per command.
            int stackLines = server.Output.Split('\n').Count(l => l.TrimStart().StartsWith("at "));
            Assert.That(stackLines, Is.LessThan(100), "no stack trace per command: " + server.Output[..Math.Min(4000, server.Output.Length)]);
        }
        using (var again = new ServerProcess(args, disk.Path))
        {
            using var c = again.Client();
            RespAssert.Bulk(c.Execute("GET", "after"), "space");
            foreach (int i in acknowledged)
                Assert.That(c.Execute("GET", "k" + i).Text, Is.EqualTo(ValueOf(i)), $"acknowledged k{i} is there after the restart");
        }
    }
}
