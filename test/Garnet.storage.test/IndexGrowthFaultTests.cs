// The hash index's growth when it throws (StorageFaults.Inject at "index-grow" and "index-split"): a growth that cannot
// start is abandoned and tried again, a split that fails part way is undone and done again, and a chunk whose split
// keeps failing fails only the operations that need it, until the background splitter's retry splits it. Every key
// written stays readable with its value. In process, on small tables (traced splits); the executable's counterpart is
// test/Garnet.test/Faults/EngineFaultTests.
using System.Text;
using Garnet.storage.Index;
using Garnet.storage.Store;
using Garnet.storage.Util;

namespace Garnet.storage.test;

[TestFixture, NonParallelizable]
public class IndexGrowthFaultTests
{
    private string _dir = null!;
    private int _hits;

    [SetUp] public void SetUp() { _dir = Directory.CreateTempSubdirectory("garnet-growfault-").FullName; _hits = 0; }

    [TearDown]
    public void TearDown()
    {
        StorageFaults.Inject = null;
        try { Directory.Delete(_dir, true); } catch { }
    }

    private KVStore NewStore() =>
        new(new KVStoreSettings { Directory = _dir, PageBits = 16, SegmentBits = 20, MemoryBytes = 16 << 16, IndexBuckets = 64 });

    /// <summary>Throws at point while fail(hit number of that point, from 1) says so.</summary>
    private void InjectAt(string point, Func<int, bool> fail) => StorageFaults.Inject = p =>
    {
        if (p != point) return;
        if (fail(Interlocked.Increment(ref _hits))) throw new InvalidOperationException("injected at " + p);
    };

    private static byte[] B(string s) => Encoding.ASCII.GetBytes(s);

    /// <summary>How many of keys are found holding "v" + their number (disk reads completed).</summary>
    private static int CountReadable(KVStore store, IEnumerable<(string key, int n)> keys)
    {
        var log = new CompletionLog();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
        int found = 0, issued = 0;
        foreach (var (key, n) in keys)
        {
            TestInput input = default; TestOutput output = default;
            var st = s.Read(B(key), ref input, ref output);
            if (st == Status.Found && Encoding.ASCII.GetString(output.Value!) == "v" + n) found++;
            if (++issued % 256 == 0) s.CompletePending(wait: true);
        }
        s.CompletePending(wait: true);
        found += log.Items.Count(x => x.kind == "read" && x.status == Status.Found
            && Encoding.ASCII.GetString(x.output.Value!) == "v" + x.key[(x.key.IndexOf(':') + 1)..]);
        return found;
    }

    [Test, CancelAfter(120_000)]
    public void ASplitThatFailsPartWayIsUndoneAndDoneAgainUnderConcurrentLoad()
    {
        using var store = NewStore();
        InjectAt("index-split", hit => hit % 2 == 1); // every chunk's first split fails half way (each growth's chunk here)
        long reportedBefore = StorageFaults.Reported;
        const int threads = 3, perThread = 40_000;
        var errors = new System.Collections.Concurrent.ConcurrentQueue<Exception>();
        var workers = Enumerable.Range(0, threads).Select(t => new Thread(() =>
        {
            try
            {
                using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
                for (int i = 0; i < perThread; i++)
                {
                    s.Upsert(B($"t{t}:{i}"), B("v" + i));
                    if (i % 128 == 0) s.CompletePending(wait: true);
                }
                s.CompletePending(wait: true);
            }
            catch (Exception ex) { errors.Enqueue(ex); }
        })).ToList();
        workers.ForEach(w => w.Start());
        workers.ForEach(w => w.Join());
        Assert.That(errors, Is.Empty, string.Join("\n", errors));
        Assert.That(store.Index.WaitForGrowth(TimeSpan.FromSeconds(30)), Is.True, "the growth finished");
        Assert.That(store.Index.Generation, Is.GreaterThanOrEqualTo(3), "64 buckets cannot hold 120k keys without doubling");
        Assert.That(Volatile.Read(ref _hits), Is.GreaterThanOrEqualTo(2 * store.Index.Generation), "each growth's split failed once");
        Assert.That(StorageFaults.Reported - reportedBefore, Is.GreaterThanOrEqualTo(store.Index.Generation));
        var keys = Enumerable.Range(0, threads).SelectMany(t => Enumerable.Range(0, perThread).Select(i => ($"t{t}:{i}", i)));
        Assert.That(CountReadable(store, keys), Is.EqualTo(threads * perThread));
        Assert.That(store.LiveKeyCount, Is.EqualTo(threads * perThread));
    }

