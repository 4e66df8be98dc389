// OpType: the operations Resp.benchmark can send, and for each the command that loads its key space.
// Invariants: names are the Redis command names (upper case); parsing is case-insensitive. An op's loader is the
// command that gives its keys the type the op needs (strings, integers, HyperLogLogs, sorted sets, lists,
// hashes); None means the op needs no data. TXN is one op of four commands (MULTI SET INCR EXEC).
namespace Resp.benchmark;

public enum OpType : byte
{
    GET, SET, MGET, MSET, INCR, PING, SETEX, DEL, PFADD, ZADD, ZREM, LPUSH, LPOP, HSET, HGET,
    /// <summary>A transaction: MULTI, SET key 1, INCR key, EXEC (four commands and replies per op; offline mode only).</summary>
    TXN,
}

public enum LoaderType : byte
{
    None,
    /// <summary>SET key value</summary>
    String,
    /// <summary>SET key 0</summary>
    Integer,
    /// <summary>PFADD key key</summary>
    HyperLogLog,
    /// <summary>ZADD key 1 key</summary>
    SortedSet,
    /// <summary>LPUSH key value</summary>
    List,
    /// <summary>HSET key key value</summary>
    Hash,
}

public static class OpTypes
{
    public static readonly OpType[] All = Enum.GetValues<OpType>();

    public static bool TryParse(string text, out OpType op) =>
        Enum.TryParse(text.Trim(), ignoreCase: true, out op) && Enum.IsDefined(op) && !int.TryParse(text, out _);

    public static string Names => string.Join(", ", All);

    /// <summary>Commands (and replies) one op sends.</summary>
    public static int CommandsPerOp(OpType op) => op == OpType.TXN ? 4 : 1;

    public static LoaderType Loader(OpType op) => op switch
    {
        OpType.GET or OpType.SET or OpType.MGET or OpType.MSET or OpType.SETEX or OpType.DEL => LoaderType.String,
        OpType.INCR => LoaderType.Integer,
        OpType.PFADD => LoaderType.HyperLogLog,
        OpType.ZADD or OpType.ZREM => LoaderType.SortedSet,
        OpType.LPUSH or OpType.LPOP => LoaderType.List,
        OpType.HSET or OpType.HGET => LoaderType.Hash,
        _ => LoaderType.None,
    };
}
