using System.Text;
using Garnet.storage.Store;

namespace Garnet.storage.test;

[TestFixture]
public class SpaceReuseTests
{
    private string _dir = null!;

    [SetUp] public void SetUp() => _dir = Directory.CreateTempSubdirectory("garnet-reuse-").FullName;
    [TearDown] public void TearDown() { try { Directory.Delete(_dir, true); } catch { } }

    private static byte[] B(string s) => Encoding.ASCII.GetBytes(s);

    [Test]
    public void SteadyDeleteAndInsertKeepsTheLogFlat([Values(false, true)] bool useRmw)
    {
        using var store = new KVStore(new KVStoreSettings { Directory = _dir, PageBits = 16, SegmentBits = 20, MemoryBytes = 64 << 20, IndexBuckets = 1 << 14 });
        var log = new CompletionLog();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
        const int perRound = 5000, rounds = 20;
        long tailAfterFirst = 0;
        for (int round = 0; round < rounds; round++)
        {
            for (int i = 0; i < perRound; i++)
            {
                string key = $"r{round:D3}:k{i:D5}";
                if (useRmw)
                {
                    TestInput input = new() { Delta = round * 1_000_000L + i, Grow = 24 };
                    TestOutput output = default;
                    Assert.That(s.Rmw(B(key), ref input, ref output), Is.EqualTo(Status.Created));
                }
                else Assert.That(s.Upsert(B(key), B($"value-{round:D3}-{i:D8}-padding")).HasFlag(Status.Created), Is.True);
            }
            if (round > 0)
                for (int i = 0; i < perRound; i++)
                    Assert.That(s.Delete(B($"r{round - 1:D3}:k{i:D5}")), Is.EqualTo(Status.Found));
            if (round == 1) tailAfterFirst = store.Log.TailAddress;
            Assert.That(store.LiveKeyCount, Is.EqualTo(perRound));
        }
        long growth = store.Log.TailAddress - tailAfterFirst;
        TestContext.Out.WriteLine($"tail after round 1: {tailAfterFirst}, growth over {rounds - 2} more rounds: {growth}, reused {store.FreeRecords.Reused}, dropped {store.FreeRecords.Dropped}");
        Assert.That(store.FreeRecords.Reused, Is.GreaterThan((rounds - 2) * perRound * 95L / 100), "new keys went into freed space");
        Assert.That(growth, Is.LessThan(tailAfterFirst / 10), "the log stays flat");

        // Everything reads back right: the last round live, earlier rounds gone.
        for (int i = 0; i < perRound; i++)
        {
            TestInput inp = default; TestOutput o = default;
            Assert.That(s.Read(B($"r{rounds - 1:D3}:k{i:D5}"), ref inp, ref o), Is.EqualTo(Status.Found));
            if (useRmw) Assert.That(o.Number, Is.EqualTo((rounds - 1) * 1_000_000L + i));
            else Assert.That(Encoding.ASCII.GetString(o.Value!), Is.EqualTo($"value-{rounds - 1:D3}-{i:D8}-padding"));
            Assert.That(s.Read(B($"r{rounds - 2:D3}:k{i:D5}"), ref inp, ref o), Is.EqualTo(Status.NotFound));
        }
    }

    [Test]
    public void DeleteOfAKeyWithAnOlderVersionLeavesATombstone()
    {
        using var store = new KVStore(new KVStoreSettings { Directory = _dir, PageBits = 16, SegmentBits = 20, MemoryBytes = 1 << 20, IndexBuckets = 1 << 10, MutableFraction = 0.5 });
        var log = new CompletionLog();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
        s.Upsert(B("k"), B("v1"));
        // Push "k" out of the mutable region, then overwrite it: the new record has an older live version below.
        for (int i = 0; i < 12000; i++) s.Upsert(B("filler" + i), B("xxxxxxxxxxxxxxxxxxxxxxxx"));
        Assert.That(s.CompletePending(wait: true), Is.True);
        Assert.That(store.Log.ReadOnlyAddress, Is.GreaterThan(64 + 64), "k's first record is read-only now");
        var st = s.Upsert(B("k"), B("v2"));
        if (st.IsPending())
        {
            log.Items.Clear();
            Assert.That(s.CompletePending(wait: true), Is.True);
            st = log.Items.Single().status;
        }
        Assert.That(st.HasFlag(Status.CopyUpdated) && !st.HasFlag(Status.Created), Is.True, $"{st} ro={store.Log.ReadOnlyAddress} head={store.Log.HeadAddress}");
        Assert.That(s.Delete(B("k")), Is.EqualTo(Status.Found));
        TestInput inp = default; TestOutput o = default;
        var read = s.Read(B("k"), ref inp, ref o);
        Assert.That(read, Is.EqualTo(Status.NotFound), "v1 must not come back (the tombstone stays in front of it)");
        Assert.That(store.LiveKeyCount, Is.EqualTo(12000));
    }

