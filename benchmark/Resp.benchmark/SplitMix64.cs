// SplitMix64: a small, fast, seedable random generator (Steele, Lea and Flood's SplitMix64 output function).
// Invariants: a value type with no allocation; the same seed gives the same sequence on every machine; one
// instance per thread (not thread-safe).
namespace Resp.benchmark;

public struct SplitMix64(ulong seed)
{
    private ulong _state = seed;

    public ulong Next()
    {
        ulong z = _state += 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }

    /// <summary>Uniform in [0, 1) with 53 random bits.</summary>
    public double NextDouble() => (Next() >> 11) * (1.0 / (1UL << 53));

    /// <summary>Uniform in [0, n) for n &gt;= 1 (multiply-high; the bias is below 2^-64 * n).</summary>
    public long NextBelow(long n) => (long)Math.BigMul(Next(), (ulong)n, out _);
}
