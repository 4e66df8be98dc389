// EncodingLimits: the sizes up to which collections keep Redis's compact encodings (listpack, intset), under Redis's
// config names (CONFIG GET/SET and the config file; the older ziplist names are aliases). A collection that grows past
// a limit converts to the general encoding and stays there, as in Redis. Values are read on every change: CONFIG SET
// takes effect for later changes.
namespace Garnet.server.Objects;

public static class EncodingLimits
{
    public static volatile int HashMaxListpackEntries = 128;
    public static volatile int HashMaxListpackValue = 64;
    public static volatile int ListMaxListpackSize = -2;   // negative: -1..-5 = 4, 8, 16, 32, 64 KB per node
    public static volatile int SetMaxIntsetEntries = 512;
    public static volatile int SetMaxListpackEntries = 128;
    public static volatile int SetMaxListpackValue = 64;
    public static volatile int ZSetMaxListpackEntries = 128;
    public static volatile int ZSetMaxListpackValue = 64;

    /// <summary>Bytes a list may hold and still be a single listpack (list-max-listpack-size, as Redis reads it).</summary>
    public static bool ListFitsListpack(long count, long bytes)
    {
        int limit = ListMaxListpackSize;
        if (limit >= 0) return count <= limit;
        int kb = limit switch { -1 => 4, -2 => 8, -3 => 16, -4 => 32, _ => 64 };
        return bytes + count * 2 <= kb * 1024L;
    }
}
