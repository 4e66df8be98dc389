using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Garnet.client;
using Garnet.Options;

namespace Garnet.test;

/// <summary>Operator safety at start-up, through the real executable: one server per port, one per data directory,
/// one line (and exit code 1) for every start-up failure.</summary>
[TestFixture]
public class StartupSafetyProcessTests
{
    private static (int exitCode, string[] stderr, string stdout) RunToExit(string args, string workDir)
    {
        using var p = ProcessTests.Start(args, workDir);
        var stderr = p.StandardError.ReadToEndAsync();
        var stdout = p.StandardOutput.ReadToEndAsync();
        if (!p.WaitForExit(30000))
        {
            p.Kill();
            Assert.Fail($"'{args}' did not exit");
        }
        return (p.ExitCode, stderr.Result.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries), stdout.Result);
    }

    private static void Stop(Process p)
    {
        if (!p.HasExited) p.Kill();
        p.WaitForExit();
    }

    [TestCase("--port abc", "Invalid value for --port: 'abc'. Allowed: an integer from 0 to 65535.")]
    [TestCase("--bogus 1", "Unknown option '--bogus'.")]
    [TestCase("--dir a --dir b", "Option '--dir' is given more than once.")]
    [TestCase("--port", "Option '--port' needs a value.")]
    [TestCase("--aof yes", "Unexpected argument 'yes' (--aof is a switch and takes no value).")]
    public void BadOptionPrintsWhatIsWrongThenPointsToHelp(string args, string error)
    {
        var (exit, stderr, stdout) = RunToExit(args, Path.GetTempPath());
        Assert.That(exit, Is.EqualTo(1));
        Assert.That(stderr, Is.EqualTo(new[] { error, OptionsParser.HelpHint }), "the error first, then one line pointing to --help");
        Assert.That(stdout, Is.Empty, "no help text");
    }

    [Test]
    public void HelpStillExitsZero()
    {
        var (exit, stderr, stdout) = RunToExit("--help", Path.GetTempPath());
        Assert.That(exit, Is.EqualTo(0));
        Assert.That(stderr, Is.Empty);
        Assert.That(stdout, Does.Contain("--port").And.Contain("--dir"));
    }

    [Test]
    public void DirThatCannotBeCreatedIsOneLineWithoutStackTrace()
    {
        var (exit, stderr, stdout) = RunToExit($"--dir /proc/nope --port {shared.TestPorts.Free()}", Path.GetTempPath());
        Assert.That(exit, Is.EqualTo(1));
        Assert.That(stderr, Is.EqualTo(new[] { "Invalid value for --dir: '/proc/nope' cannot be created (No such file or directory)." }));
        Assert.That(stdout, Does.Not.Contain(" at ").And.Not.Contain("Exception"), "no stack trace below --loglevel debug");
    }

    [Test]
    public void DirThatIsAFileIsOneLine()
    {
        var file = Path.GetTempFileName();
        try
        {
            var (exit, stderr, _) = RunToExit($"--dir {file} --port {shared.TestPorts.Free()}", Path.GetTempPath());
            Assert.That(exit, Is.EqualTo(1));
            Assert.That(stderr, Is.EqualTo(new[] { $"Invalid value for --dir: '{file}' is not a directory." }));
        }
        finally { File.Delete(file); }
    }

    [Test]
    public void StackTraceOnlyAtLoglevelDebug()
    {
        var (exit, stderr, _) = RunToExit($"--dir /proc/nope --port {shared.TestPorts.Free()} --loglevel debug", Path.GetTempPath());
        Assert.That(exit, Is.EqualTo(1));
        Assert.That(stderr[0], Is.EqualTo("Invalid value for --dir: '/proc/nope' cannot be created (No such file or directory)."));
        Assert.That(stderr.Skip(1), Has.Some.StartWith("at Garnet.DataDirectoryLock.Acquire"), "then the stack trace");
    }

    [Test, Category("Faults"), CancelAfter(120_000)]
    public void SecondServerOnAPortInUseExitsAndTheFirstStillServes()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-port-").FullName;
        int port = shared.TestPorts.Free();
        using var first = ProcessTests.Start($"--port {port} --dir first --loglevel warning", dir);
        try
        {
            ProcessTests.WaitForPort(port, first);
            var (exit, stderr, _) = RunToExit($"--port {port} --dir second --loglevel warning", dir);
            Assert.That(exit, Is.EqualTo(1));
            Assert.That(stderr, Is.EqualTo(new[] { $"Could not create server TCP listening socket 127.0.0.1:{port}: bind: Address already in use" }));
            // With SO_REUSEPORT the kernel would have split new connections between the two: every one reaches the first.
            for (int i = 0; i < 20; i++)
            {
                using var c = new RespClient("127.0.0.1", port);
                c.Execute("SET", "k", i.ToString());
                Assert.That(c.Execute("GET", "k").Text, Is.EqualTo(i.ToString()));
            }
            Assert.That(first.HasExited, Is.False);
        }
        finally
        {
            Stop(first);
            Directory.Delete(dir, true);
        }
    }

    [Test, Category("Faults"), CancelAfter(180_000)]
    public void SecondServerOnADataDirectoryInUseExitsNamingItAndThePid_EvenAfterSigkillANewOneStarts()
    {
        var work = Directory.CreateTempSubdirectory("garnet-dirlock-").FullName;
        string dir = Path.Combine(work, "data");
        int port1 = shared.TestPorts.Free(), port2 = shared.TestPorts.Free();
        using var first = ProcessTests.Start($"--port {port1} --dir {dir} --loglevel warning", work);
        try
        {
            ProcessTests.WaitForPort(port1, first);
            using (var c = new RespClient("127.0.0.1", port1))
            {
                c.Execute("SET", "saved", "before-kill");
                RespAssert.Simple(c.Execute("SAVE"), "OK");
            }
            Assert.That(DataDirectoryLock.ReadHolderPid(dir), Is.EqualTo(first.Id), "the holder's PID is in the lock file");

            var (exit, stderr, _) = RunToExit($"--port {port2} --dir {dir} --loglevel warning", work);
            Assert.That(exit, Is.EqualTo(1));
            Assert.That(stderr, Is.EqualTo(new[] { $"Cannot use --dir '{dir}': another server (PID {first.Id}) is using it (lock file {dir}/garnet.lock)." }));
            using (var c = new RespClient("127.0.0.1", port1)) Assert.That(c.Execute("GET", "saved").Text, Is.EqualTo("before-kill"), "the first is untouched");

            first.Kill(); // SIGKILL: no clean-up ran, the lock file is still there
            first.WaitForExit();
            Assert.That(File.Exists(Path.Combine(dir, "garnet.lock")));
            using var next = ProcessTests.Start($"--port {port2} --dir {dir} --loglevel warning", work);
            try
            {
                ProcessTests.WaitForPort(port2, next);
                using var c = new RespClient("127.0.0.1", port2);
                Assert.That(c.Execute("GET", "saved").Text, Is.EqualTo("before-kill"), "the new server recovered the directory");
            }
            finally { Stop(next); }
        }
        finally
        {
            Stop(first);
            Directory.Delete(work, true);
        }
    }
}

