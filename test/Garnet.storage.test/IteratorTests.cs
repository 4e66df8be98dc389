using System.Text;
using Garnet.storage.Store;

namespace Garnet.storage.test;

[TestFixture]
public class IteratorTests
{
    private string _dir = null!;

    [SetUp] public void SetUp() => _dir = Directory.CreateTempSubdirectory("garnet-iter-").FullName;
    [TearDown] public void TearDown() { try { Directory.Delete(_dir, true); } catch { } }

    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    private static List<IteratedRecord> IterateAll(KVStore store)
    {
        var it = new KeyIterator(store);
        var all = new List<IteratedRecord>();
        while (it.NextBatchAsync(all, 500).AsTask().Result) { }
        Assert.That(it.Done);
        return all;
    }

    [Test]
    public void YieldsEveryLiveKeyOnceAcrossMemoryAndDisk()
    {
        long now = 1_000;
        using var store = new KVStore(new KVStoreSettings { Directory = _dir, PageBits = 14, SegmentBits = 20, MemoryBytes = 4 << 14, IndexBuckets = 1024, Clock = () => now });
        var log = new CompletionLog();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
        var expected = new Dictionary<string, string>();
        for (int i = 0; i < 5000; i++) { s.Upsert(B("k" + i), B("v" + i)); expected["k" + i] = "v" + i; }
        s.CompletePending(wait: true);
        for (int i = 0; i < 5000; i += 7) { s.Upsert(B("k" + i), B("updated" + i)); expected["k" + i] = "updated" + i; }
        s.CompletePending(wait: true);
        for (int i = 3; i < 5000; i += 11) { s.Delete(B("k" + i)); expected.Remove("k" + i); }
        s.CompletePending(wait: true);
        s.Upsert(B("short-lived"), B("x"), expiration: now + 10);
        now += 20;
        Assert.That(store.Log.HeadAddress, Is.GreaterThan(store.Log.BeginAddress), "part of the log is on disk");

        var all = IterateAll(store);
        var keys = all.Select(r => Encoding.UTF8.GetString(r.Key)).ToList();
        Assert.That(keys, Is.Unique);
        Assert.That(keys, Is.EquivalentTo(expected.Keys));
        foreach (var r in all) Assert.That(Encoding.UTF8.GetString(r.Value), Is.EqualTo(expected[Encoding.UTF8.GetString(r.Key)]));
        Assert.That(store.LiveKeyCount, Is.EqualTo(expected.Count + 1), "the expired key is still counted until reclaimed");
    }

    [Test]
    public void ResumesFromCursor()
    {
        using var store = new KVStore(new KVStoreSettings { Directory = _dir, PageBits = 14, SegmentBits = 20, MemoryBytes = 4 << 14, IndexBuckets = 1024 });
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(new CompletionLog()));
        for (int i = 0; i < 3000; i++) s.Upsert(B("k" + i), B("v" + i));
        s.CompletePending(wait: true);
        var first = new KeyIterator(store);
        var batch = new List<IteratedRecord>();
        first.NextBatchAsync(batch, 100).AsTask().Wait();
        var rest = new KeyIterator(store, first.Cursor, first.End);
        while (rest.NextBatchAsync(batch, 1000).AsTask().Result) { }
        var names = batch.Select(r => Encoding.UTF8.GetString(r.Key)).ToList();
        Assert.That(names, Is.Unique);
        Assert.That(names, Has.Count.EqualTo(3000));
    }

    [Test]
    public void UnderConcurrentWritesStableKeysComeExactlyOnce()
    {
        using var store = new KVStore(new KVStoreSettings { Directory = _dir, PageBits = 14, SegmentBits = 20, MemoryBytes = 8 << 14, IndexBuckets = 512 });
        using (var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(new CompletionLog())))
        {
            for (int i = 0; i < 4000; i++) s.Upsert(B("stable" + i), B("v0"));
            s.CompletePending(wait: true);
        }
        using var stop = new CancellationTokenSource();
        var writer = new Thread(() =>
        {
            using var w = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(new CompletionLog()));
            var rnd = new Random(7);
            int n = 0;
            // Bounded: with io_uring the writer's reads complete fast enough to keep both cores busy, and the iterator's
            // pace then depends on scheduling; the writes it races with are the point, not their number.
            while (!stop.IsCancellationRequested && n < 100_000)
            {
                n++;
                // Rewrite stable keys (sometimes larger, forcing copies to the tail) and churn other keys.
                w.Upsert(B("stable" + rnd.Next(4000)), B("v" + new string('x', rnd.Next(30))));
                w.Upsert(B("churn" + rnd.Next(2000)), B("c"));
                w.Delete(B("churn" + rnd.Next(2000)));
                if (n % 32 == 0) w.CompletePending(wait: true);
            }
            w.CompletePending(wait: true);
        });
        writer.Start();
        Thread.Sleep(50);
        var all = new List<IteratedRecord>();
        var it = new KeyIterator(store);
        while (it.NextBatchAsync(all, 200).AsTask().Result) Thread.Sleep(1);
        stop.Cancel();
        writer.Join();

        var keys = all.Select(r => Encoding.UTF8.GetString(r.Key)).ToList();
        Assert.That(keys, Is.Unique, "no key is yielded twice");
        var stable = keys.Where(k => k.StartsWith("stable")).ToHashSet();
        Assert.That(stable.Count, Is.EqualTo(4000), "every key live throughout is yielded");
    }
}
