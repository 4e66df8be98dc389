// Latencies: the latency histograms of the online mode, on HdrHistogram (LongHistogram, 3 significant digits).
// Invariants:
// - Values are nanoseconds from 1 ns to MaxNanos (one hour); larger values are recorded as MaxNanos, smaller as 1,
//   so RecordValue never throws.
// - With 3 significant digits a reported percentile or maximum is within 0.1% of the exact nearest-rank value
//   (HdrHistogram reports the highest value equivalent to the sample's bucket).
// - Histograms that are written while another thread reads go through an HdrHistogram Recorder (see
//   LatencyRecorder); plain LongHistograms are read only after their writer has finished.
using HdrHistogram;

namespace Resp.benchmark;

public static class Latencies
{
    public const long MaxNanos = 3_600_000_000_000L;
    public const int SignificantDigits = 3;

    /// <summary>Largest |reported - exact| / exact of a percentile with SignificantDigits (10^-digits).</summary>
    public const double RelativeErrorBound = 0.001;

    public static LongHistogram NewHistogram() => new(1, MaxNanos, SignificantDigits);

    public static Recorder NewRecorder() =>
        new(1, MaxNanos, SignificantDigits, (id, low, high, digits) => new LongHistogram(id, low, high, digits));

    public static long Clamp(long nanos) => nanos < 1 ? 1 : nanos > MaxNanos ? MaxNanos : nanos;

    /// <summary>Nearest-rank percentile (0 &lt; p &lt;= 100); 0 for an empty histogram.</summary>
    public static long Percentile(HistogramBase h, double p) => h.TotalCount == 0 ? 0 : h.GetValueAtPercentile(p);

    public static double Mean(HistogramBase h) => h.TotalCount == 0 ? 0 : h.GetMean();

    public static long Max(HistogramBase h) => h.TotalCount == 0 ? 0 : h.GetMaxValue();
}
