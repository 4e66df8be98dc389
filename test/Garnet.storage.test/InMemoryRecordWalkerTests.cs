using System.Text;
using Garnet.storage.Log;
using Garnet.storage.Store;

namespace Garnet.storage.test;

[TestFixture]
public unsafe class InMemoryRecordWalkerTests
{
    private string _dir = null!;

    [SetUp] public void SetUp() => _dir = Directory.CreateTempSubdirectory("garnet-walk-").FullName;
    [TearDown] public void TearDown() { try { Directory.Delete(_dir, true); } catch { } }

    private static byte[] B(string s) => Encoding.ASCII.GetBytes(s);

    /// <summary>4 KiB pages, everything in memory (256 frames).</summary>
    private KVStore SmallPages(double mutableFraction = 0.9) =>
        new(new KVStoreSettings { Directory = _dir, PageBits = 12, SegmentBits = 20, MemoryBytes = 1 << 20, IndexBuckets = 1 << 12, MutableFraction = mutableFraction });

    private struct Collect() : IRecordVisitor
    {
        public readonly List<(long Address, int Size, string Key, ulong Info)> Seen = new();

        public void Visit(in WalkedRecord record) =>
            Seen.Add((record.Address, record.Size, Encoding.ASCII.GetString(record.Key), record.Info));
    }

    private static (List<(long Address, int Size, string Key, ulong Info)> Seen, WalkProgress Progress) WalkAll(KVStore store, long from, long end, int maxSteps = int.MaxValue)
    {
        var c = new Collect();
        var progress = InMemoryRecordWalker.Walk(store, from, end, maxSteps, ref c);
        return (c.Seen, progress);
    }

    [Test]
    public void VisitsEveryRecordOnceInAddressOrderAcrossPageBoundaries()
    {
        using var store = SmallPages();
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        // Value lengths 1..200: pages end with gaps of every size, under HeaderSize (no header fits) and above (a zero header).
        var expected = new List<string>();
        for (int i = 0; i < 1000; i++)
        {
            s.Upsert(B($"k{i:D4}"), new byte[i % 200 + 1], expiration: i % 3 == 0 ? 4_000_000_000_000 + i : 0);
            expected.Add($"k{i:D4}");
        }
        Assert.That(InMemoryRecordWalker.TryGetWrittenEnd(store, TimeSpan.FromSeconds(5), out long end), Is.True);
        Assert.That(end, Is.EqualTo(store.Log.TailAddress));
        Assert.That(store.Log.HeadAddress, Is.EqualTo(HybridLog.FirstValidAddress), "all in memory");

        var (seen, progress) = WalkAll(store, 0, end);
        Assert.That(seen.Select(r => r.Key), Is.EqualTo(expected), "each record once, in the order written");
        Assert.That(seen.Select(r => r.Address), Is.Ordered.Ascending);
        long firstPage = store.Log.PageOf(seen[0].Address), lastPage = store.Log.PageOf(seen[^1].Address);
        Assert.That(lastPage - firstPage, Is.GreaterThan(20), "the records span many pages");
        foreach (var r in seen)
            Assert.That(store.Log.PageOf(r.Address), Is.EqualTo(store.Log.PageOf(r.Address + r.Size - 1)), "no record spans a page");
        Assert.That(progress.ReachedEnd, Is.True);
        Assert.That(progress.Cursor, Is.EqualTo(end));
        // Each page end crossed is one step more than the records: at most one per page.
        Assert.That(progress.Steps, Is.InRange(seen.Count, seen.Count + (int)(lastPage - firstPage)));

        // Small step budgets resume exactly where they stopped, across page ends: the same records, once each.
        var chunked = new List<string>();
        long cursor = 0;
        for (int walks = 0; ; walks++)
        {
            Assert.That(walks, Is.LessThan(10_000));
            var (part, p) = WalkAll(store, cursor, end, maxSteps: 7);
            Assert.That(p.Steps, Is.LessThanOrEqualTo(7));
            chunked.AddRange(part.Select(r => r.Key));
            cursor = p.Cursor;
            if (p.ReachedEnd) break;
        }
        Assert.That(chunked, Is.EqualTo(expected));
    }

