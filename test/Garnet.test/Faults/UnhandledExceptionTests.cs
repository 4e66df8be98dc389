// Through the real executable: faults injected at thread and callback entry points (GARNET_TEST_FAULTS, read
// once at start by main/GarnetServer/Program.cs) are logged and end at most the connection concerned; the process keeps
// serving. The in-process counterpart, one test per entry point, is FaultContainmentTests.
using Garnet.client;

namespace Garnet.test.Faults;

[TestFixture, Category("Faults"), NonParallelizable]
public class UnhandledExceptionTests
{
    private static ServerProcess Start(string work, string faults, string args = "") =>
        new($"--dir \"{Path.Combine(work, "data")}\" --save \"\" {args}", work,
            environment: new Dictionary<string, string> { ["GARNET_TEST_FAULTS"] = faults });

    private static void Until(Func<bool> condition, string what, int ms = 20_000)
    {
        var sw = System.Diagnostics.Stopwatch.StartNew();
        while (!condition())
        {
            if (sw.ElapsedMilliseconds > ms) Assert.Fail("timed out waiting for " + what);
            Thread.Sleep(20);
        }
    }

    [Test, CancelAfter(120_000)]
    public void FaultsInTheCronTheLoopTheAcceptAndASessionLeaveTheProcessServing()
    {
        string work = Directory.CreateTempSubdirectory("garnet-faults-").FullName;
        try
        {
            using var server = Start(work, "cron:housekeeping:5,cron:active expiry:5,epoll-round:5,accept:1,session:1");
            Until(() => server.Output.Contains("fault injected at cron:housekeeping") && server.Output.Contains("fault injected at cron:active expiry"), "the cron's faults");
            Until(() => server.Output.Contains("fault injected at accept") && server.Output.Contains("fault injected at session"), "the accept's and the session's faults");
            Assert.That(server.HasExited, Is.False, server.Output);
            using var c = server.Client();
            RespAssert.Simple(c.Execute("SET", "k", "v", "PX", "100"), "OK");
            Until(() => c.Execute("EXISTS", "k").Integer == 0, "active expiry, which ran again after its faults");
            RespAssert.Simple(c.Execute("PING"), "PONG");
            Assert.That(server.HasExited, Is.False);
        }
        finally { try { Directory.Delete(work, true); } catch { } }
    }

    [Test, CancelAfter(180_000)]
    public void AFaultInADiskReadCompletionFailsThatReadOnly()
    {
        string work = Directory.CreateTempSubdirectory("garnet-faults-").FullName;
        try
        {
            using var server = Start(work, "disk-read-completion:1", "--memory 4mb");
            using var c = server.Client(60_000);
            ShutdownBoundTests.Load(c, "d:", 40_000, 300);
            var first = c.Execute("GET", "d:1"); // on disk: its read's completion fails once
            Assert.That(first.IsError || first.Text == new string('v', 300), first.ToString());
            Until(() => server.Output.Contains("fault injected at disk-read-completion"), "the disk read's fault");
            RespAssert.Bulk(c.Execute("GET", "d:2"), new string('v', 300));
            RespAssert.Simple(c.Execute("SET", "after", "1"), "OK");
            Assert.That(server.HasExited, Is.False, server.Output);
        }
        finally { try { Directory.Delete(work, true); } catch { } }
    }
}
