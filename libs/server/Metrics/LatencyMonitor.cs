// LatencyMonitor: Redis's latency monitor (LATENCY LATEST/HISTORY/RESET/GRAPH/DOCTOR): per event ("command",
// "fast-command", "aof-write", "aof-fsync-always", ...), the last 160 samples of at least latency-monitor-threshold ms,
// one per second (the highest of that second), and the all-time high.
// Invariants:
//  - Off (threshold 0, the default) the hot path costs one volatile read; on, one comparison; a lock is taken only to add a
//    sample over the threshold (rare by construction) or to read.
//  - Events are created on their first sample and removed only by LATENCY RESET.
namespace Garnet.server.Metrics;

public sealed class LatencyMonitor
{
    public const int SamplesPerEvent = 160;

    public readonly record struct Sample(long UnixSeconds, long Ms);

    private sealed class Series
    {
        public readonly Sample[] Samples = new Sample[SamplesPerEvent];
        public int Next;
        public long Max;
    }

    private readonly Dictionary<string, Series> _events = new(StringComparer.Ordinal);

    /// <summary>latency-monitor-threshold in ms (0: off).</summary>
    public volatile int ThresholdMs;

    /// <summary>The clock (unix seconds); tests replace it.</summary>
    public Func<long> UnixSeconds { get; set; } = () => DateTimeOffset.UtcNow.ToUnixTimeSeconds();

    /// <summary>The process's anonymous huge pages in bytes, for LATENCY DOCTOR's THP advice; tests replace it.</summary>
    public Func<long> AnonHugePagesBytes { get; set; } = LatencyReport.AnonHugePagesBytes;

    /// <summary>Redis's latencyAddSampleIfNeeded.</summary>
    public void AddIfNeeded(string evt, long ms)
    {
        int t = ThresholdMs;
        if (t > 0 && ms >= t) Add(evt, ms);
    }

    public void Add(string evt, long ms)
    {
        long now = UnixSeconds();
        lock (_events)
        {
            if (!_events.TryGetValue(evt, out var s)) _events[evt] = s = new Series();
            if (ms > s.Max) s.Max = ms;
            int prev = (s.Next + SamplesPerEvent - 1) % SamplesPerEvent;
            if (s.Samples[prev].UnixSeconds == now)
            {
                if (ms > s.Samples[prev].Ms) s.Samples[prev] = new Sample(now, ms);
                return;
            }
            s.Samples[s.Next] = new Sample(now, ms);
            s.Next = (s.Next + 1) % SamplesPerEvent;
        }
    }

    /// <summary>LATENCY LATEST: (event, time of the latest sample, its latency, all-time high).</summary>
    public List<(string Event, long Time, long Ms, long Max)> Latest()
    {
        lock (_events)
            return _events.Select(kv =>
            {
                var last = kv.Value.Samples[(kv.Value.Next + SamplesPerEvent - 1) % SamplesPerEvent];
                return (kv.Key, last.UnixSeconds, last.Ms, kv.Value.Max);
            }).ToList();
    }

    /// <summary>The samples of evt, oldest first (null: no such event), with its all-time high.</summary>
    public (List<Sample> Samples, long Max)? History(string evt)
    {
        lock (_events)
        {
            if (!_events.TryGetValue(evt, out var s)) return null;
            var list = new List<Sample>();
            for (int j = 0; j < SamplesPerEvent; j++)
            {
                var x = s.Samples[(s.Next + j) % SamplesPerEvent];
                if (x.UnixSeconds != 0) list.Add(x);
            }
            return (list, s.Max);
        }
    }

    public IReadOnlyList<string> Events()
    {
        lock (_events) return _events.Keys.ToList();
    }

    /// <summary>LATENCY RESET: removes the named events (all when none); returns how many were removed.</summary>
    public int Reset(IReadOnlyCollection<string>? events)
    {
        lock (_events)
        {
            if (events is null || events.Count == 0)
            {
                int n = _events.Count;
                _events.Clear();
                return n;
            }
            int removed = 0;
            foreach (var key in _events.Keys.ToList())
                if (events.Any(e => e.Equals(key, StringComparison.OrdinalIgnoreCase)) && _events.Remove(key)) removed++;
            return removed;
        }
    }
}
