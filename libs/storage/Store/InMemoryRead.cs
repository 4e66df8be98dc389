// InMemoryRead: the engine's read for a caller's fused fast path (the server's plain GET): it answers from memory only,
// with no callbacks, no waits and no copies, and declines whenever the full Read could do more than hand over the bytes.
// Invariants: the caller holds the epoch (StoreSession.HoldEpoch) and validates afterwards that no writer of the key
// ran meanwhile, as Read's validatedByCaller (a byte record is read without its lock, so a copy may tear and is thrown
// away then); a declined read changed nothing, so the caller runs the full Read as if this had not been tried.
namespace Garnet.storage.Store;

/// <summary>What StoreSession.ReadInMemory found.</summary>
public enum InMemoryRead
{
    /// <summary>No live record of the key (none, or a tombstone): nothing was read.</summary>
    NotFound,
    /// <summary>The reader read the record.</summary>
    Found,
    /// <summary>Not answered here (see ReadInMemory): use Read.</summary>
    Declined,
}

/// <summary>Reads a live, unexpired byte record in memory for ReadInMemory; false declines it (nothing written).</summary>
public interface IRecordReader
{
    bool TryRead(ref RecordRef record);
}