/// <summary>The same rules for the embeddable server, in process.</summary>
[TestFixture]
public class StartupSafetyTests
{
    private static string TempDir() => Path.Combine(Path.GetTempPath(), "garnet-safety-" + Guid.NewGuid().ToString("N"));

    private static GarnetServer Server(int port, string dir, string bind = "127.0.0.1") =>
        new(new GarnetServerOptions { Port = port, Bind = bind, Dir = dir, Save = "" });

    [Test]
    public void EmbeddedServerOnAPortInUseThrowsTheOneLineMessage()
    {
        using var first = new TestServer();
        using var second = Server(first.Port, TempDir());
        var ex = Assert.Throws<SocketException>(() => second.Start());
        Assert.That(ex!.Message, Is.EqualTo($"Could not create server TCP listening socket 127.0.0.1:{first.Port}: bind: Address already in use"));
        Assert.That(ex.SocketErrorCode, Is.EqualTo(SocketError.AddressAlreadyInUse));
        using var c = first.Client();
        RespAssert.Simple(c.Execute("PING"), "PONG");
        second.Dispose();
        Directory.Delete(second.Settings.Dir, true);
    }

    [Test]
    public void IPv6ListenerOnAPortInUseIsRefusedToo()
    {
        if (!Socket.OSSupportsIPv6) Assert.Ignore("no IPv6");
        GarnetServer first;
        try
        {
            first = Server(0, TempDir(), "::1");
            first.Start();
        }
        catch (SocketException) { Assert.Ignore("::1 is not available"); return; }
        using (first)
        {
            using var second = Server(first.Port, TempDir(), "::1");
            var ex = Assert.Throws<SocketException>(() => second.Start());
            Assert.That(ex!.Message, Is.EqualTo($"Could not create server TCP listening socket [::1]:{first.Port}: bind: Address already in use"));
            second.Dispose();
            Directory.Delete(second.Settings.Dir, true);
        }
        Directory.Delete(first.Settings.Dir, true);
    }

