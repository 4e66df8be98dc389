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
            using var store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 14, SegmentBits = 20, MemoryBytes = 8 << 14, IndexBuckets = 16 });
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

/// <summary>Larger-than-memory figures for the notes: write 10x the log memory budget, read all of it back.</summary>
[TestFixture, Category("Stress")]
public class LargerThanMemoryMeasurement
{
    [Test]
    public void WriteTenTimesTheBudgetAndReadItBack()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-ltm-").FullName;
        try
        {
            const long budget = 32L << 20;
            const int keys = 6_000_000;
            using var store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 20, SegmentBits = 30, MemoryBytes = budget, IndexBuckets = 1 << 16, CopyReadsFromDiskToTail = false });
            var log = new CompletionLog();
            using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
            Span<byte> key = stackalloc byte[16];
            Span<byte> value = stackalloc byte[32];
            var sw = System.Diagnostics.Stopwatch.StartNew();
            for (int i = 0; i < keys; i++)
            {
                Encoding.ASCII.GetBytes($"key:{i:D12}", key);
                BinaryPrimitives.WriteInt64LittleEndian(value, i);
                s.Upsert(key, value);
                if ((i & 1023) == 0) s.CompletePending(wait: true);
            }
            s.CompletePending(wait: true);
            double writeSecs = sw.Elapsed.TotalSeconds;
            long logBytes = store.Log.TailAddress - store.Log.BeginAddress;
            Assert.That(logBytes, Is.GreaterThan(10 * budget));
            Assert.That(store.LiveKeyCount, Is.EqualTo(keys));

            var reader = store.NewSession<TestInput, TestOutput, CountingFunctions>(new CountingFunctions(new ReadTally()));
            sw.Restart();
            long found = 0;
            for (int i = 0; i < keys; i++)
            {
                Encoding.ASCII.GetBytes($"key:{i:D12}", key);
                TestInput inp = default; TestOutput o = default;
                var st = reader.Read(key, ref inp, ref o);
                if (st == Status.Found) { found++; Assert.That(o.Number, Is.EqualTo(i)); }
                if ((i & 255) == 0) reader.CompletePending(wait: true);
            }
            reader.CompletePending(wait: true);
            double readSecs = sw.Elapsed.TotalSeconds;
            var tally = reader.Functions.Tally;
            Assert.That(found + tally.Found, Is.EqualTo(keys));
            Assert.That(tally.Wrong, Is.EqualTo(0));
            long rss = Environment.WorkingSet;
            TestContext.Progress.WriteLine(
                $"larger-than-memory: {keys} keys, log {logBytes >> 20} MiB, budget {budget >> 20} MiB (covers index, objects and log pages; the index alone is {store.Index.MemoryBytes >> 20} MiB, so the log keeps its minimum of 2 pages); " +
                $"write {keys / writeSecs:N0} ops/s; read {keys / readSecs:N0} ops/s ({tally.Found} of {keys} from disk); " +
                $"disk {store.Device.SizeOnDisk >> 20} MiB; process RSS {rss >> 20} MiB");
            reader.Dispose();
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }
}

public sealed class ReadTally
{
    public long Found, Wrong;
}

/// <summary>Checks values of completed reads without keeping them (the key encodes the expected number).</summary>
public struct CountingFunctions(ReadTally tally) : IStoreFunctions<TestInput, TestOutput>
{
    public ReadTally Tally => tally;
    private TestFunctions _inner = new(null);
    public bool Reader(ref RecordRef record, ref TestInput input, ref TestOutput output)
    {
        output.Number = BinaryPrimitives.ReadInt64LittleEndian(record.Value);
        return true;
    }
    public bool NeedInitialUpdate(ReadOnlySpan<byte> key, ref TestInput input, ref TestOutput output, out int valueLength, out long expiration) => _inner.NeedInitialUpdate(key, ref input, ref output, out valueLength, out expiration);
    public void InitialUpdater(ReadOnlySpan<byte> key, ref TestInput input, ref RecordRef newRecord, ref TestOutput output) => _inner.InitialUpdater(key, ref input, ref newRecord, ref output);
    public UpdateAction InPlaceUpdater(ref RecordRef record, ref TestInput input, ref TestOutput output) => _inner.InPlaceUpdater(ref record, ref input, ref output);
    public bool NeedCopyUpdate(ref RecordRef oldRecord, ref TestInput input, ref TestOutput output, out int valueLength, out long expiration) => _inner.NeedCopyUpdate(ref oldRecord, ref input, ref output, out valueLength, out expiration);
    public void CopyUpdater(ref RecordRef oldRecord, ref TestInput input, ref RecordRef newRecord, ref TestOutput output) => _inner.CopyUpdater(ref oldRecord, ref input, ref newRecord, ref output);
    public void ReadCompleted(ReadOnlySpan<byte> key, ref TestInput input, ref TestOutput output, Status status)
    {
        long expected = long.Parse(Encoding.ASCII.GetString(key)[4..]);
        if (status == Status.Found && output.Number == expected) tally.Found++;
        else tally.Wrong++;
    }
    public void RmwCompleted(ReadOnlySpan<byte> key, ref TestInput input, ref TestOutput output, Status status) { }
    public void WriteCompleted(ReadOnlySpan<byte> key, Status status) { }
}
