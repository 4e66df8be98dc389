// LogHistogram against known distributions: percentiles compared with the exact nearest-rank values of the
// sorted samples, within the stated relative error bound (1/256).
using Resp.benchmark;

namespace Garnet.client.test;

[TestFixture]
public class LogHistogramTests
{
    private static readonly double[] Percentiles = [0.001, 1, 10, 50, 75, 90, 99, 99.9, 99.99, 100];

    /// <summary>Nearest rank: the ceil(p/100 * n)-th smallest sample.</summary>
    private static long Exact(long[] sorted, double p) =>
        sorted[Math.Max(1, (long)Math.Ceiling(p / 100.0 * sorted.Length)) - 1];

    private static void CheckAgainstExact(long[] samples)
    {
        var h = new LogHistogram();
        foreach (long v in samples) h.Record(v);
        var sorted = (long[])samples.Clone();
        Array.Sort(sorted);

        Assert.That(h.Count, Is.EqualTo(samples.Length));
        Assert.That(h.Min, Is.EqualTo(sorted[0]));
        Assert.That(h.Max, Is.EqualTo(sorted[^1]));
        Assert.That(h.Mean, Is.EqualTo(samples.Average(v => (double)v)).Within(1e-9).Percent);
        double worst = 0;
        foreach (double p in Percentiles)
        {
            long exact = Exact(sorted, p);
            long reported = h.Percentile(p);
            double error = exact == 0 ? reported : Math.Abs(reported - exact) / (double)exact;
            worst = Math.Max(worst, error);
            if (exact < LogHistogram.SubBuckets)
                Assert.That(reported, Is.EqualTo(exact), $"p{p}: values below {LogHistogram.SubBuckets} are exact");
            else
                Assert.That(error, Is.LessThanOrEqualTo(LogHistogram.RelativeErrorBound), $"p{p}: exact {exact}, reported {reported}");
        }
        TestContext.Out.WriteLine($"worst relative error {worst:E2} (bound {LogHistogram.RelativeErrorBound:E2})");
    }

    [Test]
    public void UniformSamplesMatchSortedPercentiles()
    {
        var rng = new Random(12345);
        var samples = new long[1_000_000];
        for (int i = 0; i < samples.Length; i++) samples[i] = rng.NextInt64(0, 10_000_000);
        CheckAgainstExact(samples);
    }

    [Test]
    public void ExponentialSamplesMatchSortedPercentiles()
    {
        // Latency-like: mean 50 us in nanoseconds, a long tail.
        var rng = new Random(777);
        var samples = new long[1_000_000];
        for (int i = 0; i < samples.Length; i++) samples[i] = (long)(-Math.Log(1.0 - rng.NextDouble()) * 50_000);
        CheckAgainstExact(samples);
    }

    [Test]
    public void WideRangeSamplesMatchSortedPercentiles()
    {
        // Log-uniform over 0 .. 2^62: every power-of-two range is exercised, including the top buckets.
        var rng = new Random(99);
        var samples = new long[200_000];
        for (int i = 0; i < samples.Length; i++) samples[i] = (long)Math.Pow(2, rng.NextDouble() * 62);
        CheckAgainstExact(samples);
    }

    [Test]
    public void SmallValuesAreExact()
    {
        var samples = Enumerable.Range(0, 128).Select(i => (long)i).Concat(Enumerable.Range(0, 128).Select(i => (long)i)).ToArray();
        CheckAgainstExact(samples);
        var h = new LogHistogram();
        foreach (var v in samples) h.Record(v);
        Assert.That(h.Percentile(50), Is.EqualTo(63));
    }

    [Test]
    public void BucketsTileEveryLongAndRespectTheWidthBound()
    {
        var values = new List<long> { 0, 1, 127, 128, 255, 256, 257, 511, 512, long.MaxValue, long.MaxValue - 1 };
        for (int b = 1; b < 63; b++) values.AddRange([(1L << b) - 1, 1L << b, (1L << b) + 1]);
        var rng = new Random(5);
        for (int i = 0; i < 100_000; i++) values.Add(rng.NextInt64(long.MaxValue) >> rng.Next(63));
        foreach (long v in values)
        {
            int index = LogHistogram.IndexOf(v);
            Assert.That(index, Is.InRange(0, LogHistogram.BucketCount - 1));
            long lo = LogHistogram.LowestOf(index), width = LogHistogram.WidthOf(index);
            Assert.That(v, Is.GreaterThanOrEqualTo(lo), $"value {v} below its bucket {index}");
            Assert.That(v - lo, Is.LessThan(width), $"value {v} beyond its bucket {index}");
            Assert.That(width == 1 || width * LogHistogram.SubBuckets <= lo, $"bucket {index} wider than 1/128 of {lo}");
        }
        // Consecutive buckets are contiguous.
        for (int i = 1; i < LogHistogram.BucketCount; i++)
            Assert.That(LogHistogram.LowestOf(i), Is.EqualTo(LogHistogram.LowestOf(i - 1) + LogHistogram.WidthOf(i - 1)));
    }

    [Test]
    public void TheBoundIsReachedSoItIsTight()
    {
        // 256 and 257 share a bucket of width 2 whose midpoint is 257: the median (256) is reported 1/256 high.
        var h = new LogHistogram();
        h.Record(256);
        h.Record(257);
        Assert.That(h.Percentile(50), Is.EqualTo(257));
        Assert.That((257 - 256) / 256.0, Is.EqualTo(LogHistogram.RelativeErrorBound));
    }

    [Test]
    public void MergeAndIntervalDifference()
    {
        var rng = new Random(3);
        var a = new LogHistogram();
        var b = new LogHistogram();
        var both = new LogHistogram();
        for (int i = 0; i < 50_000; i++)
        {
            long v = rng.NextInt64(1, 5_000_000);
            (i % 3 == 0 ? a : b).Record(v);
            both.Record(v);
        }
        var merged = new LogHistogram();
        merged.Add(a);
        merged.Add(b);
        Assert.That(merged.Count, Is.EqualTo(both.Count));
        Assert.That(merged.Min, Is.EqualTo(both.Min));
        Assert.That(merged.Max, Is.EqualTo(both.Max));
        foreach (double p in Percentiles) Assert.That(merged.Percentile(p), Is.EqualTo(both.Percentile(p)));

        // Interval = cumulative now - cumulative before.
        var before = new LogHistogram();
        before.Add(a);
        var interval = new LogHistogram();
        interval.SetDifference(merged, before);
        Assert.That(interval.Count, Is.EqualTo(b.Count));
        foreach (double p in new[] { 50.0, 90, 99 }) Assert.That(interval.Percentile(p), Is.EqualTo(b.Percentile(p)));
    }

    [Test]
    public void EmptyAndNegative()
    {
        var h = new LogHistogram();
        Assert.That(h.Percentile(99), Is.EqualTo(0));
        Assert.That(h.Count, Is.EqualTo(0));
        h.Record(-5);
        Assert.That(h.Min, Is.EqualTo(0));
        Assert.That(h.Percentile(50), Is.EqualTo(0));
    }
}
