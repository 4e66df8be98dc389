// Active expiry's per-record cost: one pass over 1M in-memory records (server-shaped keys with a database prefix, each
// with an expiration, 1 in 100 expired) in rounds of 20,000 steps, collecting the expired keys, as ActiveExpiry.Tick does.
// LoopAsItWas is the page loop the server had before (a copy of ExpiryScan.Collect); Walker is InMemoryRecordWalker.Resume
// with the server's visitor (a copy of ExpiredKeyCollector, which is internal). Time is per record.
//   dotnet run -c Release --project benchmark/BDN.benchmark -- --filter '*InMemoryWalk*' --job short
// `-- walk 40` instead runs the two passes alternately 40 times each with a Stopwatch and prints min and median ns per
// record: on a loaded machine the minimum of interleaved runs says more than BenchmarkDotNet's mean.
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text;
using BenchmarkDotNet.Attributes;
using Garnet.storage.Log;
using Garnet.storage.Store;

namespace BDN.benchmark.Storage;

[MemoryDiagnoser]
public unsafe class InMemoryWalkBenchmarks
{
    private const int Records = 1 << 20;
    private const int RecordsPerRound = 20_000; // ActiveExpiry.RecordsPerRound

    private KVStore _store = null!;
    private string _dir = null!;
    private long _end;
    private readonly List<byte[]> _expired = new();

    [GlobalSetup]
    public void Setup()
    {
        _dir = Directory.CreateTempSubdirectory("garnet-bdn-walk-").FullName;
        _store = new KVStore(new KVStoreSettings { Directory = _dir, MemoryBytes = 512L << 20, IndexBuckets = 1 << 20 });
        using var s = _store.NewSession<long, long, CounterFunctions>(new CounterFunctions());
        long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        var key = new byte[2 + 12];
        var value = new byte[16];
        for (int i = 0; i < Records; i++)
        {
            key[0] = 0; key[1] = (byte)(i & 3); // the server's 2-byte database prefix
            Encoding.ASCII.GetBytes($"key:{i:D8}", key.AsSpan(2));
            s.Upsert(key, value, expiration: i % 100 == 0 ? now - 1000 : now + 3_600_000);
        }
        s.CompletePending(wait: true);
        if (_store.Log.HeadAddress != HybridLog.FirstValidAddress) throw new InvalidOperationException("records left memory");
        if (!InMemoryRecordWalker.TryGetWrittenEnd(_store, TimeSpan.FromSeconds(5), out _end)) throw new TimeoutException();
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _store.Dispose();
        try { Directory.Delete(_dir, true); } catch { }
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Records)]
    public int LoopAsItWas()
    {
        long cursor = 0;
        bool reachedEnd;
        do
        {
            _expired.Clear();
            cursor = Collect(_store, cursor, _end, RecordsPerRound, _expired, out _, out reachedEnd);
        } while (!reachedEnd);
        return _expired.Count;
    }

    [Benchmark(OperationsPerInvoke = Records)]
    public int Walker()
    {
        long cursor = 0;
        WalkProgress walk;
        do
        {
            _expired.Clear();
            var collect = new ExpiredKeyCollector(_expired, DateTimeOffset.UtcNow.ToUnixTimeMilliseconds());
            walk = InMemoryRecordWalker.Resume(_store, cursor, _end, RecordsPerRound, ref collect);
            cursor = walk.Cursor;
        } while (!walk.ReachedEnd);
        return _expired.Count;
    }

    /// <summary>The Stopwatch comparison (see the header).</summary>
    public static void Compare(int passes)
    {
        var b = new InMemoryWalkBenchmarks();
        b.Setup();
        try
        {
            var old = new List<double>();
            var walker = new List<double>();
            for (int i = 0; i < passes + 3; i++) // the first 3 of each warm up
            {
                // Each goes first every other pass.
                var sw = new Stopwatch();
                for (int k = 0; k < 2; k++)
                {
                    bool runOld = (i + k) % 2 == 0;
                    sw.Restart();
                    if (runOld) b.LoopAsItWas(); else b.Walker();
                    if (i >= 3) (runOld ? old : walker).Add(sw.Elapsed.TotalNanoseconds / Records);
                }
            }
            static string Show(List<double> ns)
            {
                ns.Sort();
                return $"min {ns[0]:F2} ns, median {ns[ns.Count / 2]:F2} ns per record";
            }
            Console.WriteLine($"loop as it was: {Show(old)}");
            Console.WriteLine($"walker:         {Show(walker)}");
        }
        finally { b.Cleanup(); }
    }

    private readonly struct ExpiredKeyCollector(List<byte[]> into, long nowMs) : IRecordVisitor
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void Visit(in WalkedRecord record)
        {
            if (record.HasExpiration && record.Expiration <= nowMs) into.Add(record.Key.ToArray());
        }
    }

    /// <summary>The server's ExpiryScan.Collect before the walker, unchanged.</summary>
    private static long Collect(KVStore store, long cursor, long end, int budget, List<byte[]> into, out int scanned, out bool reachedEnd)
    {
        scanned = 0;
        var log = store.Log;
        store.Epoch.Acquire();
        try
        {
            long head = log.HeadAddress, tail = end;
            if (cursor < head || cursor >= tail) cursor = Math.Max(head, HybridLog.FirstValidAddress);
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            while (budget-- > 0 && cursor < tail)
            {
                scanned++;
                long pageEnd = log.PageStart(log.PageOf(cursor) + 1);
                if (pageEnd - cursor < RecordLayout.HeaderSize) { cursor = pageEnd; continue; }
                byte* r = log.GetPhysical(cursor);
                if (!RecordLayout.IsPresent(r)) { cursor = pageEnd; continue; }
                int size = RecordLayout.TotalSize(r);
                if (size <= 0 || size > pageEnd - cursor) { cursor = pageEnd; continue; }
                ulong info = Volatile.Read(ref RecordLayout.Info(r));
                if ((info & (RecordInfo.Invalid | RecordInfo.Tombstone)) == 0 && RecordLayout.HasExpiration(r)
                    && RecordLayout.Expiration(r) <= now)
                    into.Add(RecordLayout.Key(r).ToArray());
                cursor += size;
            }
            reachedEnd = cursor >= tail;
            return cursor;
        }
        finally { store.Epoch.Release(); }
    }
}
