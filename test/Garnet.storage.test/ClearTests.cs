using System.Diagnostics;
using System.Text;
using Garnet.storage.Store;

namespace Garnet.storage.test;

/// <summary>KVStore.Clear: every key dropped at once, memory and disk given back, counts exact under concurrent work.</summary>
[TestFixture]
public class ClearTests
{
    private string _dir = null!;

    [SetUp] public void SetUp() => _dir = Directory.CreateTempSubdirectory("garnet-clear-").FullName;
    [TearDown] public void TearDown() { try { Directory.Delete(_dir, true); } catch { } }

    private static byte[] B(string s) => Encoding.ASCII.GetBytes(s);

    private const int PageBits = 14, SegmentBits = 16, IndexBuckets = 1 << 10;

    private KVStore NewStore(bool nullDevice = false, long memory = 64 << PageBits, Objects.IObjectSerializer? serializer = null) => new(new KVStoreSettings
    {
        Directory = _dir, PageBits = PageBits, SegmentBits = SegmentBits, MemoryBytes = memory, IndexBuckets = IndexBuckets,
        NullDevice = nullDevice, KeyClasses = true, ObjectSerializer = serializer,
    });

    /// <summary>The status of a read of key, waiting for the disk if it must.</summary>
    private static Status ReadStatus(StoreSession<TestInput, TestOutput, TestFunctions> s, CompletionLog log, string key)
    {
        TestInput input = default; TestOutput output = default;
        var status = s.Read(B(key), ref input, ref output);
        if (!status.IsPending()) return status;
        log.Items.Clear();
        Assert.That(s.CompletePending(wait: true), Is.True);
        return log.Items.Single().status;
    }

    private static async Task<List<string>> AllKeys(KVStore store)
    {
        var records = new List<IteratedRecord>();
        using (var it = new KeyIterator(store)) while (await it.NextBatchAsync(records)) { }
        return records.Select(r => Encoding.ASCII.GetString(r.Key)).ToList();
    }

    private static bool Within(TimeSpan timeout, Func<bool> condition)
    {
        var sw = Stopwatch.StartNew();
        while (!condition())
        {
            if (sw.Elapsed > timeout) return false;
            Thread.Sleep(5);
        }
        return true;
    }

