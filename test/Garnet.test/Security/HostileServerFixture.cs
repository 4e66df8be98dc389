// HostileServerFixture: a base for fixtures that attack the real server executable (ServerProcess), so a trigger that
// kills the process fails its test with the server's last output instead of taking the test host down.
// Invariants: each test starts on a running server with an empty keyspace and default settings; a test that did not
// pass (or left the process dead) gets a fresh process for the next one, so one failure never leaks into another test;
// every reply helper is bounded by the client's timeout and turns "no reply" into a failure that says so.
using Garnet.client;
using Garnet.test.Faults;

namespace Garnet.test.Security;

public abstract class HostileServerFixture
{
    /// <summary>The second client's bound: PING answered within this while/after a trigger runs.</summary>
    protected static readonly TimeSpan LatencyBound = TimeSpan.FromSeconds(1);

    private string _dir = "";
    private ServerProcess? _server;

    /// <summary>Extra command-line options of the server (beyond --port, --dir, --save).</summary>
    protected virtual string ServerArgs => "";

    protected ServerProcess Server => _server ?? throw new InvalidOperationException("no server");

    [OneTimeSetUp]
    public void StartServer()
    {
        _dir = Directory.CreateTempSubdirectory("garnet-hostile-").FullName;
        _server = Start();
    }

    [OneTimeTearDown]
    public void StopServer()
    {
        _server?.Dispose();
        try { Directory.Delete(_dir, true); } catch { }
    }

    [SetUp]
    public void FreshState()
    {
        if (_server is null || _server.HasExited) Restart();
        try
        {
            using var c = _server!.Client(5000);
            if (c.Execute("FLUSHALL").IsError) Restart();
        }
        catch (Exception e) when (e is IOException or System.Net.Sockets.SocketException) { Restart(); }
    }

    [TearDown]
    public void ReplaceServerAfterFailure()
    {
        if (TestContext.CurrentContext.Result.Outcome.Status != NUnit.Framework.Interfaces.TestStatus.Passed || _server!.HasExited)
            Restart();
    }

    private ServerProcess Start() => new($"--dir \"{_dir}\" --save \"\" {ServerArgs}", _dir);

    private void Restart()
    {
        _server?.Dispose();
        foreach (var f in Directory.EnumerateFileSystemEntries(_dir))
            try { if (Directory.Exists(f)) Directory.Delete(f, true); else File.Delete(f); } catch { }
        _server = Start();
    }

    protected RespClient Client(int timeoutMs = 15000) => Server.Client(timeoutMs);

    /// <summary>Two SADDs of n integers into key "s": the even ones and the odd ones (CVE-2021-32687's intset).</summary>
    protected static (object[] evens, object[] odds) IntsetHalves(int n)
    {
        var evens = new object[n + 2];
        var odds = new object[n + 2];
        evens[0] = odds[0] = "SADD";
        evens[1] = odds[1] = "s";
        for (int i = 0; i < n; i++) { evens[i + 2] = (2L * i).ToString(); odds[i + 2] = (2L * i + 1).ToString(); }
        return (evens, odds);
    }

    /// <summary>Runs a command and returns its reply; fails the test (with the server's last output) if none comes.</summary>
    protected RespValue Reply(RespClient c, params object[] args)
    {
        try { return c.Execute(args); }
        catch (Exception e) when (e is IOException or System.Net.Sockets.SocketException)
        {
            Assert.Fail($"no reply to {Describe(args)}: {e.GetType().Name}: {e.Message}; {ServerState()}");
            throw;
        }
    }

    /// <summary>The server process is still running and a new connection gets PONG within the latency bound.</summary>
    protected void AssertStillServing()
    {
        Assert.That(Server.HasExited, Is.False, "server process died: " + Tail(Server.Output));
        using var c = Server.Client((int)SecondClientWatch.ReplyTimeout.TotalMilliseconds);
        var sw = System.Diagnostics.Stopwatch.StartNew();
        var pong = Reply(c, "PING");
        Assert.That(pong.Type == RespType.SimpleString && pong.Text == "PONG" || pong.IsError && pong.Text!.StartsWith("NOAUTH"), Is.True, $"PING got {pong}");
        Assert.That(sw.Elapsed, Is.LessThanOrEqualTo(LatencyBound), $"PING on a new connection took {sw.ElapsedMilliseconds} ms");
    }

    /// <summary>Fails the test, with the server's last output, if the process has died.</summary>
    protected void AssertAlive(string after)
    {
        if (Server.HasExited) Assert.Fail($"{after}: {ServerState()}");
    }

    /// <summary>Whether the process died (waiting a moment for it, as a connection can close just before the process ends).</summary>
    protected string ServerState() =>
        Server.WaitForExit(TimeSpan.FromSeconds(3)) ? "server process died: " + Tail(Server.Output) : "server process still running";

    /// <summary>Resets the process's peak resident memory (VmHWM) to its current resident memory.</summary>
    protected void ResetPeakResident() => File.WriteAllText($"/proc/{Server.Pid}/clear_refs", "5");

    /// <summary>The process's peak resident memory in bytes since start or the last ResetPeakResident.</summary>
    protected long PeakResident()
    {
        foreach (var line in File.ReadLines($"/proc/{Server.Pid}/status"))
            if (line.StartsWith("VmHWM:")) return long.Parse(line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1]) * 1024;
        return 0;
    }

    /// <summary>The part of the server's output that says why it died: from its first fatal line, else the last 3,000 chars.</summary>
    private static string Tail(string s)
    {
        int fatal = new[] { "Unhandled exception", "Stack overflow", "Out of memory", "Fatal error" }
            .Select(m => s.IndexOf(m, StringComparison.Ordinal)).Where(i => i >= 0).DefaultIfEmpty(-1).Min();
        if (fatal >= 0) return s.Substring(fatal, Math.Min(3000, s.Length - fatal));
        return s.Length <= 3000 ? s : "..." + s[^3000..];
    }

    private static string Describe(object[] args)
    {
        var text = string.Join(' ', args.Select(a => a is byte[] b ? $"<{b.Length} bytes>" : a?.ToString() ?? ""));
        return text.Length <= 200 ? text : text[..200] + "...";
    }
}
