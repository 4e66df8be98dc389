using System.Buffers.Binary;
using System.Text;
using Garnet.storage.Store;

namespace Garnet.storage.test;

[TestFixture]
public class StoreTests
{
    private string _dir = null!;

    [SetUp] public void SetUp() => _dir = Directory.CreateTempSubdirectory("garnet-store-").FullName;
    [TearDown] public void TearDown() { try { Directory.Delete(_dir, true); } catch { } }

    private KVStore NewStore(int pageBits = 16, int memoryPages = 8, long buckets = 1 << 12, Func<long>? clock = null, bool nullDevice = false) =>
        new(new KVStoreSettings
        {
            Directory = _dir, PageBits = pageBits, SegmentBits = Math.Max(pageBits, 20), MemoryBytes = (long)memoryPages << pageBits,
            IndexBuckets = buckets, NullDevice = nullDevice, Clock = clock ?? (() => DateTimeOffset.UtcNow.ToUnixTimeMilliseconds()),
        });

    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    private static (Status status, byte[]? value) Get<TF>(StoreSession<TestInput, TestOutput, TF> s, string key, CompletionLog? log = null)
        where TF : struct, IStoreFunctions<TestInput, TestOutput>
    {
        TestInput i = default; TestOutput o = default;
        var st = s.Read(B(key), ref i, ref o);
        if (st.IsPending())
        {
            Assert.That(log, Is.Not.Null, "pending read needs a completion log");
            int before = log!.Items.Count;
            Assert.That(s.CompletePending(wait: true), Is.True);
            var item = log.Items.Skip(before).Single(x => x.kind == "read" && x.key == key);
            return (item.status, item.output.Value);
        }
        return (st, o.Value);
    }

    [Test]
    public void UpsertReadDeleteInMemory()
    {
        using var store = NewStore();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        Assert.That(s.Upsert(B("a"), B("one")).HasFlag(Status.Created));
        Assert.That(store.LiveKeyCount, Is.EqualTo(1));
        var (st, v) = Get(s, "a");
        Assert.That(st, Is.EqualTo(Status.Found));
        Assert.That(Encoding.UTF8.GetString(v!), Is.EqualTo("one"));

        // Overwrite in place (fits the capacity), then with a larger value (copy to tail).
        Assert.That(s.Upsert(B("a"), B("two")), Is.EqualTo(Status.Found | Status.InPlaceUpdated));
        Assert.That(s.Upsert(B("a"), B(new string('x', 100))), Is.EqualTo(Status.Found | Status.CopyUpdated));
        Assert.That(Encoding.UTF8.GetString(Get(s, "a").value!), Is.EqualTo(new string('x', 100)));
        Assert.That(store.LiveKeyCount, Is.EqualTo(1));

        Assert.That(Get(s, "missing").status, Is.EqualTo(Status.NotFound));
        Assert.That(s.Delete(B("a")), Is.EqualTo(Status.Found));
        Assert.That(s.Delete(B("a")), Is.EqualTo(Status.NotFound));
        Assert.That(Get(s, "a").status, Is.EqualTo(Status.NotFound));
        Assert.That(store.LiveKeyCount, Is.EqualTo(0));
        Assert.That(s.Upsert(B("a"), B("back")).HasFlag(Status.Created));
        Assert.That(store.LiveKeyCount, Is.EqualTo(1));
    }

    [Test]
    public void EmptyKeysAndValues()
    {
        using var store = NewStore();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        s.Upsert([], []);
        var (st, v) = Get(s, "");
        Assert.That(st, Is.EqualTo(Status.Found));
        Assert.That(v, Is.Empty);
    }

    [Test]
    public void RmwCountsInPlaceAndByCopy()
    {
        using var store = NewStore();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        var input = new TestInput { Delta = 5 };
        TestOutput o = default;
        Assert.That(s.Rmw(B("n"), ref input, ref o), Is.EqualTo(Status.Created));
        input.Delta = 2;
        Assert.That(s.Rmw(B("n"), ref input, ref o), Is.EqualTo(Status.Found | Status.InPlaceUpdated));
        Assert.That(o.Number, Is.EqualTo(7));
        input = new TestInput { Delta = 1, Grow = 200 }; // does not fit: copy update
        Assert.That(s.Rmw(B("n"), ref input, ref o), Is.EqualTo(Status.Found | Status.CopyUpdated));
        Assert.That(o.Number, Is.EqualTo(8));
        Assert.That(Get(s, "n").value!.Length, Is.EqualTo(200));
        Assert.That(store.LiveKeyCount, Is.EqualTo(1));
    }

