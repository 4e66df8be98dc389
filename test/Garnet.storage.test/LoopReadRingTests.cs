// A network loop's own ring (LoopReadRing): store record reads started on the thread it is attached to go into it; they
// reach the kernel when the loop submits, the kernel's completions make the ring's eventfd readable, and Poll (or Pump, for
// a thread that waits synchronously) completes them on that thread. Reads beyond its depth, and reads of other threads,
// go to the shared ring. Every read returns the right record (CheckingFunctions tallies the pending ones), and counts in
// the store's disk reads.
using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Garnet.storage.Devices;
using Garnet.storage.Store;

namespace Garnet.storage.test;

[TestFixture]
public partial class LoopReadRingTests
{
    private const int Keys = 60_000;
    private string _dir = null!;
    private KVStore _store = null!;

    [OneTimeSetUp]
    public void Load()
    {
        _dir = Directory.CreateTempSubdirectory("garnet-loopring-").FullName;
        try
        {
            _store = new KVStore(new KVStoreSettings { Directory = _dir, PageBits = 16, MemoryBytes = 1 << 20, IndexBuckets = 1 << 12, CopyReadsFromDiskToTail = false, DiskReadMode = DiskReadMode.IoUring });
        }
        catch (NotSupportedException ex) { Assert.Ignore(ex.Message); }
        using var w = _store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(null));
        Span<byte> key = stackalloc byte[16], value = stackalloc byte[32];
        for (int i = 0; i < Keys; i++)
        {
            PendingReadAllocationTests.KeyOf(i, key);
            BinaryPrimitives.WriteInt64LittleEndian(value, i);
            w.Upsert(key, value);
        }
        w.CompletePending(wait: true);
    }

    [OneTimeTearDown]
    public void Stop()
    {
        _store?.Dispose();
        Directory.Delete(_dir, recursive: true);
        // What this fixture left for finalizers is done now, not during a later fixture's allocation count.
        GC.Collect();
        GC.WaitForPendingFinalizers();
    }

    private StoreSession<TestInput, TestOutput, PendingReadAllocationTests.CheckingFunctions> NewSession(out ReadTally tally)
    {
        tally = new ReadTally();
        return _store.NewSession<TestInput, TestOutput, PendingReadAllocationTests.CheckingFunctions>(new(tally));
    }

    private static LoopReadRing NewRing(int depth) =>
        LoopReadRing.TryCreate(depth, out string? why) ?? throw new IgnoreException($"no loop ring here: {why}");

    /// <summary>Starts reads of count keys from first (stride 7, mostly on disk) without completing them; how many went pending.</summary>
    private static int StartReads(StoreSession<TestInput, TestOutput, PendingReadAllocationTests.CheckingFunctions> s, int first, int count)
    {
        Span<byte> key = stackalloc byte[16];
        int pending = 0;
        for (int i = first; i < first + count; i++)
        {
            PendingReadAllocationTests.KeyOf(i * 7 % Keys, key);
            TestInput input = default;
            TestOutput output = default;
            if (s.Read(key, ref input, ref output).IsPending()) pending++;
        }
        return pending;
    }

    [Test, CancelAfter(60_000)]
    public void ReadsOfTheAttachedThreadGoThroughTheRingAndTheLoopCompletesThem()
    {
        using var ring = NewRing(64);
        using var s = NewSession(out var tally);
        long ringBefore = _store.Readers.LoopRingReads, readsBefore = _store.Readers.Reads;
        ring.Attach();
        try
        {
            int pending = StartReads(s, 0, 40);
            Assert.That(pending, Is.GreaterThan(30), "most keys are on disk");
            Assert.That(ring.InFlight, Is.EqualTo(pending), "every read is in the loop's ring");
            Assert.That(s.CompletePending(wait: false), Is.False);
            Assert.That(ring.HasCompletions, Is.False, "nothing reaches the kernel before the loop submits");

            // The loop's round: submit before waiting; the eventfd ends the wait; Poll completes on this thread.
            Assert.That(ring.Submit(), Is.True);
            int completed = 0;
            while (completed < pending)
            {
                Assert.That(WaitReadable(ring.EventFd, 10_000), Is.True, "the ring's eventfd became readable");
                completed += ring.Poll();
            }
            Assert.That(ring.InFlight, Is.EqualTo(0));
            Assert.That(s.CompletePending(wait: false), Is.True, "the session finishes the reads Poll completed");
            Assert.That(tally.Found, Is.EqualTo(pending), "every pending read found its record");
            Assert.That(tally.Wrong, Is.EqualTo(0));
            Assert.That(_store.Readers.LoopRingReads - ringBefore, Is.EqualTo(pending));
            Assert.That(_store.Readers.Reads - readsBefore, Is.EqualTo(pending), "they count among the store's reads");
        }
        finally { ring.Detach(); }
    }

    [Test, CancelAfter(60_000)]
    public void AThreadWaitingSynchronouslyPumpsItsRingAndReadsPastItsDepthGoToTheSharedRing()
    {
        using var ring = NewRing(4);
        using var s = NewSession(out var tally);
        long ringBefore = _store.Readers.LoopRingReads, readsBefore = _store.Readers.Reads;
        ring.Attach();
        try
        {
            int pending = StartReads(s, 1000, 50);
            Assert.That(pending, Is.GreaterThan(40));
            Assert.That(ring.InFlight, Is.EqualTo(4), "the ring takes its depth, no more");
            // Nobody else submits this ring: the wait must (CompletePending pumps it).
            Assert.That(s.CompletePending(wait: true, TimeSpan.FromSeconds(30)), Is.True);
            Assert.That(tally.Found, Is.EqualTo(pending));
            Assert.That(tally.Wrong, Is.EqualTo(0));
            long viaRing = _store.Readers.LoopRingReads - ringBefore;
            Assert.That(viaRing, Is.GreaterThanOrEqualTo(4));
            Assert.That(_store.Readers.Reads - readsBefore - viaRing, Is.GreaterThan(0), "the rest went to the shared ring");
        }
        finally { ring.Detach(); }
    }

    [Test, CancelAfter(60_000)]
    public void ReadsOfAThreadWithoutARingGoToTheSharedRing()
    {
        using var ring = NewRing(64);
        using var s = NewSession(out var tally);
        long ringBefore = _store.Readers.LoopRingReads;
        ring.Attach();
        ring.Detach(); // as a loop does before it hands itself to another thread
        int pending = StartReads(s, 2000, 30);
        Assert.That(pending, Is.GreaterThan(20));
        Assert.That(ring.InFlight, Is.EqualTo(0));
        Assert.That(s.CompletePending(wait: true, TimeSpan.FromSeconds(30)), Is.True);
        Assert.That(tally.Found, Is.EqualTo(pending));
        Assert.That(_store.Readers.LoopRingReads, Is.EqualTo(ringBefore));
    }

    [Test, CancelAfter(60_000)]
    public void DisposeWaitsForTheReadsInFlight()
    {
        var ring = NewRing(64);
        using var s = NewSession(out var tally);
        ring.Attach();
        int pending;
        try
        {
            pending = StartReads(s, 3000, 20);
            Assert.That(ring.Submit(), Is.True);
        }
        finally { ring.Detach(); }
        ring.Dispose(); // the reads' buffers are in use until they complete: Dispose completes them first
        Assert.That(ring.InFlight, Is.EqualTo(0));
        Assert.That(s.CompletePending(wait: true, TimeSpan.FromSeconds(30)), Is.True);
        Assert.That(tally.Found, Is.EqualTo(pending));
        Assert.That(pending, Is.GreaterThan(10));
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct PollFd
    {
        public int Fd;
        public short Events, REvents;
    }

    [LibraryImport("libc", EntryPoint = "poll", SetLastError = true)]
    private static partial int Poll(ref PollFd fds, nuint count, int timeoutMs);

    private static bool WaitReadable(int fd, int timeoutMs)
    {
        var p = new PollFd { Fd = fd, Events = 1 /* POLLIN */ };
        long deadline = Environment.TickCount64 + timeoutMs;
        while (Environment.TickCount64 < deadline)
        {
            int n = Poll(ref p, 1, 100);
            if (n > 0 && (p.REvents & 1) != 0)
            {
                // The loop registers it edge-triggered and never reads it; poll is level-triggered: drain it here.
                Span<byte> eight = stackalloc byte[8];
                ReadFd(fd, ref MemoryMarshal.GetReference(eight), 8);
                return true;
            }
        }
        return false;
    }

    [LibraryImport("libc", EntryPoint = "read", SetLastError = true)]
    private static partial nint ReadFd(int fd, ref byte buffer, nuint count);
}
