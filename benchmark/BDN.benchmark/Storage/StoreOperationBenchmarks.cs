// Read, Upsert and RMW (increment) of 8-byte keys and values through the storage engine, on 1 and 2 threads,
// with everything in memory or with about 90% of the records on disk. One invocation runs OpsPerInvoke operations
// (split over the threads), so the reported time is per operation.
using System.Buffers.Binary;
using BenchmarkDotNet.Attributes;
using Garnet.storage.Store;

namespace BDN.benchmark.Storage;

[MemoryDiagnoser]
public class StoreOperationBenchmarks
{
    private const int Keys = 1 << 20;
    // 64K operations: a "disk90" invocation (~25 us/op) then takes ~1.6 s, which keeps the whole suite under 10 minutes
    // with --job short (it was 1 << 18, ~6.5 s per disk90 invocation, ~8 of them per case).
    private const int OpsPerInvoke = 1 << 16;

    [Params("memory", "disk90")]
    public string Placement { get; set; } = "memory";

    [Params(1, 2)]
    public int Threads { get; set; }

    private KVStore _store = null!;
    private StoreSession<long, long, CounterFunctions>[] _sessions = null!;
    private string _dir = null!;

    [GlobalSetup]
    public void Setup()
    {
        _dir = Directory.CreateTempSubdirectory("garnet-bdn-").FullName;
        // A record of an 8-byte key and value is 32 bytes: 1M keys = 32 MB of log. "disk90" keeps 3 MB in memory.
        bool disk = Placement == "disk90";
        _store = new KVStore(new KVStoreSettings
        {
            Directory = _dir, PageBits = disk ? 16 : 22, SegmentBits = 30,
            MemoryBytes = disk ? 48L << 16 : 256L << 20, IndexBuckets = 1 << 18,
            CopyReadsFromDiskToTail = false, // keep the 90% on disk for the whole run
        });
        _sessions = Enumerable.Range(0, 2).Select(_ => _store.NewSession<long, long, CounterFunctions>(new CounterFunctions())).ToArray();
        Span<byte> key = stackalloc byte[8], value = stackalloc byte[8];
        for (long k = 0; k < Keys; k++)
        {
            BinaryPrimitives.WriteInt64LittleEndian(key, k);
            BinaryPrimitives.WriteInt64LittleEndian(value, k);
            _sessions[0].Upsert(key, value);
            if ((k & 1023) == 0) _sessions[0].CompletePending(wait: true);
        }
        _sessions[0].CompletePending(wait: true);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        foreach (var s in _sessions) s.Dispose();
        _store.Dispose();
        try { Directory.Delete(_dir, true); } catch { }
    }

    private void Run(Action<StoreSession<long, long, CounterFunctions>, int, int> body)
    {
        int per = OpsPerInvoke / Threads;
        if (Threads == 1) { body(_sessions[0], 0, per); return; }
        var t = new Thread(() => body(_sessions[1], 1, per));
        t.Start();
        body(_sessions[0], 0, per);
        t.Join();
    }

    [Benchmark(OperationsPerInvoke = OpsPerInvoke)]
    public void Read() => Run(static (s, id, n) =>
    {
        Span<byte> key = stackalloc byte[8];
        long input = 0, output = 0;
        ulong x = (ulong)(id + 1) * 0x9E3779B97F4A7C15;
        for (int i = 0; i < n; i++)
        {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            BinaryPrimitives.WriteInt64LittleEndian(key, (long)(x % Keys));
            s.Read(key, ref input, ref output);
            if ((i & 255) == 0) s.CompletePending(wait: true);
        }
        s.CompletePending(wait: true);
    });

    [Benchmark(OperationsPerInvoke = OpsPerInvoke)]
    public void Upsert() => Run(static (s, id, n) =>
    {
        Span<byte> key = stackalloc byte[8], value = stackalloc byte[8];
        ulong x = (ulong)(id + 7) * 0x9E3779B97F4A7C15;
        for (int i = 0; i < n; i++)
        {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            BinaryPrimitives.WriteInt64LittleEndian(key, (long)(x % Keys));
            BinaryPrimitives.WriteInt64LittleEndian(value, i);
            s.Upsert(key, value);
            if ((i & 255) == 0) s.CompletePending(wait: true);
        }
        s.CompletePending(wait: true);
    });

    [Benchmark(OperationsPerInvoke = OpsPerInvoke)]
    public void RmwIncrement() => Run(static (s, id, n) =>
    {
        Span<byte> key = stackalloc byte[8];
        long input = 1, output = 0;
        ulong x = (ulong)(id + 13) * 0x9E3779B97F4A7C15;
        for (int i = 0; i < n; i++)
        {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            BinaryPrimitives.WriteInt64LittleEndian(key, (long)(x % Keys));
            s.Rmw(key, ref input, ref output);
            if ((i & 255) == 0) s.CompletePending(wait: true);
        }
        s.CompletePending(wait: true);
    });
}
