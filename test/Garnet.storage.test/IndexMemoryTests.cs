using System.Text;
using Garnet.storage.Store;

namespace Garnet.storage.test;

/// <summary>Index growth: the old table's overflow pages are given back after a doubling, and a doubling of 2^16
/// buckets or more places each entry by a tag bit, so records on disk are not read and no entry lands in both halves
/// (before, a chain that reached the disk was given to both).</summary>
[TestFixture]
public class IndexMemoryTests
{
    private string _dir = null!;

    [SetUp] public void SetUp() => _dir = Directory.CreateTempSubdirectory("garnet-index-").FullName;
    [TearDown] public void TearDown() { try { Directory.Delete(_dir, true); } catch { } }

    private KVStore NewStore(int pageBits, long memoryBytes, long buckets) => new(new KVStoreSettings
    {
        Directory = _dir, PageBits = pageBits, SegmentBits = 22, MemoryBytes = memoryBytes, IndexBuckets = buckets,
        Clock = () => DateTimeOffset.UtcNow.ToUnixTimeMilliseconds(),
    });

    [Test]
    public void OverflowPagesFreedByAGrowthAreGivenBackAndReusedZeroed()
    {
        using var store = NewStore(pageBits: 20, memoryBytes: 512L << 20, buckets: 1 << 10);
        var log = new CompletionLog();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
        int keys = 0, discardedSeen = 0;
        long bucketsBefore = store.Index.BucketCount;
        while (keys < 600_000 && discardedSeen == 0)
        {
            for (int i = 0; i < 10_000; i++, keys++) s.Upsert(Encoding.ASCII.GetBytes("key:" + keys), Encoding.ASCII.GetBytes("v" + keys));
            Assert.That(store.Index.WaitForGrowth(TimeSpan.FromSeconds(30)));
            store.Epoch.WaitForPendingActions(TimeSpan.FromSeconds(5));
            discardedSeen = store.Index.DiscardedOverflowPages;
        }
        Assert.That(discardedSeen, Is.GreaterThan(0), $"no overflow page was given back after growing from {bucketsBefore} to {store.Index.BucketCount} buckets with {keys} keys");
        // Keep inserting until buckets come out of the discarded pages (they read as zero), then read everything back.
        for (int round = 0; round < 40 && store.Index.DiscardedOverflowPages == discardedSeen; round++)
            for (int i = 0; i < 10_000; i++, keys++) s.Upsert(Encoding.ASCII.GetBytes("key:" + keys), Encoding.ASCII.GetBytes("v" + keys));
        Assert.That(store.Index.WaitForGrowth(TimeSpan.FromSeconds(30)));
        for (int i = 0; i < keys; i++)
        {
            TestInput input = default; TestOutput output = default;
            var status = s.Read(Encoding.ASCII.GetBytes("key:" + i), ref input, ref output);
            Assert.That(status, Is.EqualTo(Status.Found), "key:" + i);
            Assert.That(Encoding.ASCII.GetString(output.Value!), Is.EqualTo("v" + i));
        }
        Assert.That(store.LiveKeyCount, Is.EqualTo(keys));
    }

    [Test]
    public void GrowingTheIndexLeavesLittleGarbage()
    {
        // Three doublings (2^14 -> 2^17 buckets) while 600K keys go in. Before, each growth listed the old table's overflow
        // links and built a set of the freed pages' buckets: about 2.5 MB of managed garbage here (measured), which the
        // GC keeps committed. Now one array of the free links: under 1 MB for all three.
        using var store = NewStore(pageBits: 20, memoryBytes: 512L << 20, buckets: 1 << 14);
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        const int n = 600_000;
        var keys = new byte[n][];
        for (int i = 0; i < n; i++) keys[i] = Encoding.ASCII.GetBytes("key:" + i);
        var value = Encoding.ASCII.GetBytes("value");
        for (int i = 0; i < 1000; i++) s.Upsert(keys[i], value); // warm up (JIT, first pages)
        long before = GC.GetTotalAllocatedBytes(precise: true);
        for (int i = 1000; i < n; i++) s.Upsert(keys[i], value);
        Assert.That(store.Index.WaitForGrowth(TimeSpan.FromSeconds(30)));
        store.Epoch.WaitForPendingActions(TimeSpan.FromSeconds(5));
        long allocated = GC.GetTotalAllocatedBytes(precise: true) - before;
        Assert.That(store.Index.BucketCount, Is.GreaterThanOrEqualTo(1 << 17), "the index grew three times");
        Assert.That(allocated, Is.LessThan(1L << 20), $"{allocated} bytes allocated while loading {n} keys");
    }