    [Test]
    public void SkipsInvalidRecordsAndTombstones()
    {
        using var store = SmallPages(mutableFraction: 0.5);
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        for (int i = 0; i < 100; i++) s.Upsert(B("a" + i), B("value-a" + i));
        // Push the a records below SafeReadOnlyAddress: deleting one then appends a tombstone.
        long aEnd = store.Log.TailAddress;
        int fill = 0;
        while (store.Log.SafeReadOnlyAddress < aEnd) s.Upsert(B("fill" + fill++), new byte[100]);
        for (int i = 0; i < 10; i++) Assert.That(s.Delete(B("a" + i)), Is.EqualTo(Status.Found));
        // Mutable: b's first records are replaced by larger copies (the old ones unlinked and Invalid), c's are deleted
        // in place (Tombstone | Invalid).
        for (int i = 0; i < 10; i++) s.Upsert(B("b" + i), B("small"));
        for (int i = 0; i < 10; i++) s.Upsert(B("b" + i), new byte[300]);
        for (int i = 0; i < 10; i++) s.Upsert(B("c" + i), B("gone"));
        for (int i = 0; i < 10; i++) Assert.That(s.Delete(B("c" + i)), Is.EqualTo(Status.Found));
        Assert.That(InMemoryRecordWalker.TryGetWrittenEnd(store, TimeSpan.FromSeconds(5), out long end), Is.True);
        Assert.That(store.Log.HeadAddress, Is.EqualTo(HybridLog.FirstValidAddress), "all in memory");

        var (seen, _) = WalkAll(store, 0, end);
        // Every a record once (a0..a9's are older versions now: the walk visits records, not keys), every filler, each b's
        // new record; no tombstone and no c.
        var expected = Enumerable.Range(0, 100).Select(i => "a" + i)
            .Concat(Enumerable.Range(0, fill).Select(i => "fill" + i))
            .Concat(Enumerable.Range(0, 10).Select(i => "b" + i));
        // (An old b record that did not head its index chain, another key having come after it in the chain, stays in
        // the chain, sealed, instead of Invalid: rare, and then visited with IsSealed.)
        var current = seen.Where(r => (r.Info & RecordInfo.Sealed) == 0).ToList();
        var sealedOldB = seen.Where(r => (r.Info & RecordInfo.Sealed) != 0).ToList();
        Assert.That(current.Select(r => r.Key), Is.EquivalentTo(expected));
        Assert.That(current.Where(r => r.Key.StartsWith('b')).Select(r => r.Size), Has.All.GreaterThan(300), "the new b records");
        Assert.That(sealedOldB.Select(r => r.Key[0]), Has.All.EqualTo('b'));
        Assert.That(seen.Select(r => r.Info & (RecordInfo.Invalid | RecordInfo.Tombstone)), Has.All.EqualTo(0UL));

        // The range did hold the records left out: 10 tombstones of a, 10 invalid b, 10 deleted c (unlinked: Invalid too).
        var skipped = RawRecords(store, end).Where(r => (r.Info & (RecordInfo.Invalid | RecordInfo.Tombstone)) != 0).ToList();
        Assert.That(skipped.Count(r => r.Key.StartsWith('a') && (r.Info & RecordInfo.Tombstone) != 0), Is.EqualTo(10));
        Assert.That(skipped.Count(r => r.Key.StartsWith('b') && (r.Info & RecordInfo.Invalid) != 0), Is.EqualTo(10 - sealedOldB.Count));
        Assert.That(skipped.Count(r => r.Key.StartsWith('c')), Is.EqualTo(10));
        Assert.That(seen.Select(r => r.Address).Intersect(skipped.Select(r => r.Address)), Is.Empty);
    }

    /// <summary>Every record from the head's page to end, read directly.</summary>
    private static List<(long Address, string Key, ulong Info)> RawRecords(KVStore store, long end)
    {
        var log = store.Log;
        var all = new List<(long, string, ulong)>();
        store.Epoch.Acquire();
        try
        {
            RawRecords(log, end, all);
        }
        finally { store.Epoch.Release(); }
        return all;
    }

