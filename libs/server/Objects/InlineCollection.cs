// InlineCollection: small hashes and sets held as their record's value bytes, with no object, heap slot or array
// header: the record is a byte record whose kind tag (RecordRef.ObjectKind, in the record header) is the collection's
// ObjectKind. Each type writes and reads its own inline form (HashObject/SetObject.WriteInline, ReadInline); this file
// only decides which collections are inline and moves them between records and objects.
// Invariants:
//  - A collection is inline exactly while it is in a packed form (hash listpack; set intset or listpack) and its inline
//    form takes at most MaxBytes. Crossing Redis's encoding limits or MaxBytes makes the next record an object record;
//    an object record never goes back inline (as Redis never converts back), except when a whole value is stored anew
//    (RESTORE, COPY, RENAME, MOVE, recovery from a checkpoint), which picks the form afresh.
//  - A byte record with tag 0 is a string; tags 2..6 on a byte record are inline collections (only 3 and 4 are made).
//  - Readers decode a private object from the bytes (Read): a command's changes go to that object, then to new bytes
//    (in place when they fit the record's capacity, else a copy at the tail), never to bytes another reader holds.
using Garnet.storage.Store;

namespace Garnet.server.Objects;

public static class InlineCollection
{
    /// <summary>Largest inline form (bytes of the record's value). A hash of 10 short pairs takes about 110.</summary>
    public const int MaxBytes = 512;

    /// <summary>Whether a byte record's kind tag names an inline collection.</summary>
    public static bool IsInlineKind(byte tag) => tag >= (byte)ObjectKind.List && tag <= (byte)ObjectKind.Stream;

    /// <summary>The record is a byte record holding an inline collection.</summary>
    public static bool Holds(ref RecordRef record) => !record.IsObject && IsInlineKind(record.ObjectKind);

    /// <summary>Bytes of c's inline form, or -1 when c is not held inline (a large form, too big, another type).</summary>
    public static int LengthOf(CollectionObject c)
    {
        int n = c switch
        {
            HashObject h => h.InlineLength,
            SetObject s => s.InlineLength,
            _ => -1,
        };
        return n <= MaxBytes ? n : -1;
    }

    /// <summary>The valueLength of a new record for c: its inline length, or RecordRef.ObjectValue.</summary>
    public static int Shape(CollectionObject c) => LengthOf(c) is var n and >= 0 ? n : RecordRef.ObjectValue;

    /// <summary>Writes c's inline form (LengthOf(c) bytes).</summary>
    public static void Write(CollectionObject c, Span<byte> destination)
    {
        switch (c)
        {
            case HashObject h: h.WriteInline(destination); break;
            case SetObject s: s.WriteInline(destination); break;
            default: throw new NotSupportedException("no inline form for " + c.TypeName);
        }
    }

    /// <summary>A new object decoded from an inline form of kind.</summary>
    public static CollectionObject Read(byte kind, ReadOnlySpan<byte> bytes) => (ObjectKind)kind switch
    {
        ObjectKind.Hash => HashObject.ReadInline(bytes),
        ObjectKind.Set => SetObject.ReadInline(bytes),
        _ => throw new InvalidDataException("no inline form for kind " + kind),
    };

    /// <summary>The record's collection: its object, or a private object decoded from its inline bytes; null for a string
    /// (or an object record read from disk without its object).</summary>
    public static CollectionObject? Of(ref RecordRef record) =>
        record.IsObject ? record.Object as CollectionObject
        : IsInlineKind(record.ObjectKind) ? Read(record.ObjectKind, record.Value) : null;

    /// <summary>Fills a new record shaped by Shape(c): the object, or the inline bytes and the kind tag.</summary>
    public static void Store(CollectionObject c, ref RecordRef newRecord)
    {
        if (newRecord.IsObject) { newRecord.SetObject(c); return; }
        Write(c, newRecord.ValueSpan);
        newRecord.SetValueKind((byte)c.Kind);
    }

    /// <summary>Stores c as key's whole value, inline when it qualifies (the store owns c from now on).</summary>
    public static Status Upsert<TInput, TOutput, TFunctions>(StoreSession<TInput, TOutput, TFunctions> session, ReadOnlySpan<byte> key, CollectionObject c, long expiration)
        where TFunctions : struct, IStoreFunctions<TInput, TOutput>
    {
        int n = LengthOf(c);
        if (n < 0) return session.Upsert(key, c, expiration);
        Span<byte> bytes = stackalloc byte[MaxBytes];
        Write(c, bytes);
        return session.Upsert(key, bytes[..n], expiration, (byte)c.Kind);
    }
}
