// ObjectFunctions: the engine callbacks for collection values. They are type-agnostic: each checks that the record
// holds a collection of the operation's kind (WRONGTYPE otherwise: on disk from the record's kind tag alone, see
// NeedsObject; in memory from its object, without any parsing),
// decides nothing about what a command means, and hands the object to the operation (ObjectOperation.Apply), which
// the command's family file defines. Where the engine cannot change a record in place (read-only region, on disk)
// the operation runs on a clone, so a record being flushed or iterated never changes under its reader.
// Small hashes and sets live inline in their record's bytes (InlineCollection): the operation runs on an object decoded
// from them, and the result goes back as bytes (in place when they fit, else in a copy), or to an object record once it
// leaves its packed form or InlineCollection.MaxBytes.
// Invariants:
//  - An operation that leaves its collection empty deletes the key (Redis never keeps an empty collection).
//  - Apply may run more than once for one command (on fresh clones, when a publish loses a race): operations set their
//    results, never accumulate them.
//  - Nothing here writes to the client; the command writes its reply from the operation once the engine returns.
using Garnet.server.Objects;
using Garnet.storage.Store;

namespace Garnet.server.Storage;

/// <summary>One command's work on one collection (see ObjectFunctions).</summary>
public abstract class ObjectOperation
{
    /// <summary>The kind of collection the command works on.</summary>
    public abstract ObjectKind Kind { get; }

    /// <summary>True when the command creates the key if it is missing (pushes, HSET, SADD, ZADD, ...).</summary>
    public virtual bool CreatesKey => false;

    /// <summary>Reads mark the key accessed (OBJECT IDLETIME) unless this is false.</summary>
    public virtual bool TouchesKey => true;

    /// <summary>Set by the session: CLIENT NO-TOUCH is on, so the read leaves the key's last access as it was.</summary>
    public bool NoTouch;

    /// <summary>The engine's outcome (Found, NotFound, ...), set once the operation completed.</summary>
    public Status Status;

    /// <summary>An error reply for the client (WRONGTYPE, out of range, ...); nothing was changed.</summary>
    public string? Error;

    /// <summary>
    /// Runs on the key's collection (for a write: the stored one under its lock, or a clone that replaces it). Returns
    /// true when it changed the collection. Must not change anything when it sets Error or for a read.
    /// </summary>
    public abstract bool Apply(CollectionObject collection);

    /// <summary>The key does not exist (or has expired) and the command does not create it.</summary>
    public virtual void Missing() { }

    /// <summary>A clone changed by Apply, waiting for its new record.</summary>
    internal CollectionObject? Staged;
}

public struct NoOutput { }

public struct ObjectFunctions : IStoreFunctions<ObjectOperation, NoOutput>
{
    public const string WrongType = StringFunctions.WrongType;

    private static CollectionObject? Of(ref RecordRef record, ObjectOperation op)
    {
        if (record.IsObject)
        {
            if (record.Object is CollectionObject c && c.Kind == op.Kind) return c;
        }
        else if (record.ObjectKind == (byte)op.Kind && InlineCollection.IsInlineKind(record.ObjectKind))
            return InlineCollection.Read(record.ObjectKind, record.Value);
        op.Error = WrongType;
        return null;
    }

    /// <summary>A record on disk tagged with another type answers WRONGTYPE without its object.</summary>
    public bool NeedsObject(ref ObjectOperation op, byte objectKind) => objectKind == (byte)op.Kind;

    public bool Reader(ref RecordRef record, ref ObjectOperation op, ref NoOutput output)
    {
        if (op.TouchesKey && !op.NoTouch) record.Touch();
        if (Of(ref record, op) is { } c) op.Apply(c);
        return true;
    }

    public bool NeedInitialUpdate(ReadOnlySpan<byte> key, ref ObjectOperation op, ref NoOutput output, out int valueLength, out long expiration)
    {
        valueLength = RecordRef.ObjectValue;
        expiration = 0;
        if (!op.CreatesKey) { op.Missing(); return false; }
        var fresh = CollectionObject.Create(op.Kind);
        if (!op.Apply(fresh) || fresh.IsEmpty) return false;
        valueLength = InlineCollection.Shape(fresh);
        op.Staged = fresh;
        return true;
    }

    public void InitialUpdater(ReadOnlySpan<byte> key, ref ObjectOperation op, ref RecordRef newRecord, ref NoOutput output)
    {
        InlineCollection.Store(op.Staged!, ref newRecord);
        op.Staged = null;
    }

    public UpdateAction InPlaceUpdater(ref RecordRef record, ref ObjectOperation op, ref NoOutput output)
    {
        if (Of(ref record, op) is not { } c) return UpdateAction.Abort;
        if (!op.Apply(c)) return UpdateAction.Abort;
        if (c.IsEmpty) return UpdateAction.Delete;
        if (record.IsObject) return UpdateAction.Done;
        // Inline: c is a private decoded copy. New bytes in place when they fit; otherwise the copy path decodes and
        // applies again (Apply may run more than once) and shapes the new record (inline, or an object).
        int n = InlineCollection.LengthOf(c);
        if (n < 0 || !record.FitsInPlace(n)) return UpdateAction.NeedCopy;
        InlineCollection.Write(c, record.WritableValue(n));
        return UpdateAction.Done;
    }

    public bool NeedCopyUpdate(ref RecordRef oldRecord, ref ObjectOperation op, ref NoOutput output, out int valueLength, out long expiration)
    {
        valueLength = RecordRef.ObjectValue;
        expiration = oldRecord.Expiration;
        if (Of(ref oldRecord, op) is not { } c) return false;
        var copy = oldRecord.IsObject ? c.Clone() : c; // an inline collection was decoded into a private object
        if (!op.Apply(copy)) return false;
        if (copy.IsEmpty) { valueLength = RecordRef.DeleteRecord; return true; }
        if (!oldRecord.IsObject) valueLength = InlineCollection.Shape(copy); // object records stay objects
        op.Staged = copy;
        return true;
    }

    public void CopyUpdater(ref RecordRef oldRecord, ref ObjectOperation op, ref RecordRef newRecord, ref NoOutput output)
    {
        InlineCollection.Store(op.Staged!, ref newRecord);
        op.Staged = null;
    }

    public void ReadCompleted(ReadOnlySpan<byte> key, ref ObjectOperation op, ref NoOutput output, Status status) => op.Status = status;

    public void RmwCompleted(ReadOnlySpan<byte> key, ref ObjectOperation op, ref NoOutput output, Status status) => op.Status = status;

    public void WriteCompleted(ReadOnlySpan<byte> key, Status status) { }
}
