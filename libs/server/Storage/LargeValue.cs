// LargeValue: a string value too large to sit inside a log record (more than InlineLimit bytes). It is stored as an
// object record: the bytes live on the managed heap while in memory, and in the object log once flushed. Commands see
// it as an ordinary string (StringFunctions.TryGetString).
namespace Garnet.server.Storage;

public sealed class LargeValue(byte[] data)
{
    /// <summary>Values longer than this are stored as LargeValue objects (a log page is 4 MB).</summary>
    public const int InlineLimit = 1 << 20;

    public byte[] Data { get; } = data;
    public ReadOnlySpan<byte> Span => Data;
}
