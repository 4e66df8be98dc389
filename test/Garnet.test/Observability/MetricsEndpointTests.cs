// --metrics-port: GET /metrics over HTTP (HttpClient) in Prometheus text format, with values that move after commands;
// 404 elsewhere; option validation.
using System.Net;
using System.Text.RegularExpressions;
using Garnet.Options;

namespace Garnet.test.Observability;

[TestFixture, NonParallelizable]
public class MetricsEndpointTests
{
    private TestServer _server = null!;
    private int _metricsPort;
    private static readonly HttpClient s_http = new() { Timeout = TimeSpan.FromSeconds(10) };

    [OneTimeSetUp]
    public void Start()
    {
        _metricsPort = shared.TestPorts.Free();
        _server = new TestServer(o => o.MetricsPort = _metricsPort);
    }

    [OneTimeTearDown]
    public void Stop() => _server.Dispose();

    private string Scrape()
    {
        var response = s_http.GetAsync($"http://127.0.0.1:{_metricsPort}/metrics").GetAwaiter().GetResult();
        Assert.That(response.StatusCode, Is.EqualTo(HttpStatusCode.OK));
        Assert.That(response.Content.Headers.ContentType!.MediaType, Is.EqualTo("text/plain"));
        return response.Content.ReadAsStringAsync().GetAwaiter().GetResult();
    }

    private static double Value(string text, string series)
    {
        var m = Regex.Match(text, "^" + Regex.Escape(series) + @" ([0-9.eE+-]+)$", RegexOptions.Multiline);
        return m.Success ? double.Parse(m.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture) : 0;
    }

    [Test]
    public void ValuesMoveAfterCommands()
    {
        using var c = _server.Client();
        var before = Scrape();
        for (int i = 0; i < 25; i++) c.Execute("SET", "m:k" + i, "v");
        c.Execute("GET", "m:k1");
        c.Execute("GET", "m:nosuch");
        c.Execute("LPUSH", "m:k1", "x"); // WRONGTYPE
        var after = Scrape();
        Assert.That(Value(after, "garnet_commands_processed_total{cmd=\"set\"}") - Value(before, "garnet_commands_processed_total{cmd=\"set\"}"), Is.EqualTo(25));
        Assert.That(Value(after, "garnet_keyspace_hits_total") - Value(before, "garnet_keyspace_hits_total"), Is.GreaterThanOrEqualTo(1));
        Assert.That(Value(after, "garnet_keyspace_misses_total") - Value(before, "garnet_keyspace_misses_total"), Is.GreaterThanOrEqualTo(1));
        Assert.That(Value(after, "garnet_command_failed_calls_total{cmd=\"lpush\"}"), Is.EqualTo(1));
        Assert.That(Value(after, "garnet_error_replies_total{prefix=\"WRONGTYPE\"}"), Is.GreaterThanOrEqualTo(1));
        Assert.That(Value(after, "garnet_connected_clients"), Is.GreaterThanOrEqualTo(1));
        Assert.That(Value(after, "garnet_keys{db=\"0\"}"), Is.GreaterThanOrEqualTo(25));
        Assert.That(Value(after, "garnet_command_latency_seconds_count{cmd=\"set\"}"), Is.EqualTo(Value(after, "garnet_commands_processed_total{cmd=\"set\"}")));
        Assert.That(Value(after, "garnet_command_latency_seconds_bucket{cmd=\"set\",le=\"+Inf\"}"), Is.EqualTo(Value(after, "garnet_command_latency_seconds_count{cmd=\"set\"}")));
        Assert.That(after, Does.Contain("# TYPE garnet_command_latency_seconds histogram"));
        Assert.That(Value(after, "garnet_log_region_bytes{region=\"mutable\"}"), Is.GreaterThan(0));
        Assert.That(after, Does.Contain("garnet_log_region_bytes{region=\"read_only\"}").And.Contain("garnet_log_region_bytes{region=\"disk\"}"));
        Assert.That(after, Does.Contain("garnet_disk_bytes{kind=\"total\"}").And.Contain("garnet_checkpoint_last_status_ok 1").And.Contain("garnet_aof_enabled 0"));
        Assert.That(after, Does.Contain("garnet_gc_pause_seconds_total").And.Contain("garnet_gc_collections_total{generation=\"0\"}"));
    }

    [Test]
    public void CountersKeepGrowingAcrossResetstat()
    {
        using var c = _server.Client();
        c.Execute("INCR", "m:counter");
        double before = Value(Scrape(), "garnet_commands_processed_total{cmd=\"incr\"}");
        c.Execute("CONFIG", "RESETSTAT");
        c.Execute("INCR", "m:counter");
        double after = Value(Scrape(), "garnet_commands_processed_total{cmd=\"incr\"}");
        Assert.That(after, Is.EqualTo(before + 1), "a Prometheus counter never goes down");
    }

    [Test]
    public void OtherPathsAndMethods()
    {
        var r = s_http.GetAsync($"http://127.0.0.1:{_metricsPort}/other").GetAwaiter().GetResult();
        Assert.That(r.StatusCode, Is.EqualTo(HttpStatusCode.NotFound));
        r = s_http.PostAsync($"http://127.0.0.1:{_metricsPort}/metrics", new StringContent("x")).GetAwaiter().GetResult();
        Assert.That(r.StatusCode, Is.EqualTo(HttpStatusCode.MethodNotAllowed));
        using var c = _server.Client();
        Assert.That(c.Execute("CONFIG", "GET", "metrics-port").Elements![1].Text, Is.EqualTo(_metricsPort.ToString()));
    }

    [TestCase(70000)]
    [TestCase(-1)]
    public void BadPortIsOneLine(int port)
    {
        var ex = Assert.Throws<OptionsException>(() => SettingsBuilder.Build(new GarnetServerOptions { MetricsPort = port }));
        Assert.That(ex!.Message, Is.EqualTo($"Invalid value for --metrics-port: '{port}'. Allowed: 0 (off) or a port from 1 to 65535, not the RESP port."));
    }

    [Test]
    public void PortInUseFailsStart()
    {
        var dir = Path.Combine(Path.GetTempPath(), "garnet-metrics-" + Guid.NewGuid().ToString("N"));
        var second = new GarnetServer(new GarnetServerOptions { Port = 0, Bind = "127.0.0.1", Dir = dir, Save = "", MetricsPort = _metricsPort });
        try
        {
            var ex = Assert.Throws<System.Net.Sockets.SocketException>(() => second.Start());
            Assert.That(ex!.Message, Does.StartWith($"Could not create server TCP listening socket 127.0.0.1:{_metricsPort}: bind:"));
        }
        finally
        {
            second.Dispose();
            try { Directory.Delete(dir, true); } catch { }
        }
    }
}
