using System.Text;
using Garnet.storage.Store;

namespace Garnet.storage.test;

[TestFixture]
public class SegmentReclaimTests
{
    private static byte[] B(string s) => Encoding.ASCII.GetBytes(s);

    private static string ValueOf(int key, int round) => $"r{round}-k{key}-" + new string('p', 60 + key % 30);

    [Test]
    public async Task SegmentsWithoutLiveRecordsAreDeletedAndNothingLiveIsLost()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-reclaim-").FullName;
        try
        {
            using var store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 14, SegmentBits = 16, MemoryBytes = 16 << 14, IndexBuckets = 1 << 12 });
            var log = new CompletionLog();
            using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(log));
            const int keys = 2000, rounds = 6;
            s.Upsert(B("pinned"), B("first record of the log, never overwritten"));
            for (int round = 0; round < rounds; round++)
            {
                for (int k = 0; k < keys; k++) s.Upsert(B("key" + k), B(ValueOf(k, round)));
                Assert.That(s.CompletePending(wait: true), Is.True);
            }
            Assert.That(store.Log.WaitForFlushes(TimeSpan.FromSeconds(10)), Is.True);
            long diskBefore = store.Device.SizeOnDisk;
            Assert.That(store.Log.HeadAddress, Is.GreaterThan(4L << 16), "several segments are wholly on disk");

            // The first segment holds "pinned", which is live: nothing may go.
            Assert.That(await store.ReclaimDeadSegmentsAsync(), Is.EqualTo(0));
            Assert.That(store.Log.BeginAddress, Is.EqualTo(64));

            // Once "pinned" is deleted (a tombstone at the tail), the old segments hold only superseded records.
            log.Items.Clear();
            var deleted = s.Delete(B("pinned"));
            Assert.That(s.CompletePending(wait: true), Is.True);
            Assert.That(deleted.IsPending() ? log.Items.Single().status : deleted, Is.EqualTo(Status.Found));
            long dropped = await store.ReclaimDeadSegmentsAsync();
            long diskAfter = store.Device.SizeOnDisk;
            TestContext.Out.WriteLine($"dropped {dropped} bytes of log; disk {diskBefore} -> {diskAfter}; begin {store.Log.BeginAddress}, head {store.Log.HeadAddress}");
            Assert.That(dropped, Is.GreaterThanOrEqualTo(2L << 16), "at least two whole segments went");
            Assert.That(diskAfter, Is.LessThan(diskBefore));
            Assert.That(Directory.GetFiles(dir, "log.0"), Is.Empty, "segment 0 was deleted");

            // Every key still reads its last value, from memory or from the remaining segments.
            Assert.That(store.LiveKeyCount, Is.EqualTo(keys));
            log.Items.Clear();
            for (int k = 0; k < keys; k++)
            {
                TestInput i = default; TestOutput o = default;
                var st = s.Read(B("key" + k), ref i, ref o);
                if (!st.IsPending())
                {
                    Assert.That(st, Is.EqualTo(Status.Found));
                    Assert.That(Encoding.ASCII.GetString(o.Value!), Is.EqualTo(ValueOf(k, rounds - 1)));
                }
            }
            Assert.That(s.CompletePending(wait: true), Is.True);
            foreach (var r in log.Items)
            {
                Assert.That(r.status, Is.EqualTo(Status.Found), r.key);
                Assert.That(Encoding.ASCII.GetString(r.output.Value!), Is.EqualTo(ValueOf(int.Parse(r.key[3..]), rounds - 1)));
            }
            log.Items.Clear();
            TestInput pi = default; TestOutput po = default;
            var pinned = s.Read(B("pinned"), ref pi, ref po);
            Assert.That(s.CompletePending(wait: true), Is.True);
            Assert.That(pinned.IsPending() ? log.Items.Single().status : pinned, Is.EqualTo(Status.NotFound));
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }
}
