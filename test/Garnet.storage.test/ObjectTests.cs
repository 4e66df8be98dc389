using System.Buffers;
using System.Buffers.Binary;
using System.Text;
using Garnet.storage.Objects;
using Garnet.storage.Store;

namespace Garnet.storage.test;

/// <summary>The test object: a list of strings that keeps a running heap size.</summary>
public sealed class TestList
{
    public readonly List<string> Items = new();
    public long Size { get; private set; } = 64;

    public void Add(string item)
    {
        Items.Add(item);
        Size += 32 + 2L * item.Length;
    }

    public TestList Clone()
    {
        var c = new TestList();
        foreach (var i in Items) c.Add(i);
        return c;
    }
}

public sealed class TestListSerializer : IObjectSerializer
{
    public int Serialized, Deserialized;

    public void Serialize(object value, IBufferWriter<byte> output)
    {
        Interlocked.Increment(ref Serialized);
        var list = (TestList)value;
        var span = output.GetSpan(4);
        BinaryPrimitives.WriteInt32LittleEndian(span, list.Items.Count);
        output.Advance(4);
        foreach (var item in list.Items)
        {
            int n = Encoding.UTF8.GetByteCount(item);
            span = output.GetSpan(4 + n);
            BinaryPrimitives.WriteInt32LittleEndian(span, n);
            Encoding.UTF8.GetBytes(item, span[4..]);
            output.Advance(4 + n);
        }
    }

    public object Deserialize(ReadOnlySpan<byte> bytes)
    {
        Interlocked.Increment(ref Deserialized);
        var list = new TestList();
        int count = BinaryPrimitives.ReadInt32LittleEndian(bytes);
        int at = 4;
        for (int i = 0; i < count; i++)
        {
            int n = BinaryPrimitives.ReadInt32LittleEndian(bytes[at..]);
            list.Add(Encoding.UTF8.GetString(bytes.Slice(at + 4, n)));
            at += 4 + n;
        }
        return list;
    }

    public long HeapSize(object value) => ((TestList)value).Size;
}

public struct ListInput { public string Push; }
public struct ListOutput { public int Count; public string? Last; public string[]? All; }

/// <summary>RMW appends to a list object (in place when mutable, on a clone otherwise); Read returns the items.</summary>
public struct ListFunctions(List<(string key, Status status, ListOutput output)>? completions) : IStoreFunctions<ListInput, ListOutput>
{
    public bool Reader(ref RecordRef record, ref ListInput input, ref ListOutput output)
    {
        var list = (TestList)record.Object!;
        output.Count = list.Items.Count;
        output.Last = list.Items.Count > 0 ? list.Items[^1] : null;
        output.All = list.Items.ToArray();
        return true;
    }

    public bool NeedInitialUpdate(ReadOnlySpan<byte> key, ref ListInput input, ref ListOutput output, out int valueLength, out long expiration)
    {
        valueLength = RecordRef.ObjectValue;
        expiration = 0;
        return true;
    }

    public void InitialUpdater(ReadOnlySpan<byte> key, ref ListInput input, ref RecordRef newRecord, ref ListOutput output)
    {
        var list = new TestList();
        list.Add(input.Push);
        newRecord.SetObject(list);
        output.Count = 1;
    }

    public UpdateAction InPlaceUpdater(ref RecordRef record, ref ListInput input, ref ListOutput output)
    {
        var list = (TestList)record.Object!;
        list.Add(input.Push);
        output.Count = list.Items.Count;
        return UpdateAction.Done;
    }

    public bool NeedCopyUpdate(ref RecordRef oldRecord, ref ListInput input, ref ListOutput output, out int valueLength, out long expiration)
    {
        valueLength = RecordRef.ObjectValue;
        expiration = oldRecord.Expiration;
        return true;
    }

    public void CopyUpdater(ref RecordRef oldRecord, ref ListInput input, ref RecordRef newRecord, ref ListOutput output)
    {
        var list = ((TestList)oldRecord.Object!).Clone();
        list.Add(input.Push);
        newRecord.SetObject(list);
        output.Count = list.Items.Count;
    }

