// ServerObjectSerializer: the server's object values as bytes (for the object log): one type byte, then the payload.
// Type 1: LargeValue (the raw string bytes), which holds exactly this form, so it is lent and adopted without copies.
// Types 2-6: collections (ObjectKind; the payload is the type's own, see CollectionObject.WritePayload). Dropped large values are reported to MemoryReclaimer: their memory is
// garbage the GC should give back soon (see docs/performance.md, "Memory with large values").
using System.Buffers;
using Garnet.common.Util;

namespace Garnet.server.Storage;

public sealed class ServerObjectSerializer(Garnet.server.Objects.Streams.StreamSpillFile? streamSpill = null) : Garnet.storage.Objects.IObjectSerializer
{
    public void Serialize(object value, IBufferWriter<byte> output)
    {
        switch (value)
        {
            case LargeValue lv:
                output.Write(lv.Serialized.Span);
                break;
            case Garnet.server.Objects.CollectionObject c:
                output.GetSpan(1)[0] = (byte)c.Kind;
                output.Advance(1);
                c.WritePayload(output);
                break;
            default:
                throw new NotSupportedException("cannot serialize " + value.GetType().Name);
        }
    }

    public object Deserialize(ReadOnlySpan<byte> bytes)
    {
        if (bytes.Length == 0) throw new InvalidDataException("empty object");
        if (bytes[0] == LargeValue.SerializedType) return LargeValue.Copy(bytes[1..]);
        if (bytes[0] is >= (byte)Garnet.server.Objects.ObjectKind.List and <= (byte)Garnet.server.Objects.ObjectKind.Stream)
            return Garnet.server.Objects.CollectionObject.Read((Garnet.server.Objects.ObjectKind)bytes[0], bytes[1..], streamSpill);
        throw new InvalidDataException("unknown object type " + bytes[0]);
    }

    /// <summary>Deserializes an array nobody changes any more; a large string keeps it (no copy).</summary>
    public object Deserialize(byte[] bytes) => bytes.Length > 0 && bytes[0] == LargeValue.SerializedType
        ? LargeValue.Adopt(bytes)
        : Deserialize(bytes.AsSpan());

    public object DeserializeOwned(byte[] bytes) => Deserialize(bytes);

    public bool TryGetSerialized(object value, out byte[] bytes)
    {
        bytes = (value as LargeValue)?.SerializedArray!;
        return bytes is not null;
    }

    public bool TryGetSerializedMemory(object value, out ReadOnlyMemory<byte> bytes)
    {
        if (value is LargeValue lv) { bytes = lv.Serialized; return true; }
        bytes = default;
        return false;
    }

    public long HeapSize(object value) => value switch
    {
        LargeValue lv => lv.HeapSize,
        Garnet.server.Objects.CollectionObject c => c.HeapBytes,
        _ => 64,
    };

    /// <summary>The record's kind tag: the same type byte as the serialized form (1 large string, 2-6 collections).</summary>
    public byte KindOf(object value) => value switch
    {
        LargeValue => LargeValue.SerializedType,
        Garnet.server.Objects.CollectionObject c => (byte)c.Kind,
        _ => 0,
    };

    public void Dropped(object value)
    {
        if (value is LargeValue lv) MemoryReclaimer.Released(lv.Length);
    }
}
