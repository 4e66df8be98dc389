// A read of a key on disk is a pending operation that is its own device read (BufferedDeviceRead): reused from read to
// read, with its key and buffer, so a GET of a key on disk allocates nothing on the managed heap, on either read engine
// (io_uring or reader threads). Allocation drives the GC's committed memory under a disk-bound load
// (docs/performance.md, "Disk reads without allocation").
using System.Buffers.Binary;
using Garnet.storage.Devices;
using Garnet.storage.Store;

namespace Garnet.storage.test;

[TestFixture]
public class PendingReadAllocationTests
{
    /// <summary>Reads count what they find without allocating (the key is "key:" and 12 digits, the value its number).</summary>
    internal struct CheckingFunctions(ReadTally tally) : IStoreFunctions<TestInput, TestOutput>
    {
        private TestFunctions _inner = new(null);
        public ReadTally Tally => tally;
        public bool Reader(ref RecordRef record, ref TestInput input, ref TestOutput output)
        {
            output.Number = BinaryPrimitives.ReadInt64LittleEndian(record.Value);
            return true;
        }
        public void ReadCompleted(ReadOnlySpan<byte> key, ref TestInput input, ref TestOutput output, Status status)
        {
            long expected = 0;
            foreach (byte b in key[4..]) expected = expected * 10 + (b - '0');
            if (status == Status.Found && output.Number == expected) tally.Found++;
            else tally.Wrong++;
        }
        public bool NeedInitialUpdate(ReadOnlySpan<byte> key, ref TestInput input, ref TestOutput output, out int valueLength, out long expiration) => _inner.NeedInitialUpdate(key, ref input, ref output, out valueLength, out expiration);
        public void InitialUpdater(ReadOnlySpan<byte> key, ref TestInput input, ref RecordRef newRecord, ref TestOutput output) => _inner.InitialUpdater(key, ref input, ref newRecord, ref output);
        public UpdateAction InPlaceUpdater(ref RecordRef record, ref TestInput input, ref TestOutput output) => _inner.InPlaceUpdater(ref record, ref input, ref output);
        public bool NeedCopyUpdate(ref RecordRef oldRecord, ref TestInput input, ref TestOutput output, out int valueLength, out long expiration) => _inner.NeedCopyUpdate(ref oldRecord, ref input, ref output, out valueLength, out expiration);
        public void CopyUpdater(ref RecordRef oldRecord, ref TestInput input, ref RecordRef newRecord, ref TestOutput output) => _inner.CopyUpdater(ref oldRecord, ref input, ref newRecord, ref output);
        public void RmwCompleted(ReadOnlySpan<byte> key, ref TestInput input, ref TestOutput output, Status status) { }
        public void WriteCompleted(ReadOnlySpan<byte> key, Status status) { }
    }

    internal static void KeyOf(int i, Span<byte> key)
    {
        "key:"u8.CopyTo(key);
        for (int d = 15; d >= 4; d--, i /= 10) key[d] = (byte)('0' + i % 10);
    }

