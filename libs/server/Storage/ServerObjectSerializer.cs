// ServerObjectSerializer: the server's object values as bytes (for the object log): one type byte, then the payload.
// Type 1: LargeValue (the raw string bytes), which holds exactly this form, so it is lent and adopted without copies.
// Other types arrive with the object store. Dropped large values are reported to MemoryReclaimer: their memory is
// garbage the GC should give back soon (see docs/performance.md, "Memory with large values").
using System.Buffers;
using Garnet.common.Util;

namespace Garnet.server.Storage;

public sealed class ServerObjectSerializer : Garnet.storage.Objects.IObjectSerializer
{
    public void Serialize(object value, IBufferWriter<byte> output)
    {
        switch (value)
        {
            case LargeValue lv:
                output.Write(lv.Serialized);
                break;
            default:
                throw new NotSupportedException("cannot serialize " + value.GetType().Name);
        }
    }

    public object Deserialize(ReadOnlySpan<byte> bytes) => bytes.Length > 0 && bytes[0] == LargeValue.SerializedType
        ? LargeValue.Copy(bytes[1..])
        : throw new InvalidDataException("unknown object type " + (bytes.Length > 0 ? bytes[0] : -1));

    /// <summary>Deserializes an array nobody changes any more; a large string keeps it (no copy).</summary>
    public object Deserialize(byte[] bytes) => bytes.Length > 0 && bytes[0] == LargeValue.SerializedType
        ? LargeValue.Adopt(bytes)
        : Deserialize(bytes.AsSpan());

    public object DeserializeOwned(byte[] bytes) => Deserialize(bytes);

    public bool TryGetSerialized(object value, out byte[] bytes)
    {
        if (value is LargeValue lv) { bytes = lv.Serialized; return true; }
        bytes = null!;
        return false;
    }

    public long HeapSize(object value) => value switch
    {
        LargeValue lv => LargeValue.HeapBytes(lv.Length),
        _ => 64,
    };

    public void Dropped(object value)
    {
        if (value is LargeValue lv) MemoryReclaimer.Released(lv.Length);
    }
}
