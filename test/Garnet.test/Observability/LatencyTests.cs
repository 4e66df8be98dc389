// LATENCY LATEST/HISTORY/RESET/GRAPH/DOCTOR/HISTOGRAM/HELP and latency-monitor-threshold. The monitor's clock is injected
// (no sleeps): samples of one second merge, later seconds add samples.
using Garnet.client;
using Garnet.server.Metrics;

namespace Garnet.test.Observability;

[TestFixture]
public class LatencyMonitorUnitTests
{
    [Test]
    public void SamplesOfOneSecondMergeAndTheRingKeeps160()
    {
        long now = 1_700_000_000;
        var m = new LatencyMonitor { ThresholdMs = 10, UnixSeconds = () => now };
        m.AddIfNeeded("command", 5); // under the threshold
        Assert.That(m.Latest(), Is.Empty);
        m.AddIfNeeded("command", 20);
        m.AddIfNeeded("command", 15); // same second, lower: ignored
        m.AddIfNeeded("command", 30); // same second, higher: replaces
        Assert.That(m.History("command")!.Value.Samples, Is.EqualTo(new[] { new LatencyMonitor.Sample(now, 30) }));
        now++;
        m.AddIfNeeded("command", 12);
        Assert.That(m.Latest(), Is.EqualTo(new[] { ("command", now, 12L, 30L) }));
        for (int i = 0; i < 200; i++) { now++; m.Add("command", 11 + i); }
        var h = m.History("command")!.Value;
        Assert.That(h.Samples, Has.Count.EqualTo(LatencyMonitor.SamplesPerEvent));
        Assert.That(h.Samples[0].UnixSeconds, Is.EqualTo(now - 159), "oldest first");
        Assert.That(h.Max, Is.EqualTo(210));
        m.Add("aof-write", 50);
        Assert.That(m.Reset(["AOF-WRITE", "nosuch"]), Is.EqualTo(1));
        Assert.That(m.Reset(null), Is.EqualTo(1));
        Assert.That(m.Events(), Is.Empty);
    }
}

[TestFixture, NonParallelizable]
public class LatencyCommandTests : ServerFixture
{
    [TearDown]
    public void Off()
    {
        using var c = _server.Client();
        c.Execute("CONFIG", "SET", "latency-monitor-threshold", "0");
        c.Execute("LATENCY", "RESET");
    }

    [Test]
    public void DisabledDoctorAndEmptyReplies()
    {
        using var c = _server.Client();
        Assert.That(c.Execute("LATENCY", "LATEST").Elements, Is.Empty);
        Assert.That(c.Execute("LATENCY", "HISTORY", "command").Elements, Is.Empty);
        Assert.That(c.Execute("LATENCY", "DOCTOR").Text, Does.StartWith("I'm sorry, Dave, I can't do that. Latency monitoring is disabled"));
        RespAssert.Error(c.Execute("LATENCY", "GRAPH", "command"), "ERR No samples available for event 'command'");
        RespAssert.Integer(c.Execute("LATENCY", "RESET"), 0);
        RespAssert.Error(c.Execute("LATENCY", "NOSUCH"), "ERR unknown subcommand 'NOSUCH'. Try LATENCY HELP.");
        Assert.That(c.Execute("LATENCY", "HELP").Elements!.Select(e => e.Text), Does.Contain("HISTOGRAM [COMMAND ...]"));
    }

    [Test]
    public void ASlowScriptIsACommandEvent()
    {
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("CONFIG", "SET", "latency-monitor-threshold", "1"), "OK");
        Assert.That(c.Execute("CONFIG", "GET", "latency-monitor-threshold").Elements![1].Text, Is.EqualTo("1"));
        // The first run of a command may take over 1 ms (JIT): clear what earlier commands recorded, from here.
        var monitor = _server.Server.Server.Latency;
        monitor.Reset(null);
        Assert.That(c.Execute("LATENCY", "DOCTOR").Text, Does.StartWith("Dave, no latency spike was observed"));
        monitor.Reset(null);
        // a busy loop of a few tens of ms: well over 1 ms on any machine
        c.Execute("EVAL", "local i = 0 while i < 3000000 do i = i + 1 end return i", "0");
        var latest = c.Execute("LATENCY", "LATEST").Elements!;
        Assert.That(latest.Select(l => l.Elements![0].Text), Does.Contain("command"));
        var e = latest.First(l => l.Elements![0].Text == "command").Elements!;
        Assert.That(e[0].Text, Is.EqualTo("command"));
        Assert.That(e[1].Integer, Is.EqualTo(DateTimeOffset.UtcNow.ToUnixTimeSeconds()).Within(5));
        Assert.That(e[2].Integer, Is.GreaterThanOrEqualTo(1));
        Assert.That(e[3].Integer, Is.GreaterThanOrEqualTo(e[2].Integer));
        // On a loaded machine LATEST (or any later query) may itself cross 1 ms and add a newer sample: look for the
        // script's sample, not for the last one.
        var history = c.Execute("LATENCY", "HISTORY", "command").Elements!;
        Assert.That(history.Select(h => h.Elements![1].Integer), Does.Contain(e[2].Integer));
        Assert.That(c.Execute("LATENCY", "GRAPH", "command").Text, Does.StartWith("command - high "));
        Assert.That(c.Execute("LATENCY", "DOCTOR").Text, Does.Match(@"1\. command: \d+ latency spikes"));
        // monitoring off first: on a loaded machine RESET or LATEST may themselves take 1 ms and add a sample
        c.Execute("CONFIG", "SET", "latency-monitor-threshold", "0");
        RespAssert.Integer(c.Execute("LATENCY", "RESET", "command"), 1);
        Assert.That(c.Execute("LATENCY", "LATEST").Elements!.Select(l => l.Elements![0].Text), Does.Not.Contain("command"));
    }

    [Test]
    public void HistogramHasRedis7Shape()
    {
        using var c = _server.Client();
        for (int i = 0; i < 10; i++) c.Execute("SET", "lh:k", "v");
        c.Execute("CLIENT", "ID");
        var all = RespAssert.Map(c.Execute("LATENCY", "HISTOGRAM"));
        Assert.That(all.Keys, Does.Contain("set").And.Contain("client|id"));
        var one = RespAssert.Map(c.Execute("LATENCY", "HISTOGRAM", "set", "nosuchcommand"));
        Assert.That(one.Keys, Is.EqualTo(new[] { "set" }));
        var set = RespAssert.Map(one["set"]);
        Assert.That(set.Keys, Is.EqualTo(new[] { "calls", "histogram_usec" }));
        Assert.That(set["calls"].Integer, Is.GreaterThanOrEqualTo(10));
        var rows = set["histogram_usec"].Elements!;
        Assert.That(rows.Length % 2, Is.EqualTo(0));
        var bounds = rows.Where((_, i) => i % 2 == 0).Select(r => r.Integer).ToList();
        var counts = rows.Where((_, i) => i % 2 == 1).Select(r => r.Integer).ToList();
        Assert.That(bounds, Is.Ordered.Ascending);
        Assert.That(counts, Is.Ordered.Ascending, "cumulative");
        Assert.That(counts[^1], Is.EqualTo(set["calls"].Integer));
        var client = RespAssert.Map(c.Execute("LATENCY", "HISTOGRAM", "client"));
        Assert.That(client.Keys, Does.Contain("client|id"), "a container names its subcommands");
    }
}