    private static void RawRecords(HybridLog log, long end, List<(long, string, ulong)> all)
    {
        for (long page = log.PageOf(log.HeadAddress); log.PageStart(page) < end; page++)
        {
            long a = Math.Max(log.PageStart(page), HybridLog.FirstValidAddress), pageEnd = Math.Min(log.PageStart(page + 1), end);
            while (pageEnd - a >= RecordLayout.HeaderSize)
            {
                byte* r = log.GetPhysical(a);
                if (!RecordLayout.IsPresent(r)) break;
                all.Add((a, Encoding.ASCII.GetString(RecordLayout.Key(r)), RecordLayout.Info(r)));
                a += RecordLayout.TotalSize(r);
            }
        }
    }

    [Test]
    public void AnEmptyRangeVisitsNothing()
    {
        using var store = SmallPages();
        var (fresh, p0) = WalkAll(store, 0, store.Log.TailAddress);
        Assert.That(fresh, Is.Empty, "a new log has no record");
        Assert.That(p0.Steps, Is.EqualTo(0));

        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        for (int i = 0; i < 300; i++) s.Upsert(B("k" + i), new byte[40]);
        Assert.That(InMemoryRecordWalker.TryGetWrittenEnd(store, TimeSpan.FromSeconds(5), out long end), Is.True);
        foreach (long at in new[] { end, HybridLog.FirstValidAddress, store.Log.PageStart(3) })
        {
            var (seen, p) = WalkAll(store, at, at);
            Assert.That(seen, Is.Empty, $"[{at}, {at})");
            Assert.That(p.Steps, Is.EqualTo(0));
            Assert.That(p.Cursor, Is.EqualTo(at));
            Assert.That(p.ReachedEnd, Is.True);
        }
        var (none, _) = WalkAll(store, 0, end, maxSteps: 0);
        Assert.That(none, Is.Empty, "no steps, no records");

        // Resume goes round instead: a cursor at the end starts over at the head.
        var c = new Collect();
        var resumed = InMemoryRecordWalker.Resume(store, end, end, int.MaxValue, ref c);
        Assert.That(c.Seen, Has.Count.EqualTo(300));
        Assert.That(resumed.ReachedEnd, Is.True);
    }

    [Test]
    public void StartsAtTheHeadWhenTheRangeBeginsOnDisk()
    {
        using var store = new KVStore(new KVStoreSettings { Directory = _dir, PageBits = 12, SegmentBits = 20, MemoryBytes = 1 << 17, IndexBuckets = 1 << 10 });
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        for (int i = 0; i < 5000; i++) s.Upsert(B($"k{i:D4}"), new byte[60]);
        s.CompletePending(wait: true);
        Assert.That(InMemoryRecordWalker.TryGetWrittenEnd(store, TimeSpan.FromSeconds(5), out long end), Is.True);
        long head = store.Log.HeadAddress;
        Assert.That(head, Is.GreaterThan(HybridLog.FirstValidAddress), "part of the log is on disk");

        var (seen, p) = WalkAll(store, 0, end);
        Assert.That(seen, Is.Not.Empty);
        Assert.That(seen[0].Address, Is.GreaterThanOrEqualTo(head));
        // (Upserts whose chains reached the disk completed later, at the tail: the in-memory records are not in key order.)
        var raw = RawRecords(store, end); // from the head, which may have moved up since
        Assert.That(raw, Is.Not.Empty);
        Assert.That(seen.Select(r => r.Address).Where(a => a >= raw[0].Address), Is.EqualTo(raw.Select(r => r.Address)),
            "every record from the head on");
        Assert.That(p.ReachedEnd, Is.True);
        // A resume cursor that has left memory starts over at the head as well (the head may have moved up since).
        var c = new Collect();
        InMemoryRecordWalker.Resume(store, HybridLog.FirstValidAddress, end, int.MaxValue, ref c);
        Assert.That(c.Seen, Is.Not.Empty);
        Assert.That(c.Seen, Is.EqualTo(seen.Skip(seen.Count - c.Seen.Count)), "the records from the head on");
    }
}
