// CollectionKeyOps: what the key commands (EXISTS/TYPE, TTL, EXPIRE, PERSIST, MEMORY USAGE, OBJECT, the fetch behind
// RENAME/COPY/MOVE/DUMP, SET over any type) do when the key holds a collection. StringFunctions hands collection records
// here first, so the string callbacks stay about strings and every other string command answers WRONGTYPE.
// Invariants: nothing here changes a collection's elements; a copy of a record gets a Clone (the old object may be
// serializing on another thread), or the same inline bytes and kind tag (InlineCollection).
using Garnet.server.Objects;
using Garnet.storage.Store;

namespace Garnet.server.Storage;

internal static class CollectionKeyOps
{
    /// <summary>A read of a collection record. The op's result goes to r; anything not a key command is WRONGTYPE.
    /// A record read from disk without its object (StringFunctions.NeedsObject: only the ops that need no object get
    /// here then) and an inline collection tell their type by their kind tag.</summary>
    public static void Read(ref RecordRef record, ref StringInput input, OpResult r)
    {
        var c = record.Object as CollectionObject;
        switch (input.Op)
        {
            case StringOp.Exists: r.Text = c?.TypeName ?? CollectionObject.TypeNameOf((ObjectKind)record.ObjectKind); break;
            case StringOp.Ttl: r.Number = record.Expiration; break;
            case StringOp.Fetch: r.Value = c?.Clone() ?? InlineCollection.Of(ref record); r.Number = record.Expiration; break;
            case StringOp.Usage:
                // An inline collection is all in its record: no object, no heap.
                c ??= InlineCollection.Of(ref record);
                r.Number = record.RecordBytes + 8 + (record.IsObject ? c!.HeapBytes + c.SpilledBytes : 0);
                r.Text = c!.Encoding;
                r.AccessTime = record.AccessTime;
                break;
            default: r.Error = StringFunctions.WrongType; break;
        }
    }

    /// <summary>An RMW in place on a collection record.</summary>
    public static UpdateAction InPlace(ref RecordRef record, ref StringInput input, OpResult r)
    {
        switch (input.Op)
        {
            case StringOp.SetAccessTime:
                record.SetAccessTime((uint)input.Number);
                return UpdateAction.Done;
            case StringOp.Expire:
                if (!StringFunctions.ExpireAllowed(record.Expiration, input.Number, input.Flags)) { r.Number = 0; return UpdateAction.Abort; }
                r.Number = 1;
                if ((input.Flags & (byte)ExpireFlags.DeleteNow) != 0) return UpdateAction.Delete;
                return record.TrySetExpiration(input.Number) ? UpdateAction.Done : UpdateAction.NeedCopy;
            case StringOp.Persist:
                r.Number = record.HasExpiration ? 1 : 0;
                return record.HasExpiration ? UpdateAction.NeedCopy : UpdateAction.Abort;
            case StringOp.Set:
                // SET replaces a value of any type (unless it asks for the old one, which must be a string).
                if ((input.Flags & (byte)SetFlags.Get) != 0) { r.Error = StringFunctions.WrongType; return UpdateAction.Abort; }
                if ((input.Flags & (byte)SetFlags.Nx) != 0) return UpdateAction.Abort;
                return UpdateAction.NeedCopy;
            default:
                r.Error = StringFunctions.WrongType;
                return UpdateAction.Abort;
        }
    }

    /// <summary>Whether an RMW (other than SET, which StringFunctions sizes) that must copy a collection record goes
    /// ahead; sets the new record's shape.</summary>
    public static bool NeedCopy(ref RecordRef oldRecord, ref StringInput input, OpResult r, out int valueLength, out long expiration)
    {
        valueLength = oldRecord.IsObject ? RecordRef.ObjectValue : oldRecord.ValueLength;
        expiration = oldRecord.Expiration;
        switch (input.Op)
        {
            case StringOp.Expire:
                if (!StringFunctions.ExpireAllowed(oldRecord.Expiration, input.Number, input.Flags)) { r.Number = 0; return false; }
                r.Number = 1;
                if ((input.Flags & (byte)ExpireFlags.DeleteNow) != 0) valueLength = RecordRef.DeleteRecord;
                expiration = input.Number;
                return true;
            case StringOp.Persist:
                r.Number = oldRecord.HasExpiration ? 1 : 0;
                expiration = 0;
                return oldRecord.HasExpiration;
            default:
                r.Error = StringFunctions.WrongType;
                return false;
        }
    }

    /// <summary>Fills the copy of a collection record kept by NeedCopy (a key command: the same elements).</summary>
    public static void Copy(ref RecordRef oldRecord, ref RecordRef newRecord)
    {
        if (oldRecord.IsObject) { newRecord.SetObject(((CollectionObject)oldRecord.Object!).Clone()); return; }
        oldRecord.Value.CopyTo(newRecord.ValueSpan);
        newRecord.SetValueKind(oldRecord.ObjectKind);
    }
}
