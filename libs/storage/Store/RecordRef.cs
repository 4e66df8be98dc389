// RecordRef: what a callback sees of a record: key, value, expiration. Valid only during the callback.
// In-place edits (value length, expiration) are allowed only when IsMutable (the record is in the mutable region
// and the caller holds its exclusive lock).
using Garnet.storage.Log;

namespace Garnet.storage.Store;

public readonly unsafe ref struct RecordRef
{
    private readonly byte* _record;

    internal RecordRef(byte* record, bool mutable)
    {
        _record = record;
        IsMutable = mutable;
    }

    public bool IsMutable { get; }
    public ReadOnlySpan<byte> Key => RecordLayout.Key(_record);
    public ReadOnlySpan<byte> Value => RecordLayout.Value(_record);
    public int ValueLength => RecordLayout.ValueLength(_record);
    public int ValueCapacity => RecordLayout.ValueCapacity(_record);
    public bool HasExpiration => RecordLayout.HasExpiration(_record);
    /// <summary>Unix time in ms at which the record expires; 0 = never.</summary>
    public long Expiration => RecordLayout.Expiration(_record);

    /// <summary>The value bytes up to the capacity, for in-place edits.</summary>
    public Span<byte> WritableValue(int length)
    {
        if (!IsMutable) throw new InvalidOperationException("record is not mutable");
        if (!RecordLayout.TrySetValueLength(_record, length)) throw new ArgumentOutOfRangeException(nameof(length), "value does not fit in place");
        return RecordLayout.Value(_record);
    }

    /// <summary>True when a value of this length fits in place.</summary>
    public bool FitsInPlace(int length) =>
        IsMutable && length >= 0 && RecordLayout.Align8(length) <= ValueCapacity && (ValueCapacity - RecordLayout.Align8(length)) / 8 <= 7;

    /// <summary>Sets the expiration in place; false when the record has no expiration field (needs a copy) or is not mutable.</summary>
    public bool TrySetExpiration(long unixMs)
    {
        if (!IsMutable || !HasExpiration || unixMs == 0) return false;
        RecordLayout.SetExpiration(_record, unixMs);
        return true;
    }
}
