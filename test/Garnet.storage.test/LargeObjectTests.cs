using System.Buffers;
using System.Collections.Concurrent;
using System.Text;
using Garnet.storage.Objects;
using Garnet.storage.Store;

namespace Garnet.storage.test;

/// <summary>An object that is one immutable array in its serialized form (as the server's large strings are).</summary>
public sealed class Blob(byte[] serialized)
{
    public byte[] Serialized { get; } = serialized;
}

public sealed class BlobSerializer : IObjectSerializer
{
    public int SerializeCalls, SpanDeserializeCalls, OwnedDeserializeCalls;
    public readonly ConcurrentQueue<object> DroppedObjects = new();
    public readonly ConcurrentQueue<byte[]> Owned = new();

    public void Serialize(object value, IBufferWriter<byte> output)
    {
        Interlocked.Increment(ref SerializeCalls);
        output.Write(((Blob)value).Serialized);
    }

    public object Deserialize(ReadOnlySpan<byte> bytes)
    {
        Interlocked.Increment(ref SpanDeserializeCalls);
        return new Blob(bytes.ToArray());
    }

    public object DeserializeOwned(byte[] bytes)
    {
        Interlocked.Increment(ref OwnedDeserializeCalls);
        Owned.Enqueue(bytes);
        return new Blob(bytes);
    }

    public bool TryGetSerialized(object value, out byte[] bytes)
    {
        bytes = ((Blob)value).Serialized;
        return true;
    }

    public long HeapSize(object value) => ((Blob)value).Serialized.Length + 24;

    public void Dropped(object value) => DroppedObjects.Enqueue(value);
}

public struct BlobFunctions(List<(string key, Status status, Blob? blob)>? completions) : IStoreFunctions<int, Blob?>
{
    public bool Reader(ref RecordRef record, ref int input, ref Blob? output)
    {
        output = (Blob?)record.Object;
        return true;
    }

    public bool NeedInitialUpdate(ReadOnlySpan<byte> key, ref int input, ref Blob? output, out int valueLength, out long expiration)
    {
        valueLength = 0;
        expiration = 0;
        return false;
    }

    public void InitialUpdater(ReadOnlySpan<byte> key, ref int input, ref RecordRef newRecord, ref Blob? output) { }
    public UpdateAction InPlaceUpdater(ref RecordRef record, ref int input, ref Blob? output) => UpdateAction.Abort;

    public bool NeedCopyUpdate(ref RecordRef oldRecord, ref int input, ref Blob? output, out int valueLength, out long expiration)
    {
        valueLength = 0;
        expiration = 0;
        return false;
    }

    public void CopyUpdater(ref RecordRef oldRecord, ref int input, ref RecordRef newRecord, ref Blob? output) { }
    public void ReadCompleted(ReadOnlySpan<byte> key, ref int input, ref Blob? output, Status status) =>
        completions?.Add((Encoding.ASCII.GetString(key), status, output));
    public void RmwCompleted(ReadOnlySpan<byte> key, ref int input, ref Blob? output, Status status) { }
    public void WriteCompleted(ReadOnlySpan<byte> key, Status status) { }
}

/// <summary>
/// Large objects through the engine without copies: a flush writes the array the object lends (TryGetSerialized), a
/// read from disk hands the object an array of exactly its bytes (DeserializeOwned), an iterator yields the lent array,
/// and every object the engine lets go of (replaced, deleted, evicted with its page) is reported once (Dropped).
/// </summary>
[TestFixture]
public class LargeObjectTests
{
    private string _dir = null!;

    [SetUp] public void SetUp() => _dir = Directory.CreateTempSubdirectory("garnet-lobj-").FullName;
    [TearDown] public void TearDown() { try { Directory.Delete(_dir, true); } catch { } }

    private static byte[] B(string s) => Encoding.ASCII.GetBytes(s);

    private static Blob NewBlob(int length, int seed)
    {
        var b = new byte[length];
        new Random(seed).NextBytes(b);
        return new Blob(b);
    }