    [Test]
    public async Task ClearDropsKeysInMemoryAndOnDiskAndGivesBackPagesIndexAndSegments()
    {
        using var store = NewStore(memory: 256 << PageBits);
        var log = new CompletionLog();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
        const int keys = 60_000;
        for (int k = 0; k < keys; k++) s.Upsert(B("key" + k), B($"value-{k}-" + new string('v', 40)));
        Assert.That(s.CompletePending(wait: true), Is.True);
        Assert.That(store.Log.WaitForFlushes(TimeSpan.FromSeconds(10)), Is.True);
        long logBefore = store.Log.MemoryBytes, indexBefore = store.Index.MemoryBytes, diskBefore = store.Device.SizeOnDisk;
        TestContext.Out.WriteLine($"before: {store.LiveKeyCount} keys, log {logBefore} B in memory, index {indexBefore} B ({store.Index.BucketCount} buckets), {diskBefore} B on disk, head {store.Log.HeadAddress}, tail {store.Log.TailAddress}");
        Assert.That(store.Log.HeadAddress, Is.GreaterThan(4L << SegmentBits), "most keys are on disk");
        Assert.That(store.Index.BucketCount, Is.GreaterThan(IndexBuckets), "the index grew");
        Assert.That(logBefore, Is.GreaterThan(32L << PageBits), "many pages are in memory");
        Assert.That(ReadStatus(s, log, "key0"), Is.EqualTo(Status.Found), "an old key is read from disk before the clear");

        long tailBefore = store.Log.TailAddress;
        store.Clear();

        Assert.That(store.LiveKeyCount, Is.Zero);
        Assert.That(store.LiveKeyCountOf(('k' << 8) | 'e'), Is.Zero, "the class counts are zero too");
        Assert.That(store.Clears, Is.EqualTo(1));
        Assert.That(store.Log.BeginAddress, Is.GreaterThanOrEqualTo(tailBefore), "everything written before is below the begin");
        Assert.That(store.Index.BucketCount, Is.EqualTo(IndexBuckets), "the index is back to its initial size");
        Assert.That(Within(TimeSpan.FromSeconds(10), () => store.Log.MemoryBytes <= 1 << PageBits), Is.True,
            $"the pages' frames went back to the OS (log memory {store.Log.MemoryBytes} B)");
        Assert.That(Within(TimeSpan.FromSeconds(10), () => store.Index.MemoryBytes <= IndexBuckets * 64L + (256 << 10)), Is.True,
            $"the grown table and its overflow buckets went back (index memory {store.Index.MemoryBytes} B)");
        Assert.That(store.Device.SizeOnDisk, Is.LessThanOrEqualTo(1L << SegmentBits), "only the segment holding the cut is left");
        TestContext.Out.WriteLine($"after: log {store.Log.MemoryBytes} B, index {store.Index.MemoryBytes} B, {store.Device.SizeOnDisk} B on disk");

        foreach (int k in new[] { 0, 1, keys / 2, keys - 2, keys - 1 })
            Assert.That(ReadStatus(s, log, "key" + k), Is.EqualTo(Status.NotFound), $"key{k} is gone, whether it was on disk or in memory");
        Assert.That(await AllKeys(store), Is.Empty);

        // The store works as new: writes land, count, read back and iterate; an old name is created afresh.
        for (int k = 0; k < 100; k++) Assert.That(s.Upsert(B("new" + k), B("n" + k)).IsFound(), Is.True);
        Assert.That(s.Upsert(B("key7"), B("again")) & Status.Created, Is.EqualTo(Status.Created), "the old key did not exist any more");
        Assert.That(store.LiveKeyCount, Is.EqualTo(101));
        Assert.That(ReadStatus(s, log, "new5"), Is.EqualTo(Status.Found));
        Assert.That((await AllKeys(store)).Order(), Is.EqualTo(Enumerable.Range(0, 100).Select(k => "new" + k).Append("key7").Order()));
    }

    [Test]
    public async Task AnIteratorOvertakenByAClearEndsAndSaysSo()
    {
        using var store = NewStore();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        for (int k = 0; k < 20_000; k++) s.Upsert(B("key" + k), B("value" + k));
        s.CompletePending(wait: true);
        using var it = new KeyIterator(store);
        var batch = new List<IteratedRecord>();
        Assert.That(await it.NextBatchAsync(batch, 100), Is.True);
        Assert.That(it.OvertakenByClear, Is.False);
        store.Clear();
        s.Upsert(B("after"), B("x"));
        batch.Clear();
        Assert.That(await it.NextBatchAsync(batch, 100), Is.False, "the iteration ends");
        Assert.That(batch, Is.Empty);
        Assert.That(it.OvertakenByClear, Is.True);
        Assert.That(store.ActiveIterators, Is.Zero, "the ended iterator is no longer registered");
    }

    [Test]
    public async Task ASnapshotAfterAClearHoldsOnlyTheKeysWrittenSince()
    {
        using var store = NewStore();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        for (int k = 0; k < 20_000; k++) s.Upsert(B("key" + k), B("value" + k));
        s.CompletePending(wait: true);
        store.Clear();
        for (int k = 0; k < 10; k++) s.Upsert(B("later" + k), B("v"));
        var point = await store.TakeSnapshotPointAsync();
        Assert.That(point.LiveKeys, Is.EqualTo(10));
        var records = new List<IteratedRecord>();
        using (var it = new KeyIterator(store, 0, point.Address)) while (await it.NextBatchAsync(records)) { }
        Assert.That(records.Select(r => Encoding.ASCII.GetString(r.Key)).Order(), Is.EqualTo(Enumerable.Range(0, 10).Select(k => "later" + k).Order()));
    }

