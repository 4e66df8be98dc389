// RequestWriter: encodes one benchmark operation (or one load command) as RESP into a RespCommandWriter.
// Invariants: one per thread (it owns scratch key buffers and draws from the thread's KeyChooser); no allocation
// per request. The second key-like argument of an op (member, field, element) follows the table in
// docs/benchmarking.md: the key itself for ZADD/ZREM/HSET/HGET (so reads after the load phase hit), another drawn
// key for PFADD (so the HyperLogLog sees many elements).
using Garnet.client;

namespace Resp.benchmark;

public sealed class RequestWriter(KeySpace keys, int mkeys, int ttl)
{
    private readonly byte[] _key = new byte[keys.KeyLength];
    private readonly byte[] _key2 = new byte[keys.KeyLength];

    public KeySpace Keys => keys;

    /// <summary>Writes one <paramref name="op"/> command with keys drawn from <paramref name="chooser"/>.</summary>
    public void Write(RespCommandWriter w, OpType op, KeyChooser chooser)
    {
        var value = keys.Value.AsSpan();
        if (op == OpType.PING)
        {
            w.WriteCommand("PING"u8);
            return;
        }
        if (op is OpType.MGET or OpType.MSET)
        {
            bool set = op == OpType.MSET;
            w.BeginCommand(1 + (set ? 2 : 1) * mkeys);
            w.WriteArg(set ? "MSET"u8 : "MGET"u8);
            for (int i = 0; i < mkeys; i++)
            {
                keys.WriteKey(chooser.NextKey(), _key);
                w.WriteArg(_key);
                if (set) w.WriteArg(value);
            }
            return;
        }

        keys.WriteKey(chooser.NextKey(), _key);
        var key = _key.AsSpan();
        switch (op)
        {
            case OpType.GET: w.WriteCommand("GET"u8, key); break;
            case OpType.SET: w.WriteCommand("SET"u8, key, value); break;
            case OpType.INCR: w.WriteCommand("INCR"u8, key); break;
            case OpType.TXN:
                w.WriteCommand("MULTI"u8);
                w.WriteCommand("SET"u8, key, "1"u8);
                w.WriteCommand("INCR"u8, key);
                w.WriteCommand("EXEC"u8);
                break;
            case OpType.DEL: w.WriteCommand("DEL"u8, key); break;
            case OpType.LPUSH: w.WriteCommand("LPUSH"u8, key, value); break;
            case OpType.LPOP: w.WriteCommand("LPOP"u8, key); break;
            case OpType.HGET: w.WriteCommand("HGET"u8, key, key); break;
            case OpType.ZREM: w.WriteCommand("ZREM"u8, key, key); break;
            case OpType.SETEX:
                w.BeginCommand(4);
                w.WriteArg("SETEX"u8);
                w.WriteArg(key);
                w.WriteArg(ttl);
                w.WriteArg(value);
                break;
            case OpType.PFADD:
                keys.WriteKey(chooser.NextKey(), _key2);
                w.WriteCommand("PFADD"u8, key, _key2);
                break;
            case OpType.ZADD:
                w.BeginCommand(4);
                w.WriteArg("ZADD"u8);
                w.WriteArg(key);
                w.WriteArg(chooser.NextBelow(1_000_000));
                w.WriteArg(key);
                break;
            case OpType.HSET:
                w.BeginCommand(4);
                w.WriteArg("HSET"u8);
                w.WriteArg(key);
                w.WriteArg(key);
                w.WriteArg(value);
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(op), op, null);
        }
    }

    /// <summary>Writes the command that loads key <paramref name="index"/> for <paramref name="loader"/>.</summary>
    public void WriteLoad(RespCommandWriter w, LoaderType loader, long index)
    {
        keys.WriteKey(index, _key);
        var key = _key.AsSpan();
        switch (loader)
        {
            case LoaderType.String: w.WriteCommand("SET"u8, key, keys.Value); break;
            case LoaderType.Integer: w.WriteCommand("SET"u8, key, "0"u8); break;
            case LoaderType.HyperLogLog: w.WriteCommand("PFADD"u8, key, key); break;
            case LoaderType.List: w.WriteCommand("LPUSH"u8, key, keys.Value); break;
            case LoaderType.SortedSet:
                w.BeginCommand(4);
                w.WriteArg("ZADD"u8);
                w.WriteArg(key);
                w.WriteArg("1"u8);
                w.WriteArg(key);
                break;
            case LoaderType.Hash:
                w.BeginCommand(4);
                w.WriteArg("HSET"u8);
                w.WriteArg(key);
                w.WriteArg(key);
                w.WriteArg(keys.Value);
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(loader), loader, null);
        }
    }
}
