// INFO commandstats / errorstats / latencystats in Redis 7.2's format, section selection (several at once, all,
// everything, default), CONFIG RESETSTAT and the latency-tracking parameters.
using System.Text.RegularExpressions;
using Garnet.client;

namespace Garnet.test.Observability;

[TestFixture]
public class CommandStatsTests : ServerFixture
{
    private static InfoText Info(RespClient c, params object[] sections) =>
        new(c.Execute(["INFO", .. sections]).Text!);

    private static Dictionary<string, string> Stat(InfoText info, string field) =>
        info[field].Split(',').Select(p => p.Split('=')).ToDictionary(p => p[0], p => p[1]);

    [SetUp]
    public void Reset()
    {
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("CONFIG", "RESETSTAT"), "OK");
    }

    [Test]
    public void CountsAreExactUnderConcurrentClients()
    {
        // 8 pipelining clients on the thread pool at once: every call is counted exactly once (Metrics/CommandStatistics:
        // per-thread blocks; the former per-core stripes with plain adds could lose one when two threads shared a core).
        const int clients = 8, batches = 40, depth = 250;
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("CONFIG", "RESETSTAT"), "OK");
        var tasks = Enumerable.Range(0, clients).Select(t => Task.Run(() =>
        {
            using var raw = new RawResp(_server.Port);
            var batch = string.Concat(Enumerable.Repeat("*1\r\n$9\r\nRANDOMKEY\r\n", depth));
            for (int b = 0; b < batches; b++)
            {
                raw.SendRaw(batch);
                for (int i = 0; i < depth; i++) raw.Read();
            }
        })).ToArray();
        Task.WaitAll(tasks);
        Assert.That(Stat(Info(c, "commandstats"), "cmdstat_randomkey")["calls"], Is.EqualTo(((long)clients * batches * depth).ToString()));
    }

    [Test]
    public void PipelinedCommandsTimedInGroupsAreCountedExactly()
    {
        // Fast commands of a pipeline share clock readings in groups of up to 32 (Metrics/CommandTimer); a group closes when
        // full, before a command that is not fast, after a big reply and at the end of the batch. Each command is still
        // counted exactly once, with its failures, and the time of the batch is spread over them.
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("SET", "cg:s", "text"), "OK");
        RespAssert.Simple(c.Execute("SET", "cg:big", new string('b', 40_000)), "OK");
        RespAssert.Simple(c.Execute("CONFIG", "RESETSTAT"), "OK");
        var pipeline = new System.Text.StringBuilder();
        int gets = 0, incrs = 0, sets = 0, bigs = 0;
        for (int i = 0; i < 700; i++)
        {
            if (i % 97 == 0) { pipeline.Append("*3\r\n$3\r\nSET\r\n$4\r\ncg:n\r\n$1\r\n1\r\n"); sets++; }      // not fast
            else if (i % 45 == 0) { pipeline.Append("*2\r\n$3\r\nGET\r\n$6\r\ncg:big\r\n"); bigs++; }           // fast, big
            else if (i % 10 == 0) { pipeline.Append("*2\r\n$4\r\nINCR\r\n$4\r\ncg:s\r\n"); incrs++; }           // fast, fails
            else { pipeline.Append("*2\r\n$3\r\nGET\r\n$4\r\ncg:s\r\n"); gets++; }
        }
        using (var raw = new RawResp(_server.Port))
        {
            for (int round = 0; round < 3; round++)
            {
                raw.SendRaw(pipeline.ToString());
                for (int i = 0; i < 700; i++) raw.Read();
            }
        }
        var info = Info(c, "commandstats");
        var get = Stat(info, "cmdstat_get");
        Assert.That(get["calls"], Is.EqualTo((3 * (gets + bigs)).ToString()));
        Assert.That(get["failed_calls"], Is.EqualTo("0"));
        Assert.That(long.Parse(get["usec"]), Is.GreaterThan(0), "the batches' time is charged to their commands");
        var incr = Stat(info, "cmdstat_incr");
        Assert.That((incr["calls"], incr["failed_calls"]), Is.EqualTo(((3 * incrs).ToString(), (3 * incrs).ToString())));
        Assert.That(Stat(info, "cmdstat_set")["calls"], Is.EqualTo((3 * sets).ToString()));
        var latency = Info(c, "latencystats");
        Assert.That(latency.Has("latency_percentiles_usec_get"), "grouped commands reach the latency histograms too");
    }

    [Test]
    public void CommandstatsCountCallsFailuresAndRejections()
    {
        using var c = _server.Client();
        for (int i = 0; i < 3; i++) c.Execute("SET", "cs:k", "v");
        c.Execute("GET", "cs:k");
        RespAssert.Error(c.Execute("INCR", "cs:k"), "ERR value is not an integer or out of range"); // ran, failed
        RespAssert.Error(c.Execute("GET"), "ERR wrong number of arguments for 'get' command");    // refused
        c.Execute("CLIENT", "ID");
        var info = Info(c, "commandstats");
        Assert.That(info.Sections, Is.EqualTo(new[] { "Commandstats" }));
        foreach (var (field, value) in info.Fields["Commandstats"])
        {
            Assert.That(field, Does.Match("^cmdstat_[a-z_|-]+$"));
            Assert.That(value, Does.Match(@"^calls=\d+,usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=\d+,failed_calls=\d+$"));
        }
        var set = Stat(info, "cmdstat_set");
        Assert.That(set["calls"], Is.EqualTo("3"));
        Assert.That(set["failed_calls"], Is.EqualTo("0"));
        var get = Stat(info, "cmdstat_get");
        Assert.That((get["calls"], get["rejected_calls"]), Is.EqualTo(("1", "1")));
        var incr = Stat(info, "cmdstat_incr");
        Assert.That((incr["calls"], incr["failed_calls"]), Is.EqualTo(("1", "1")));
        Assert.That(info.Has("cmdstat_client|id"), "subcommands are counted as container|sub");
        double perCall = double.Parse(set["usec_per_call"], System.Globalization.CultureInfo.InvariantCulture);
        Assert.That(perCall, Is.EqualTo(long.Parse(set["usec"]) / 3.0).Within(0.01));
    }

    [Test]
    public void ErrorstatsAndTotalsMove()
    {
        using var c = _server.Client();
        c.Execute("SET", "es:k", "v");
        c.Execute("LPUSH", "es:k", "x");
        c.Execute("NOSUCHCOMMAND");
        var info = Info(c, "errorstats", "stats");
        Assert.That(info.Sections, Is.EqualTo(new[] { "Stats", "Errorstats" }), "Redis's order, whatever the order asked");
        Assert.That(info["errorstat_WRONGTYPE"], Is.EqualTo("count=1"));
        Assert.That(info["errorstat_ERR"], Is.EqualTo("count=1"));
        Assert.That(info.Long("total_error_replies"), Is.EqualTo(2));
    }

    [Test]
    public void LatencystatsUseTheConfiguredPercentiles()
    {
        using var c = _server.Client();
        for (int i = 0; i < 50; i++) c.Execute("GET", "ls:k");
        var info = Info(c, "latencystats");
        Assert.That(info["latency_percentiles_usec_get"], Does.Match(@"^p50=\d+\.\d{3},p99=\d+\.\d{3},p99\.9=\d+\.\d{3}$"));
        var p = Stat(info, "latency_percentiles_usec_get").Values.Select(v => double.Parse(v, System.Globalization.CultureInfo.InvariantCulture)).ToList();
        Assert.That(p[0], Is.GreaterThan(0).And.LessThanOrEqualTo(p[1]));
        Assert.That(p[1], Is.LessThanOrEqualTo(p[2]));

        RespAssert.Simple(c.Execute("CONFIG", "SET", "latency-tracking-info-percentiles", "25 99.99 100"), "OK");
        Assert.That(c.Execute("CONFIG", "GET", "latency-tracking-info-percentiles").Elements![1].Text, Is.EqualTo("25 99.99 100"));
        Assert.That(Info(c, "latencystats")["latency_percentiles_usec_get"], Does.Match(@"^p25=[\d.]+,p99\.99=[\d.]+,p100=[\d.]+$"));
        RespAssert.Error(c.Execute("CONFIG", "SET", "latency-tracking-info-percentiles", "50 101"),
            "ERR CONFIG SET failed (possibly related to argument 'latency-tracking-info-percentiles') - latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
        RespAssert.Error(c.Execute("CONFIG", "SET", "latency-tracking-info-percentiles", "abc"),
            "ERR CONFIG SET failed (possibly related to argument 'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles parameters");
        RespAssert.Simple(c.Execute("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9"), "OK");
    }

    [Test]
    public void LatencyTrackingOffKeepsNoHistograms()
    {
        using var c = _server.Client();
        RespAssert.Simple(c.Execute("CONFIG", "SET", "latency-tracking", "no"), "OK");
        try
        {
            Assert.That(c.Execute("CONFIG", "GET", "latency-tracking").Elements![1].Text, Is.EqualTo("no"));
            c.Execute("STRLEN", "lt:k");
            var info = Info(c, "latencystats", "commandstats");
            Assert.That(info.Has("latency_percentiles_usec_strlen"), Is.False);
            Assert.That(info.Has("cmdstat_strlen"), "commandstats are kept regardless");
        }
        finally { c.Execute("CONFIG", "SET", "latency-tracking", "yes"); }
        c.Execute("STRLEN", "lt:k");
        Assert.That(Info(c, "latencystats").Has("latency_percentiles_usec_strlen"));
    }

    [Test]
    public void ResetstatClearsCommandAndErrorStats()
    {
        using var c = _server.Client();
        c.Execute("SET", "rs:k", "v");
        c.Execute("NOSUCH");
        Assert.That(Info(c, "commandstats").Has("cmdstat_set"));
        RespAssert.Simple(c.Execute("CONFIG", "RESETSTAT"), "OK");
        var info = Info(c, "commandstats", "errorstats", "latencystats");
        Assert.That(info.Has("cmdstat_set"), Is.False);
        Assert.That(info.Has("errorstat_ERR"), Is.False);
        Assert.That(info.Has("latency_percentiles_usec_set"), Is.False);
        // INFO itself ran after the reset and is the only command counted (as in Redis, the reply is built while it runs)
        Assert.That(info.Fields["Commandstats"].Select(f => f.field), Is.EqualTo(new[] { "cmdstat_config|resetstat" }).Or.Empty);
    }

    [Test]
    public void SectionSelection()
    {
        using var c = _server.Client();
        Assert.That(Info(c, "server", "clients").Sections, Is.EqualTo(new[] { "Server", "Clients" }));
        Assert.That(Info(c, "CLIENTS", "Server").Sections, Is.EqualTo(new[] { "Server", "Clients" }));
        var expectedAll = new[] { "Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Commandstats", "Errorstats", "Latencystats", "Cluster", "Keyspace" };
        Assert.That(Info(c, "all").Sections, Is.EqualTo(expectedAll));
        Assert.That(Info(c, "everything").Sections, Is.EqualTo(expectedAll));
        var defaults = Info(c).Sections;
        Assert.That(defaults, Does.Not.Contain("Commandstats").And.Not.Contain("Latencystats"));
        Assert.That(Info(c, "default").Sections, Is.EqualTo(defaults));
        Assert.That(Info(c, "default", "commandstats").Sections, Does.Contain("Commandstats").And.Contain("Server"));
        Assert.That(c.Execute("INFO", "nosuchsection").Text, Is.Empty);
    }

    [Test]
    public void HistogramPercentilesAreWithinTheBucketPrecision()
    {
        var h = new long[Garnet.server.Metrics.LatencyHistogram.BucketCount];
        for (long v = 1; v <= 100_000; v++) Garnet.server.Metrics.LatencyHistogram.Record(h, v * 1000); // 1 µs .. 100 ms
        foreach (var (p, exact) in new[] { (50.0, 50_000_000L), (99.0, 99_000_000L), (99.9, 99_900_000L) })
        {
            long got = Garnet.server.Metrics.LatencyHistogram.ValueAtPercentile(h, p);
            Assert.That(got, Is.GreaterThanOrEqualTo(exact).And.LessThanOrEqualTo((long)(exact * (1 + 1.0 / 32))), $"p{p}");
        }
        var cdf = Garnet.server.Metrics.LatencyHistogram.PowerOfTwoCdf(h);
        Assert.That(cdf[0], Is.EqualTo((1L, 1L)), "values up to 1024 ns are the first row");
        Assert.That(cdf[^1].cumulative, Is.EqualTo(100_000));
        Assert.That(cdf.Select(r => r.usec), Is.Ordered.Ascending);
    }
}