    [Test, CancelAfter(120_000)]
    public void AChunkWhoseSplitKeepsFailingFailsOnlyItsOpsUntilTheSplitterSplitsIt()
    {
        using var store = NewStore();
        bool failing = true;
        InjectAt("index-split", _ => Volatile.Read(ref failing));
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        int written = 0;
        IndexSplitException? refused = null;
        for (; written < 100_000 && refused is null; written++)
        {
            try { s.Upsert(B("k:" + written), B("v" + written)); }
            catch (IndexSplitException ex) { refused = ex; }
        }
        Assert.That(refused, Is.Not.Null, "the first growth's chunk could not be split: the op that needed it failed");
        s.CompletePending(wait: true);
        written--; // the last one failed
        Assert.That(store.Index.IsGrowing, Is.True);
        Assert.Throws<IndexSplitException>(() => s.Upsert(B("k:again"), B("v")), "still failing: the next op fails too, it does not hang");

        // The fault goes: with no op touching the index, the background splitter's next round finishes the growth.
        Volatile.Write(ref failing, false);
        Assert.That(store.Index.WaitForGrowth(TimeSpan.FromSeconds(30)), Is.True, "the splitter's retry finished the growth");
        Assert.That(store.Index.Generation, Is.EqualTo(1));
        Assert.That(CountReadable(store, Enumerable.Range(0, written).Select(i => ("k:" + i, i))), Is.EqualTo(written));
        for (int i = written; i < written + 50_000; i++) s.Upsert(B("k:" + i), B("v" + i));
        s.CompletePending(wait: true); // upserts of keys whose chain left memory wait for a read
        Assert.That(store.Index.WaitForGrowth(TimeSpan.FromSeconds(30)), Is.True);
        Assert.That(CountReadable(store, Enumerable.Range(0, written + 50_000).Select(i => ("k:" + i, i))), Is.EqualTo(written + 50_000));
    }

    [Test, CancelAfter(120_000)]
    public void AGrowthThatCannotStartIsAbandonedAndTriedAgain()
    {
        using var store = NewStore();
        InjectAt("index-grow", hit => hit == 1);
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        int written = 0;
        for (; Volatile.Read(ref _hits) == 0 && written < 100_000; written++) s.Upsert(B("k:" + written), B("v" + written));
        Assert.That(_hits, Is.EqualTo(1), "a growth was asked for and failed to start");
        Assert.That(store.Index.IsGrowing, Is.False, "abandoned, not stuck");
        Assert.That(store.Index.Generation, Is.EqualTo(0));
        Assert.That(store.Index.WantedBytes, Is.EqualTo(0));
        Assert.That(store.Index.BucketCount, Is.EqualTo(64), "still the old table");
        // More keys, past the retry delay: the growth is asked for again and happens.
        var sw = System.Diagnostics.Stopwatch.StartNew();
        for (; store.Index.Generation == 0 && sw.Elapsed < TimeSpan.FromSeconds(30); written++) s.Upsert(B("k:" + written), B("v" + written));
        s.CompletePending(wait: true);
        Assert.That(store.Index.WaitForGrowth(TimeSpan.FromSeconds(30)), Is.True);
        Assert.That(store.Index.Generation, Is.GreaterThanOrEqualTo(1), "a later growth started");
        Assert.That(_hits, Is.GreaterThanOrEqualTo(2));
        Assert.That(CountReadable(store, Enumerable.Range(0, written).Select(i => ("k:" + i, i))), Is.EqualTo(written));
    }
}
