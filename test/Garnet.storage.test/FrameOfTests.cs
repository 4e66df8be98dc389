namespace Garnet.storage.test;

/// <summary>The frame of a page is page % BufferPages however it is computed (mask, multiply, or division).</summary>
[TestFixture]
public class FrameOfTests
{
    [TestCase(16)]   // a power of two: the mask
    [TestCase(25)]   // not: the multiply
    [TestCase(3)]
    [TestCase(1000)]
    public void FrameOfIsThePageModuloTheFrameCount(int pages)
    {
        var dir = Directory.CreateTempSubdirectory("garnet-frames-").FullName;
        try
        {
            using var store = new Garnet.storage.Store.KVStore(new Garnet.storage.Store.KVStoreSettings
            {
                Directory = dir, PageBits = 12, SegmentBits = 20, MemoryBytes = (long)pages << 12, IndexBuckets = 64, NullDevice = true,
            });
            var log = store.Log;
            Assert.That(log.BufferPages, Is.EqualTo(pages));
            var random = new Random(7);
            var samples = new List<long> { 0, 1, pages - 1, pages, pages + 1, uint.MaxValue, (long)uint.MaxValue + 1, (1L << 36) - 1 };
            for (int i = 0; i < 10_000; i++) samples.Add(random.NextInt64(0, 1L << 36));
            foreach (long page in samples)
                Assert.That(log.FrameOf(page << 12), Is.EqualTo((int)(page % pages)), $"page {page}");
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }
}
