using System.Buffers.Binary;
using System.Text;
using Garnet.storage.Store;

namespace Garnet.storage.test;

/// <summary>Long concurrency runs; not in the default test run (scripts/test.sh --filter "TestCategory=Stress").</summary>
[TestFixture, Category("Stress")]
public class StressTests
{
    [Test]
    public void LongMixedRunWithGrowthAndSpill([Values(1, 2, 3)] int seed)
    {
        var dir = Directory.CreateTempSubdirectory("garnet-stress-").FullName;
        try
        {
            using var store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 14, SegmentBits = 20, LogMemoryBytes = 8 << 14, IndexBuckets = 16 });
            const int threads = 4, counters = 500, ops = 200_000;
            var increments = new long[threads, counters];
            var errors = new System.Collections.Concurrent.ConcurrentQueue<Exception>();
            var workers = Enumerable.Range(0, threads).Select(t => new Thread(() =>
            {
                try
                {
                    using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(new CompletionLog()));
                    var rnd = new Random(seed * 100 + t);
                    for (int i = 0; i < ops; i++)
                    {
                        int c = rnd.Next(counters);
                        var input = new TestInput { Delta = 1, Grow = rnd.Next(10) == 0 ? rnd.Next(8, 64) : 0 };
                        TestOutput o = default;
                        s.Rmw(Encoding.ASCII.GetBytes("c" + c), ref input, ref o);
                        increments[t, c]++;
                        s.Upsert(Encoding.ASCII.GetBytes($"junk{t}:{rnd.Next(5000)}"), new byte[rnd.Next(100)]);
                        if (i % 64 == 0) s.CompletePending(wait: true);
                    }
                    s.CompletePending(wait: true);
                }
                catch (Exception ex) { errors.Enqueue(ex); }
            })).ToList();
            workers.ForEach(w => w.Start());
            workers.ForEach(w => w.Join());
            Assert.That(errors, Is.Empty, string.Join("\n", errors));
            var log = new CompletionLog();
            using var check = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
            for (int c = 0; c < counters; c++)
            {
                long expected = 0;
                for (int t = 0; t < threads; t++) expected += increments[t, c];
                TestInput i = default; TestOutput o = default;
                var st = check.Read(Encoding.ASCII.GetBytes("c" + c), ref i, ref o);
                if (st.IsPending()) { check.CompletePending(wait: true); o = log.Items[^1].output; }
                Assert.That(BinaryPrimitives.ReadInt64LittleEndian(o.Value), Is.EqualTo(expected), "c" + c);
            }
            Assert.That(store.Index.Generation, Is.GreaterThan(0));
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }
}
