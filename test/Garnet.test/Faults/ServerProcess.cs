// ServerProcess: the real GarnetServer executable for fault tests: output captured as it comes (a long run never blocks
// on a full pipe), signals, resident memory and a client per call.
using System.Diagnostics;
using System.Text;
using Garnet.client;

namespace Garnet.test.Faults;

public sealed class ServerProcess : IDisposable
{
    private readonly Process _process;
    private readonly StringBuilder _output = new();

    public ServerProcess(string args, string workDir, bool waitForPort = true, IReadOnlyDictionary<string, string>? environment = null)
    {
        Port = shared.TestPorts.Free();
        var psi = new ProcessStartInfo("dotnet", $"\"{Path.Combine(AppContext.BaseDirectory, "GarnetServer.dll")}\" --port {Port} {args}")
        {
            RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false, WorkingDirectory = workDir,
        };
        foreach (var (name, value) in environment ?? new Dictionary<string, string>()) psi.Environment[name] = value;
        _process = new Process { StartInfo = psi };
        _process.OutputDataReceived += (_, e) => { if (e.Data is not null) lock (_output) _output.AppendLine(e.Data); };
        _process.ErrorDataReceived += (_, e) => { if (e.Data is not null) lock (_output) _output.AppendLine(e.Data); };
        _process.Start();
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
        if (waitForPort) WaitUntilServing();
    }

    public int Port { get; }
    public int Pid => _process.Id;
    public bool HasExited => _process.HasExited;
    public int ExitCode => _process.ExitCode;
    public string Output { get { lock (_output) return _output.ToString(); } }

    public RespClient Client(int timeoutMs = 10000) => new("127.0.0.1", Port, timeoutMs);

    public void WaitUntilServing(TimeSpan? timeout = null)
    {
        var sw = Stopwatch.StartNew();
        while (sw.Elapsed < (timeout ?? TimeSpan.FromSeconds(60)))
        {
            if (_process.HasExited) Assert.Fail("server exited: " + Output);
            try { using var c = Client(2000); c.Execute("PING"); return; }
            catch (System.Net.Sockets.SocketException) { Thread.Sleep(20); }
            catch (IOException) { Thread.Sleep(20); }
        }
        Assert.Fail("server did not start: " + Output);
    }

    public void Signal(string name)
    {
        using var kill = Process.Start("kill", $"-{name} {_process.Id}")!;
        kill.WaitForExit();
    }

    public bool WaitForExit(TimeSpan timeout)
    {
        if (!_process.WaitForExit(timeout)) return false;
        _process.WaitForExit(); // drains the output
        return true;
    }

    /// <summary>Resident memory in bytes (VmRSS).</summary>
    public long ResidentBytes()
    {
        foreach (var line in File.ReadLines($"/proc/{_process.Id}/status"))
            if (line.StartsWith("VmRSS:")) return long.Parse(line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1]) * 1024;
        return 0;
    }

    /// <summary>CPU time the process has used so far.</summary>
    public TimeSpan CpuTime()
    {
        _process.Refresh();
        return _process.TotalProcessorTime;
    }

    public void Dispose()
    {
        try { if (!_process.HasExited) { _process.Kill(true); _process.WaitForExit(10000); } } catch { }
        _process.Dispose();
    }
}

/// <summary>A small tmpfs mounted for one test (needs root, as on our machines and CI); Assert.Ignore where mounting is refused.</summary>
public sealed class SmallDisk : IDisposable
{
    public SmallDisk(int megabytes)
    {
        Path = Directory.CreateTempSubdirectory("garnet-smalldisk-").FullName;
        using var mount = Process.Start(new ProcessStartInfo("mount", $"-t tmpfs -o size={megabytes}m tmpfs \"{Path}\"") { RedirectStandardError = true })!;
        mount.WaitForExit();
        if (mount.ExitCode != 0) Assert.Ignore("cannot mount a tmpfs here: " + mount.StandardError.ReadToEnd());
    }

    public string Path { get; }

    /// <summary>Writes a file of the given size (to take space that a test gives back later by deleting it).</summary>
    public string Fill(string name, long bytes)
    {
        string file = System.IO.Path.Combine(Path, name);
        using var f = new FileStream(file, FileMode.Create);
        var block = new byte[1 << 20];
        Random.Shared.NextBytes(block);
        for (long written = 0; written < bytes; written += block.Length) f.Write(block, 0, (int)Math.Min(block.Length, bytes - written));
        return file;
    }

    public void Dispose()
    {
        using var umount = Process.Start("umount", $"-l \"{Path}\"")!;
        umount.WaitForExit();
        try { Directory.Delete(Path, true); } catch { }
    }
}