    public void ReadCompleted(ReadOnlySpan<byte> key, ref ListInput input, ref ListOutput output, Status status) =>
        completions?.Add((Encoding.ASCII.GetString(key), status, output));
    public void RmwCompleted(ReadOnlySpan<byte> key, ref ListInput input, ref ListOutput output, Status status) =>
        completions?.Add((Encoding.ASCII.GetString(key), status, output));
    public void WriteCompleted(ReadOnlySpan<byte> key, Status status) => completions?.Add((Encoding.ASCII.GetString(key), status, default));
}

[TestFixture]
public class ObjectTests
{
    private string _dir = null!;

    [SetUp] public void SetUp() => _dir = Directory.CreateTempSubdirectory("garnet-obj-").FullName;
    [TearDown] public void TearDown() { try { Directory.Delete(_dir, true); } catch { } }

    private KVStore NewStore(TestListSerializer serializer, long memory, int pageBits = 14) => new(new KVStoreSettings
    {
        Directory = _dir, PageBits = pageBits, SegmentBits = 20, MemoryBytes = memory, IndexBuckets = 256, ObjectSerializer = serializer,
    });

    private static byte[] B(string s) => Encoding.ASCII.GetBytes(s);

    private static ListOutput ReadList(StoreSession<ListInput, ListOutput, ListFunctions> s, List<(string key, Status status, ListOutput output)> done, string key, out Status status)
    {
        ListInput i = default; ListOutput o = default;
        status = s.Read(B(key), ref i, ref o);
        if (!status.IsPending()) return o;
        done.Clear();
        Assert.That(s.CompletePending(wait: true), Is.True);
        var c = done.Single(x => x.key == key);
        status = c.status;
        return c.output;
    }

    [Test]
    public void ObjectsSurviveFlushAndComeBackFromDisk()
    {
        var serializer = new TestListSerializer();
        using var store = NewStore(serializer, memory: 8 << 14);
        var done = new List<(string, Status, ListOutput)>();
        using var s = store.NewSession<ListInput, ListOutput, ListFunctions>(new ListFunctions(done));
        const int keys = 2000, pushes = 5;
        for (int round = 0; round < pushes; round++)
            for (int k = 0; k < keys; k++)
            {
                ListInput input = new() { Push = $"k{k}-r{round}-{new string('x', k % 50)}" };
                ListOutput output = default;
                s.Rmw(B("list:" + k), ref input, ref output);
                if (k % 64 == 0) s.CompletePending(wait: true);
            }
        Assert.That(s.CompletePending(wait: true), Is.True);
        Assert.That(store.LiveKeyCount, Is.EqualTo(keys));
        Assert.That(store.Log.HeadAddress, Is.GreaterThan(store.Log.BeginAddress), "pages were evicted");
        Assert.That(serializer.Serialized, Is.GreaterThan(0), "flushed pages serialized their objects");
        Assert.That(store.ObjectLog!.SizeOnDisk, Is.GreaterThan(0));

        int fromDisk = 0;
        for (int k = 0; k < keys; k++)
        {
            var o = ReadList(s, done, "list:" + k, out var st);
            Assert.That(st.IsFound(), Is.True, "list:" + k);
            Assert.That(o.All, Is.EqualTo(Enumerable.Range(0, pushes).Select(r => $"k{k}-r{r}-{new string('x', k % 50)}").ToArray()), "list:" + k);
            if (done.Count > 0) fromDisk++;
        }
        Assert.That(fromDisk, Is.GreaterThan(keys / 4), "many lists came back from disk");
        Assert.That(serializer.Deserialized, Is.GreaterThanOrEqualTo(fromDisk));
    }

