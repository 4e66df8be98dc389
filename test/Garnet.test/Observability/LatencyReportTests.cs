// LATENCY GRAPH's sparkline and LATENCY DOCTOR's report as pure functions (Metrics/LatencySparkline, LatencyReport):
// the clock is a parameter, so ages, periods and blocks are exact.
using Garnet.server.Metrics;
using S = Garnet.server.Metrics.LatencyMonitor.Sample;

namespace Garnet.test.Observability;

[TestFixture]
public class LatencyReportTests
{
    private static readonly string Dashes = new('-', 80);

    [Test]
    public void SparklineFillsColumnsAndWritesAgesDownwards()
    {
        // steps of 12 between 10 and 110 ms: 0, 1, 4, 11 (clamped from 12)
        var graph = LatencySparkline.Render("command", [new S(940, 10), new S(970, 20), new S(999, 50), new S(1000, 110)], 200, now: 1000);
        Assert.That(graph, Is.EqualTo(
            "command - high 110 ms, low 10 ms (all time high 200 ms)\n" + Dashes + "\n" +
            "   #\n" +
            "   |\n" +
            "  o|\n" +
            "_o||\n" +
            "    \n" +
            "1310\n" +
            "m0ss\n" +
            " s  \n"));
    }

    [Test]
    public void SparklineOfEqualSamplesAndOfMoreThan80()
    {
        Assert.That(LatencySparkline.Render("e", [new S(5, 7)], 7, now: 5),
            Is.EqualTo("e - high 7 ms, low 7 ms (all time high 7 ms)\n" + Dashes + "\n \n \n \n_\n \n0\ns\n"));
        var many = Enumerable.Range(0, 85).Select(i => new S(10_000 + i * 60, 5 + i)).ToList();
        var lines = LatencySparkline.Render("e", many, 100, now: 10_000 + 84 * 60).Split('\n');
        // header, dashes, block of 80 (4 rows, margin, labels up to "84m": 3 rows), empty line, block of 5 (labels "4m".."0s":
        // 2 rows), and the "" after the last '\n'
        Assert.That(lines.Length, Is.EqualTo(2 + 8 + 1 + 7 + 1));
        Assert.That(lines[2..10].All(l => l.Length == 80), Is.True);
        Assert.That(lines[10], Is.Empty);
        Assert.That(lines[11..18].All(l => l.Length == 5), Is.True);
        Assert.That(lines[11..15], Is.EqualTo(new[] { "#####", "|||||", "|||||", "|||||" }), "the highest samples fill their columns");
        Assert.That(lines[5], Does.StartWith("_"), "the lowest sample is an underscore on the bottom row");
        Assert.That($"{lines[7][0]}{lines[8][0]}{lines[9][0]}", Is.EqualTo("1h "), "first column: 84 minutes ago is 1h, downwards");
        Assert.That(lines[16..18], Is.EqualTo(new[] { "43210", "mmmms" }));
        Assert.That(LatencySparkline.Age(59) + LatencySparkline.Age(60) + LatencySparkline.Age(7200) + LatencySparkline.Age(86400 * 3), Is.EqualTo("59s1m2h3d"));
    }

    private static LatencyReportSettings Defaults => new(ThresholdMs: 5, SlowLogUsec: 10000, FsyncAlways: false, Hz: 10, AnonHugePagesBytes: 0);

    private const string Opening = "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n";
    private const string Inspect = "- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n";
    private const string LargeObjects = "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n";

    [Test]
    public void DoctorStatisticsAndCommandAdvice()
    {
        var events = new List<(string, IReadOnlyList<S>, long)> { ("command", [new S(100, 10), new S(101, 20), new S(104, 31)], 40) };
        // average 61/3 = 20, mean deviation (10 + 0 + 11)/3 = 7, period (110 - 100)/3 = 3.33
        string expectedLine = "1. command: 3 latency spikes (average 20ms, mean deviation 7ms, period 3.33 sec). Worst all time event 40ms.\n";
        Assert.That(LatencyReport.Render(events, Defaults, now: 110), Is.EqualTo(Opening + expectedLine + "\nI have a few advices for you:\n\n" +
            "- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than 5000'.\n" +
            Inspect + LargeObjects));
        // the slow log off: enable it; at or under the threshold: no tuning advice
        Assert.That(LatencyReport.Render(events, Defaults with { SlowLogUsec = -1 }, 110), Does.Contain("'CONFIG SET slowlog-log-slower-than 5000'. If the Slow log is disabled"));
        Assert.That(LatencyReport.Render(events, Defaults with { SlowLogUsec = 5999 }, 110), Is.EqualTo(Opening + expectedLine + "\nI have a few advices for you:\n\n" + Inspect + LargeObjects));
        // a period of 0 seconds counts as 1
        Assert.That(LatencyReport.Render([("command", [new S(110, 9)], 9)], Defaults, 110), Does.Contain("period 1.00 sec"));
    }

    [Test]
    public void DoctorAdviceByEvent()
    {
        var fast = LatencyReport.Render([("fast-command", [new S(1, 9)], 9), ("aof-write", [new S(1, 9)], 9)], Defaults, 2);
        Assert.That(fast, Does.Contain("2. aof-write: 1 latency spikes"));
        Assert.That(fast, Does.Contain("- The system is slow to execute Redis code paths not containing system calls.").And.Contain("  5) Check if the problem is allocator-related"));
        Assert.That(fast, Does.Not.Contain(Inspect));
        // fsync-always advice is counted even when the policy is no longer always: the heading stays, with nothing under it
        var fsync = LatencyReport.Render([("aof-fsync-always", [new S(1, 9)], 9)], Defaults, 2);
        Assert.That(fsync, Does.EndWith("\nI have a few advices for you:\n\n"));
        Assert.That(LatencyReport.Render([("aof-fsync-always", [new S(1, 9)], 9)], Defaults with { FsyncAlways = true }, 2),
            Does.EndWith("relax the fsync policy to 'onesec'.\n"));
        Assert.That(LatencyReport.Render([("aof-write", [new S(1, 9)], 9)], Defaults, 2),
            Does.EndWith("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n"));
        Assert.That(LatencyReport.Render([], Defaults, 2), Is.EqualTo("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n"));
        Assert.That(LatencyReport.Render([], Defaults with { ThresholdMs = 0 }, 2), Does.StartWith("I'm sorry, Dave, I can't do that."));
        var thp = LatencyReport.Render([], Defaults with { AnonHugePagesBytes = 2 << 20 }, 2);
        Assert.That(thp, Does.StartWith("\nI have a few advices for you:\n\n- I detected a non zero amount of anonymous huge pages"));
        Assert.That(LatencyReport.Render([("expire-cycle", [new S(1, 9)], 9)], Defaults, 2), Does.Contain("'CONFIG SET hz 100'").And.Contain(LargeObjects));
    }
}