    [Test]
    public void ExpiredRecordsAreInvisible()
    {
        long now = 1_000_000;
        using var store = NewStore(clock: () => now);
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        s.Upsert(B("t"), B("v"), expiration: now + 100);
        Assert.That(Get(s, "t").status, Is.EqualTo(Status.Found));
        now += 100;
        Assert.That(Get(s, "t").status, Is.EqualTo(Status.NotFound | Status.Expired));
        Assert.That(store.LiveKeyCount, Is.EqualTo(1), "counted until reclaimed, as Redis's DBSIZE");
        // RMW on an expired key starts from scratch.
        var input = new TestInput { Delta = 3 };
        TestOutput o = default;
        var st = s.Rmw(B("t"), ref input, ref o);
        Assert.That(st.HasFlag(Status.Created) && st.HasFlag(Status.Expired));
        Assert.That(o.Number, Is.EqualTo(3));
        Assert.That(store.LiveKeyCount, Is.EqualTo(1));
        s.Upsert(B("u"), B("v"), expiration: now + 1);
        now += 5;
        Assert.That(s.Delete(B("u")), Is.EqualTo(Status.NotFound | Status.Expired));
        Assert.That(store.LiveKeyCount, Is.EqualTo(1));
    }

    [Test]
    public void LargerThanMemoryReadsBackFromDisk()
    {
        // 64 KB pages, 8 pages in memory (512 KB); write about 10x that.
        using var store = NewStore(pageBits: 16, memoryPages: 8);
        var log = new CompletionLog();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
        const int n = 80_000;
        for (int i = 0; i < n; i++)
        {
            // A new key whose index tag is shared with a key already on disk needs a disk read to learn that it is new.
            var st = s.Upsert(B("key:" + i), B("value-" + i + "-" + new string('p', i % 64)));
            Assert.That(st.HasFlag(Status.Created) || st.IsPending(), Is.True);
        }
        Assert.That(s.CompletePending(wait: true), Is.True);
        Assert.That(log.Items.Where(x => x.kind == "write").All(x => x.status.HasFlag(Status.Created)));
        log.Items.Clear();
        Assert.That(store.LiveKeyCount, Is.EqualTo(n));
        Assert.That(store.Log.HeadAddress, Is.GreaterThan(store.Log.BeginAddress), "most of the log must be on disk");
        Assert.That(store.Log.TailAddress, Is.GreaterThan(10L * (8 << 16)), "at least 10 times the memory budget was written");
        Assert.That(store.Device.SizeOnDisk, Is.GreaterThan(0));

        int pending = 0;
        for (int i = 0; i < n; i++)
        {
            TestInput inp = default; TestOutput o = default;
            var st = s.Read(B("key:" + i), ref inp, ref o);
            if (st.IsPending()) pending++;
            else
            {
                Assert.That(st, Is.EqualTo(Status.Found), "key:" + i);
                Assert.That(Encoding.UTF8.GetString(o.Value!), Is.EqualTo("value-" + i + "-" + new string('p', i % 64)));
            }
            if (i % 256 == 0) s.CompletePending(wait: true);
        }
        Assert.That(s.CompletePending(wait: true), Is.True);
        Assert.That(pending, Is.GreaterThan(n / 2), "most reads go to disk");
        var reads = log.Items.Where(x => x.kind == "read").ToList();
        Assert.That(reads, Has.Count.EqualTo(pending));
        foreach (var r in reads)
        {
            Assert.That(r.status, Is.EqualTo(Status.Found), r.key);
            int i = int.Parse(r.key[4..]);
            Assert.That(Encoding.UTF8.GetString(r.output.Value!), Is.EqualTo("value-" + i + "-" + new string('p', i % 64)));
        }
        // Completions come in issue order.
        var order = reads.Select(r => int.Parse(r.key[4..])).ToList();
        Assert.That(order, Is.Ordered);
    }