    [Test]
    public void UpsertDeleteAndOverwriteOfObjects()
    {
        var serializer = new TestListSerializer();
        using var store = NewStore(serializer, memory: 64 << 14);
        var done = new List<(string, Status, ListOutput)>();
        using var s = store.NewSession<ListInput, ListOutput, ListFunctions>(new ListFunctions(done));
        var a = new TestList(); a.Add("one");
        Assert.That(s.Upsert(B("a"), a).HasFlag(Status.Created), Is.True);
        Assert.That(store.Objects.ObjectCount, Is.EqualTo(1));
        Assert.That(store.Objects.TotalBytes, Is.EqualTo(a.Size));

        var b = new TestList(); b.Add("two"); b.Add("three");
        Assert.That(s.Upsert(B("a"), b).HasFlag(Status.InPlaceUpdated), Is.True, "object replaced in its slot");
        Assert.That(store.Objects.TotalBytes, Is.EqualTo(b.Size));
        Assert.That(ReadList(s, done, "a", out _).All, Is.EqualTo(new[] { "two", "three" }));

        // A byte value replaces the object: the record is copied, and the old object is dropped.
        Assert.That(s.Upsert(B("a"), B("bytes")).HasFlag(Status.CopyUpdated), Is.True);
        Assert.That(store.Objects.ObjectCount, Is.EqualTo(0));
        Assert.That(store.Objects.TotalBytes, Is.EqualTo(0));

        Assert.That(s.Upsert(B("c"), b).HasFlag(Status.Created), Is.True);
        Assert.That(s.Delete(B("c")), Is.EqualTo(Status.Found));
        Assert.That(store.Objects.ObjectCount, Is.EqualTo(0), "delete drops the object");
        ReadList(s, done, "c", out var st);
        Assert.That(st.IsFound(), Is.False);
        Assert.That(store.LiveKeyCount, Is.EqualTo(1));
    }

    [Test]
    public void BudgetCountsObjectsAndEvictsPagesForThem()
    {
        // 32 pages of 16 KB = 512 KB budget; each list holds about 40 KB of strings, so objects alone would need
        // several megabytes: the log must give up pages (and their objects) to stay near the budget.
        var serializer = new TestListSerializer();
        const long budget = 32 << 14;
        using var store = NewStore(serializer, memory: budget);
        var done = new List<(string, Status, ListOutput)>();
        using var s = store.NewSession<ListInput, ListOutput, ListFunctions>(new ListFunctions(done));
        const int keys = 200;
        long worst = 0;
        string big = new('y', 2000);
        for (int k = 0; k < keys; k++)
        {
            for (int p = 0; p < 10; p++)
            {
                ListInput input = new() { Push = $"{k}:{p}:{big}" };
                ListOutput output = default;
                s.Rmw(B("big:" + k), ref input, ref output);
            }
            s.CompletePending(wait: true);
            store.Log.WaitForFlushes(TimeSpan.FromSeconds(10));
            worst = Math.Max(worst, store.MemoryBytes);
        }
        long oneList = 64 + 10 * (32 + 2L * (big.Length + 10));
        TestContext.Out.WriteLine($"worst {worst} budget {budget} objects {store.Objects.TotalBytes} pages {store.Log.MemoryBytes} index {store.Index.MemoryBytes}");
        Assert.That(keys * oneList, Is.GreaterThan(8 * budget), "objects far exceed the budget");
        // Objects in the mutable pages cannot leave at once: allow two pages of records plus the objects on them.
        Assert.That(worst, Is.LessThan(budget + 4 * oneList + 2 * (16 << 14)), "memory stays near the budget");
        for (int k = 0; k < keys; k += 7)
        {
            var o = ReadList(s, done, "big:" + k, out var st);
            Assert.That(st.IsFound(), Is.True);
            Assert.That(o.Count, Is.EqualTo(10));
            Assert.That(o.Last, Is.EqualTo($"{k}:9:{big}"));
        }
    }

    [Test]
    public async Task IteratorReturnsObjectsFromMemoryAndDisk()
    {
        var serializer = new TestListSerializer();
        using var store = NewStore(serializer, memory: 8 << 14);
        using var s = store.NewSession<ListInput, ListOutput, ListFunctions>(new ListFunctions(null));
        const int keys = 3000;
        for (int k = 0; k < keys; k++)
        {
            ListInput input = new() { Push = "v" + k };
            ListOutput output = default;
            s.Rmw(B("it:" + k), ref input, ref output);
            if (k % 64 == 0) s.CompletePending(wait: true);
        }
        Assert.That(s.CompletePending(wait: true), Is.True);
        Assert.That(store.Log.HeadAddress, Is.GreaterThan(store.Log.BeginAddress));
        var it = new KeyIterator(store);
        var all = new List<IteratedRecord>();
        while (await it.NextBatchAsync(all)) { }
        Assert.That(all, Has.Count.EqualTo(keys));
        foreach (var r in all)
        {
            Assert.That(r.IsObject, Is.True);
            var list = (TestList)serializer.Deserialize(r.Value);
            Assert.That(list.Items, Is.EqualTo(new[] { "v" + Encoding.ASCII.GetString(r.Key)[3..] }));
        }
    }
}