    [Test]
    public void ConcurrentDeleteAndInsertStaysConsistent()
    {
        using var store = new KVStore(new KVStoreSettings { Directory = _dir, PageBits = 14, SegmentBits = 20, MemoryBytes = 2 << 20, IndexBuckets = 64 });
        const int threads = 4, keysPerThread = 500, iterations = 40_000;
        var errors = new List<string>();
        var tasks = Enumerable.Range(0, threads).Select(t => Task.Run(() =>
        {
            using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
            var rnd = new Random(t);
            var live = new Dictionary<int, int>();
            for (int n = 0; n < iterations; n++)
            {
                int k = rnd.Next(keysPerThread);
                string key = $"t{t}:{k}";
                if (live.ContainsKey(k) && rnd.Next(2) == 0)
                {
                    var st = s.Delete(B(key));
                    if (st != Status.Found) lock (errors) errors.Add($"delete {key}: {st}");
                    live.Remove(k);
                }
                else
                {
                    int v = rnd.Next();
                    var st = s.Upsert(B(key), B("v" + v + new string('p', k % 40)));
                    if (st.HasFlag(Status.Created) == live.ContainsKey(k)) lock (errors) errors.Add($"upsert {key}: {st}");
                    live[k] = v;
                }
                if (n % 1000 == 0)
                    foreach (var (key2, v2) in live.Take(20))
                    {
                        TestInput inp = default; TestOutput o = default;
                        var st = s.Read(B($"t{t}:{key2}"), ref inp, ref o);
                        if (st != Status.Found || Encoding.ASCII.GetString(o.Value!) != "v" + v2 + new string('p', key2 % 40))
                            lock (errors) errors.Add($"read t{t}:{key2}: {st}");
                    }
            }
            return live.Count;
        })).ToArray();
        Task.WaitAll(tasks);
        Assert.That(errors, Is.Empty);
        Assert.That(store.LiveKeyCount, Is.EqualTo(tasks.Sum(t => t.Result)));
        Assert.That(store.FreeRecords.Reused, Is.GreaterThan(0));
    }
}

[TestFixture]
public class ReplacementReuseTests
{
    private static byte[] B(string s) => Encoding.ASCII.GetBytes(s);

