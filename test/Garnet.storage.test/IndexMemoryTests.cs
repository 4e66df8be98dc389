using System.Text;
using Garnet.storage.Store;

namespace Garnet.storage.test;

/// <summary>After a doubling, the old table's overflow pages are given back, and buckets handed out of them later work.</summary>
[TestFixture]
public class IndexMemoryTests
{
    [Test]
    public void OverflowPagesFreedByAGrowthAreGivenBackAndReusedZeroed()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-index-").FullName;
        try
        {
            using var store = new KVStore(new KVStoreSettings
            {
                Directory = dir, PageBits = 20, SegmentBits = 22, MemoryBytes = 512L << 20, IndexBuckets = 1 << 10,
                Clock = () => DateTimeOffset.UtcNow.ToUnixTimeMilliseconds(),
            });
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
        finally { try { Directory.Delete(dir, true); } catch { } }
    }
}
