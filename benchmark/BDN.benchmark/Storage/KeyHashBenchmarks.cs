// KeyHash over keys of typical lengths (a GET hashes its key once for the index): 1024 different keys per invocation,
// so the time reported is per key.
using BenchmarkDotNet.Attributes;
using Garnet.storage.Util;

namespace BDN.benchmark.Storage;

public class KeyHashBenchmarks
{
    private const int Count = 1024;

    [Params(6, 13, 16, 24, 40)]
    public int Length { get; set; }

    private byte[] _keys = null!;

    [GlobalSetup]
    public void Setup()
    {
        _keys = new byte[Count * Length];
        new Random(7).NextBytes(_keys);
    }

    [Benchmark(OperationsPerInvoke = Count)]
    public ulong Hash()
    {
        ulong sum = 0;
        var keys = _keys.AsSpan();
        for (int i = 0; i < Count; i++) sum += KeyHash.Hash(keys.Slice(i * Length, Length));
        return sum;
    }
}
