// ObjectHeap: the .NET objects that object records point to, kept per log page frame. A record's value holds a
// slot number within its page's frame; the slot holds the object and the size it was counted with.
// Invariants:
//  - A slot is written only by the thread that created the record (before it is published) or under the record's
//    exclusive lock; readers read it under the shared lock (mutable region) or lock-free (immutable region).
//  - TotalBytes is the sum of the sizes in all slots; every change of a slot adjusts it by the exact difference.
//  - A frame's slots are cleared when its page is closed (evicted), before the frame is reused.
//  - Every object that leaves a slot (replaced, released, or cleared with its frame) is passed to the serializer's
//    Dropped, once per time it left, so the server can count memory that became garbage.
namespace Garnet.storage.Objects;

public sealed class ObjectHeap
{
    private const int ChunkBits = 10;
    private const int ChunkSize = 1 << ChunkBits;

    private struct Slot
    {
        public object? Value;
        public long Size;
    }

    private readonly Slot[]?[][] _chunks;   // [frame][chunk]
    private readonly int[] _used;           // slots handed out per frame
    private readonly long[] _frameBytes;    // bytes of the objects in each frame
    private readonly int _maxSlots;
    private readonly IObjectSerializer? _serializer;
    private long _totalBytes;
    private long _liveObjects;

    public ObjectHeap(int frames, int pageSize, IObjectSerializer? serializer)
    {
        // Each object record takes at least 32 bytes (16 header + 16 value), so a page holds at most pageSize/32.
        _maxSlots = Math.Max(1, pageSize / 32);
        int chunksPerFrame = (_maxSlots + ChunkSize - 1) / ChunkSize;
        _chunks = new Slot[]?[frames][];
        for (int f = 0; f < frames; f++) _chunks[f] = new Slot[]?[chunksPerFrame];
        _used = new int[frames];
        _frameBytes = new long[frames];
        _serializer = serializer;
    }

    public IObjectSerializer Serializer => _serializer ?? throw new InvalidOperationException("the store has no object serializer (KVStoreSettings.ObjectSerializer)");
    public bool Enabled => _serializer is not null;

    /// <summary>Bytes held by live objects (as HeapSize reported them).</summary>
    public long TotalBytes => Interlocked.Read(ref _totalBytes);
    public long ObjectCount => Interlocked.Read(ref _liveObjects);

    private long _serializeFailures;
    /// <summary>Objects whose serializer threw when their page was flushed (their records read back as errors).</summary>
    public long SerializeFailures => Interlocked.Read(ref _serializeFailures);
    internal void NoteSerializeFailure() => Interlocked.Increment(ref _serializeFailures);

    private long _objectsRead;
    /// <summary>Objects read back from the object log and deserialized (reads of records on disk that needed them).</summary>
    public long ObjectsRead => Interlocked.Read(ref _objectsRead);
    internal void NoteObjectRead() => Interlocked.Increment(ref _objectsRead);

    /// <summary>Bytes of the objects on the page held in frame.</summary>
    public long FrameBytes(int frame) => Interlocked.Read(ref _frameBytes[frame]);

    /// <summary>Takes a new slot in frame for an object record being created there.</summary>
    public int Allocate(int frame)
    {
        int slot = Interlocked.Increment(ref _used[frame]) - 1;
        if (slot >= _maxSlots) throw new InvalidOperationException("object slots of a page exhausted");
        return slot;
    }

    private ref Slot At(int frame, int slot)
    {
        var dir = _chunks[frame];
        int c = slot >> ChunkBits;
        var chunk = Volatile.Read(ref dir[c]);
        if (chunk is null)
        {
            Interlocked.CompareExchange(ref dir[c], new Slot[ChunkSize], null);
            chunk = Volatile.Read(ref dir[c])!;
        }
        return ref chunk[slot & (ChunkSize - 1)];
    }

    public object? Get(int frame, int slot) => Volatile.Read(ref At(frame, slot).Value);

    /// <summary>Puts value in the slot (replacing what was there) and accounts for its size.</summary>
    public void Set(int frame, int slot, object? value)
    {
        ref var s = ref At(frame, slot);
        long size = value is null ? 0 : Serializer.HeapSize(value);
        long delta = size - s.Size;
        var old = s.Value;
        if (old is null && value is not null) Interlocked.Increment(ref _liveObjects);
        else if (old is not null && value is null) Interlocked.Decrement(ref _liveObjects);
        Volatile.Write(ref s.Value, value);
        s.Size = size;
        Account(frame, delta);
        if (old is not null && !ReferenceEquals(old, value)) Serializer.Dropped(old);
    }

    private void Account(int frame, long delta)
    {
        if (delta == 0) return;
        Interlocked.Add(ref _totalBytes, delta);
        Interlocked.Add(ref _frameBytes[frame], delta);
    }

    /// <summary>Re-counts the object's size after an in-place change.</summary>
    public void Remeasure(int frame, int slot)
    {
        ref var s = ref At(frame, slot);
        if (s.Value is null) return;
        long size = Serializer.HeapSize(s.Value);
        long delta = size - s.Size;
        s.Size = size;
        Account(frame, delta);
    }

    public void Release(int frame, int slot) => Set(frame, slot, null);

    /// <summary>Drops every object of frame (its page is being evicted). Runs as an epoch action: nobody reads them.</summary>
    public void ClearFrame(int frame)
    {
        var dir = _chunks[frame];
        long bytes = 0, count = 0;
        for (int c = 0; c < dir.Length; c++)
        {
            var chunk = dir[c];
            if (chunk is null) continue;
            foreach (ref var s in chunk.AsSpan())
            {
                if (s.Value is not null)
                {
                    bytes += s.Size;
                    count++;
                    Serializer.Dropped(s.Value);
                }
            }
            dir[c] = null;
        }
        _used[frame] = 0;
        Account(frame, -bytes);
        if (count != 0) Interlocked.Add(ref _liveObjects, -count);
    }
}
