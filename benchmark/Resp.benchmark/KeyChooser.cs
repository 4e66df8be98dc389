// KeyChooser: picks key indexes in [0, dbsize), uniformly or by a shared Zipf distribution, from its own
// SplitMix64 stream.
// Invariants: one per thread (holds the generator state); no allocation per choice; the same seed gives the same
// sequence. Zipf rank 0 is key 0 (the hottest), rank 1 key 1, and so on.
namespace Resp.benchmark;

public sealed class KeyChooser(long dbSize, ZipfDistribution? zipf, ulong seed)
{
    private SplitMix64 _rng = new(seed);

    public long DbSize => dbSize;

    public long NextKey() => zipf is null ? _rng.NextBelow(dbSize) : zipf.Sample(_rng.NextDouble());

    /// <summary>Uniform in [0, n): for things other than keys (scores, the operation mix).</summary>
    public long NextBelow(long n) => _rng.NextBelow(n);

    /// <summary>A seed for thread <paramref name="thread"/> of a run, distinct per thread and per purpose.</summary>
    public static ulong SeedFor(long seed, int thread, int purpose) =>
        new SplitMix64((ulong)seed * 0x9E3779B97F4A7C15UL ^ ((ulong)thread << 20) ^ (ulong)purpose).Next();
}
