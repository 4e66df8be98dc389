// RecordRef: what a callback sees of a record: key, value (bytes or an object), expiration. Valid only during the
// callback. In-place edits (value length, expiration, the object) are allowed only when IsMutable (the record is
// in the mutable region and the caller holds its exclusive lock, or it is a new record not yet published).
using Garnet.storage.Log;
using Garnet.storage.Objects;

namespace Garnet.storage.Store;

public readonly unsafe ref struct RecordRef
{
    /// <summary>valueLength that NeedInitialUpdate / NeedCopyUpdate give for a record whose value is an object.</summary>
    public const int ObjectValue = -1;

    /// <summary>valueLength that NeedCopyUpdate gives to delete the key instead of copying it (a tombstone is appended).</summary>
    public const int DeleteRecord = -2;

    /// <summary>StoreSession.Prefetch's objectKind for a caller that needs no object at all (a type or TTL query).</summary>
    public const byte HeaderOnly = 255;

    private readonly byte* _record;
    private readonly ObjectHeap? _heap;     // set for an in-memory object record
    private readonly int _frame;
    private readonly object? _loaded;       // the object of a record read from disk

    internal RecordRef(byte* record, bool mutable)
    {
        _record = record;
        IsMutable = mutable;
    }

    internal RecordRef(byte* record, bool mutable, ObjectHeap heap, int frame)
    {
        _record = record;
        IsMutable = mutable;
        _heap = heap;
        _frame = frame;
    }

    internal RecordRef(byte* record, object? loaded)
    {
        _record = record;
        _loaded = loaded;
    }

    public bool IsMutable { get; }
    public ReadOnlySpan<byte> Key => RecordLayout.Key(_record);

    /// <summary>True when the value is a .NET object (Object), not bytes (Value).</summary>
    public bool IsObject => RecordLayout.IsObject(_record);

    /// <summary>The value bytes (not for object records).</summary>
    public ReadOnlySpan<byte> Value => IsObject ? throw new InvalidOperationException("the record holds an object") : RecordLayout.Value(_record);
    public int ValueLength => IsObject ? 0 : RecordLayout.ValueLength(_record);
    public int ValueCapacity => IsObject ? 0 : RecordLayout.ValueCapacity(_record);
    public bool HasExpiration => RecordLayout.HasExpiration(_record);
    /// <summary>Bytes the record takes in the log (header, key, value capacity); an object's heap is extra.</summary>
    public int RecordBytes => RecordLayout.TotalSize(_record);
    /// <summary>Unix time in ms at which the record expires; 0 = never.</summary>
    public long Expiration => RecordLayout.Expiration(_record);

    /// <summary>Unix seconds of the record's last access.</summary>
    public uint AccessTime => RecordLayout.AccessTime(_record);

    /// <summary>Marks the record accessed now (readers decide; writes mark it themselves). Allowed in any region.</summary>
    public void Touch() => RecordLayout.Touch(_record);

    /// <summary>Sets the last-access time (Unix seconds) of a mutable record, e.g. to restore a key's idle time.</summary>
    public void SetAccessTime(uint unixSeconds)
    {
        if (!IsMutable) throw new InvalidOperationException("record is not mutable");
        RecordLayout.SetAccessTime(_record, unixSeconds);
    }

    /// <summary>The record's kind tag. An object record's is IObjectSerializer.KindOf (0: unknown), set whenever the
    /// record gets an object, so it tells the type also when Object is null (IStoreFunctions.NeedsObject said no). A byte
    /// record's is 0 unless its writer tagged it (SetValueKind, Upsert's valueKind): a value the caller encodes in bytes.</summary>
    public byte ObjectKind => RecordLayout.ObjectKind(_record);

    /// <summary>Tags a byte record's value (a new record, or in place under the lock); it stays with the bytes through
    /// flushes, disk reads and copies of the record's bytes, and is cleared by a byte Upsert without a kind.</summary>
    public void SetValueKind(byte kind)
    {
        if (!IsMutable || IsObject) throw new InvalidOperationException("not a mutable byte record");
        RecordLayout.SetObjectKind(_record, kind);
    }

    /// <summary>The object of an object record (null for byte values, and for a record read from disk whose object was
    /// not loaded: see IStoreFunctions.NeedsObject).</summary>
    public object? Object
    {
        get
        {
            if (!IsObject) return null;
            if (_heap is null) return _loaded;
            return _heap.Get(_frame, RecordLayout.ObjectSlot(_record));
        }
    }

    /// <summary>Gives an object record its object (a new record, or in place under the lock).</summary>
    public void SetObject(object value)
    {
        if (!IsMutable || !IsObject || _heap is null) throw new InvalidOperationException("not a mutable object record");
        byte kind = _heap.Serializer.KindOf(value);
        if (kind > RecordLayout.MaxKind) throw new ArgumentOutOfRangeException(nameof(value), $"the serializer's kind tag {kind} is not in 0..{RecordLayout.MaxKind}");
        _heap.Set(_frame, RecordLayout.ObjectSlot(_record), value);
        RecordLayout.SetObjectKind(_record, kind);
    }

    /// <summary>The whole current value, writable (mutable records only).</summary>
    public Span<byte> ValueSpan => IsMutable && !IsObject ? RecordLayout.Value(_record) : throw new InvalidOperationException("record is not mutable");

    /// <summary>The value bytes up to the capacity, for in-place edits.</summary>
    public Span<byte> WritableValue(int length)
    {
        if (!IsMutable || IsObject) throw new InvalidOperationException("record is not mutable");
        if (!RecordLayout.TrySetValueLength(_record, length)) throw new ArgumentOutOfRangeException(nameof(length), "value does not fit in place");
        return RecordLayout.Value(_record);
    }

    /// <summary>True when a value of this length fits in place.</summary>
    public bool FitsInPlace(int length) =>
        IsMutable && !IsObject && RecordLayout.CanHoldValue(_record, length);

    /// <summary>Sets the expiration in place; false when the record has no expiration field (needs a copy) or is not mutable.</summary>
    public bool TrySetExpiration(long unixMs)
    {
        if (!IsMutable || !HasExpiration || unixMs == 0) return false;
        RecordLayout.SetExpiration(_record, unixMs);
        return true;
    }
}
