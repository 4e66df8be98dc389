// --min-free-disk through the real executable on a small tmpfs: while the file system has less free space than the
// threshold, writes are refused with MISCONF and reads go on; once space returns, writes are accepted again by themselves.
using System.Diagnostics;
using Garnet.client;

namespace Garnet.test.Faults;

[TestFixture, Category("Faults"), NonParallelizable]
public class DiskSpaceGuardTests
{
    [Test, CancelAfter(120_000)]
    public void WritesRefusedWhileFreeSpaceIsBelowMinFreeDiskAndAcceptedWhenItReturns()
    {
        using var disk = new SmallDisk(64);
        string dir = Path.Combine(disk.Path, "data");
        using var server = new ServerProcess($"--dir \"{dir}\" --memory 16mb --save \"\" --min-free-disk 24mb", disk.Path);
        using var c = server.Client();
        Assert.That(c.Execute("CONFIG", "GET", "min-free-disk").Elements![1].Text, Is.EqualTo("24mb"));
        Assert.That(c.Execute("SET", "k", "before").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("XADD", "s", "1-1", "f", "v").IsError, Is.False);

        // Other files take the space: about 16 MB stay free, less than the 24 MB asked for.
        string ballast = disk.Fill("ballast", 48L << 20);
        RespValue r = WaitFor(c, "SET", v => v.IsError);
        Assert.That(r.Text, Does.StartWith("MISCONF The disk of the data directory is nearly full ("));
        Assert.That(c.Execute("XADD", "s", "2-1", "f", "v").Text, Does.StartWith("MISCONF"), "every write is refused");
        Assert.That(c.Execute("GET", "k").Text, Is.EqualTo("before"), "reads go on");
        Assert.That(c.Execute("XLEN", "s").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("INFO", "stats").Text, Does.Contain("disk_writes_refused:1"));

        // Space returns: writes are accepted again without anyone asking.
        File.Delete(ballast);
        r = WaitFor(c, "SET", v => !v.IsError);
        Assert.That(r.Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "probe").Text, Is.EqualTo("after"));
        Assert.That(c.Execute("SET", "k", "later").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("XADD", "s", "2-1", "f", "v").IsError, Is.False);
        Assert.That(server.Output, Does.Contain("less than min-free-disk").And.Contain("writes are accepted again"));
    }

    private static RespValue WaitFor(RespClient c, string command, Func<RespValue, bool> done)
    {
        var sw = Stopwatch.StartNew();
        while (true)
        {
            var r = c.Execute(command, "probe", "after");
            if (done(r) || sw.Elapsed > TimeSpan.FromSeconds(30)) return r;
            Thread.Sleep(100);
        }
    }
}
