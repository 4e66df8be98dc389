// A pending read that cannot even be started (the readers are gone, a segment cannot be opened) completes its operation
// with the failure: CompletePending reports it at once instead of waiting for a read that never comes, and the session
// stays usable for keys in memory.
using System.Buffers.Binary;
using System.Text;
using Garnet.storage.Store;

namespace Garnet.storage.test;

[TestFixture]
public class PendingReadFailureTests
{
    [Test, CancelAfter(60_000)]
    public void AReadThatCannotStartFailsItsOperation()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-readfail-").FullName;
        try
        {
            using var store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 16, MemoryBytes = 1 << 20, IndexBuckets = 1 << 12, CopyReadsFromDiskToTail = false });
            var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
            try
            {
                Span<byte> value = stackalloc byte[32];
                for (int i = 0; i < 40_000; i++)
                {
                    BinaryPrimitives.WriteInt64LittleEndian(value, i);
                    s.Upsert(Encoding.ASCII.GetBytes($"key:{i:D12}"), value);
                }
                // An upsert whose (bucket, tag) chain reaches the disk goes pending (it must learn whether the key is there):
                // finish those while reads still work, so that the read below is the only operation left pending.
                Assert.That(s.CompletePending(wait: true, TimeSpan.FromSeconds(30)), Is.True);
                Assume.That(store.Log.HeadAddress, Is.GreaterThan(store.Log.TailAddress / 2), "the first keys are on disk");
                store.Readers.Dispose(); // no read can start from now on
                TestInput input = default;
                TestOutput output = default;
                var st = s.Read(Encoding.ASCII.GetBytes($"key:{0:D12}"), ref input, ref output);
                Assert.That(st.IsPending(), Is.True);
                var started = DateTime.UtcNow;
                Assert.Throws<IOException>(() => s.CompletePending(wait: true, TimeSpan.FromSeconds(30)));
                Assert.That(DateTime.UtcNow - started, Is.LessThan(TimeSpan.FromSeconds(10)), "reported at once, not after a wait");
                Assert.That(s.CompletePending(wait: false), Is.True, "nothing left pending");
                st = s.Read(Encoding.ASCII.GetBytes($"key:{39_999:D12}"), ref input, ref output);
                Assert.That(st, Is.EqualTo(Status.Found), "keys in memory still read");
            }
            finally
            {
                // A failed operation still queued would make Dispose throw and hide the assertion that failed above.
                try { s.Dispose(); } catch (IOException) { }
            }
        }
        finally { Directory.Delete(dir, recursive: true); }
    }
}