    [Test]
    public void WritesOnDiskResidentKeysKeepTheCountExact()
    {
        using var store = NewStore(pageBits: 16, memoryPages: 4);
        var log = new CompletionLog();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
        const int n = 20_000;
        for (int i = 0; i < n; i++) s.Upsert(B("k" + i), B("v" + i));
        s.CompletePending(wait: true);
        Assert.That(store.LiveKeyCount, Is.EqualTo(n));
        // Overwrite the first 1000 (on disk by now), delete the next 1000, RMW the next 1000.
        for (int i = 0; i < 1000; i++) s.Upsert(B("k" + i), B("w" + i));
        s.CompletePending(wait: true);
        for (int i = 1000; i < 2000; i++) s.Delete(B("k" + i));
        s.CompletePending(wait: true);
        var input = new TestInput { Delta = 1 };
        for (int i = 2000; i < 3000; i++) { TestOutput o = default; s.Rmw(B("k" + i), ref input, ref o); }
        s.CompletePending(wait: true);
        for (int i = 0; i < 500; i++) s.Delete(B("never" + i));
        s.CompletePending(wait: true);
        Assert.That(store.LiveKeyCount, Is.EqualTo(n - 1000));

        for (int i = 0; i < 3000; i++)
        {
            var (st, v) = Get(s, "k" + i, log);
            if (i < 1000) Assert.That(Encoding.UTF8.GetString(v!), Is.EqualTo("w" + i));
            else if (i < 2000) Assert.That(st.IsFound(), Is.False, "k" + i);
            else
            {
                // RMW added 1 to the first 8 bytes of "v<i>" padded: check the counter moved by exactly 1.
                var original = new byte[8];
                B("v" + i).AsSpan(0, Math.Min(8, ("v" + i).Length)).CopyTo(original);
                Assert.That(BinaryPrimitives.ReadInt64LittleEndian(v), Is.EqualTo(BinaryPrimitives.ReadInt64LittleEndian(original) + 1));
            }
        }
    }

