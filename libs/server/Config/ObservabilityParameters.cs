// ObservabilityParameters: the CONFIG GET/SET parameters of the slow log, the latency monitor, latency tracking and the
// Unix socket, with Redis's names, ranges and error texts (docs/observability.md).
// Invariants: every value is read from the running component (SlowLog, LatencyMonitor, CommandStatistics), never a copy.
using System.Globalization;

namespace Garnet.server.Config;

public static class ObservabilityParameters
{
    private static string Int(long n) => n.ToString(CultureInfo.InvariantCulture);

    public static readonly IReadOnlyList<ConfigParameter> All =
    [
        new() { Name = "unixsocket", Get = s => s.Settings.UnixSocket ?? "" },
        new() { Name = "unixsocketperm", Get = s => Convert.ToString(s.Settings.UnixSocketPerm, 8) },
        new()
        {
            Name = "slowlog-log-slower-than", Get = s => Int(s.SlowLog.ThresholdUsec),
            Prepare = (s, v) => Integer(v, -1, int.MaxValue, n => s.SlowLog.ThresholdUsec = (int)n),
        },
        new()
        {
            Name = "slowlog-max-len", Get = s => Int(s.SlowLog.MaxLen),
            Prepare = (s, v) => Integer(v, 0, int.MaxValue, n => s.SlowLog.MaxLen = (int)n),
        },
        new()
        {
            Name = "latency-monitor-threshold", Get = s => Int(s.Latency.ThresholdMs),
            Prepare = (s, v) => Integer(v, 0, int.MaxValue, n => s.Latency.ThresholdMs = (int)n),
        },
        new()
        {
            Name = "latency-tracking", Get = s => s.CommandStats.TrackLatency ? "yes" : "no",
            Prepare = (s, v) => v.ToLowerInvariant() switch
            {
                "yes" => (() => s.CommandStats.TrackLatency = true, null),
                "no" => (() => s.CommandStats.TrackLatency = false, null),
                _ => (null, "argument must be 'yes' or 'no'"),
            },
        },
        new()
        {
            Name = "latency-tracking-info-percentiles", Get = s => FormatPercentiles(s.LatencyPercentiles),
            Prepare = (s, v) => TryParsePercentiles(v, out var p, out var error)
                ? (() => s.LatencyPercentiles = p, null) : (null, error),
        },
    ];

    /// <summary>Redis's form: each percentile as %f with trailing zeros trimmed ("50 99 99.9").</summary>
    public static string FormatPercentiles(double[] p) => string.Join(' ', p.Select(FormatPercentile));

    public static string FormatPercentile(double p)
    {
        var t = p.ToString("F6", CultureInfo.InvariantCulture);
        if (t.Contains('.')) t = t.TrimEnd('0').TrimEnd('.');
        return t;
    }

    public static bool TryParsePercentiles(string v, out double[] percentiles, out string? error)
    {
        var parts = v.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        percentiles = new double[parts.Length];
        error = null;
        for (int i = 0; i < parts.Length; i++)
        {
            if (!double.TryParse(parts[i], NumberStyles.Float, CultureInfo.InvariantCulture, out double d) || double.IsNaN(d))
            { error = "Invalid latency-tracking-info-percentiles parameters"; return false; }
            if (d < 0 || d > 100) { error = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"; return false; }
            percentiles[i] = d;
        }
        return true;
    }

    private static (Action?, string?) Integer(string v, long min, long max, Action<long> set)
    {
        if (!long.TryParse(v, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long n))
            return (null, "argument couldn't be parsed into an integer");
        if (n < min || n > max) return (null, $"argument must be between {min} and {max} inclusive");
        return (() => set(n), null);
    }
}
