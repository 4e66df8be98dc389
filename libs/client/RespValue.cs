// RespValue: one parsed RESP2/RESP3 reply, as a small tree. For tests and tools, not the hot path.
using System.Text;

namespace Garnet.client;

public enum RespType { SimpleString, Error, Integer, BulkString, Array, Null, Map, Set, Double, Boolean, Verbatim, Push, BigNumber, BulkError }

public sealed class RespValue
{
    public RespType Type { get; init; }
    /// <summary>Bytes of a string-like reply (simple, bulk, error, verbatim without its "txt:" prefix, double, big number).</summary>
    public byte[]? Bytes { get; init; }
    public long Integer { get; init; }
    /// <summary>Elements of an aggregate; a map holds key, value, key, value, ...</summary>
    public RespValue[]? Elements { get; init; }
    /// <summary>True for RESP2's *-1 / $-1 (and RESP3 _), to tell an array null from a bulk null.</summary>
    public bool IsNullArray { get; init; }

    public string? Text => Bytes is null ? null : Encoding.UTF8.GetString(Bytes);
    public bool IsNull => Type == RespType.Null;
    public bool IsError => Type is RespType.Error or RespType.BulkError;

    public override string ToString() => Type switch
    {
        RespType.Integer => Integer.ToString(),
        RespType.Null => "(nil)",
        RespType.Boolean => Integer != 0 ? "true" : "false",
        RespType.Array or RespType.Set or RespType.Push or RespType.Map => "[" + string.Join(", ", Elements!.Select(e => e.ToString())) + "]",
        RespType.Error => "(error) " + Text,
        _ => Text ?? "",
    };
}