    [Test]
    public void AGrowingIndexTakesItsRoomFromTheLogWithinTheBudget()
    {
        // 16 MB for log pages and index together. The log fills its share first; then each doubling needs room for the
        // old and the new table at once. Before, the doubling allocated at once and the log gave its pages back only as
        // flushes completed: 20-25% over the budget meanwhile (measured on the server: 80 MB for a 64 MB budget).
        const long budget = 16L << 20;
        const int pageBits = 18;
        using var store = NewStore(pageBits, budget, buckets: 1 << 12);
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        var value = new byte[100];
        long peak = 0, peakIndex = 0, peakLog = 0;
        string atPeak = ""; // the index's shape at the peak, for the failure message
        int generationWhenLogFull = -1;
        for (int i = 0; i < 300_000; i++)
        {
            s.Upsert(Encoding.ASCII.GetBytes("key:" + i), value);
            long index = store.Index.MemoryBytes, pages = store.Log.MemoryBytes;
            if (index + pages > peak)
            {
                (peak, peakIndex, peakLog) = (index + pages, index, pages);
                atPeak = $"key {i}: {store.Index.BucketCount} buckets, generation {store.Index.Generation}, growing {store.Index.IsGrowing}, {store.Index.OverflowBucketCount} overflow buckets in use";
            }
            if (generationWhenLogFull < 0 && store.Log.HeadAddress > store.Log.BeginAddress) generationWhenLogFull = store.Index.Generation;
        }
        Assert.That(store.Index.WaitForGrowth(TimeSpan.FromSeconds(30)));
        Assert.That(generationWhenLogFull, Is.GreaterThanOrEqualTo(0), "the log reached its share");
        Assert.That(store.Index.Generation, Is.GreaterThan(generationWhenLogFull), "the index doubled after the log was full");
        // Slack: one page (the tail's page turn happens before the log sees the index's newest overflow chunk) and one
        // overflow chunk (256 KB).
        long bound = budget + (1L << pageBits) + (256L << 10);
        TestContext.Out.WriteLine($"peak {peak >> 10} KB (index {peakIndex >> 10} KB, log pages {peakLog >> 10} KB), generations {generationWhenLogFull} -> {store.Index.Generation}");
        Assert.That(peak, Is.LessThanOrEqualTo(bound), $"peak {peak >> 10} KB (index {peakIndex >> 10} KB, log pages {peakLog >> 10} KB) over a {budget >> 10} KB budget; at the peak, {atPeak}");
        for (int i = 0; i < 300_000; i += 101)
        {
            TestInput input = default; TestOutput output = default;
            var status = s.Read(Encoding.ASCII.GetBytes("key:" + i), ref input, ref output);
            if (status.IsPending()) { s.CompletePending(wait: true); continue; }
            Assert.That(status, Is.EqualTo(Status.Found), "key:" + i);
        }
    }

    [Test]
    public void GrowingWithMostRecordsOnDiskKeepsOneEntryPerChain()
    {
        Assert.That(Garnet.storage.Index.HashIndex.SplitsByTag(1 << 16), Is.True);
        Assert.That(Garnet.storage.Index.HashIndex.SplitsByTag(1 << 15), Is.False);
        using var store = NewStore(pageBits: 16, memoryBytes: 2L << 20, buckets: 1 << 16);
        var log = new CompletionLog();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
        int keys = 0;
        while (store.Index.Generation == 0 && keys < 2_000_000)
        {
            for (int i = 0; i < 20_000; i++, keys++) s.Upsert(Encoding.ASCII.GetBytes("key:" + keys), Encoding.ASCII.GetBytes("v" + keys));
            s.CompletePending(wait: true);
        }
        Assert.That(store.Index.WaitForGrowth(TimeSpan.FromSeconds(30)));
        Assert.That(store.Index.Generation, Is.EqualTo(1), $"{keys} keys");
        Assert.That(store.Log.HeadAddress, Is.GreaterThan(store.Log.BeginAddress), "most records are on disk");

        long entries = 0;
        store.Index.ForEachAddress(_ => entries++);
        Assert.That(entries, Is.LessThanOrEqualTo(keys), "an entry in both halves would make more entries than keys");
        Assert.That(entries, Is.GreaterThan(keys * 9L / 10), "keys sharing a bucket and tag share an entry, a few");

        for (int i = 0; i < keys; i += 37)
        {
            TestInput input = default; TestOutput output = default;
            var status = s.Read(Encoding.ASCII.GetBytes("key:" + i), ref input, ref output);
            if (status.IsPending()) continue;
            Assert.That(status, Is.EqualTo(Status.Found), "key:" + i);
            Assert.That(Encoding.ASCII.GetString(output.Value!), Is.EqualTo("v" + i));
        }
        s.CompletePending(wait: true);
        var reads = log.Items.Where(x => x.kind == "read").ToList();
        Assert.That(reads, Is.Not.Empty);
        Assert.That(reads.All(x => x.status == Status.Found && Encoding.ASCII.GetString(x.output.Value!) == "v" + x.key.Split(':')[1]), Is.True);
    }
}
