// ServerStatistics: server-wide counters for INFO. Per-request counters live in each session (no shared
// cache line on the hot path) and are summed here on demand; closed sessions fold theirs into Retired*.
using System.Diagnostics;
using Garnet.server.Clients;

namespace Garnet.server.Metrics;

public sealed class ServerStatistics
{
    private readonly ClientRegistry _clients;
    private long _retiredCommands, _retiredErrors, _retiredNetIn, _retiredNetOut, _retiredWrites;
    private long _connectionsReceived, _rejectedConnections;
    private long _resetCommands, _resetErrors, _resetNetIn, _resetNetOut;

    // instantaneous_ops_per_sec: samples every 100 ms over the last 16 samples, as Redis does.
    private readonly long[] _opsSamples = new long[16], _inSamples = new long[16], _outSamples = new long[16];
    private int _sampleIndex;
    private long _lastOps, _lastIn, _lastOut, _lastSampleTicks;

    public ServerStatistics(ClientRegistry clients) => _clients = clients;

    public long StartTimestamp { get; } = Stopwatch.GetTimestamp();
    public DateTimeOffset StartTime { get; } = DateTimeOffset.UtcNow;

    public void ConnectionReceived() => Interlocked.Increment(ref _connectionsReceived);
    public void ConnectionRejected() => Interlocked.Increment(ref _rejectedConnections);

    public void Retire(long commands, long errors, long netIn, long netOut, long writes)
    {
        Interlocked.Add(ref _retiredWrites, writes);
        Interlocked.Add(ref _retiredCommands, commands);
        Interlocked.Add(ref _retiredErrors, errors);
        Interlocked.Add(ref _retiredNetIn, netIn);
        Interlocked.Add(ref _retiredNetOut, netOut);
    }

    /// <summary>Write commands that succeeded since start (the changes the save rules count); never reset.</summary>
    public long WritesTotal()
    {
        long n = Interlocked.Read(ref _retiredWrites);
        foreach (var s in _clients.Snapshot()) n += s.WritesApplied;
        return n;
    }

    public long ConnectionsReceived => Interlocked.Read(ref _connectionsReceived);
    public long RejectedConnections => Interlocked.Read(ref _rejectedConnections);

    private (long cmds, long errs, long netIn, long netOut) RawTotals()
    {
        long cmds = Interlocked.Read(ref _retiredCommands), errs = Interlocked.Read(ref _retiredErrors);
        long nin = Interlocked.Read(ref _retiredNetIn), nout = Interlocked.Read(ref _retiredNetOut);
        foreach (var s in _clients.Snapshot())
        {
            cmds += s.CommandsProcessed;
            errs += s.ErrorReplies;
            nin += s.NetInputBytes;
            nout += s.NetOutputBytes;
        }
        return (cmds, errs, nin, nout);
    }

    public (long commands, long errors, long netIn, long netOut) Totals()
    {
        var t = RawTotals();
        return (t.cmds - Interlocked.Read(ref _resetCommands), t.errs - Interlocked.Read(ref _resetErrors),
                t.netIn - Interlocked.Read(ref _resetNetIn), t.netOut - Interlocked.Read(ref _resetNetOut));
    }

    /// <summary>CONFIG RESETSTAT: counters read as zero from now on.</summary>
    public void Reset()
    {
        var t = RawTotals();
        Interlocked.Exchange(ref _resetCommands, t.cmds);
        Interlocked.Exchange(ref _resetErrors, t.errs);
        Interlocked.Exchange(ref _resetNetIn, t.netIn);
        Interlocked.Exchange(ref _resetNetOut, t.netOut);
        Interlocked.Exchange(ref _connectionsReceived, 0);
        Interlocked.Exchange(ref _rejectedConnections, 0);
    }

    private long _peakMemory;

    /// <summary>Largest managed heap size seen by the 100 ms samples (used_memory_peak).</summary>
    public long PeakMemory => Interlocked.Read(ref _peakMemory);

    /// <summary>Called every 100 ms by the server's housekeeping timer.</summary>
    public void Sample()
    {
        long used = GC.GetTotalMemory(false);
        if (used > Interlocked.Read(ref _peakMemory)) Interlocked.Exchange(ref _peakMemory, used);
        var t = RawTotals();
        long now = Stopwatch.GetTimestamp();
        if (_lastSampleTicks != 0)
        {
            double secs = (now - _lastSampleTicks) / (double)Stopwatch.Frequency;
            if (secs > 0)
            {
                int i = _sampleIndex++ % 16;
                _opsSamples[i] = (long)((t.cmds - _lastOps) / secs);
                _inSamples[i] = (long)((t.netIn - _lastIn) / secs);
                _outSamples[i] = (long)((t.netOut - _lastOut) / secs);
            }
        }
        _lastOps = t.cmds; _lastIn = t.netIn; _lastOut = t.netOut; _lastSampleTicks = now;
    }

    public long InstantaneousOpsPerSec => (long)_opsSamples.Average();
    public double InstantaneousInputKbps => _inSamples.Average() / 1024.0;
    public double InstantaneousOutputKbps => _outSamples.Average() / 1024.0;
}