    [Test]
    public void ConcurrentMixedOperationsMatchAModel()
    {
        // 4 threads, each with a session: RMW increments on shared counters (sum is known exactly), and
        // upsert/delete on a private key range (final state is known per thread), with the log spilling to disk.
        using var store = NewStore(pageBits: 14, memoryPages: 8, buckets: 256);
        const int threads = 4, counters = 200, opsPerThread = 20_000;
        var increments = new long[threads, counters];
        var finalPrivate = new Dictionary<string, string?>[threads];
        var workers = Enumerable.Range(0, threads).Select(t => new Thread(() =>
        {
            var log = new CompletionLog();
            using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
            var rnd = new Random(t);
            var model = new Dictionary<string, string?>();
            for (int i = 0; i < opsPerThread; i++)
            {
                int op = rnd.Next(10);
                if (op < 5)
                {
                    int c = rnd.Next(counters);
                    var input = new TestInput { Delta = 1 };
                    TestOutput o = default;
                    s.Rmw(B("counter:" + c), ref input, ref o);
                    increments[t, c]++;
                }
                else if (op < 8)
                {
                    string k = $"p{t}:{rnd.Next(500)}", v = "v" + i + new string('z', rnd.Next(40));
                    s.Upsert(B(k), B(v));
                    model[k] = v;
                }
                else if (op < 9)
                {
                    string k = $"p{t}:{rnd.Next(500)}";
                    s.Delete(B(k));
                    model[k] = null;
                }
                else
                {
                    TestInput inp = default; TestOutput o = default;
                    s.Read(B("counter:" + rnd.Next(counters)), ref inp, ref o);
                }
                if (i % 64 == 0) s.CompletePending(wait: true);
            }
            Assert.That(s.CompletePending(wait: true), Is.True);
            finalPrivate[t] = model;
        })).ToList();
        workers.ForEach(w => w.Start());
        workers.ForEach(w => w.Join());

        Assert.That(store.Log.HeadAddress, Is.GreaterThan(store.Log.BeginAddress), "the run must spill to disk");
        var log2 = new CompletionLog();
        using var check = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log2));
        long expectedLive = 0;
        for (int c = 0; c < counters; c++)
        {
            long expected = 0;
            for (int t = 0; t < threads; t++) expected += increments[t, c];
            var (st, v) = Get(check, "counter:" + c, log2);
            if (expected == 0) { Assert.That(st.IsFound(), Is.False); continue; }
            expectedLive++;
            Assert.That(BinaryPrimitives.ReadInt64LittleEndian(v), Is.EqualTo(expected), "counter:" + c);
        }
        foreach (var model in finalPrivate)
            foreach (var (k, v) in model)
            {
                var (st, got) = Get(check, k, log2);
                if (v is null) Assert.That(st.IsFound(), Is.False, k);
                else
                {
                    expectedLive++;
                    Assert.That(Encoding.UTF8.GetString(got!), Is.EqualTo(v), k);
                }
            }
        Assert.That(store.LiveKeyCount, Is.EqualTo(expectedLive));
    }

    [Test]
    public void NullDeviceForgetsEvictedRecords()
    {
        using var store = NewStore(pageBits: 14, memoryPages: 4, nullDevice: true);
        var log = new CompletionLog();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
        for (int i = 0; i < 10_000; i++) s.Upsert(B("k" + i), B("v" + i));
        Assert.That(Get(s, "k0", log).status.IsFound(), Is.False, "evicted and gone");
        Assert.That(Get(s, "k9999", log).status, Is.EqualTo(Status.Found));
        Assert.That(Directory.EnumerateFiles(_dir), Is.Empty);
    }

    [Test]
    public void NullDeviceCountsEvictedKeysOut()
    {
        using var store = NewStore(pageBits: 12, memoryPages: 4, nullDevice: true);
        var log = new CompletionLog();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
        for (int round = 0; round < 3; round++)
        {
            for (int i = 0; i < 3000; i++) s.Upsert(B("k" + i), B("v" + i));
            for (int i = 0; i < 3000; i += 3) s.Delete(B("k" + i));
            s.CompletePending(wait: true);
        }
        // The count must equal the keys that can still be read. Pages still leave memory after the last write (a page
        // closes once its flush has completed, in the background), so count what is readable until a whole pass sees
        // the count hold still.
        long readable = 0, count = -1;
        for (int pass = 0; pass < 50 && count != store.LiveKeyCount; pass++)
        {
            store.Epoch.WaitForPendingActions(TimeSpan.FromSeconds(5));
            count = store.LiveKeyCount;
            readable = 0;
            for (int i = 0; i < 3000; i++) if (Get(s, "k" + i, log).status.IsFound()) readable++;
            store.Epoch.WaitForPendingActions(TimeSpan.FromSeconds(5));
        }
        Assert.That(readable, Is.GreaterThan(0));
        Assert.That(readable, Is.LessThan(2000), "most keys were evicted");
        Assert.That(store.LiveKeyCount, Is.EqualTo(readable));
    }

    [Test]
    public void OversizedValueIsRefusedAndTheKeyStaysUsable()
    {
        using var store = NewStore(pageBits: 12, memoryPages: 8);
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        s.Upsert(B("big"), B("small"));
        Assert.Throws<ArgumentOutOfRangeException>(() => s.Upsert(B("big"), new byte[8192]));
        // RMW that wants to grow past a page: the callback path throws, and the record must not stay sealed.
        var input = new TestInput { Delta = 1, Grow = 8192 };
        TestOutput o = default;
        Assert.Throws<ArgumentOutOfRangeException>(() => s.Rmw(B("big"), ref input, ref o));
        Assert.That(Encoding.UTF8.GetString(Get(s, "big").value!), Is.EqualTo("small"));
        Assert.That(s.Upsert(B("big"), B("again")), Is.EqualTo(Status.Found | Status.InPlaceUpdated));
        Assert.That(s.Delete(B("big")), Is.EqualTo(Status.Found));
    }

    [Test]
    public void EmptyKeyEvictedWithNullDeviceIsGone()
    {
        using var store = NewStore(pageBits: 12, memoryPages: 4, nullDevice: true);
        var log = new CompletionLog();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
        s.Upsert([], []);
        for (int i = 0; i < 2000; i++) s.Upsert(B("k" + i), B("v" + i));
        s.CompletePending(wait: true);
        Assert.That(Get(s, "", log).status.IsFound(), Is.False, "zeros from an empty device are not a record");
    }

    [Test]
    public void DisposeWithOperationsInFlight()
    {
        var store = NewStore(pageBits: 14, memoryPages: 4);
        var log = new CompletionLog();
        var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
        for (int i = 0; i < 10_000; i++) s.Upsert(B("k" + i), B("v" + i));
        for (int i = 0; i < 200; i++) { TestInput inp = default; TestOutput o = default; s.Read(B("k" + i), ref inp, ref o); }
        s.Dispose(); // completes what is pending
        Assert.That(log.Items.Count, Is.GreaterThan(0));
        store.Dispose();
    }
}

