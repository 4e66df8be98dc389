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

    // With --aof-fsync always a write is acknowledged only once its AOF block is on disk. When that write fails, the
    // write in flight keeps waiting (its reply comes once space returns; Redis exits instead), and every later write is
    // refused with MISCONF; the other cases refuse with MISCONF at once.
    [TestCase(null), TestCase("everysec"), TestCase("always")]
    [CancelAfter(300_000)]
    public void WritesRefusedWhileFullRecoverWhenSpaceReturnsAndNothingAcknowledgedIsLost(string? fsync)
    {
        // The log and the checkpoints (the newest is kept until the next one is durable) each hold the data on disk, so the
        // space given back must fit the log and two checkpoints: about three times the data (see persistence.md).
        using var disk = new SmallDisk(160);
        // The ballast stands for other files on the disk; deleting it gives back more than the data needs for its checkpoint.
        string ballast = disk.Fill("ballast", 136L << 20);
        string dir = Path.Combine(disk.Path, "data");
        string args = $"--dir \"{dir}\" --memory 16mb --save \"1 1\" --compaction-interval 0" + (fsync is null ? "" : " --aof --aof-fsync " + fsync);
        var acknowledged = new List<int>();
        using (var server = new ServerProcess(args, disk.Path))
        {
            string? firstError = null;
            int inFlight = -1;
            bool stopWriting = false;
            var writer = Task.Run(() =>
            {
                using var w = server.Client(timeoutMs: 120_000);
                for (int i = 0; i < 20_000 && firstError is null && !Volatile.Read(ref stopWriting); i++)
                {
                    Volatile.Write(ref inFlight, i);
                    var r = w.Execute("SET", "k" + i, ValueOf(i));
                    if (r.IsError) firstError = r.Text;
                    else lock (acknowledged) acknowledged.Add(i);
                }
            });
            var c = server.Client();
            // The disk is full once a write from another client is refused (the writer has stopped or is waiting). With
            // always, a probe that got in just before the failure waits as the writer does: go on with a new connection.
            var sw = Stopwatch.StartNew();
            RespValue? probe = null;
            do
            {
                Thread.Sleep(200);
                try { probe = c.Execute("SET", "probe", "x"); }
                catch (IOException) { c.Dispose(); c = server.Client(); }
            }
            while (probe is not { IsError: true } && sw.Elapsed < TimeSpan.FromSeconds(120));
            Assert.That(probe?.Text, Does.StartWith("MISCONF"), "a full disk refuses writes as Redis does");
            if (fsync == "always")
            {
                // The writer's SET whose AOF block could not be written has no reply yet (unless the log's own device
                // failed first, which refuses the write at once): given a second to answer, it does not.
                Poll.Until(() => writer.IsCompleted, TimeSpan.FromSeconds(1));
                if (writer.IsCompleted) Assert.That(firstError, Does.StartWith("MISCONF"));
                else TestContext.Progress.WriteLine($"always: SET k{Volatile.Read(ref inFlight)} waits for its AOF block");
            }
            else
            {
                Assert.That(writer.Wait(TimeSpan.FromSeconds(30)), "the writer was refused");
                Assert.That(firstError, Does.StartWith("MISCONF"));
            }
            int[] acked;
            lock (acknowledged) acked = acknowledged.ToArray();
            Assert.That(acked.Length, Is.GreaterThan(1000));
            // Writes stay refused with the same kind of error; reads go on, also for keys whose records are on disk. (Not
            // with always: there a retry that finds a little space, such as the file cut back after the failed block, can
            // accept a write again, and the next one can then wait for its block like the writer's.)
            if (fsync != "always")
                for (int i = 0; i < 20; i++) Assert.That(c.Execute("SET", "more" + i, "x").Text, Does.StartWith("MISCONF"));
            foreach (int i in acked.Take(200).Concat(acked.TakeLast(50)))
                Assert.That(c.Execute("GET", "k" + i).Text, Is.EqualTo(ValueOf(i)), $"k{i} reads back while the disk is full");

            // SIGTERM while the checkpoint cannot be written: Redis's "can't exit"; the server keeps serving. (Not with
            // always, whose waiting writer the stop attempt would disconnect: that case checks the waiting reply instead.)
            if (fsync != "always")
            {
                server.Signal("TERM");
                Poll.True(() => server.Output.Contains("can't exit") || server.HasExited, "the stop attempt to fail", TimeSpan.FromSeconds(60));
                Assert.That(server.HasExited, Is.False, "no exit while the checkpoint at stop fails: " + server.Output);
                Assert.That(server.Output, Does.Contain("can't exit"));
                using (var c2 = server.Client()) RespAssert.Simple(c2.Execute("PING"), "PONG");
            }

            // Space returns: writes are accepted again by themselves, and the waiting write (always) is acknowledged.
            Volatile.Write(ref stopWriting, true);
            File.Delete(ballast);
            sw.Restart();
            RespValue reply;
            using var c3 = server.Client();
            do { Thread.Sleep(250); reply = c3.Execute("SET", "after", "space"); }
            while (reply.IsError && sw.Elapsed < TimeSpan.FromSeconds(60));
            Assert.That(reply.IsError, Is.False, "writes resume once space is back: " + reply.Text + "\n" + Tail(server.Output));
            if (fsync == "always")
            {
                Assert.That(writer.Wait(TimeSpan.FromSeconds(60)), "the waiting write is answered once its block is written");
                Assert.That(firstError, Is.Null.Or.StartWith("MISCONF"));
                if (firstError is null) lock (acknowledged) Assert.That(acknowledged, Does.Contain(Volatile.Read(ref inFlight)), "the waiting write was acknowledged");
            }

            server.Signal("TERM");
            Assert.That(server.WaitForExit(TimeSpan.FromSeconds(90)), "exits once the checkpoint can be written\n" + Tail(server.Output));
            Assert.That(server.ExitCode, Is.EqualTo(0));
            c.Dispose();
            // One line per failure episode, not a stack trace per command.
            int stackLines = server.Output.Split("   at ").Length - 1, failLines = server.Output.Split("fail:").Length - 1;
            Assert.That(failLines, Is.LessThan(20), "one error line per failure episode: " + Tail(server.Output));
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
