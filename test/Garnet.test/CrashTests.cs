using System.Diagnostics;
using Garnet.client;

namespace Garnet.test;

/// <summary>Durability claims, tested by killing the server process (SIGKILL) in the middle of a write load.</summary>
[TestFixture]
public class CrashTests
{
    private const int Depth = 8; // requests each writer has in flight
    private const int MinAcked = 100; // acknowledged writes per writer before the kill, at least ("the load ran")

    /// <summary>Writes SET w{t}:{i} i from two clients until the server dies; returns the acknowledged count per client.</summary>
    private static (long[] acked, double seconds) WriteUntilKilled(int port, Process server, TimeSpan loadFor)
    {
        var acked = new long[2];
        var sw = Stopwatch.StartNew();
        var writers = Enumerable.Range(0, 2).Select(t => Task.Run(() =>
        {
            try
            {
                using var c = new RespClient("127.0.0.1", port, 5000);
                long sent = 0;
                while (true)
                {
                    while (sent - Volatile.Read(ref acked[t]) < Depth) { c.Send("SET", $"w{t}:{sent}", sent.ToString()); sent++; }
                    var r = c.Read();
                    if (r.Text != "OK") throw new InvalidOperationException("unexpected reply " + r);
                    Volatile.Write(ref acked[t], acked[t] + 1); // replies come in order: reply n acknowledges write n
                }
            }
            catch (Exception ex) when (ex is IOException or System.Net.Sockets.SocketException) { } // the server died
        })).ToArray();
        Thread.Sleep(loadFor);
        // and on until each writer has more than MinAcked acknowledged (at most 30 s more): a slow disk under
        // --aof-fsync always, or a cold server, must not leave the tests below with a load too small to check.
        Poll.Until(() => Volatile.Read(ref acked[0]) > MinAcked && Volatile.Read(ref acked[1]) > MinAcked, TimeSpan.FromSeconds(30));
        server.Kill(); // SIGKILL
        server.WaitForExit();
        double seconds = sw.Elapsed.TotalSeconds;
        Task.WaitAll(writers, TimeSpan.FromSeconds(30));
        return (acked, seconds);
    }

    /// <summary>How many of w{t}:0.. are present after restart, and checks there is no gap and nothing unsent.</summary>
    private static long Present(RespClient c, int t, long limit)
    {
        long present = 0;
        for (long start = 0; start < limit; start += 500)
        {
            var keys = Enumerable.Range(0, (int)Math.Min(500, limit - start)).Select(i => (object)$"w{t}:{start + i}").ToArray();
            var values = c.Execute(new object[] { "MGET" }.Concat(keys).ToArray()).Elements!;
            for (int i = 0; i < values.Length; i++)
            {
                if (values[i].IsNull) return present; // the first missing one: everything after must be missing too (checked by the caller)
                Assert.That(values[i].Text, Is.EqualTo((start + i).ToString()));
                present++;
            }
        }
        return present;
    }

    private static (long[] acked, long[] present, double seconds) Run(string fsync)
    {
        var dir = Directory.CreateTempSubdirectory("garnet-crash-").FullName;
        try
        {
            int port = shared.TestPorts.Free();
            string args = $"--port {port} --aof --aof-fsync {fsync} --save \"\" --loglevel warning";
            var server = ProcessTests.Start(args, dir);
            ProcessTests.WaitForPort(port, server);
            var (acked, seconds) = WriteUntilKilled(port, server, TimeSpan.FromSeconds(2));
            server.Dispose();
            using var again = ProcessTests.Start(args, dir);
            try
            {
                ProcessTests.WaitForPort(port, again);
                using var c = new RespClient("127.0.0.1", port, 30000);
                var present = new long[2];
                for (int t = 0; t < 2; t++)
                {
                    present[t] = Present(c, t, acked[t] + Depth + 1);
                    Assert.That(c.Execute("EXISTS", $"w{t}:{present[t]}").Integer, Is.EqualTo(0));
                    Assert.That(c.Execute("EXISTS", $"w{t}:{acked[t] + Depth}").Integer, Is.EqualTo(0), "nothing that was never sent");
                }
                Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(present[0] + present[1]), "no keys beyond the prefixes");
                TestContext.Out.WriteLine($"{fsync}: acknowledged {acked[0] + acked[1]} in {seconds:F1} s, present after restart {present[0] + present[1]}");
                return (acked, present, seconds);
            }
            finally
            {
                again.Kill();
                again.WaitForExit();
            }
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    [Test]
    public void WithFsyncAlwaysEveryAcknowledgedWriteSurvivesSigkill()
    {
        var (acked, present, _) = Run("always");
        for (int t = 0; t < 2; t++)
        {
            Assert.That(acked[t], Is.GreaterThan(MinAcked), "the load ran");
            Assert.That(present[t], Is.InRange(acked[t], acked[t] + Depth), "every acknowledged write is there (and at most the unacknowledged in-flight ones)");
        }
    }

    [Test]
    public void WithFsyncEverysecTheLossIsBoundedByAboutOneSecond()
    {
        var (acked, present, seconds) = Run("everysec");
        for (int t = 0; t < 2; t++)
        {
            double perSecond = acked[t] / seconds;
            long lost = Math.Max(0, acked[t] - present[t]);
            Assert.That(lost, Is.LessThanOrEqualTo((long)(perSecond * 2) + 100), $"lost {lost} of {acked[t]} ({perSecond:F0} writes/s)");
        }
    }
}
