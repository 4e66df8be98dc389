// Resp.benchmark against our server in process: offline and online runs, checked through the server's own state
// (DBSIZE, the INCR sum) and the JSON report; errors from unsupported commands are counted and reported.
using System.Text.Json;
using Resp.benchmark;

namespace Garnet.client.test;

[TestFixture]
public class EndToEndTests
{
    private InProcessServer _server = null!;

    [OneTimeSetUp] public void Start() => _server = new InProcessServer();
    [OneTimeTearDown] public void Stop() => _server.Dispose();

    [SetUp] public void Flush() { using var c = _server.Client(); c.Execute("FLUSHALL"); }

    private string Port => _server.Port.ToString();

    [Test]
    public void OfflineGetLoadsTheKeySpaceAndCountsEveryReply()
    {
        var run = BenchmarkRun.Start("--port", Port, "--op", "GET", "--dbsize", "1000", "--keylength", "6", "--batchsize", "512",
            "--threads", "1,2", "--totalops", "20000", "--load-threads", "3");
        Assert.That(run.ExitCode, Is.EqualTo(0), run.Errors);
        using (var c = _server.Client()) Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(1000));
        using (var c = _server.Client()) Assert.That(c.Execute("GET", "000999").Text, Is.EqualTo("abcdefgh"));
        Assert.That(run.Json.GetProperty("load").GetProperty("keys").GetInt64(), Is.EqualTo(1000));
        Assert.That(run.Json.GetProperty("load").GetProperty("errors").GetInt64(), Is.EqualTo(0));
        for (int i = 0; i < 2; i++)
        {
            Assert.That(run.Long(i, "threads"), Is.EqualTo(i + 1));
            Assert.That(run.Long(i, "ops"), Is.EqualTo(20000), "--totalops is exact, the last batch is cut");
            Assert.That(run.Long(i, "errors"), Is.EqualTo(0));
            Assert.That(run.Long(i, "nulls"), Is.EqualTo(0), "every key was loaded, so no GET misses");
            Assert.That(run.Run(i).GetProperty("opsPerSecond").GetDouble(), Is.GreaterThan(0));
        }
        Assert.That(run.Output, Does.Contain("threads").And.Contain("ops/s"));
        Assert.That(run.Output, Does.Contain("100.0%").And.Contain("ETA"));
    }

    [Test]
    public void OfflineIncrDoesExactlyTotalOpsIncrements()
    {
        // Keys are loaded with 0; after the run the values must add up to the number of INCRs sent.
        var run = BenchmarkRun.Start("--port", Port, "--op", "INCR", "--dbsize", "100", "--batchsize", "300",
            "--threads", "2", "--totalops", "10007", "--zipf");
        Assert.That(run.ExitCode, Is.EqualTo(0), run.Errors);
        Assert.That(run.Long(0, "ops"), Is.EqualTo(10007));
        Assert.That(run.Long(0, "errors"), Is.EqualTo(0));
        using var c = _server.Client();
        var values = c.Execute(["MGET", .. Enumerable.Range(0, 100).Select(i => (object)i.ToString("D8"))]);
        long sum = values.Elements!.Sum(v => long.Parse(v.Text!));
        Assert.That(sum, Is.EqualTo(10007));
        // Zipf: key 0 is the hottest.
        long first = long.Parse(values.Elements![0].Text!);
        Assert.That(first, Is.EqualTo(values.Elements.Max(v => long.Parse(v.Text!))));
    }

    [Test]
    public void ErrorRepliesAreCountedAndReported()
    {
        // The benchmark's keys hold strings: every ZADD (load and run) gets a WRONGTYPE error reply.
        using (var c = _server.Client())
            for (int i = 0; i < 50; i++) c.Execute("SET", i.ToString("D8"), "a string");
        try
        {
            var run = BenchmarkRun.Start("--port", Port, "--op", "ZADD", "--dbsize", "50", "--batchsize", "64",
                "--threads", "1", "--totalops", "1000");
            Assert.That(run.ExitCode, Is.EqualTo(0), "errors in replies are reported, not fatal");
            Assert.That(run.Json.GetProperty("load").GetProperty("errors").GetInt64(), Is.EqualTo(50));
            Assert.That(run.Long(0, "ops"), Is.EqualTo(1000));
            Assert.That(run.Long(0, "errors"), Is.EqualTo(1000));
            Assert.That(run.Run(0).GetProperty("firstError").GetString(), Does.Contain("WRONGTYPE"));
            Assert.That(run.Output, Does.Contain("ERRORS: 1,000 error replies").And.Contain("WRONGTYPE"));
            Assert.That(run.Output, Does.Contain("Loaded 50 keys").And.Contain("errors: 50 (first: WRONGTYPE"));
        }
        finally
        {
            using var c = _server.Client();
            c.Execute("FLUSHDB");
        }
    }

    [TestCase("SET")]
    [TestCase("MGET")]
    [TestCase("MSET")]
    [TestCase("PING")]
    [TestCase("SETEX")]
    [TestCase("DEL")]
    [TestCase("PFADD")]
    public void OtherOpsRunWithoutErrors(string op)
    {
        var run = BenchmarkRun.Start("--port", Port, "--op", op, "--dbsize", "200", "--batchsize", "100",
            "--threads", "1", "--totalops", "2000", "--itp", "2");
        Assert.That(run.ExitCode, Is.EqualTo(0), run.Errors);
        Assert.That(run.Long(0, "ops"), Is.EqualTo(2000));
        Assert.That(run.Long(0, "errors"), Is.EqualTo(0), run.Output);
    }

    [Test]
    public void OnlineMixReportsPercentilesPerOp()
    {
        var run = BenchmarkRun.Start("--port", Port, "--online", "--op-workload", "GET,SET", "--op-percent", "80,20",
            "--dbsize", "500", "--threads", "2", "--batchsize", "4", "--itp", "2", "--totalops", "20000", "--runtime", "30");
        Assert.That(run.ExitCode, Is.EqualTo(0), run.Errors);
        var r = run.Run(0);
        Assert.That(r.GetProperty("ops").GetInt64(), Is.EqualTo(20000));
        Assert.That(r.GetProperty("errors").GetInt64(), Is.EqualTo(0));
        long gets = r.GetProperty("perOp").GetProperty("GET").GetProperty("ops").GetInt64();
        long sets = r.GetProperty("perOp").GetProperty("SET").GetProperty("ops").GetInt64();
        Assert.That(gets + sets, Is.EqualTo(20000));
        Assert.That(gets / 20000.0, Is.EqualTo(0.8).Within(0.02), "the mix follows --op-percent");
        var l = r.GetProperty("latencyMicros");
        double[] ps = [l.GetProperty("p50").GetDouble(), l.GetProperty("p90").GetDouble(), l.GetProperty("p99").GetDouble(),
            l.GetProperty("p99.9").GetDouble(), l.GetProperty("p99.99").GetDouble(), l.GetProperty("max").GetDouble()];
        Assert.That(ps[0], Is.GreaterThan(0));
        Assert.That(ps, Is.Ordered);
        Assert.That(r.GetProperty("intervals").GetArrayLength(), Is.GreaterThanOrEqualTo(1));
        long intervalOps = r.GetProperty("intervals").EnumerateArray().Sum(i => i.GetProperty("ops").GetInt64());
        Assert.That(intervalOps, Is.EqualTo(20000), "the per-second lines add up to the total");
        Assert.That(run.Output, Does.Contain("p99.99").And.Contain("ALL"));
    }

    [Test]
    public void SeveralConnectionsPerThreadShareTheQuotaEachWithItsOwnKeys()
    {
        // 2 threads x 3 connections, INCR of keys drawn from a million: every one of the 6000 INCRs runs once (the values
        // add up to the quota), and the connections draw different keys (with one sequence shared by all six, each key
        // drawn would be incremented six times and there would be about 1000 keys, not about 6000).
        using var client = _server.Client();
        long connectionsBefore = ConnectionsReceived(client);
        var run = BenchmarkRun.Start("--port", Port, "--online", "--op-workload", "INCR", "--dbsize", "1000000", "--skipload",
            "--threads", "2", "--clients", "3", "--batchsize", "4", "--itp", "2", "--totalops", "6000", "--runtime", "60");
        Assert.That(run.ExitCode, Is.EqualTo(0), run.Errors);
        Assert.That(run.Long(0, "ops"), Is.EqualTo(6000));
        Assert.That(run.Long(0, "errors"), Is.EqualTo(0), run.Output);
        Assert.That(run.Json.GetProperty("settings").GetProperty("clients").GetInt32(), Is.EqualTo(3));
        Assert.That(run.Output, Does.Contain("2 thread(s) x 3 connections"));
        long intervalOps = run.Run(0).GetProperty("intervals").EnumerateArray().Sum(i => i.GetProperty("ops").GetInt64());
        Assert.That(intervalOps, Is.EqualTo(6000), "every reply was timed");
        Assert.That(ConnectionsReceived(client) - connectionsBefore, Is.EqualTo(6), "2 threads x 3 connections");
        long keys = client.Execute("DBSIZE").Integer;
        Assert.That(keys, Is.GreaterThan(5900));
        long sum = 0;
        string cursor = "0";
        do
        {
            var page = client.Execute("SCAN", cursor, "COUNT", "1000");
            cursor = page.Elements![0].Text!;
            object[] names = page.Elements[1].Elements!.Select(i => (object)i.Text!).ToArray();
            if (names.Length > 0) sum += client.Execute(["MGET", .. names]).Elements!.Sum(v => long.Parse(v.Text!));
        } while (cursor != "0");
        Assert.That(sum, Is.EqualTo(6000));
    }

    private static long ConnectionsReceived(RespClient c) =>
        long.Parse(c.Execute("INFO", "stats").Text!.Split("\r\n").First(l => l.StartsWith("total_connections_received:"))["total_connections_received:".Length..]);

    [Test]
    public void ClientsOptionNeedsOnlineModeAndPlainSockets()
    {
        var offline = BenchmarkRun.Start("--port", Port, "--clients", "2", "--threads", "1", "--totalops", "10");
        Assert.That(offline.ExitCode, Is.EqualTo(1));
        Assert.That(offline.Errors.Trim(), Is.EqualTo("--clients needs --online (offline mode runs one connection per thread)."));
        var zero = BenchmarkRun.Start("--port", Port, "--online", "--clients", "0");
        Assert.That(zero.Errors.Trim(), Is.EqualTo("Invalid value for --clients: '0'. Allowed: from 1 to 1024."));
        var tls = BenchmarkRun.Start("--port", Port, "--online", "--clients", "2", "--tls");
        Assert.That(tls.ExitCode, Is.EqualTo(1));
        Assert.That(tls.Errors, Does.Contain("--clients is not available with --tls"));
        var big = BenchmarkRun.Start("--port", Port, "--online", "--clients", "2", "--batchsize", "4096", "--skipload", "--threads", "1", "--totalops", "10");
        Assert.That(big.ExitCode, Is.EqualTo(1));
        Assert.That(big.Errors, Does.StartWith("--clients needs each connection's requests in flight to fit in 32,768 bytes"));
    }

    [Test]
    public void ChartOptionWritesAnSvgOfTheRuns()
    {
        string svg = Path.Combine(Path.GetTempPath(), "resp-benchmark-" + Guid.NewGuid().ToString("N") + ".svg");
        try
        {
            var run = BenchmarkRun.Start("--port", Port, "--online", "--op-workload", "GET", "--op-percent", "100",
                "--dbsize", "100", "--threads", "1,2", "--batchsize", "4", "--totalops", "4000", "--chart", svg);
            Assert.That(run.ExitCode, Is.EqualTo(0), run.Errors);
            Assert.That(run.Output, Does.Contain("Chart written to " + svg));
            var doc = System.Xml.Linq.XDocument.Load(svg);
            System.Xml.Linq.XNamespace ns = "http://www.w3.org/2000/svg";
            Assert.That(doc.Descendants(ns + "polyline").Count(), Is.EqualTo(2), "one latency line per thread count");
            var bars = doc.Descendants(ns + "rect").Select(r => r.Element(ns + "title")?.Value).Where(t => t is not null).ToList();
            Assert.That(bars, Has.Count.EqualTo(2));
            Assert.That(bars[0], Does.StartWith("1 thread(s): "));
        }
        finally { File.Delete(svg); }
    }

    [Test]
    public void OnlineOverResp3WithMixedTypes()
    {
        // HELLO 3 on every connection; INCR on string keys loaded by SET gets "not an integer" errors, counted per op.
        var run = BenchmarkRun.Start("--port", Port, "--online", "--protocol", "3", "--op-workload", "GET,INCR", "--op-percent", "50,50",
            "--dbsize", "100", "--threads", "1", "--batchsize", "8", "--totalops", "4000");
        Assert.That(run.ExitCode, Is.EqualTo(0), run.Errors);
        var perOp = run.Run(0).GetProperty("perOp");
        Assert.That(perOp.GetProperty("GET").GetProperty("errors").GetInt64(), Is.EqualTo(0));
        long incrs = perOp.GetProperty("INCR").GetProperty("ops").GetInt64();
        Assert.That(perOp.GetProperty("INCR").GetProperty("errors").GetInt64(), Is.EqualTo(incrs));
        Assert.That(run.Long(0, "errors"), Is.EqualTo(incrs));
    }

    [Test]
    public void SendLoopsDoNotAllocatePerOperation()
    {
        // Small batches, so that even one 24-byte object per batch would add up to hundreds of KB; the limit leaves
        // room for one-off runtime allocations (a few KB at most, seen in the first runs of a process). The second
        // run of each pair is measured, after the JIT and buffers have warmed up.
        const long limit = 64 * 1024;
        var run = BenchmarkRun.Start("--port", Port, "--op", "GET", "--dbsize", "1024", "--batchsize", "64",
            "--threads", "1,1", "--totalops", "500000");
        Assert.That(run.ExitCode, Is.EqualTo(0), run.Errors);
        long batches = run.Long(1, "ops") / 64;
        long allocated = run.Long(1, "senderAllocatedBytes") + run.Long(1, "readerAllocatedBytes");
        TestContext.Out.WriteLine($"offline: {allocated} bytes allocated for {batches} batches");
        Assert.That(allocated, Is.LessThan(limit), $"offline: {allocated} bytes for {batches} batches of 64 GETs\n{run.Output}");

        // Online mode encodes requests as it goes: still nothing per request or per batch.
        var online = BenchmarkRun.Start("--port", Port, "--online", "--op-workload", "GET,SET", "--op-percent", "50,50",
            "--dbsize", "1024", "--batchsize", "16", "--threads", "1,1", "--totalops", "300000");
        Assert.That(online.ExitCode, Is.EqualTo(0), online.Errors);
        long onlineAllocated = online.Long(1, "senderAllocatedBytes") + online.Long(1, "readerAllocatedBytes");
        TestContext.Out.WriteLine($"online: {onlineAllocated} bytes allocated for {online.Long(1, "ops") / 16} batches");
        Assert.That(onlineAllocated, Is.LessThan(limit), $"online: {onlineAllocated} bytes\n{online.Output}");
    }

    [Test]
    public void RefusedConnectionIsExitCode2AndBadOptionsExitCode1()
    {
        int freePort = Garnet.test.shared.TestPorts.Free();
        var run = BenchmarkRun.Start("--port", freePort.ToString(), "--threads", "1", "--totalops", "10");
        Assert.That(run.ExitCode, Is.EqualTo(2));
        Assert.That(run.Errors, Does.StartWith("error: "));
        var bad = BenchmarkRun.Start("--batchsize", "0");
        Assert.That(bad.ExitCode, Is.EqualTo(1));
        Assert.That(bad.Errors.Trim(), Is.EqualTo("Invalid value for --batchsize: '0'. Allowed: from 1 to 1048576."));
    }

    [Test]
    public void HelpDocumentsEveryOption()
    {
        var output = new StringWriter();
        Assert.That(BenchmarkApp.Run(["--help"], output, new StringWriter()), Is.EqualTo(0));
        foreach (var p in typeof(Resp.benchmark.Options).GetProperties())
        {
            var attr = p.GetCustomAttributes(typeof(CommandLine.OptionAttribute), false).Cast<CommandLine.OptionAttribute>().Single();
            Assert.That(output.ToString(), Does.Contain("--" + attr.LongName), attr.LongName);
            Assert.That(attr.HelpText, Is.Not.Empty, attr.LongName);
        }
    }
}
