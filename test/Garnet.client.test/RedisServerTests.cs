// Resp.benchmark against Debian's redis-server (started here on free ports, when it is installed): every op runs
// without error replies, including the sorted set, list and hash ops our server lacks, and --tls works against
// Redis's own TLS. Fails when redis-server is missing (RequiredTools: scripts/test.sh installs it).
using System.Diagnostics;
using System.Net.Sockets;

namespace Garnet.client.test;

/// <summary>One redis-server process of our own, stopped (by its process id) on Dispose. Constructing one fails the test
/// when redis-server is missing (RequiredTools).</summary>
public sealed class RedisServerProcess : IDisposable
{
    private readonly Process _process;
    public int Port { get; }
    public string Dir { get; }

    public RedisServerProcess(string extraArgs = "", int? port = null, Func<bool>? ready = null)
    {
        string executable = RequiredTools.RedisServer;
        Dir = Directory.CreateTempSubdirectory("resp-bench-redis-").FullName;
        Port = port ?? Garnet.test.shared.TestPorts.Free();
        var psi = new ProcessStartInfo(executable, $"--port {Port} --bind 127.0.0.1 --save \"\" --appendonly no --dir {Dir} {extraArgs}")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        _process = Process.Start(psi)!;
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
        ready ??= () =>
        {
            try { using var c = new RespClient("127.0.0.1", Port, 2000); return c.Execute("PING").Text == "PONG"; }
            catch (SocketException) { return false; }
        };
        var sw = Stopwatch.StartNew();
        while (!ready())
        {
            if (_process.HasExited) throw new InvalidOperationException($"redis-server exited with code {_process.ExitCode}");
            if (sw.Elapsed > TimeSpan.FromSeconds(15)) throw new TimeoutException("redis-server did not start");
            Thread.Sleep(50);
        }
    }

    public void Dispose()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.Kill();
                _process.WaitForExit(5000);
            }
        }
        finally
        {
            _process.Dispose();
            try { Directory.Delete(Dir, true); } catch (IOException) { }
        }
    }
}

[TestFixture]
public class RedisServerTests
{
    private RedisServerProcess? _redis;

    [OneTimeSetUp]
    public void Start()
    {
        _redis = new RedisServerProcess();
    }

    [OneTimeTearDown] public void Stop() => _redis?.Dispose();

    [TestCase("GET")]
    [TestCase("SET")]
    [TestCase("MGET")]
    [TestCase("MSET")]
    [TestCase("INCR")]
    [TestCase("PING")]
    [TestCase("SETEX")]
    [TestCase("DEL")]
    [TestCase("PFADD")]
    [TestCase("ZADD")]
    [TestCase("ZREM")]
    [TestCase("LPUSH")]
    [TestCase("LPOP")]
    [TestCase("HSET")]
    [TestCase("HGET")]
    public void EveryOpRunsWithoutErrors(string op)
    {
        using (var c = new RespClient("127.0.0.1", _redis!.Port)) c.Execute("FLUSHALL");
        var run = BenchmarkRun.Start("--port", _redis!.Port.ToString(), "--op", op, "--dbsize", "200", "--batchsize", "128",
            "--threads", "1,2", "--totalops", "3000");
        Assert.That(run.ExitCode, Is.EqualTo(0), run.Errors);
        for (int i = 0; i < 2; i++)
        {
            Assert.That(run.Long(i, "ops"), Is.EqualTo(3000));
            Assert.That(run.Long(i, "errors"), Is.EqualTo(0), run.Output);
        }
        if (op != "PING") Assert.That(run.Json.GetProperty("load").GetProperty("errors").GetInt64(), Is.EqualTo(0));
        using var check = new RespClient("127.0.0.1", _redis.Port);
        string expectedType = op switch
        {
            "ZADD" => "zset",
            "LPUSH" => "list",
            "HSET" or "HGET" => "hash",
            "PFADD" or "GET" or "SET" or "MGET" or "MSET" or "INCR" or "SETEX" => "string",
            _ => "",
        };
        if (expectedType != "") Assert.That(check.Execute("TYPE", "00000000").Text, Is.EqualTo(expectedType));
    }

    [Test]
    public void OnlineMixAgainstRedis()
    {
        var run = BenchmarkRun.Start("--port", _redis!.Port.ToString(), "--online", "--op-workload", "HSET,HGET", "--op-percent", "30,70",
            "--dbsize", "100", "--threads", "2", "--totalops", "5000", "--protocol", "3");
        Assert.That(run.ExitCode, Is.EqualTo(0), run.Errors);
        Assert.That(run.Long(0, "ops"), Is.EqualTo(5000));
        Assert.That(run.Long(0, "errors"), Is.EqualTo(0));
    }

    [Test]
    public void TlsAgainstRedisServer()
    {
        using var cert = SelfSigned.Create();
        var certDir = Directory.CreateTempSubdirectory("resp-bench-tls-").FullName;
        try
        {
            var (certFile, keyFile) = SelfSigned.WritePem(cert, certDir);
            int tlsPort = Garnet.test.shared.TestPorts.Free();
            var options = new RespConnectionOptions { Port = tlsPort, Tls = true, TlsInsecure = true, TimeoutMs = 2000 };
            RedisServerProcess redis;
            try
            {
                redis = new RedisServerProcess(
                    $"--tls-port {tlsPort} --tls-cert-file {certFile} --tls-key-file {keyFile} --tls-ca-cert-file {certFile} --tls-auth-clients no",
                    port: 0,
                    ready: () =>
                    {
                        try { using var c = RespPipelineClient.Connect(options); return true; }
                        catch (Exception e) when (e is SocketException or IOException or System.Security.Authentication.AuthenticationException) { return false; }
                    });
            }
            catch (InvalidOperationException)
            {
                throw RequiredTools.Missing("redis-server did not start with TLS options (Debian's redis-server is built with TLS)");
            }
            using (redis)
            {
                var run = BenchmarkRun.Start("--port", tlsPort.ToString(), "--tls", "--tls-insecure", "--op", "GET",
                    "--dbsize", "500", "--threads", "1,2", "--totalops", "20000", "--batchsize", "1000");
                Assert.That(run.ExitCode, Is.EqualTo(0), run.Errors);
                Assert.That(run.Long(1, "ops"), Is.EqualTo(20000));
                Assert.That(run.Long(1, "errors"), Is.EqualTo(0));
                Assert.That(run.Long(1, "nulls"), Is.EqualTo(0));

                var refused = BenchmarkRun.Start("--port", tlsPort.ToString(), "--tls", "--op", "PING", "--threads", "1", "--totalops", "10");
                Assert.That(refused.ExitCode, Is.EqualTo(2), "a self-signed certificate needs --tls-insecure");
            }
        }
        finally
        {
            Directory.Delete(certDir, true);
        }
    }
}
