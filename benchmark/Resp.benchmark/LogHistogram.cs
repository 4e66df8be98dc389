// LogHistogram: a compact log-bucketed histogram of non-negative longs (latencies in nanoseconds), in the manner
// of an HDR histogram with a fixed precision.
// Invariants:
// - Values below 2^SubBucketBits (128) have a bucket each. Above that, every power-of-two range [2^h, 2^(h+1))
//   is cut into 128 equal buckets, so a bucket's width is at most 1/128 of its lowest value.
// - A percentile is answered with the midpoint of the bucket holding the nearest-rank sample, so it is within
//   1/256 (0.39%) of the exact nearest-rank value, and exact below 128. Min, Max, Count and the mean are exact.
// - Covers every long from 0 to long.MaxValue (7,296 buckets, 57 KB); negative values are recorded as 0.
// - One writer at a time. Another thread may read counts while it writes (each is one aligned long), which is
//   what interval reports do; such a snapshot may miss the latest records, never tears a count.
namespace Resp.benchmark;

public sealed class LogHistogram
{
    public const int SubBucketBits = 7;
    public const int SubBuckets = 1 << SubBucketBits;
    public const int BucketCount = (64 - SubBucketBits) * SubBuckets;

    /// <summary>Largest |reported - exact| / exact of a percentile (exact = the nearest-rank sample).</summary>
    public const double RelativeErrorBound = 1.0 / (2 * SubBuckets);

    private readonly long[] _counts = new long[BucketCount];
    private long _count;
    private long _min = long.MaxValue;
    private long _max;
    private double _sum;

    public long Count => Volatile.Read(ref _count);
    public long Min => _count == 0 ? 0 : _min;
    public long Max => _max;
    public double Mean => _count == 0 ? 0 : _sum / _count;

    public static int IndexOf(long value)
    {
        if (value < SubBuckets) return value < 0 ? 0 : (int)value;
        int shift = System.Numerics.BitOperations.Log2((ulong)value) - SubBucketBits;
        return shift * SubBuckets + (int)(value >> shift);
    }

    /// <summary>Lowest value that falls in bucket <paramref name="index"/>.</summary>
    public static long LowestOf(int index)
    {
        if (index < 2 * SubBuckets) return index;
        int shift = index / SubBuckets - 1;
        long sub = index - shift * SubBuckets; // in [SubBuckets, 2 * SubBuckets)
        return sub << shift;
    }

    /// <summary>Number of values that fall in bucket <paramref name="index"/>.</summary>
    public static long WidthOf(int index) => index < 2 * SubBuckets ? 1 : 1L << (index / SubBuckets - 1);

    /// <summary>The value reported for bucket <paramref name="index"/>: its midpoint.</summary>
    public static long MidpointOf(int index) => LowestOf(index) + (WidthOf(index) >> 1);

    public void Record(long value)
    {
        if (value < 0) value = 0;
        _counts[IndexOf(value)]++;
        if (value < _min) _min = value;
        if (value > _max) _max = value;
        _sum += value;
        Volatile.Write(ref _count, _count + 1);
    }

    /// <summary>Nearest-rank percentile (0 &lt; p &lt;= 100): the midpoint of the bucket holding sample ceil(p/100 * Count).</summary>
    public long Percentile(double p)
    {
        long count = Count;
        if (count == 0) return 0;
        if (p >= 100) return Max;
        long rank = Math.Max(1, (long)Math.Ceiling(p / 100.0 * count));
        long seen = 0;
        for (int i = 0; i < BucketCount; i++)
        {
            seen += Volatile.Read(ref _counts[i]);
            if (seen >= rank) return Math.Clamp(MidpointOf(i), Min, Max);
        }
        return Max;
    }

    /// <summary>Adds another histogram's records (its count is taken as the sum of the buckets read, so a
    /// snapshot of a histogram being written stays self-consistent).</summary>
    public void Add(LogHistogram other)
    {
        long added = 0;
        for (int i = 0; i < BucketCount; i++)
        {
            long c = Volatile.Read(ref other._counts[i]);
            _counts[i] += c;
            added += c;
        }
        if (added == 0) return;
        _count += added;
        _sum += other._sum;
        if (other._min < _min) _min = other._min;
        if (other._max > _max) _max = other._max;
    }

    /// <summary>
    /// This histogram becomes <paramref name="now"/> minus <paramref name="before"/> (an earlier snapshot of the same
    /// cumulative data): the records of one interval. Min and Max are then bucket bounds, not exact values.
    /// </summary>
    public void SetDifference(LogHistogram now, LogHistogram before)
    {
        Reset();
        long count = 0;
        for (int i = 0; i < BucketCount; i++)
        {
            long c = now._counts[i] - before._counts[i];
            if (c <= 0) continue;
            _counts[i] = c;
            count += c;
            long lo = LowestOf(i), hi = lo + WidthOf(i) - 1;
            if (lo < _min) _min = lo;
            if (hi > _max) _max = hi;
            _sum += (double)c * MidpointOf(i);
        }
        _count = count;
        if (count > 0)
        {
            _min = Math.Max(_min, now.Min);
            _max = Math.Min(_max, now.Max);
        }
    }

    public void Reset()
    {
        Array.Clear(_counts);
        _count = 0;
        _min = long.MaxValue;
        _max = 0;
        _sum = 0;
    }
}
