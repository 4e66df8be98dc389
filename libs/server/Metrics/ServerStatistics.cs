// ServerStatistics: server-wide counters for INFO. Per-request counters live in each session (no shared cache line on
// the hot path) and are summed here on demand; closed sessions fold theirs into the retired totals.
// Invariants:
//  - CONFIG RESETSTAT makes every counter read as zero from then on (a baseline is subtracted; nothing a session owns
//    is written by another thread).
//  - The instantaneous_* figures are averages of the last 16 samples taken every 100 ms (Redis's STATS_METRIC_SAMPLES).
using System.Diagnostics;
using Garnet.server.Clients;

namespace Garnet.server.Metrics;

/// <summary>Counter totals over all sessions, live and closed.</summary>
public readonly record struct CounterTotals(long Commands, long Errors, long NetIn, long NetOut, long KeyspaceHits, long KeyspaceMisses)
{
    public static CounterTotals operator -(CounterTotals a, CounterTotals b) =>
        new(a.Commands - b.Commands, a.Errors - b.Errors, a.NetIn - b.NetIn, a.NetOut - b.NetOut,
            a.KeyspaceHits - b.KeyspaceHits, a.KeyspaceMisses - b.KeyspaceMisses);
}

public sealed class ServerStatistics
{
    private readonly ClientRegistry _clients;
    private readonly object _retiredLock = new();
    private CounterTotals _retired;
    private long _retiredWrites;
    private CounterTotals _baseline;
    private long _connectionsReceived, _rejectedConnections, _expiredKeysBaseline;

    // instantaneous_*: samples every 100 ms over the last 16 samples, as Redis does.
    private readonly long[] _opsSamples = new long[16], _inSamples = new long[16], _outSamples = new long[16];
    private int _sampleIndex;
    private long _lastOps, _lastIn, _lastOut, _lastSampleTicks;

    public ServerStatistics(ClientRegistry clients) => _clients = clients;

    public long StartTimestamp { get; } = Stopwatch.GetTimestamp();
    public DateTimeOffset StartTime { get; } = DateTimeOffset.UtcNow;

    /// <summary>Error replies by their code (errorstat_*).</summary>
    public ErrorStats Errors { get; } = new();

    public void ConnectionReceived() => Interlocked.Increment(ref _connectionsReceived);
    public void ConnectionRejected() => Interlocked.Increment(ref _rejectedConnections);

    /// <summary>A closed session hands over its counters.</summary>
    public void Retire(CounterTotals counters, long writes)
    {
        Interlocked.Add(ref _retiredWrites, writes);
        lock (_retiredLock)
        {
            var r = _retired;
            _retired = new CounterTotals(r.Commands + counters.Commands, r.Errors + counters.Errors, r.NetIn + counters.NetIn,
                r.NetOut + counters.NetOut, r.KeyspaceHits + counters.KeyspaceHits, r.KeyspaceMisses + counters.KeyspaceMisses);
        }
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

    private CounterTotals RawTotals()
    {
        CounterTotals t;
        lock (_retiredLock) t = _retired;
        long cmds = t.Commands, errs = t.Errors, nin = t.NetIn, nout = t.NetOut, hits = t.KeyspaceHits, misses = t.KeyspaceMisses;
        foreach (var s in _clients.Snapshot())
        {
            cmds += s.CommandsProcessed;
            errs += s.ErrorReplies;
            nin += s.NetInputBytes;
            nout += s.NetOutputBytes;
            hits += s.KeyspaceHits;
            misses += s.KeyspaceMisses;
        }
        return new CounterTotals(cmds, errs, nin, nout, hits, misses);
    }

    /// <summary>The counters since start or since the last CONFIG RESETSTAT.</summary>
    public CounterTotals Totals()
    {
        CounterTotals baseline;
        lock (_retiredLock) baseline = _baseline;
        return RawTotals() - baseline;
    }

    /// <summary>expired_keys: the store's count since start, less the count at the last CONFIG RESETSTAT.</summary>
    public long ExpiredKeys(long storeExpiredKeys) => storeExpiredKeys - Interlocked.Read(ref _expiredKeysBaseline);

    /// <summary>CONFIG RESETSTAT: counters read as zero from now on.</summary>
    public void Reset(long storeExpiredKeys)
    {
        var t = RawTotals();
        lock (_retiredLock) _baseline = t;
        Interlocked.Exchange(ref _expiredKeysBaseline, storeExpiredKeys);
        Interlocked.Exchange(ref _connectionsReceived, 0);
        Interlocked.Exchange(ref _rejectedConnections, 0);
        Errors.Reset();
    }

    private long _peakMemory;

    /// <summary>How used_memory is measured (set by InfoBuilder / the host); null: the managed heap only.</summary>
    public Func<long>? UsedMemoryProbe { get; set; }

    /// <summary>Largest used_memory seen by the 100 ms samples (used_memory_peak).</summary>
    public long PeakMemory => Interlocked.Read(ref _peakMemory);

    /// <summary>Raises the peak to used when it is higher (INFO does it too, as Redis does).</summary>
    public void ObservePeak(long used)
    {
        long peak = Interlocked.Read(ref _peakMemory);
        while (used > peak)
        {
            long seen = Interlocked.CompareExchange(ref _peakMemory, used, peak);
            if (seen == peak) return;
            peak = seen;
        }
    }

    /// <summary>Called every 100 ms by the server's housekeeping timer.</summary>
    public void Sample()
    {
        ObservePeak(UsedMemoryProbe?.Invoke() ?? GC.GetTotalMemory(false));
        var t = RawTotals();
        long now = Stopwatch.GetTimestamp();
        if (_lastSampleTicks != 0)
        {
            double secs = (now - _lastSampleTicks) / (double)Stopwatch.Frequency;
            if (secs > 0)
            {
                int i = _sampleIndex++ % 16;
                _opsSamples[i] = (long)((t.Commands - _lastOps) / secs);
                _inSamples[i] = (long)((t.NetIn - _lastIn) / secs);
                _outSamples[i] = (long)((t.NetOut - _lastOut) / secs);
            }
        }
        _lastOps = t.Commands; _lastIn = t.NetIn; _lastOut = t.NetOut; _lastSampleTicks = now;
    }

    public long InstantaneousOpsPerSec => (long)_opsSamples.Average();
    public double InstantaneousInputKbps => _inSamples.Average() / 1024.0;
    public double InstantaneousOutputKbps => _outSamples.Average() / 1024.0;
}