[TestFixture]
public class IndexGrowthTests
{
    [Test]
    public void IndexDoublesOnlineUnderConcurrentLoad()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-grow-").FullName;
        try
        {
            using var store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 16, SegmentBits = 20, MemoryBytes = 16 << 16, IndexBuckets = 64 });
            const int threads = 3, perThread = 40_000;
            var errors = new System.Collections.Concurrent.ConcurrentQueue<Exception>();
            var workers = Enumerable.Range(0, threads).Select(t => new Thread(() =>
            {
              try
              {
                var log = new CompletionLog();
                using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
                for (int i = 0; i < perThread; i++)
                {
                    s.Upsert(System.Text.Encoding.ASCII.GetBytes($"t{t}:{i}"), System.Text.Encoding.ASCII.GetBytes("v" + i));
                    if (i % 3 == 0)
                    {
                        // Read back something this thread wrote earlier, while the index may be splitting.
                        int j = i / 2;
                        TestInput inp = default; TestOutput o = default;
                        var st = s.Read(System.Text.Encoding.ASCII.GetBytes($"t{t}:{j}"), ref inp, ref o);
                        if (!st.IsPending())
                        {
                            Assert.That(st, Is.EqualTo(Status.Found), $"t{t}:{j} while the index has {store.Index.BucketCount} buckets");
                            Assert.That(System.Text.Encoding.ASCII.GetString(o.Value!), Is.EqualTo("v" + j));
                        }
                    }
                    if (i % 128 == 0) s.CompletePending(wait: true);
                }
                s.CompletePending(wait: true);
                Assert.That(log.Items.Where(x => x.kind == "read").All(x => x.status == Status.Found && System.Text.Encoding.ASCII.GetString(x.output.Value!) == "v" + x.key.Split(':')[1]));
              }
              catch (Exception ex) { errors.Enqueue(ex); }
            })).ToList();
            workers.ForEach(w => w.Start());
            workers.ForEach(w => w.Join());
            Assert.That(errors, Is.Empty, string.Join("\n", errors));
            Assert.That(store.Index.WaitForGrowth(TimeSpan.FromSeconds(30)));
            Assert.That(store.Index.Generation, Is.GreaterThanOrEqualTo(3), "64 buckets cannot hold 120k keys without doubling");
            Assert.That(store.Index.BucketCount, Is.GreaterThanOrEqualTo(512));
            Assert.That(store.LiveKeyCount, Is.EqualTo(threads * perThread));

            var log2 = new CompletionLog();
            using var check = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log2));
            int found = 0;
            for (int t = 0; t < threads; t++)
                for (int i = 0; i < perThread; i++)
                {
                    TestInput inp = default; TestOutput o = default;
                    var st = check.Read(System.Text.Encoding.ASCII.GetBytes($"t{t}:{i}"), ref inp, ref o);
                    if (st == Status.Found) { found++; Assert.That(System.Text.Encoding.ASCII.GetString(o.Value!), Is.EqualTo("v" + i)); }
                    if (i % 256 == 0) check.CompletePending(wait: true);
                }
            check.CompletePending(wait: true);
            found += log2.Items.Count(x => x.status == Status.Found);
            Assert.That(found, Is.EqualTo(threads * perThread));
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }
}
