// IObjectSerializer: how the engine turns object values into bytes and back. The engine calls Serialize when the
// page holding an object record is flushed (the record is immutable by then), Deserialize when such a record is
// read back from disk, and HeapSize whenever it must account for an object (after a write or an in-place update).
// HeapSize should be O(1) (objects keep a running size); it is what the memory budget counts.
// The default members let a serializer of large objects avoid copies and tell when the engine lets go of an object.
using System.Buffers;

namespace Garnet.storage.Objects;

public interface IObjectSerializer
{
    void Serialize(object value, IBufferWriter<byte> output);

    object Deserialize(ReadOnlySpan<byte> bytes);

    /// <summary>Approximate bytes of managed heap the object holds.</summary>
    long HeapSize(object value);

    /// <summary>
    /// Deserializes bytes the engine gives away (read from the object log into an array of exactly their length): the
    /// object may keep the array instead of copying it.
    /// </summary>
    object DeserializeOwned(byte[] bytes) => Deserialize(bytes);

    /// <summary>
    /// An object that already holds its serialized form in one array that never changes may return it here (exactly,
    /// the whole array); flushes and iterators then use it instead of calling Serialize. False: call Serialize.
    /// </summary>
    bool TryGetSerialized(object value, out byte[] bytes)
    {
        bytes = null!;
        return false;
    }

    /// <summary>
    /// The same for a serialized form that is part of an array (it never changes either); flushes use it. By default
    /// what TryGetSerialized lends.
    /// </summary>
    bool TryGetSerializedMemory(object value, out ReadOnlyMemory<byte> bytes)
    {
        bool lent = TryGetSerialized(value, out var array);
        bytes = lent ? array : default;
        return lent;
    }

    /// <summary>
    /// The engine no longer holds value in memory: it was replaced, deleted, or its page left memory (its bytes may be
    /// in the object log). Readers may still hold it for a moment. Runs under locks or as an epoch action: keep it short.
    /// </summary>
    void Dropped(object value) { }

    /// <summary>
    /// A small tag (1..15, RecordLayout.MaxKind) for the value's type, kept in its record's header (RecordLayout.ObjectKind) whenever the record
    /// gets the object, so readers can tell the type of a record on disk without deserializing it
    /// (IStoreFunctions.NeedsObject). 0: no tag (every read of such a record from disk loads its object).
    /// </summary>
    byte KindOf(object value) => 0;
}
