using System.Buffers.Binary;
using System.Text;
using Garnet.storage.Store;

namespace Garnet.storage.test;

[TestFixture]
public class SnapshotTests
{
    private static byte[] B(string s) => Encoding.ASCII.GetBytes(s);

    [Test]
    public async Task SnapshotWhileTwoThreadsWriteIsAConsistentCut([Values(1, 2, 3)] int seed)
    {
        var dir = Directory.CreateTempSubdirectory("garnet-snap-").FullName;
        try
        {
            using var store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 14, SegmentBits = 20, MemoryBytes = 1 << 20, IndexBuckets = 1 << 10 });
            const int threads = 2;
            var stop = new CancellationTokenSource();
            var written = new long[threads];
            var writers = Enumerable.Range(0, threads).Select(t => Task.Run(() =>
            {
                // Each step: insert t:k{i}, then bump t:count to i+1 (in place while mutable). A cut between steps shows
                // count == keys; a cut between the two ops of a step shows count == keys - 1. Anything else is torn.
                using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
                var rnd = new Random(seed * 10 + t);
                for (int i = 0; !stop.IsCancellationRequested && i < 2_000_000; i++)
                {
                    // A pending op completes later than the ops after it; wait, so effects follow program order.
                    if (s.Upsert(B($"t{t}:k{i}"), B(new string('v', rnd.Next(1, 40)))).IsPending()) s.CompletePending(wait: true);
                    TestInput input = new() { Delta = 1 };
                    TestOutput output = default;
                    if (s.Rmw(B($"t{t}:count"), ref input, ref output).IsPending()) s.CompletePending(wait: true);
                    Volatile.Write(ref written[t], i + 1);
                }
                s.CompletePending(wait: true);
            })).ToArray();

            while (written.Min() < 20_000) await Task.Delay(5);
            long before = written.Sum();
            var point = await store.TakeSnapshotPointAsync();
            long after = written.Sum();
            while (written.Sum() < after + 20_000) await Task.Delay(5);
            stop.Cancel();
            await Task.WhenAll(writers);
            TestContext.Out.WriteLine($"cut at {point.Address}: {point.LiveKeys} keys; steps before {before}, at end of snapshot {after}, final {written.Sum()}; head {store.Log.HeadAddress}");
            Assert.That(point.Address, Is.LessThanOrEqualTo(store.Log.FlushedUntilAddress), "the prefix is on the device");

            // Read the cut back: the newest record of each key below the cut address.
            var records = new List<IteratedRecord>();
            using (var it = new KeyIterator(store, 0, point.Address)) while (await it.NextBatchAsync(records)) { }
            Assert.That(records, Has.Count.EqualTo(point.LiveKeys), "the cut holds exactly the keys counted at the cut");
            for (int t = 0; t < threads; t++)
            {
                var keys = records.Select(r => Encoding.ASCII.GetString(r.Key)).Where(k => k.StartsWith($"t{t}:k")).Select(k => int.Parse(k[(k.IndexOf(":k") + 2)..])).Order().ToList();
                int m = keys.Count;
                var missing = Enumerable.Range(0, m).Except(keys).Take(10).ToList();
                var dup = keys.GroupBy(k => k).Where(g => g.Count() > 1).Select(g => g.Key).Take(10).ToList();
                if (missing.Count > 0 || dup.Count > 0) TestContext.Out.WriteLine($"thread {t}: m={m} max={keys.Max()} missing {string.Join(',', missing)} dup {string.Join(',', dup)}");
                Assert.That(keys, Is.EqualTo(Enumerable.Range(0, m)), $"thread {t}: keys form a prefix");
                var counter = records.Where(r => Encoding.ASCII.GetString(r.Key) == $"t{t}:count").ToList();
                long count = counter.Count == 0 ? 0 : BinaryPrimitives.ReadInt64LittleEndian(counter[0].Value);
                Assert.That(count, Is.EqualTo(m).Or.EqualTo(m - 1), $"thread {t}: {m} keys but count {count}");
                Assert.That(m, Is.GreaterThan(1000));
            }
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }
}
