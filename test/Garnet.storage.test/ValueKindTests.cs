// The kind tag on byte records (Upsert's valueKind, RecordRef.SetValueKind): it is written with the bytes in every
// Upsert path (new record, in place, reused space, pending behind a disk read), cleared by a byte Upsert without a kind,
// survives the flush to disk, and iterators report it (IteratedRecord.Kind). The server keeps small collections inline
// in byte records this way (see docs/objects.md).
using System.Text;
using Garnet.storage.Store;

namespace Garnet.storage.test;

[TestFixture]
public class ValueKindTests
{
    private string _dir = null!;

    [SetUp] public void SetUp() => _dir = Directory.CreateTempSubdirectory("garnet-kind-").FullName;
    [TearDown] public void TearDown() { try { Directory.Delete(_dir, true); } catch { } }

    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    /// <summary>The newest record of each key, as a scan sees it.</summary>
    private static Dictionary<string, IteratedRecord> Newest(KVStore store)
    {
        using var it = new KeyIterator(store);
        var all = new List<IteratedRecord>();
        while (it.NextBatchAsync(all, 500).AsTask().Result) { }
        var newest = new Dictionary<string, IteratedRecord>();
        foreach (var r in all)
        {
            string k = Encoding.UTF8.GetString(r.Key);
            if (!newest.TryGetValue(k, out var seen) || seen.Address < r.Address) newest[k] = r;
        }
        return newest;
    }

    [Test]
    public void TagFollowsTheBytesThroughEveryUpsertPathAndTheDisk()
    {
        using var store = new KVStore(new KVStoreSettings { Directory = _dir, PageBits = 14, SegmentBits = 20, MemoryBytes = 4 << 14, IndexBuckets = 1024 });
        using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(new CompletionLog()));
        s.Upsert(B("tagged"), B("12345678"), valueKind: 3);
        s.Upsert(B("cleared"), B("12345678"), valueKind: 4);
        s.Upsert(B("cleared"), B("abcdefgh")); // in place, no kind: a plain value again
        s.Upsert(B("retagged"), B("12345678"));
        s.Upsert(B("retagged"), B("zz"), valueKind: 5); // in place (shorter), now tagged
        s.Upsert(B("cold"), B("on disk"), valueKind: 6);
        var inMemory = Newest(store);
        Assert.That(inMemory["tagged"].Kind, Is.EqualTo(3));
        Assert.That(inMemory["cleared"].Kind, Is.EqualTo(0));
        Assert.That(inMemory["retagged"].Kind, Is.EqualTo(5));
        Assert.That(Encoding.UTF8.GetString(inMemory["retagged"].Value), Is.EqualTo("zz"));

        for (int i = 0; i < 5000; i++) s.Upsert(B("pad" + i), B("v" + i));
        s.CompletePending(wait: true);
        Assume.That(store.Log.HeadAddress, Is.GreaterThan(inMemory["cold"].Address), "the tagged records are on disk");
        // A blind write of a key whose newest record is on disk waits for the disk read: it keeps its kind.
        var st = s.Upsert(B("cold"), B("rewritten"), valueKind: 2);
        Assert.That(st.IsPending(), Is.True, "the pending path");
        s.CompletePending(wait: true);

        var after = Newest(store);
        Assert.That(after["tagged"].Kind, Is.EqualTo(3), "read back from the disk with its tag");
        Assert.That(after["tagged"].Address, Is.LessThan(store.Log.HeadAddress));
        Assert.That(after["cleared"].Kind, Is.EqualTo(0));
        Assert.That(after["cold"].Kind, Is.EqualTo(2));
        Assert.That(Encoding.UTF8.GetString(after["cold"].Value), Is.EqualTo("rewritten"));
        Assert.That(after["pad7"].Kind, Is.EqualTo(0));
    }
}
