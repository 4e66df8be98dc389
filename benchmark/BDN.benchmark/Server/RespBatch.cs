// RespBatch: builds the request bytes the server benchmarks feed in (RESP multibulk arrays, as clients send them),
// and the 8-16 byte keys and values they use. Only setup code calls this; nothing here runs inside a measurement.
using System.Text;

namespace BDN.benchmark.Server;

public static class RespBatch
{
    /// <summary>Commands per batch: the OperationsPerInvoke of the parse and session benchmarks.</summary>
    public const int Commands = 100;

    /// <summary>Keys per MGET request.</summary>
    public const int MGetKeys = 10;

    /// <summary>12-byte string key number i ("key:00000042").</summary>
    public static string Key(int i) => $"key:{i:D8}";

    /// <summary>12-byte counter key number i, for INCR.</summary>
    public static string Counter(int i) => $"ctr:{i:D8}";

    /// <summary>16-byte string value ("value:0000000042").</summary>
    public static string Value(int i) => $"value:{i:D10}";

    /// <summary>One request as a RESP array of bulk strings.</summary>
    public static void Append(StringBuilder sb, params string[] args)
    {
        sb.Append('*').Append(args.Length).Append("\r\n");
        foreach (var a in args) sb.Append('$').Append(Encoding.UTF8.GetByteCount(a)).Append("\r\n").Append(a).Append("\r\n");
    }

    /// <summary>SETs of every key and counter the batches read: MGET's keys (which include GET's and SET's) with their
    /// values, and INCR's counters at 1000000000.</summary>
    public static byte[] Load()
    {
        var sb = new StringBuilder();
        for (int i = 0; i < Commands * MGetKeys; i++) Append(sb, "SET", Key(i), Value(i));
        for (int i = 0; i < Commands; i++) Append(sb, "SET", Counter(i), "1000000000");
        return Encoding.UTF8.GetBytes(sb.ToString());
    }

    /// <summary>Commands requests of one kind: GET, SET, INCR or MGET (of MGetKeys keys), each on its own key(s).</summary>
    public static byte[] Build(string command)
    {
        var sb = new StringBuilder();
        for (int i = 0; i < Commands; i++)
        {
            switch (command)
            {
                case "GET": Append(sb, "GET", Key(i)); break;
                case "SET": Append(sb, "SET", Key(i), Value(i + 1_000_000)); break;
                case "INCR": Append(sb, "INCR", Counter(i)); break;
                case "MGET": Append(sb, ["MGET", .. Enumerable.Range(i * MGetKeys, MGetKeys).Select(Key)]); break;
                default: throw new ArgumentException("unknown command " + command, nameof(command));
            }
        }
        return Encoding.UTF8.GetBytes(sb.ToString());
    }
}
