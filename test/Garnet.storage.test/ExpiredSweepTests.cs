// The on-disk expiry sweep: expired sole versions at the head of their chain are unlinked without a write; those below
// another key's record are handed out as buried, and DeleteIfExpired(lookOnDisk) deletes exactly those that expired.
using System.Text;
using Garnet.storage.Store;

namespace Garnet.storage.test;

[TestFixture]
public class ExpiredSweepTests
{
    private static byte[] B(string s) => Encoding.ASCII.GetBytes(s);

    [Test]
    public async Task EveryExpiredKeyOnDiskGoesAndNoLiveKeyDoes()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-sweep-").FullName;
        long now = 1_000_000;
        try
        {
            // 64 buckets. Each expiring key "e.." below gets a partner "p.." in the same index chain (same bucket and tag),
            // written after it: its expired record is buried, not its chain's head.
            using var store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 14, SegmentBits = 16, MemoryBytes = 16 << 14, IndexBuckets = 64, Clock = () => now });
            var log = new CompletionLog();
            using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
            const int pairs = 8, loners = 100, fillers = 60;
            var persistent = new List<string>();
            for (int k = 0; k < pairs; k++)
            {
                string e = "e" + k, p = PartnerOf(e);
                s.Upsert(B(e), B("expiring-" + new string('x', 40)), expiration: now + 100);
                s.Upsert(B(p), B("persistent-" + new string('y', 40)));
                persistent.Add(p);
            }
            for (int k = 0; k < loners; k++) s.Upsert(B("lone" + k), B("expiring-" + new string('x', 40)), expiration: now + 100);
            // Two versions: the expired newer one cannot be unlinked (the older would come back), so it is handed out too.
            s.Upsert(B("twice"), B("first version, no TTL"));
            for (int k = 0; k < 300; k++) s.Upsert(B("spacer" + k), B(new string('s', 1000))); // the first version leaves the mutable region
            s.Upsert(B("twice"), B("second version, with a TTL"), expiration: now + 100);
            Assert.That(s.CompletePending(wait: true), Is.True); // (the first version is on disk: the upsert went pending)
            for (int k = 0; k < fillers; k++) s.Upsert(B("filler" + k), B(new string('f', 6000))); // pushes the rest to disk
            persistent.AddRange(Enumerable.Range(0, fillers).Select(k => "filler" + k));
            persistent.AddRange(Enumerable.Range(0, 300).Select(k => "spacer" + k));
            Assert.That(s.CompletePending(wait: true), Is.True);
            Assert.That(store.Log.WaitForFlushes(TimeSpan.FromSeconds(10)), Is.True);
            Assert.That(store.LiveKeyCount, Is.EqualTo(2 * pairs + loners + fillers + 301));
            Assert.That(store.Log.HeadAddress, Is.GreaterThan(2L << 16), "the paired keys are on disk");

            now += 1000; // every e-key has expired
            var buried = new List<byte[]>();
            long dropped = await store.DropExpiredOnDiskAsync(buried);
            TestContext.Out.WriteLine($"unlinked {dropped}, buried {buried.Count}");
            // (The hash seed is random per process: now and then a loner shares a chain by chance and is buried too.)
            var buriedNames = buried.Select(Encoding.ASCII.GetString).ToList();
            Assert.That(dropped + buriedNames.Count(k => k.StartsWith("lone")), Is.EqualTo(loners), "expired keys heading their chains are unlinked without a write");
            Assert.That(buriedNames.Where(k => !k.StartsWith("lone")), Is.EquivalentTo(Enumerable.Range(0, pairs).Select(k => "e" + k).Append("twice")), "the others are handed out");
            log.Items.Clear();
            long deleted = 0;
            foreach (var key in buried)
            {
                var st = s.DeleteIfExpired(key, lookOnDisk: true);
                if (st.IsPending()) { Assert.That(s.CompletePending(wait: true), Is.True); st = log.Items[^1].status; }
                if ((st & Status.Expired) != 0) deleted++;
            }
            Assert.That(deleted, Is.EqualTo(buried.Count), "each buried key is deleted once");

            Assert.That(store.LiveKeyCount, Is.EqualTo(pairs + fillers + 300), "every expired key left the count, no other did");
            Assert.That(Read(s, log, "twice"), Is.EqualTo(Status.NotFound), "the older version did not come back");
            Assert.That(await store.DropExpiredOnDiskAsync(buried), Is.Zero, "nothing is dropped twice");

            // DeleteIfExpired never deletes a key that has not expired, on disk or in memory.
            log.Items.Clear();
            int pendingReads = 0;
            foreach (var key in persistent)
            {
                var st = s.DeleteIfExpired(B(key), lookOnDisk: true);
                if (st.IsPending()) pendingReads++;
                else Assert.That(st, Is.EqualTo(Status.NotFound));
            }
            Assert.That(s.CompletePending(wait: true), Is.True);
            Assert.That(pendingReads, Is.GreaterThan(0), "some persistent keys were on disk");
            Assert.That(log.Items.Where(i => i.kind != "read").Select(i => i.status), Is.All.EqualTo(Status.NotFound));
            Assert.That(store.LiveKeyCount, Is.EqualTo(pairs + fillers + 300));
            log.Items.Clear();
            foreach (var key in persistent)
            {
                TestInput i = default; TestOutput o = default;
                var st = s.Read(B(key), ref i, ref o);
                if (!st.IsPending()) Assert.That(st, Is.EqualTo(Status.Found));
            }
            Assert.That(s.CompletePending(wait: true), Is.True);
            Assert.That(log.Items.Select(i => i.status), Is.All.EqualTo(Status.Found), "every persistent key still reads");
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    private static Status Read(StoreSession<TestInput, TestOutput, TestFunctions> s, CompletionLog log, string key)
    {
        TestInput i = default; TestOutput o = default;
        log.Items.Clear();
        var st = s.Read(B(key), ref i, ref o);
        if (!st.IsPending()) return st;
        Assert.That(s.CompletePending(wait: true), Is.True);
        return log.Items.Single().status;
    }

    /// <summary>A key whose hash has the same tag and the same low 6 bits (bucket) as key's: the two share an index chain.</summary>
    private static string PartnerOf(string key)
    {
        const ulong same = 0x3FUL; // the 64 buckets (the index does not grow at this size)
        ulong h = Garnet.storage.Util.KeyHash.Hash(B(key));
        for (int i = 0; ; i++)
        {
            string candidate = "p" + key + "-" + i;
            ulong c = Garnet.storage.Util.KeyHash.Hash(B(candidate));
            if ((c & same) == (h & same) && Garnet.storage.Index.HashIndex.TagOf(c) == Garnet.storage.Index.HashIndex.TagOf(h)) return candidate;
        }
    }
}