    [TestCase(DiskReadMode.IoUring)]
    [TestCase(DiskReadMode.Threads)]
    [CancelAfter(120_000)]
    public void ReadsOfKeysOnDiskAllocateNothingPerRead(DiskReadMode mode)
    {
        var dir = Directory.CreateTempSubdirectory("garnet-alloc-").FullName;
        try
        {
            const int Keys = 60_000;
            KVStore store;
            try
            {
                store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 16, MemoryBytes = 1 << 20, IndexBuckets = 1 << 12, CopyReadsFromDiskToTail = false, DiskReadMode = mode });
            }
            catch (NotSupportedException ex) { Assert.Ignore(ex.Message); return; }
            using (store)
            {
                Load(store, Keys);
                var tally = new ReadTally();
                using var s = store.NewSession<TestInput, TestOutput, CheckingFunctions>(new CheckingFunctions(tally));
                // Warm up (code tiers up, the session keeps an op), then measure reads one at a time, as a GET at pipeline 1.
                int pending = ReadEach(s, 0, 3000);
                Assert.That(pending, Is.GreaterThan(2500), "most keys are on disk");
                // Three windows, the least counts: the allocation count is the process's, and the test host's own work
                // (it serializes the previous fixture's results on a thread of its own) can fall into one window; what
                // each read allocates falls into every one.
                double least = double.MaxValue;
                var lines = new List<string>(3); // written after the windows: the host sends a written line on its own thread
                for (int window = 0; window < 3; window++)
                {
                    int from = 3000 + window * 2000;
                    long readsBefore = store.Readers.Reads;
                    long before = GC.GetTotalAllocatedBytes(precise: true);
                    pending = ReadEach(s, from, from + 2000);
                    long allocated = GC.GetTotalAllocatedBytes(precise: true) - before;
                    Assert.That(pending, Is.GreaterThan(1600));
                    Assert.That(store.Readers.Reads - readsBefore, Is.GreaterThanOrEqualTo(pending), "each went to the device");
                    lines.Add($"{mode}: {pending} reads from disk, {allocated} bytes allocated ({(double)allocated / pending:F1} per read)");
                    least = Math.Min(least, (double)allocated / pending);
                }
                foreach (var line in lines) TestContext.Progress.WriteLine(line);
                Assert.That(tally.Wrong, Is.EqualTo(0));
                // Before reads were their own objects: about 400 bytes per read (state machines, a Task per device read, a
                // bounce buffer object, the key's copy). A few bytes per read are left for the runtime's own work meanwhile.
                Assert.That(least, Is.LessThan(16));
            }
        }
        finally { Directory.Delete(dir, recursive: true); }
    }

    [Test]
    [CancelAfter(120_000)]
    public void AnIdleSessionGivesItsReadBufferToThePoolAndTheNextReadTakesItBack()
    {
        // At pipeline 1 every connection goes idle after each request (ReleaseIdleBuffers) and reads its next key from
        // disk: the buffer must go to ReadBufferPool and come back, not to the C heap and out of it again.
        var dir = Directory.CreateTempSubdirectory("garnet-pool-").FullName;
        try
        {
            using var store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 16, MemoryBytes = 1 << 20, IndexBuckets = 1 << 12, CopyReadsFromDiskToTail = false });
            Load(store, 20_000);
            var tally = new ReadTally();
            using var s = store.NewSession<TestInput, TestOutput, CheckingFunctions>(new CheckingFunctions(tally));
            Assert.That(ReadEach(s, 0, 10), Is.GreaterThan(0), "keys on disk were read");
            int before = ReadBufferPool.Pooled;
            s.ReleaseIdleBuffers();
            int idle = ReadBufferPool.Pooled;
            Assert.That(idle, Is.EqualTo(before + 1), "the op's buffer went to the pool");
            Assert.That(ReadEach(s, 10, 11), Is.EqualTo(1), "the next key is on disk too");
            Assert.That(ReadBufferPool.Pooled, Is.EqualTo(idle - 1), "its read took the pooled buffer");
            Assert.That(tally.Wrong, Is.EqualTo(0));
        }
        finally { Directory.Delete(dir, recursive: true); }
    }

    /// <summary>Writes keys 0..count-1 (KeyOf), each with its number as the value.</summary>
    private static void Load(KVStore store, int count)
    {
        using var w = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        Span<byte> key = stackalloc byte[16], value = stackalloc byte[32];
        for (int i = 0; i < count; i++)
        {
            KeyOf(i, key);
            BinaryPrimitives.WriteInt64LittleEndian(value, i);
            w.Upsert(key, value);
        }
        w.CompletePending(wait: true);
    }

    private static int ReadEach(StoreSession<TestInput, TestOutput, CheckingFunctions> s, int from, int to)
    {
        Span<byte> key = stackalloc byte[16];
        int pending = 0;
        for (int i = from; i < to; i++)
        {
            KeyOf(i * 7 % 60_000, key);
            TestInput input = default;
            TestOutput output = default;
            if (s.Read(key, ref input, ref output).IsPending())
            {
                pending++;
                if (!s.CompletePending(wait: true)) return -1; // (no Assert here: NUnit's constraints allocate)
            }
        }
        return pending;
    }
}
