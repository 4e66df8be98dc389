// ZipfDistribution: ranks 0..n-1 with P(rank k) proportional to 1/(k+1)^theta, 0 < theta < 1, sampled in O(1)
// by the method of Gray, Sundaresan, Englert, Baclawski and Weinberger ("Quickly generating billion-record
// synthetic databases", SIGMOD 1994).
// Invariants: immutable after construction (shared by all threads); construction sums zeta(n, theta) once, O(n);
// ranks 0 and 1 get exactly their Zipf probabilities, higher ranks follow the method's continuous approximation.
// Every sample is in [0, n).
namespace Resp.benchmark;

public sealed class ZipfDistribution
{
    private readonly long _n;
    private readonly double _theta, _zetaN, _alpha, _eta, _half;

    public ZipfDistribution(long n, double theta)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(n, 1);
        if (!(theta > 0 && theta < 1)) throw new ArgumentOutOfRangeException(nameof(theta), "theta must be in (0, 1)");
        _n = n;
        _theta = theta;
        _zetaN = Zeta(n, theta);
        _alpha = 1.0 / (1.0 - theta);
        _half = Math.Pow(0.5, theta);
        double zeta2 = 1.0 + _half;
        _eta = n <= 2 ? 0 : (1.0 - Math.Pow(2.0 / n, 1.0 - theta)) / (1.0 - zeta2 / _zetaN);
    }

    public long N => _n;
    public double Theta => _theta;

    /// <summary>The normalizing sum: sum over k = 1..n of 1/k^theta.</summary>
    public double ZetaN => _zetaN;

    /// <summary>Exact probability of rank <paramref name="k"/> (0-based).</summary>
    public double Probability(long k) => 1.0 / Math.Pow(k + 1, _theta) / _zetaN;

    /// <summary>Maps a uniform u in [0, 1) to a rank.</summary>
    public long Sample(double u)
    {
        double uz = u * _zetaN;
        if (uz < 1.0) return 0;
        if (uz < 1.0 + _half || _n <= 2) return Math.Min(1, _n - 1);
        long k = (long)(_n * Math.Pow(_eta * u - _eta + 1.0, _alpha));
        return Math.Clamp(k, 0, _n - 1);
    }

    private static double Zeta(long n, double theta)
    {
        double sum = 0;
        for (long i = 1; i <= n; i++) sum += 1.0 / Math.Pow(i, theta);
        return sum;
    }
}