    [Test]
    public void RestartOnThePortWhileOldConnectionsAreInTimeWait()
    {
        var dir = TempDir();
        int port;
        using (var first = Server(0, dir))
        {
            first.Start();
            port = first.Port;
            for (int i = 0; i < 3; i++)
            {
                using var c = new RespClient("127.0.0.1", port);
                RespAssert.Simple(c.Execute("QUIT"), "OK");
                Assert.That(c.IsClosedByServer(), "the server closes first, so its side of the connection goes to TIME_WAIT");
            }
        }
        if (TimeWaitCount(port) == 0) Assert.Inconclusive("no TIME_WAIT connection on the port (ss missing?)");
        using var again = Server(port, dir);
        again.Start(); // without SO_REUSEADDR, Linux refuses this bind with "Address already in use"
        using var c2 = new RespClient("127.0.0.1", port);
        RespAssert.Simple(c2.Execute("PING"), "PONG");
        again.Dispose();
        Directory.Delete(dir, true);
    }

    private static int TimeWaitCount(int port)
    {
        try
        {
            var psi = new ProcessStartInfo("ss", $"-tanH state time-wait sport = :{port}") { RedirectStandardOutput = true, UseShellExecute = false };
            using var p = Process.Start(psi)!;
            string output = p.StandardOutput.ReadToEnd();
            p.WaitForExit();
            return output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length;
        }
        catch (System.ComponentModel.Win32Exception) { return 0; }
    }

    [Test]
    public void SecondEmbeddedServerOnTheSameDirectoryIsRefusedUntilTheFirstIsDisposed()
    {
        var dir = TempDir();
        var first = Server(0, dir);
        first.Start();
        string full = Path.GetFullPath(dir), lockFile = Path.Combine(full, "garnet.lock");
        Assert.That(DataDirectoryLock.ReadHolderPid(dir), Is.EqualTo(Environment.ProcessId));
        Assert.That(FlockFromAnotherProcess(lockFile), Is.EqualTo(1), "an OS lock other processes see");

        var ex = Assert.Throws<DataDirectoryInUseException>(() => Server(0, dir));
        Assert.That(ex!.Message, Is.EqualTo($"Cannot use --dir '{full}': another server (PID {Environment.ProcessId}) is using it (lock file {lockFile})."));
        Assert.That(ex.HolderPid, Is.EqualTo(Environment.ProcessId));

        first.Dispose();
        Assert.That(FlockFromAnotherProcess(lockFile), Is.EqualTo(0), "released at Dispose");
        using (var again = Server(0, dir)) again.Start();
        Directory.Delete(dir, true);
    }

    /// <summary>The exit code of flock(1) -n on the file: 1 when someone holds it, 0 when it is free; -1 without flock(1).</summary>
    private static int FlockFromAnotherProcess(string path)
    {
        try
        {
            using var p = Process.Start(new ProcessStartInfo("flock", $"-n \"{path}\" true") { UseShellExecute = false })!;
            p.WaitForExit();
            return p.ExitCode;
        }
        catch (System.ComponentModel.Win32Exception) { Assert.Inconclusive("flock(1) is not installed"); return -1; }
    }

    [Test]
    public void ConstructorThatFailsReleasesTheDirectory()
    {
        var dir = TempDir();
        Directory.CreateDirectory(dir);
        File.WriteAllText(Path.Combine(dir, "checkpoint.1.rdb"), "not an rdb file");
        Assert.Throws<Garnet.server.Persistence.PersistenceException>(() => Server(0, dir));
        using (var server = new GarnetServer(new GarnetServerOptions { Port = 0, Bind = "127.0.0.1", Dir = dir, Save = "", IgnoreUnreadableData = true }))
            server.Start();
        Directory.Delete(dir, true);
    }

    [Test]
    public void ArgsConstructorThrowsTheSameLineTheExecutablePrints()
    {
        var ex = Assert.Throws<OptionsException>(() => new GarnetServer(["--port", "abc"]));
        Assert.That(ex!.Message, Is.EqualTo("Invalid value for --port: 'abc'. Allowed: an integer from 0 to 65535."));
        ex = Assert.Throws<OptionsException>(() => new GarnetServer(["--bogus", "1"]));
        Assert.That(ex!.Message, Is.EqualTo("Unknown option '--bogus'."));
    }

    [Test]
    public void DirThatCannotBeCreatedIsAnOptionsException()
    {
        var ex = Assert.Throws<OptionsException>(() => Server(0, "/proc/nope"));
        Assert.That(ex!.Message, Is.EqualTo("Invalid value for --dir: '/proc/nope' cannot be created (No such file or directory)."));
    }
}