    [Test]
    public async Task LargeObjectsAreLentAdoptedAndReportedWhenDropped()
    {
        var serializer = new BlobSerializer();
        const int blobSize = 100 << 10; // above StoreIo.LargeObjectRead
        using var store = new KVStore(new KVStoreSettings
        {
            Directory = _dir, PageBits = 14, SegmentBits = 22, MemoryBytes = 512 << 10, IndexBuckets = 256, ObjectSerializer = serializer,
        });
        var done = new List<(string key, Status status, Blob? blob)>();
        using var s = store.NewSession<int, Blob?, BlobFunctions>(new BlobFunctions(done));

        // Replaced in place and deleted: each old object is reported once.
        var first = NewBlob(blobSize, 1);
        var second = NewBlob(blobSize, 2);
        s.Upsert(B("x"), first);
        Assert.That(s.Upsert(B("x"), second).HasFlag(Status.InPlaceUpdated), Is.True);
        Assert.That(serializer.DroppedObjects, Is.EqualTo(new object[] { first }));
        Assert.That(s.Delete(B("x")), Is.EqualTo(Status.Found));
        Assert.That(serializer.DroppedObjects, Is.EqualTo(new object[] { first, second }));

        // Far more than the 512 KB budget: pages are flushed (writing the lent arrays) and evicted with their objects.
        const int keys = 40;
        var blobs = Enumerable.Range(0, keys).Select(k => NewBlob(blobSize, 100 + k)).ToArray();
        for (int k = 0; k < keys; k++)
        {
            s.Upsert(B("b" + k), blobs[k]);
            s.CompletePending(wait: true);
            store.Log.WaitForFlushes(TimeSpan.FromSeconds(10));
        }
        store.Epoch.WaitForPendingActions(TimeSpan.FromSeconds(10)); // evictions (and their Dropped calls) have run
        Assert.That(serializer.SerializeCalls, Is.EqualTo(0), "flushes wrote the objects' own arrays");
        Assert.That(store.ObjectLog!.SizeOnDisk, Is.GreaterThanOrEqualTo((long)blobSize * 4));
        var droppedBlobs = serializer.DroppedObjects.Skip(2).ToList();
        Assert.That(droppedBlobs, Is.Not.Empty, "evicted pages dropped their objects");
        Assert.That(droppedBlobs, Is.Unique, "each object is reported once");
        Assert.That(droppedBlobs.Count + store.Objects.ObjectCount, Is.EqualTo(keys), "every object is either in memory or was reported");

        // Read back from disk: the object gets an array of exactly its bytes, with the right contents.
        int fromDisk = 0;
        for (int k = 0; k < keys; k++)
        {
            int input = 0;
            Blob? output = null;
            done.Clear();
            var st = s.Read(B("b" + k), ref input, ref output);
            if (st.IsPending())
            {
                Assert.That(s.CompletePending(wait: true), Is.True);
                (_, st, output) = done.Single();
                fromDisk++;
            }
            Assert.That(st.IsFound(), Is.True, "b" + k);
            Assert.That(output!.Serialized.AsSpan().SequenceEqual(blobs[k].Serialized), "b" + k);
        }
        Assert.That(fromDisk, Is.GreaterThan(0));
        Assert.That(serializer.OwnedDeserializeCalls, Is.EqualTo(fromDisk), "large objects read back are adopted, not copied");
        Assert.That(serializer.SpanDeserializeCalls, Is.EqualTo(0));
        Assert.That(serializer.Owned.All(a => a.Length == blobSize));

        // The iterator lends the in-memory objects' arrays and reads the rest from the object log.
        var it = new KeyIterator(store);
        var all = new List<IteratedRecord>();
        while (await it.NextBatchAsync(all)) { }
        Assert.That(all, Has.Count.EqualTo(keys));
        var objectArrays = new HashSet<byte[]>(blobs.Select(b => b.Serialized).Concat(serializer.Owned), ReferenceEqualityComparer.Instance);
        int lent = 0;
        foreach (var r in all)
        {
            int k = int.Parse(Encoding.ASCII.GetString(r.Key)[1..]);
            Assert.That(r.Value.AsSpan().SequenceEqual(blobs[k].Serialized), "b" + k);
            if (objectArrays.Contains(r.Value)) lent++;
        }
        Assert.That(lent, Is.GreaterThan(0), "objects in memory are yielded without a copy");
        Assert.That(serializer.SerializeCalls, Is.EqualTo(0));
    }
}
