// Protocol limits, as Redis 7.2 has them. Values are read on every parse, so CONFIG SET takes effect at once.
namespace Garnet.common.Resp;

public sealed class RespLimits
{
    /// <summary>Longest inline command or length header (PROTO_INLINE_MAX_SIZE).</summary>
    public const int InlineMaxSize = 64 * 1024;

    /// <summary>Largest array a client that must still authenticate may send.</summary>
    public const int UnauthenticatedMaxMultibulk = 10;

    /// <summary>Largest bulk string a client that must still authenticate may send.</summary>
    public const int UnauthenticatedMaxBulk = 16 * 1024;

    /// <summary>Hard ceiling for any in-memory buffer: a .NET byte[] cannot be larger.</summary>
    public const long AbsoluteMaxBuffer = 0x7FFF_FFC7; // Array.MaxLength

    /// <summary>proto-max-bulk-len: largest bulk string in a request (512 MB by default).</summary>
    public long ProtoMaxBulkLen { get; set; } = 512L * 1024 * 1024;

    /// <summary>client-output-buffer-limit (normal class, hard): largest pending reply batch before the client is dropped; 0 = none.</summary>
    public long OutputBufferHardLimit { get; set; }

    /// <summary>client-output-buffer-limit pubsub class: bounds for pushed bytes (pub/sub messages) not yet sent.</summary>
    public Garnet.common.Networking.PushLimits Push { get; } = new();

    /// <summary>client-query-buffer-limit: most unprocessed request bytes one client may hold (1 GB by default).</summary>
    public long QueryBufferLimit { get; set; } = 1024L * 1024 * 1024;
}
