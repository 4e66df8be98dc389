// ServerObjectSerializer: the server's object values as bytes (for the object log): one type byte, then the payload.
// Type 1: LargeValue (the raw string bytes). Other types arrive with the object store.
using System.Buffers;

namespace Garnet.server.Storage;

public sealed class ServerObjectSerializer : Garnet.storage.Objects.IObjectSerializer
{
    private const byte LargeValueType = 1;

    public void Serialize(object value, IBufferWriter<byte> output)
    {
        switch (value)
        {
            case LargeValue lv:
                output.Write([LargeValueType]);
                output.Write(lv.Span);
                break;
            default:
                throw new NotSupportedException("cannot serialize " + value.GetType().Name);
        }
    }

    public object Deserialize(ReadOnlySpan<byte> bytes) => bytes.Length > 0 && bytes[0] == LargeValueType
        ? new LargeValue(bytes[1..].ToArray())
        : throw new InvalidDataException("unknown object type " + (bytes.Length > 0 ? bytes[0] : -1));

    public long HeapSize(object value) => value switch
    {
        LargeValue lv => lv.Data.Length + 48,
        _ => 64,
    };
}