    [Test]
    public void SpaceOfReplacedRecordsGoesToNewKeys()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-reuse2-").FullName;
        try
        {
            using var store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 16, SegmentBits = 20, MemoryBytes = 64 << 20, IndexBuckets = 1 << 14 });
            using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
            const int keys = 4000, rounds = 10;
            var rnd = new Random(5);
            var model = new string[keys];
            for (int round = 0; round < rounds; round++)
                for (int k = 0; k < keys; k++)
                {
                    // Sizes jump around, so most overwrites do not fit in place: each copy unlinks (frees) the old record.
                    model[k] = $"v{round}:" + new string((char)('a' + k % 26), rnd.Next(0, 120));
                    s.Upsert(B("key" + k), B(model[k]));
                }
            long pooled = store.FreeRecords.Count, tail = store.Log.TailAddress, reused = store.FreeRecords.Reused;
            Assert.That(pooled, Is.GreaterThan(keys * 2), "replaced records were freed");
            // New keys of the same sizes fill the freed space instead of the tail.
            int newKeys = (int)pooled;
            for (int k = 0; k < newKeys; k++) s.Upsert(B("new" + k), B("n:" + new string('z', rnd.Next(0, 120))));
            long reusedForNew = store.FreeRecords.Reused - reused, growth = store.Log.TailAddress - tail;
            TestContext.Out.WriteLine($"pool {pooled}, reused for {newKeys} new keys {reusedForNew}, tail growth {growth}");
            Assert.That(reusedForNew, Is.GreaterThan(newKeys / 2), "most new keys went into freed space");
            for (int k = 0; k < keys; k++)
            {
                TestInput inp = default; TestOutput o = default;
                Assert.That(s.Read(B("key" + k), ref inp, ref o), Is.EqualTo(Status.Found));
                Assert.That(Encoding.ASCII.GetString(o.Value!), Is.EqualTo(model[k]));
            }
            Assert.That(store.LiveKeyCount, Is.EqualTo(keys + newKeys));
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    [Test]
    public async Task CursorScansWithoutRegistrationSeeEveryStableKey()
    {
        // SCAN-style: a new iterator per batch from the last cursor, no iterator registered in between, while
        // overwrites (with frees and reuse) and delete/insert churn go on. Every key present throughout must show up.
        var dir = Directory.CreateTempSubdirectory("garnet-reuse4-").FullName;
        try
        {
            using var store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 12, SegmentBits = 20, MemoryBytes = 64 << 20, IndexBuckets = 1 << 12 });
            using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
            const int keys = 20000;
            for (int k = 0; k < keys; k++) s.Upsert(B("key" + k), B("x"));
            using var stop = new CancellationTokenSource();
            var writer = Task.Run(() =>
            {
                using var w = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
                var rnd = new Random(2);
                for (int n = 0; n < 2_000_000 && !stop.IsCancellationRequested; n++)
                    w.Upsert(B("key" + rnd.Next(keys)), B(new string('z', rnd.Next(1, 100))));
            });
            var deadline = DateTime.UtcNow.AddSeconds(10);
            while (store.FreeRecords.Reused < 200 && DateTime.UtcNow < deadline) await Task.Delay(5); // churn under way
            var seen = new HashSet<string>();
            long cursor = 0;
            do
            {
                using var it = new KeyIterator(store, cursor);
                var batch = new List<IteratedRecord>();
                bool more = await it.NextBatchAsync(batch, 50);
                foreach (var r in batch) seen.Add(Encoding.ASCII.GetString(r.Key));
                cursor = more ? it.Cursor : 0;
                await Task.Delay(1); // let the writer move records between batches
            } while (cursor != 0);
            stop.Cancel();
            await writer;
            Assert.That(Enumerable.Range(0, keys).Select(k => "key" + k).Where(k => !seen.Contains(k)), Is.Empty);
            Assert.That(store.FreeRecords.Reused, Is.GreaterThan(0));
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    [Test]
    public async Task IteratorStillSeesEveryKeyWhileRecordsAreReplaced()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-reuse3-").FullName;
        try
        {
            using var store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 16, SegmentBits = 20, MemoryBytes = 64 << 20, IndexBuckets = 1 << 12 });
            using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
            const int keys = 3000;
            for (int k = 0; k < keys; k++) s.Upsert(B("key" + k), B("x"));
            for (int k = 0; k < 500; k++) { s.Upsert(B("tmp" + k), B("y")); s.Delete(B("tmp" + k)); } // fill the free pool
            using var it = new KeyIterator(store);
            var seen = new List<IteratedRecord>();
            var writer = Task.Run(() =>
            {
                using var w = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
                var rnd = new Random(1);
                for (int n = 0; n < 60_000; n++) w.Upsert(B("key" + rnd.Next(keys)), B(new string('z', rnd.Next(1, 100))));
            });
            while (await it.NextBatchAsync(seen, 64)) await Task.Yield();
            await writer;
            Assert.That(seen.Select(r => Encoding.ASCII.GetString(r.Key)).Order(), Is.EqualTo(Enumerable.Range(0, keys).Select(k => "key" + k).Order()));
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }
}
