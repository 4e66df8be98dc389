// ConsumerGroup: a stream's consumer group (Redis's streamCG): its last delivered ID, its entries-read counter, the
// pending entries list (PEL: delivered, not yet acknowledged) and its consumers, each with its own part of the PEL.
// Invariants:
//  - Every PendingEntry is in the group's PEL and in exactly its Owner's PEL (same object); both ordered by ID.
//  - Consumers and groups are ordered by name bytes (as Redis's radix trees order them).
namespace Garnet.server.Objects.Streams;

public sealed class PendingEntry(StreamId id, Consumer owner, long deliveryTime, long deliveryCount)
{
    public StreamId Id { get; } = id;
    public Consumer Owner { get; set; } = owner;
    public long DeliveryTime { get; set; } = deliveryTime;
    public long DeliveryCount { get; set; } = deliveryCount;
}

/// <summary>An ordered map of pending entries by ID with range seeks.</summary>
public sealed class PendingList
{
    private readonly SortedSet<StreamId> _ids = [];
    private readonly Dictionary<StreamId, PendingEntry> _byId = [];

    public int Count => _byId.Count;
    public bool TryGet(StreamId id, out PendingEntry entry) => _byId.TryGetValue(id, out entry!);
    public void Add(PendingEntry e) { if (_byId.TryAdd(e.Id, e)) _ids.Add(e.Id); else _byId[e.Id] = e; }
    public bool Remove(StreamId id) => _byId.Remove(id) && _ids.Remove(id);

    public IEnumerable<PendingEntry> Range(StreamId start, StreamId end)
    {
        if (start > end || _ids.Count == 0) yield break;
        foreach (var id in _ids.GetViewBetween(start, end)) yield return _byId[id];
    }

    public IEnumerable<PendingEntry> All => Range(StreamId.Min, StreamId.Max);
    public StreamId First => _ids.Min;
    public StreamId Last => _ids.Max;
}

public sealed class Consumer(byte[] name, long seenTime, long activeTime)
{
    public byte[] Name { get; } = name;
    public long SeenTime { get; set; } = seenTime;
    /// <summary>Last successful interaction (a read that delivered, a claim); -1 = never (Redis 7.2's active-time).</summary>
    public long ActiveTime { get; set; } = activeTime;
    public PendingList Pending { get; } = new();
}

public sealed class ConsumerGroup(byte[] name, StreamId lastId, long entriesRead)
{
    public const long InvalidEntriesRead = -1;

    public byte[] Name { get; } = name;
    public StreamId LastId { get; set; } = lastId;
    public long EntriesRead { get; set; } = entriesRead;
    public PendingList Pending { get; } = new();
    public SortedDictionary<byte[], Consumer> Consumers { get; } = new(ByteArrayComparer.Instance);

    public Consumer? Find(ReadOnlySpan<byte> name)
    {
        foreach (var c in Consumers) if (c.Key.AsSpan().SequenceEqual(name)) return c.Value;
        return null;
    }

    public Consumer? Find(byte[] name) => Consumers.TryGetValue(name, out var c) ? c : null;

    public Consumer GetOrCreate(byte[] name, long now, out bool created)
    {
        created = false;
        if (Consumers.TryGetValue(name, out var c)) return c;
        created = true;
        c = new Consumer(name, now, -1);
        Consumers[name] = c;
        return c;
    }

    /// <summary>Removes consumer and its pending entries (from the group's PEL too); returns how many it had.</summary>
    public long Delete(Consumer c)
    {
        long n = c.Pending.Count;
        foreach (var e in c.Pending.All.ToList()) Pending.Remove(e.Id);
        Consumers.Remove(c.Name);
        return n;
    }

    public ConsumerGroup DeepCopy()
    {
        var g = new ConsumerGroup(Name, LastId, EntriesRead);
        foreach (var (name, c) in Consumers)
        {
            var nc = new Consumer(name, c.SeenTime, c.ActiveTime);
            g.Consumers[name] = nc;
            foreach (var e in c.Pending.All)
            {
                var ne = new PendingEntry(e.Id, nc, e.DeliveryTime, e.DeliveryCount);
                nc.Pending.Add(ne);
                g.Pending.Add(ne);
            }
        }
        return g;
    }

    /// <summary>Approximate heap bytes.</summary>
    public long HeapBytes => 160 + Name.Length + Pending.Count * 200L + Consumers.Count * 160L;
}
