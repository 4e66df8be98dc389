// StreamBlockCache: the bytes of spilled stream blocks read recently (by a read-ahead, or by a synchronous read), so the
// command that asked for them, and others reading the same old entries, find them without the disk.
// Invariants:
//  - Bounded by bytes: inserting past the bound evicts the oldest insertions first (FIFO); an entry is never changed,
//    only replaced by the same bytes or removed (StreamBlock.Readable hands them out read-only, Shared).
//  - Keyed by the extent's offset (never reused within a run); an entry whose extent is freed is removed under the spill
//    file's lock (StreamSpillFile.Unlist), and entries are added only for listed extents, under that lock too.
//  - Thread-safe (one lock; every operation is O(1) amortized).
namespace Garnet.server.Objects.Streams;

internal sealed class StreamBlockCache
{
    private readonly object _lock = new();
    private readonly Dictionary<long, byte[]> _bytes = [];
    private readonly Queue<long> _order = new(); // insertion order; may hold offsets already removed
    private long _held;

    /// <summary>Bytes of blocks the cache may hold.</summary>
    public long Capacity { get; set; } = 8L << 20;
    public long HeldBytes { get { lock (_lock) return _held; } }

    public bool TryGet(long offset, int length, out byte[] bytes)
    {
        lock (_lock)
            if (_bytes.TryGetValue(offset, out bytes!) && bytes.Length == length) return true;
        bytes = null!;
        return false;
    }

    public void Add(long offset, byte[] bytes)
    {
        lock (_lock)
        {
            if (bytes.Length > Capacity) return;
            if (_bytes.TryGetValue(offset, out var old)) _held -= old.Length;
            else _order.Enqueue(offset);
            _bytes[offset] = bytes;
            _held += bytes.Length;
            while (_held > Capacity && _order.TryDequeue(out long oldest))
                if (_bytes.Remove(oldest, out var gone)) _held -= gone.Length;
            if (_order.Count > 4 * _bytes.Count + 1024) // offsets removed by Remove: rebuild (keeps the queue bounded)
            {
                var live = _order.Where(_bytes.ContainsKey).Distinct().ToList();
                _order.Clear();
                foreach (long o in live) _order.Enqueue(o);
            }
        }
    }

    public void Remove(IReadOnlyCollection<long> offsets)
    {
        lock (_lock)
            foreach (long o in offsets)
                if (_bytes.Remove(o, out var gone)) _held -= gone.Length;
    }
}