    [Test]
    public void ObjectsOfTheClearedPagesLeaveTheHeapAndTheObjectLog()
    {
        var serializer = new TestListSerializer();
        using var store = NewStore(serializer: serializer);
        using var s = store.NewSession<ListInput, ListOutput, ListFunctions>(new ListFunctions(null));
        for (int k = 0; k < 5_000; k++)
        {
            ListInput input = new() { Push = "item-" + new string('x', k % 50) };
            ListOutput output = default;
            s.Rmw(B("list" + k), ref input, ref output);
        }
        s.CompletePending(wait: true);
        Assert.That(store.Log.WaitForFlushes(TimeSpan.FromSeconds(10)), Is.True);
        Assert.That(store.Objects.TotalBytes, Is.GreaterThan(0));
        Assert.That(store.ObjectLog!.SizeOnDisk, Is.GreaterThan(0), "some lists were flushed with their pages");
        store.Clear();
        Assert.That(store.LiveKeyCount, Is.Zero);
        Assert.That(Within(TimeSpan.FromSeconds(10), () => store.Objects.TotalBytes == 0), Is.True, $"objects left: {store.Objects.TotalBytes} B");
        Assert.That(store.ObjectLog!.SizeOnDisk, Is.LessThanOrEqualTo(1L << SegmentBits), "the object log's segments below went too");
        ListInput read = default; ListOutput got = default;
        Assert.That(s.Read(B("list1"), ref read, ref got), Is.EqualTo(Status.NotFound));
    }

    [Test]
    public async Task ClearsWhileThreadsWriteDeleteAndReadKeepTheCountExact([Values(false, true)] bool nullDevice)
    {
        // Small memory: pages turn, flush and (null device) evict and count keys out while the clears run.
        using var store = NewStore(nullDevice, memory: 16 << PageBits);
        var stop = new CancellationTokenSource();
        int errors = 0;
        var workers = Enumerable.Range(0, 3).Select(t => Task.Run(() =>
        {
            try
            {
                using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
                var rnd = new Random(t);
                while (!stop.IsCancellationRequested)
                {
                    var key = B("k" + rnd.Next(20_000));
                    int op = rnd.Next(10);
                    if (t == 2 || op < 3) { TestInput i = default; TestOutput o = default; s.Read(key, ref i, ref o); }
                    else if (op < 8) s.Upsert(key, B(new string('v', rnd.Next(8, 80))), expiration: op == 7 ? DateTimeOffset.UtcNow.AddHours(1).ToUnixTimeMilliseconds() : 0);
                    else if (op < 9) s.Delete(key);
                    else { TestInput i = new() { Delta = 1 }; TestOutput o = default; s.Rmw(key, ref i, ref o); }
                    if (rnd.Next(64) == 0) s.CompletePending(wait: true);
                }
                s.CompletePending(wait: true);
            }
            catch (Exception ex)
            {
                Interlocked.Increment(ref errors);
                TestContext.Out.WriteLine(ex);
            }
        })).ToArray();
        for (int round = 0; round < 5; round++)
        {
            await Task.Delay(150);
            store.Clear();
        }
        await Task.Delay(150);
        stop.Cancel();
        await Task.WhenAll(workers);
        Assert.That(errors, Is.Zero);
        var records = new List<IteratedRecord>();
        using (var it = new KeyIterator(store)) while (await it.NextBatchAsync(records)) { }
        var keys = records.Select(r => Encoding.ASCII.GetString(r.Key)).ToList();
        TestContext.Out.WriteLine($"{store.Clears} clears; {keys.Count} keys at the end, counted {store.LiveKeyCount} ({store.ExpiringKeyCount} expiring)");
        Assert.That(keys, Is.Unique);
        Assert.That(store.LiveKeyCount, Is.EqualTo(keys.Count), "the count is exact across the clears");
        Assert.That(store.ExpiringKeyCount, Is.EqualTo(records.Count(r => r.Expiration != 0)));
        for (char d = '0'; d <= '9'; d++)
            Assert.That(store.LiveKeyCountOf(('k' << 8) | d), Is.EqualTo(keys.Count(k => k[1] == d)), $"class k{d}");
    }
}
