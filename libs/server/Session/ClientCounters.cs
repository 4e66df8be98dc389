// ClientCounters: one client's figures, which INFO sums over every client (ServerStatistics) and CLIENT LIST shows.
// Invariant: written only on the connection's own thread; other threads read them with Volatile.Read (racy figures).
namespace Garnet.server.Session;

public sealed class ClientCounters
{
    /// <summary>Commands run (total_commands_processed).</summary>
    public long Commands;

    /// <summary>Error replies (total_error_replies).</summary>
    public long Errors;

    /// <summary>Write commands that succeeded (no error reply).</summary>
    public long Writes;

    /// <summary>Reads of a key's value that found it, and that did not (keyspace_hits, keyspace_misses).</summary>
    public long KeyspaceHits, KeyspaceMisses;
}
