// LatencyHistogram: a log-linear histogram of durations in nanoseconds (the shape of HdrHistogram: each power of two is split
// into 32 equal sub-buckets, so a value is known to within 1/32, about 3%), for latencystats and LATENCY HISTOGRAM.
// Invariants:
//  - Recording is one Interlocked increment of one bucket; no allocation, no lock. Values above MaxValue count as MaxValue.
//  - Readers sum the buckets as they find them (a reading may miss increments made meanwhile, never invents any).
//  - A bucket is reported by its highest value (as HdrHistogram's highest_equivalent_value), so a percentile is never below
//    the true one.

namespace Garnet.server.Metrics;

public static class LatencyHistogram
{
    public const int SubBits = 5;
    private const int Sub = 1 << SubBits;
    /// <summary>Durations from 0 to 2^40 ns (about 18 minutes) are told apart.</summary>
    public const long MaxValue = (1L << 40) - 1;
    public const int BucketCount = Sub + (40 - SubBits) * Sub;

    public static int BucketOf(long ns)
    {
        if (ns < Sub) return ns < 0 ? 0 : (int)ns;
        if (ns > MaxValue) ns = MaxValue;
        int msb = 63 - System.Numerics.BitOperations.LeadingZeroCount((ulong)ns);
        int shift = msb - SubBits;
        return Sub + shift * Sub + (int)((ns >> shift) - Sub);
    }

    /// <summary>The highest value that falls in bucket.</summary>
    public static long HighestOf(int bucket)
    {
        if (bucket < Sub) return bucket;
        int shift = (bucket - Sub) / Sub, sub = (bucket - Sub) % Sub;
        return ((long)(Sub + sub + 1) << shift) - 1;
    }

    public static void Record(long[] buckets, long ns) => Interlocked.Increment(ref buckets[BucketOf(ns)]);

    /// <summary>Adds the buckets of src into dst.</summary>
    public static void AddInto(long[] dst, long[] src)
    {
        for (int i = 0; i < dst.Length; i++) dst[i] += Volatile.Read(ref src[i]);
    }

    public static long Total(long[] buckets)
    {
        long n = 0;
        foreach (var b in buckets) n += b;
        return n;
    }

    /// <summary>The value below or at which percentile (0..100) of the recorded values lie, in ns (0 when empty).</summary>
    public static long ValueAtPercentile(long[] buckets, double percentile)
    {
        long total = Total(buckets);
        if (total == 0) return 0;
        long target = Math.Max(1, (long)Math.Ceiling(Math.Min(100, Math.Max(0, percentile)) / 100.0 * total));
        long seen = 0;
        for (int i = 0; i < buckets.Length; i++)
        {
            seen += buckets[i];
            if (seen >= target) return HighestOf(i);
        }
        return HighestOf(buckets.Length - 1);
    }

    /// <summary>Redis 7's LATENCY HISTOGRAM rows: (upper bound in µs, cumulative count) for power-of-two ranges starting at
    /// 1024 ns, only where the count grows.</summary>
    public static List<(long usec, long cumulative)> PowerOfTwoCdf(long[] buckets)
    {
        var rows = new List<(long, long)>();
        long bound = 1024, cumulative = 0, previous = 0;
        int i = 0;
        while (i < buckets.Length)
        {
            // every bucket whose highest value is within the bound
            while (i < buckets.Length && HighestOf(i) < bound) cumulative += buckets[i++];
            if (cumulative > previous) rows.Add((bound / 1000, cumulative));
            previous = cumulative;
            if (bound > MaxValue) break;
            bound <<= 1;
        }
        return rows;
    }
}
