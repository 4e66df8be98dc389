using System.Diagnostics;
using System.Net.Sockets;
using Garnet.client;

namespace Garnet.test;

/// <summary>The real executable: start-up validation, redis-cli against it, SIGTERM shutdown.</summary>
[TestFixture]
public class ProcessTests
{
    private static string ServerDll => Path.Combine(AppContext.BaseDirectory, "GarnetServer.dll");

    internal static Process Start(string args, string workDir)
    {
        var psi = new ProcessStartInfo("dotnet", $"\"{ServerDll}\" {args}")
        {
            RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false, WorkingDirectory = workDir,
        };
        return Process.Start(psi)!;
    }

    /// <summary>Waits until the server answers a PING with any reply (an error such as NOAUTH also means it is up).</summary>
    internal static void WaitForPort(int port, Process p)
    {
        var sw = Stopwatch.StartNew();
        while (sw.Elapsed < TimeSpan.FromSeconds(30))
        {
            if (p.HasExited) Assert.Fail("server exited: " + p.StandardError.ReadToEnd() + p.StandardOutput.ReadToEnd());
            try { using var c = new RespClient("127.0.0.1", port, 2000); c.Execute("PING"); return; }
            catch (SocketException) { Thread.Sleep(20); }
        }
        Assert.Fail("server did not start");
    }

    [Test]
    public void InvalidOptionStopsStartupWithOneLine()
    {
        using var p = Start("--port 99999", Path.GetTempPath());
        Assert.That(p.WaitForExit(30000));
        Assert.That(p.ExitCode, Is.EqualTo(1));
        var err = p.StandardError.ReadToEnd().Trim();
        Assert.That(err, Is.EqualTo("Invalid value for --port: '99999'. Allowed: an integer from 0 to 65535."));
    }

    [Test]
    public void ServesRedisCliAndStopsOnSigterm()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-proc-").FullName;
        int port = shared.TestPorts.Free();
        using var p = Start($"--port {port}", dir);
        try
        {
            WaitForPort(port, p);
            Assert.That(Directory.Exists(Path.Combine(dir, "data")), "default data directory ./data is created");
            Assert.That(RedisCli.Run(port, "ping"), Is.EqualTo("PONG"));
            var hello = RedisCli.Run(port, "-3", "hello", "3");
            Assert.That(hello, Does.Contain("proto").And.Contain("3").And.Contain("server"));
            using var idle = new RespClient("127.0.0.1", port);
            RespAssert.Simple(idle.Execute("PING"), "PONG");
            idle.Execute("SET", "survives", "sigterm");
            using (var kill = Process.Start("kill", $"-TERM {p.Id}")) kill.WaitForExit();
            Assert.That(p.WaitForExit(20000), "exits after SIGTERM");
            Assert.That(p.ExitCode, Is.EqualTo(0));
            Assert.That(idle.IsClosedByServer());
            Assert.That(p.StandardOutput.ReadToEnd(), Does.Contain("Server stopped").And.Contain("Checkpoint checkpoint.1.rdb written (shutdown)"));
            // Default options: what was written before a clean stop is there after a restart.
            using var again = Start($"--port {port}", dir);
            try
            {
                WaitForPort(port, again);
                using var c = new RespClient("127.0.0.1", port);
                Assert.That(c.Execute("GET", "survives").Text, Is.EqualTo("sigterm"));
            }
            finally
            {
                again.Kill();
                again.WaitForExit();
            }
        }
        finally
        {
            if (!p.HasExited) p.Kill();
            Directory.Delete(dir, true);
        }
    }

    [Test]
    public void ShutdownCommandStopsTheProcess()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-proc-").FullName;
        int port = shared.TestPorts.Free();
        using var p = Start($"--port {port} --requirepass pw", dir);
        try
        {
            WaitForPort(port, p);
            using var c = new RespClient("127.0.0.1", port);
            RespAssert.Error(c.Execute("SHUTDOWN"), "NOAUTH Authentication required.");
            c.Execute("AUTH", "pw");
            c.Send("SHUTDOWN");
            Assert.That(p.WaitForExit(20000), "exits after SHUTDOWN");
            Assert.That(p.ExitCode, Is.EqualTo(0));
        }
        finally
        {
            if (!p.HasExited) p.Kill();
            Directory.Delete(dir, true);
        }
    }
}

/// <summary>redis-cli from Debian's redis-tools; scripts/test.sh installs it. Running it fails the test when it is missing
/// (RequiredTools).</summary>
public static class RedisCli
{
    public static string Run(int port, params string[] args)
    {
        var psi = new ProcessStartInfo(RequiredTools.RedisCli) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        psi.ArgumentList.Add("-p");
        psi.ArgumentList.Add(port.ToString());
        foreach (var a in args) psi.ArgumentList.Add(a);
        using var p = Process.Start(psi)!;
        string output = p.StandardOutput.ReadToEnd();
        p.WaitForExit(10000);
        return output.Trim();
    }
}

[TestFixture]
public class RedisCliTests : ServerFixture
{

    [Test]
    public void RedisCliCommands()
    {
        Assert.That(RedisCli.Run(_server.Port, "ping"), Is.EqualTo("PONG"));
        Assert.That(RedisCli.Run(_server.Port, "echo", "hello world"), Is.EqualTo("hello world"));
        Assert.That(RedisCli.Run(_server.Port, "-3", "hello", "3"), Does.Contain("proto").And.Contain("version"));
        Assert.That(RedisCli.Run(_server.Port, "config", "get", "databases"), Is.EqualTo("databases\n16"));
        Assert.That(RedisCli.Run(_server.Port, "nosuch"), Does.Contain("ERR unknown command 'nosuch'"));
        Assert.That(RedisCli.Run(_server.Port, "info", "server"), Does.Contain("redis_version:7.2"));
        Assert.That(RedisCli.Run(_server.Port, "command", "count"), Is.EqualTo(Garnet.server.Commands.CommandTable.Default.Commands.Count.ToString()));
    }
}
