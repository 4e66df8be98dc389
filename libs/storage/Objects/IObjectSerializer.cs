// IObjectSerializer: how the engine turns object values into bytes and back. The engine calls Serialize when the
// page holding an object record is flushed (the record is immutable by then), Deserialize when such a record is
// read back from disk, and HeapSize whenever it must account for an object (after a write or an in-place update).
// HeapSize should be O(1) (objects keep a running size); it is what the memory budget counts.
using System.Buffers;

namespace Garnet.storage.Objects;

public interface IObjectSerializer
{
    void Serialize(object value, IBufferWriter<byte> output);

    object Deserialize(ReadOnlySpan<byte> bytes);

    /// <summary>Approximate bytes of managed heap the object holds.</summary>
    long HeapSize(object value);
}
