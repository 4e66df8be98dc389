// IStoreFunctions: the callbacks through which the server gives operations their meaning (what to copy out,
// how to update). Implemented by structs, so the JIT specializes and inlines them per session type.
// The engine decides where records live; the callbacks decide what the bytes mean. No callback may block.
namespace Garnet.storage.Store;

public interface IStoreFunctions<TInput, TOutput>
{
    /// <summary>Copies what the caller wants out of a live, unexpired record. Return false to report NotFound.</summary>
    bool Reader(ref RecordRef record, ref TInput input, ref TOutput output);

    /// <summary>
    /// RMW on a key with no live record: return false to create nothing (NotFound). Else give the new value's length
    /// (RecordRef.ObjectValue for an object record) and expiration (0 = none).
    /// </summary>
    bool NeedInitialUpdate(ReadOnlySpan<byte> key, ref TInput input, ref TOutput output, out int valueLength, out long expiration);

    /// <summary>Fills the value of a new record (newRecord.ValueSpan, of the length NeedInitialUpdate gave, or SetObject).</summary>
    void InitialUpdater(ReadOnlySpan<byte> key, ref TInput input, ref RecordRef newRecord, ref TOutput output);

    /// <summary>RMW on a live record in the mutable region, under its exclusive lock. An object changed in place is re-measured after Done.</summary>
    UpdateAction InPlaceUpdater(ref RecordRef record, ref TInput input, ref TOutput output);

    /// <summary>
    /// RMW that must copy (record read-only, on disk, or NeedCopy): return false to change nothing. Else the new value's
    /// length (or RecordRef.ObjectValue) and expiration. For objects, CopyUpdater must build a new object and leave the
    /// old one untouched: the old record may stay readable (it is unsealed again if the copy loses a race, iterators may
    /// still yield it) and its page may be serializing it on another thread.
    /// </summary>
    bool NeedCopyUpdate(ref RecordRef oldRecord, ref TInput input, ref TOutput output, out int valueLength, out long expiration);

    /// <summary>Fills the new record's value from the old one.</summary>
    void CopyUpdater(ref RecordRef oldRecord, ref TInput input, ref RecordRef newRecord, ref TOutput output);

    /// <summary>
    /// A Read or RMW found its key's record on disk, an object record whose kind tag (IObjectSerializer.KindOf) is
    /// objectKind (never 0): false when the callbacks can do without the object (a type check that fails, a type query,
    /// a write that replaces the value): it is then not read from the object log, and the callbacks see Object == null
    /// (RecordRef.ObjectKind tells the type). The default loads it.
    /// </summary>
    bool NeedsObject(ref TInput input, byte objectKind) => true;

    /// <summary>A pending Read finished (on the thread that calls CompletePending / CompletePendingAsync, in issue order).</summary>
    void ReadCompleted(ReadOnlySpan<byte> key, ref TInput input, ref TOutput output, Status status);

    /// <summary>A pending RMW finished.</summary>
    void RmwCompleted(ReadOnlySpan<byte> key, ref TInput input, ref TOutput output, Status status);

    /// <summary>A pending Upsert or Delete finished.</summary>
    void WriteCompleted(ReadOnlySpan<byte> key, Status status);
}
