// ErrorStats: error replies counted by their code, as Redis's INFO errorstats (errorstat_ERR:count=3). The code is the
// first word of the error text when a space comes within its first 31 characters, else ERR (Redis's rule).
// Invariants:
//  - Counting an error whose code was seen before allocates nothing (lookup by span) and takes no lock (one
//    Interlocked add on that code's counter). Errors are not the hot path; a new code allocates its counter once.
//  - At most MaxCodes distinct codes are kept (error texts come from the server, so this is a guard, not a limit
//    a client can meet); errors of further codes count only in total_error_replies.
using System.Collections.Concurrent;
using System.Runtime.CompilerServices;

namespace Garnet.server.Metrics;

public sealed class ErrorStats
{
    public const int MaxCodes = 128;
    private readonly ConcurrentDictionary<string, StrongBox<long>> _counts = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, StrongBox<long>>.AlternateLookup<ReadOnlySpan<char>> _lookup;

    public ErrorStats() => _lookup = _counts.GetAlternateLookup<ReadOnlySpan<char>>();

    /// <summary>The code Redis would count an error text under.</summary>
    public static ReadOnlySpan<char> CodeOf(ReadOnlySpan<char> message)
    {
        int space = message[..Math.Min(message.Length, 31)].IndexOf(' ');
        return space > 0 ? message[..space] : "ERR";
    }

    /// <summary>Counts one error reply (message starts with its code, e.g. "ERR syntax error").</summary>
    public void Count(string message)
    {
        var code = CodeOf(message);
        if (!_lookup.TryGetValue(code, out var counter))
        {
            if (_counts.Count >= MaxCodes) return;
            counter = _counts.GetOrAdd(code.ToString(), _ => new StrongBox<long>());
        }
        Interlocked.Increment(ref counter.Value);
    }

    /// <summary>Codes with their counts, in Redis's order (byte order of the code).</summary>
    public List<(string code, long count)> Snapshot() =>
        _counts.Select(kv => (kv.Key, Interlocked.Read(ref kv.Value.Value))).Where(e => e.Item2 > 0)
            .OrderBy(e => e.Key, StringComparer.Ordinal).ToList();

    public long CountOf(string code) => _counts.TryGetValue(code, out var c) ? Interlocked.Read(ref c.Value) : 0;

    /// <summary>CONFIG RESETSTAT.</summary>
    public void Reset() => _counts.Clear();
}
