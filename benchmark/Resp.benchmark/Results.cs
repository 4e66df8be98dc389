// Results: what the load phase and the runs report (printed as tables by BenchmarkApp, written by JsonReport).
// Invariants: immutable records; latencies are in nanoseconds, ops are replies received, seconds are wall time
// from the start signal to the last reply; allocated bytes are those of the send and reader threads while the
// clock ran.
namespace Resp.benchmark;

public sealed record LoadResult(long Keys, double Seconds, long Errors, string? FirstError, LoaderType Loader);

public sealed record OfflineRunResult(int Threads, long Ops, double Seconds, long Errors, long Nulls, string? FirstError,
    long SenderAllocatedBytes, long ReaderAllocatedBytes)
{
    public double OpsPerSecond => Seconds > 0 ? Ops / Seconds : 0;
}

public sealed record LatencySummary(long Count, double Mean, long P50, long P90, long P99, long P999, long P9999, long Max)
{
    public static LatencySummary From(HdrHistogram.HistogramBase h) => new(h.TotalCount, Latencies.Mean(h),
        Latencies.Percentile(h, 50), Latencies.Percentile(h, 90), Latencies.Percentile(h, 99), Latencies.Percentile(h, 99.9),
        Latencies.Percentile(h, 99.99), Latencies.Max(h));
}

public sealed record IntervalResult(double Second, long Ops, double OpsPerSecond, long Errors, LatencySummary Latency);

public sealed record OpResult(OpType Op, long Errors, LatencySummary Latency);

public sealed record OnlineRunResult(int Threads, long Ops, double Seconds, long Errors, string? FirstError,
    LatencySummary All, List<OpResult> PerOp, List<IntervalResult> Intervals, long SenderAllocatedBytes, long ReaderAllocatedBytes)
{
    public double OpsPerSecond => Seconds > 0 ? Ops / Seconds : 0;
}
