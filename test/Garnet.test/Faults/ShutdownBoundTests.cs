// Shutdown and long-running commands, through the real executable: COMPACT over a backlog does not hold the thread that
// serves other connections, and SIGTERM during it exits within the documented bound (docs/configuration.md#shutdown).
using System.Diagnostics;
using System.Text;
using Garnet.client;

namespace Garnet.test.Faults;

[TestFixture, Category("Faults"), NonParallelizable]
public class ShutdownBoundTests
{
    internal static void Load(RespClient c, string prefix, int keys, int valueBytes)
    {
        string value = new('v', valueBytes);
        var batch = new StringBuilder();
        for (int done = 0; done < keys;)
        {
            batch.Clear();
            int n = Math.Min(1000, keys - done);
            for (int i = 0; i < n; i++)
            {
                string key = prefix + (done + i);
                batch.Append($"*3\r\n$3\r\nSET\r\n${key.Length}\r\n{key}\r\n${valueBytes}\r\n{value}\r\n");
            }
            c.SendRaw(Encoding.ASCII.GetBytes(batch.ToString()));
            for (int i = 0; i < n; i++) if (c.Read().IsError) throw new InvalidOperationException("SET failed");
            done += n;
        }
    }

    [Test, CancelAfter(240_000)]
    public void CompactBacklogDoesNotBlockOtherClientsAndSigtermExitsInBound()
    {
        string work = Directory.CreateTempSubdirectory("garnet-stop-").FullName;
        try
        {
            using var server = new ServerProcess($"--dir \"{Path.Combine(work, "data")}\" --memory 16mb --save \"\" --compaction-interval 0", work);
            using (var loader = server.Client(60_000))
            {
                Load(loader, "a:", 600_000, 200);
                Load(loader, "a:", 600_000, 200); // the first round is now garbage on disk: a backlog
            }
            using var compacting = server.Client(120_000);
            var started = Stopwatch.StartNew();
            compacting.Send("COMPACT");
            // Meanwhile other clients, old and new, are served at once.
            var worst = TimeSpan.Zero;
            using var other = server.Client(5000);
            for (int i = 0; i < 20; i++)
            {
                var sw = Stopwatch.StartNew();
                RespAssert.Simple(other.Execute("PING"), "PONG");
                using (var fresh = server.Client(5000)) RespAssert.Simple(fresh.Execute("PING"), "PONG");
                RespAssert.Bulk(other.Execute("GET", "a:" + i * 1000), new string('v', 200));
                if (sw.Elapsed > worst) worst = sw.Elapsed;
                Thread.Sleep(50);
            }
            bool stillRunning = !compacting.Socket.Poll(0, System.Net.Sockets.SelectMode.SelectRead);
            TestContext.Out.WriteLine($"worst PING+connect+GET during COMPACT: {worst.TotalMilliseconds:F0} ms; COMPACT still running after {started.Elapsed.TotalSeconds:F1} s: {stillRunning}");
            Assert.That(worst, Is.LessThan(TimeSpan.FromSeconds(1)), "COMPACT does not hold other clients");

            var stop = Stopwatch.StartNew();
            server.Signal("TERM");
            Assert.That(server.WaitForExit(TimeSpan.FromSeconds(30)), "SIGTERM exits within the bound during a compaction");
            TestContext.Out.WriteLine($"SIGTERM to exit: {stop.Elapsed.TotalSeconds:F1} s");
            Assert.That(stop.Elapsed, Is.LessThan(TimeSpan.FromSeconds(20)));
            Assert.That(server.ExitCode, Is.EqualTo(0), server.Output);
        }
        finally { try { Directory.Delete(work, true); } catch { } }
    }
}
