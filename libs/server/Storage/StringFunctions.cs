// StringFunctions: what string commands mean on the engine's records. The engine calls these callbacks (possibly
// more than once for one command when a publish loses a race), so callbacks never write to the client: they leave
// results in the session's OpResult, except Reader, which the engine calls exactly once per successful read and
// which writes GET's bulk reply straight from the record (no copy).
// Values are raw bytes; numbers are kept as their decimal text, as Redis keeps them.
using System.Buffers.Text;
using System.Globalization;
using Garnet.common.Resp;
using Garnet.storage.Store;

namespace Garnet.server.Storage;

/// <summary>Copy: a string's bytes (WRONGTYPE for a collection). Fetch: the value whatever its type (a collection's clone
/// in OpResult.Value), for RENAME, COPY, MOVE and DUMP.</summary>
public enum StringOp : byte { Get, Exists, StrLen, GetRange, Ttl, Set, Append, SetRange, IncrBy, IncrByFloat, Expire, Persist, GetEx, Copy, GetBit, BitCount, BitPos, SetBit, PfAdd, BitField, Usage, GetDel, SetAccessTime, Fetch }

[Flags]
public enum SetFlags : byte { None = 0, Nx = 1, Xx = 2, KeepTtl = 4, Get = 8 }

[Flags]
public enum ExpireFlags : byte { None = 0, Nx = 1, Xx = 2, Gt = 4, Lt = 8, Persist = 16, DeleteNow = 32 }

public struct StringInput
{
    public StringOp Op;
    public byte Flags;
    public byte[]? Data;        // argument bytes (SET's value, APPEND's suffix, ...): Data[Offset..Offset+Length)
    public int Offset, Length;
    public long Number;         // INCRBY delta, SETRANGE/GETRANGE start, expiration (Unix ms, 0 = none)
    public long Number2;        // GETRANGE end
    public double Float;        // INCRBYFLOAT increment
    public object? Extra;       // PFADD's elements (byte[][])

    public readonly ReadOnlySpan<byte> Value => Data is null ? default : new(Data, Offset, Length);
}

/// <summary>Results of one operation, shared by reference between the session and the callbacks (also for pending ops).</summary>
public sealed class OpResult
{
    public RespWriter Writer = null!;
    public Status Status;
    public long Number;
    public string? Error;
    public byte[]? Old;         // the previous value (SET ... GET, GETEX)
    public bool SharedInteger;  // OBJECT REFCOUNT: Redis would keep this value as a shared integer
    public int NewLength;       // length of the value being created (when it goes into a LargeValue object)
    public string? Text;        // INCRBYFLOAT's result as stored
    public byte[]? Staged;      // a whole new value computed before its record exists (PFADD)
    public long?[]? Replies;    // BITFIELD's replies
    public uint AccessTime;     // OBJECT IDLETIME: the key's last access, Unix seconds
    public Garnet.server.Objects.CollectionObject? Value; // a collection value fetched whole (StringOp.Fetch)
    public long ExpiredDeletes; // pending deletes that completed by deleting an expired key (counted across ops, never reset)
    public bool NoTouch;        // the session's CLIENT NO-TOUCH (kept across ops, never reset)

    public void Reset()
    {
        Status = 0; Number = 0; Error = null; Old = null; SharedInteger = false; NewLength = 0; Text = null; Staged = null; Replies = null; AccessTime = 0; Value = null;
    }
}

public struct StringOutput
{
    public OpResult Result;
}

public struct StringFunctions : IStoreFunctions<StringInput, StringOutput>
{
    /// <summary>Where completed pending Upserts and Deletes report their status (reads and RMWs use their output).</summary>
    public OpResult? Writes;

    public const string NotInteger = "ERR value is not an integer or out of range";
    public const string NotFloat = "ERR value is not a valid float";
    public const string WrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";
    public const string Overflow = "ERR increment or decrement would overflow";
    public const string NaNOrInfinity = "ERR increment would produce NaN or Infinity";
    public const string TooBig = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

    /// <summary>Largest string value (Redis's proto-max-bulk-len default).</summary>
    public const long MaxValueLength = 512L * 1024 * 1024;

    /// <summary>APPEND's bound: proto-max-bulk-len as the command passed it in Number (Redis's checkStringLength), never past MaxValueLength.</summary>
    private static long MaxLength(in StringInput input) => input.Number > 0 ? Math.Min(input.Number, MaxValueLength) : MaxValueLength;

    public bool Reader(ref RecordRef record, ref StringInput input, ref StringOutput output)
    {
        var r = output.Result;
        if (TouchesKey(in input) && (!r.NoTouch || input.Op == StringOp.Exists)) record.Touch(); // Exists touching is TOUCH
        if (HoldsCollection(ref record)) { CollectionKeyOps.Read(ref record, ref input, r); return true; }
        if (record.IsObject && record.Object is null && record.ObjectKind == LargeValue.SerializedType)
        {
            // A large string read from disk without its object (NeedsObject): only its type and expiration were asked.
            if (input.Op == StringOp.Exists) r.Text = "string";
            else r.Number = record.Expiration;
            return true;
        }
        if (!TryGetString(ref record, out var value)) { r.Error = WrongType; return true; }
        switch (input.Op)
        {
            case StringOp.Get:
                // A large value is sent from its own array (it never changes), not copied into the reply.
                if (record.Object is LargeValue large) r.Writer.WriteBulkReference(large.Memory);
                else r.Writer.WriteBulkString(value);
                break;
            case StringOp.Exists: r.Text = "string"; break;
            case StringOp.StrLen: r.Number = value.Length; break;
            case StringOp.GetRange: r.Writer.WriteBulkString(Range(value, input.Number, input.Number2)); break;
            case StringOp.Ttl: r.Number = record.Expiration; break;
            case StringOp.Copy:
            case StringOp.Fetch: r.Old = value.ToArray(); r.Number = record.Expiration; break;
            case StringOp.GetBit: r.Number = Bitmaps.GetBit(value, input.Number); break;
            case StringOp.BitCount: r.Number = Bitmaps.Count(value, input.Number, input.Number2, (BitFlags)input.Flags); break;
            case StringOp.BitPos: r.Number = Bitmaps.Position(value, input.Number, input.Number2, (BitFlags)input.Flags); break;
            case StringOp.BitField: r.Replies = Storage.BitField.Apply(value.ToArray(), (BitFieldCommand[])input.Extra!, write: false); break;
            case StringOp.Usage:
                // The record in the log, its share of the index (one 8-byte entry), and a large value's heap bytes.
                r.Number = record.RecordBytes + 8 + (record.Object is LargeValue lv ? lv.HeapSize : 0);
                r.SharedInteger = value.Length <= 20 && NumberParsing.TryParseInt64(value, out long asInt) && asInt is >= 0 and < 10000; // a shared integer in Redis
                r.Text = Encoding(value);
                r.AccessTime = record.AccessTime;
                break;
        }
        return true;
    }

    /// <summary>The record holds a collection: its object says so, or (read from disk without it) its kind tag, or it is
    /// a byte record tagged as an inline collection (InlineCollection).</summary>
    private static bool HoldsCollection(ref RecordRef record) =>
        record.IsObject
            ? record.ObjectKind >= (byte)Garnet.server.Objects.ObjectKind.List || record.Object is Garnet.server.Objects.CollectionObject
            : record.ObjectKind != 0;

    /// <summary>
    /// Which commands need the object of a record on disk (tagged objectKind): a large string's bytes for everything but
    /// its type and TTL; a collection's only to fetch it whole (RENAME, COPY, DUMP, MEMORY USAGE) or copy it with a new
    /// expiration. Everything else on a collection is its type, its TTL, SET over it, or WRONGTYPE.
    /// </summary>
    public bool NeedsObject(ref StringInput input, byte objectKind)
    {
        if (input.Op == StringOp.SetAccessTime) return false;
        if (objectKind == LargeValue.SerializedType) return input.Op is not (StringOp.Exists or StringOp.Ttl);
        if (objectKind < (byte)Garnet.server.Objects.ObjectKind.List) return true;
        return input.Op is StringOp.Fetch or StringOp.Usage or StringOp.Expire or StringOp.Persist;
    }

    /// <summary>Exists with this flag is TOUCH: it marks the key accessed, where EXISTS and TYPE do not.</summary>
    public const byte TouchFlag = 1;

    /// <summary>
    /// Whether a read marks the key accessed (OBJECT IDLETIME), as Redis's lookups do: TTL and friends, EXISTS, TYPE,
    /// OBJECT and MEMORY USAGE look without touching; every other read touches. Writes always touch (the engine does it).
    /// </summary>
    private static bool TouchesKey(in StringInput input) => input.Op switch
    {
        StringOp.Ttl or StringOp.Usage => false,
        StringOp.Exists => input.Flags == TouchFlag,
        _ => true,
    };

    /// <summary>The record's string bytes, inline or in a LargeValue; false for other object types (WRONGTYPE).</summary>
    public static bool TryGetString(ref RecordRef record, out ReadOnlySpan<byte> value)
    {
        if (!record.IsObject)
        {
            if (record.ObjectKind == 0) { value = record.Value; return true; }
            value = default; // an inline collection
            return false;
        }
        if (record.Object is LargeValue lv) { value = lv.Span; return true; }
        value = default;
        return false;
    }

    /// <summary>A value longer than LargeValue.InlineLimit becomes an object record (its length kept for the updater).</summary>
    private static int Shape(int length, OpResult r)
    {
        r.NewLength = length;
        return length > LargeValue.InlineLimit ? RecordRef.ObjectValue : length;
    }

    /// <summary>Where an updater writes the new value: the record's bytes, or a new LargeValue's (zeroed) bytes.</summary>
    private static Span<byte> Target(ref RecordRef newRecord, OpResult r, out LargeValue? large)
    {
        if (!newRecord.IsObject) { large = null; return newRecord.ValueSpan; }
        large = LargeValue.Create(r.NewLength, out var content);
        return content;
    }

    private static void Finish(ref RecordRef newRecord, LargeValue? large)
    {
        if (large is not null) newRecord.SetObject(large);
    }

    /// <summary>OBJECT ENCODING of a string, by Redis's rules for how it stores one: int, embstr (up to 44 bytes), raw.</summary>
    public static string Encoding(ReadOnlySpan<byte> v) =>
        v.Length <= 20 && NumberParsing.TryParseInt64(v, out _) ? "int" : v.Length <= 44 ? "embstr" : "raw";

    /// <summary>GETRANGE's slice: negative offsets count from the end, both ends inclusive, clamped.</summary>
    public static ReadOnlySpan<byte> Range(ReadOnlySpan<byte> v, long start, long end) =>
        Bitmaps.Clamp(v.Length, ref start, ref end) ? v.Slice((int)start, (int)(end - start + 1)) : default;

    // ---- RMW: creating ----

    public bool NeedInitialUpdate(ReadOnlySpan<byte> key, ref StringInput input, ref StringOutput output, out int valueLength, out long expiration)
    {
        var r = output.Result;
        valueLength = 0;
        expiration = 0;
        r.Old = null; // a retry after a lost race may land here after an earlier attempt saw a value
        if (input.Op == StringOp.SetAccessTime) return false;
        switch (input.Op)
        {
            case StringOp.Set:
                if ((input.Flags & (byte)SetFlags.Xx) != 0) return false;
                valueLength = Shape(input.Length, r);
                expiration = input.Number;
                return true;
            case StringOp.Append:
                valueLength = Shape(input.Length, r);
                return true;
            case StringOp.SetRange:
                if (input.Length == 0) return false; // SETRANGE on a missing key with an empty value creates nothing
                valueLength = Shape(checked((int)(input.Number + input.Length)), r);
                return true;
            case StringOp.IncrBy:
                valueLength = Shape(DigitCount(input.Number), r);
                return true;
            case StringOp.SetBit:
                valueLength = Shape((int)(input.Number >> 3) + 1, r);
                return true;
            case StringOp.BitField:
                valueLength = Shape(Storage.BitField.RequiredLength((BitFieldCommand[])input.Extra!), r);
                return true;
            case StringOp.PfAdd:
            {
                var fresh = HyperLogLog.NewSparse();
                r.Staged = HyperLogLog.Add(fresh, (byte[][])input.Extra!) ?? fresh;
                r.Number = 1;
                valueLength = Shape(r.Staged.Length, r);
                return true;
            }
            case StringOp.IncrByFloat:
                if (!TryIncrementFloat("0"u8, ref input, r, out string created)) return false;
                valueLength = Shape(created.Length, r);
                return true;
            default:
                return false; // EXPIRE, PERSIST, GETEX on a missing key
        }
    }

    public void InitialUpdater(ReadOnlySpan<byte> key, ref StringInput input, ref RecordRef newRecord, ref StringOutput output)
    {
        var r = output.Result;
        var v = Target(ref newRecord, r, out var large);
        switch (input.Op)
        {
            case StringOp.Set:
            case StringOp.Append:
                input.Value.CopyTo(v);
                r.Number = v.Length;
                break;
            case StringOp.SetRange:
                v[..(int)input.Number].Clear();
                input.Value.CopyTo(v[(int)input.Number..]);
                r.Number = v.Length;
                break;
            case StringOp.IncrBy:
                Utf8Formatter.TryFormat(input.Number, v, out _);
                r.Number = input.Number;
                break;
            case StringOp.IncrByFloat:
                TryIncrementFloat("0"u8, ref input, r, out string created);
                System.Text.Encoding.ASCII.GetBytes(created, v);
                break;
            case StringOp.SetBit:
                v.Clear(); // reused space is not zero
                r.Number = Bitmaps.SetBit(v, input.Number, input.Flags != 0);
                break;
            case StringOp.PfAdd:
                r.Staged!.CopyTo(v);
                break;
            case StringOp.BitField:
                v.Clear();
                r.Replies = Storage.BitField.Apply(v, (BitFieldCommand[])input.Extra!, write: true);
                break;
        }
        Finish(ref newRecord, large);
    }

    // ---- RMW: changing in place ----

    public UpdateAction InPlaceUpdater(ref RecordRef record, ref StringInput input, ref StringOutput output)
    {
        var r = output.Result;
        if (input.Op == StringOp.SetAccessTime)
        {
            // RESTORE ... IDLETIME: the record it just wrote is at the tail (a record already read-only keeps "now").
            record.SetAccessTime((uint)input.Number);
            return UpdateAction.Done;
        }
        if (HoldsCollection(ref record)) return CollectionKeyOps.InPlace(ref record, ref input, r);
        // A LargeValue never fits in place (FitsInPlace is false for objects): changes to it copy.
        if (!TryGetString(ref record, out var old)) { r.Error = WrongType; return UpdateAction.Abort; }
        switch (input.Op)
        {
            case StringOp.Set:
            {
                if ((input.Flags & (byte)SetFlags.Get) != 0) r.Old = old.ToArray();
                if ((input.Flags & (byte)SetFlags.Nx) != 0) return UpdateAction.Abort;
                bool keep = (input.Flags & (byte)SetFlags.KeepTtl) != 0;
                if (!keep && (input.Number != 0) != record.HasExpiration) return UpdateAction.NeedCopy;
                if (!record.FitsInPlace(input.Length)) return UpdateAction.NeedCopy;
                input.Value.CopyTo(record.WritableValue(input.Length));
                if (!keep && input.Number != 0) record.TrySetExpiration(input.Number);
                return UpdateAction.Done;
            }
            case StringOp.Append:
            {
                long n = (long)old.Length + input.Length;
                if (n > MaxLength(input)) { r.Error = TooBig; return UpdateAction.Abort; }
                if (!record.FitsInPlace((int)n)) return UpdateAction.NeedCopy;
                int was = old.Length;
                input.Value.CopyTo(record.WritableValue((int)n)[was..]);
                r.Number = n;
                return UpdateAction.Done;
            }
            case StringOp.SetRange:
            {
                long n = Math.Max(old.Length, input.Number + input.Length);
                if (input.Length == 0) { r.Number = old.Length; return UpdateAction.Abort; }
                if (!record.FitsInPlace((int)n)) return UpdateAction.NeedCopy;
                int was = old.Length;
                var v = record.WritableValue((int)n);
                if (input.Number > was) v[was..(int)input.Number].Clear();
                input.Value.CopyTo(v[(int)input.Number..]);
                r.Number = n;
                return UpdateAction.Done;
            }
            case StringOp.IncrBy:
            {
                if (!TryIncrement(old, input.Number, r, out long value)) return UpdateAction.Abort;
                int len = DigitCount(value);
                if (!record.FitsInPlace(len)) return UpdateAction.NeedCopy;
                Utf8Formatter.TryFormat(value, record.WritableValue(len), out _);
                r.Number = value;
                return UpdateAction.Done;
            }
            case StringOp.IncrByFloat:
            {
                if (!TryIncrementFloat(old, ref input, r, out string text)) return UpdateAction.Abort;
                if (!record.FitsInPlace(text.Length)) return UpdateAction.NeedCopy;
                System.Text.Encoding.ASCII.GetBytes(text, record.WritableValue(text.Length));
                return UpdateAction.Done;
            }
            case StringOp.Expire:
            {
                if (!ExpireAllowed(record.Expiration, input.Number, input.Flags)) { r.Number = 0; return UpdateAction.Abort; }
                r.Number = 1;
                // A time in the past deletes the key, under the same lock that checked the conditions.
                if ((input.Flags & (byte)ExpireFlags.DeleteNow) != 0) return UpdateAction.Delete;
                return record.TrySetExpiration(input.Number) ? UpdateAction.Done : UpdateAction.NeedCopy;
            }
            case StringOp.GetDel:
                r.Old = old.ToArray();
                return UpdateAction.Delete;
            case StringOp.SetBit:
            {
                int need = (int)(input.Number >> 3) + 1;
                if (need <= old.Length && !record.IsObject)
                {
                    r.Number = Bitmaps.SetBit(record.ValueSpan, input.Number, input.Flags != 0);
                    return UpdateAction.Done;
                }
                if (!record.FitsInPlace(need)) return UpdateAction.NeedCopy;
                int was = old.Length;
                var v = record.WritableValue(need);
                v[was..].Clear(); // the capacity past the old value may hold old bytes
                r.Number = Bitmaps.SetBit(v, input.Number, input.Flags != 0);
                return UpdateAction.Done;
            }
            case StringOp.BitField:
            {
                int need = Math.Max(old.Length, Storage.BitField.RequiredLength((BitFieldCommand[])input.Extra!));
                if (!record.FitsInPlace(need)) return UpdateAction.NeedCopy;
                int was = old.Length;
                var v = record.WritableValue(need);
                v[was..].Clear();
                r.Replies = Storage.BitField.Apply(v, (BitFieldCommand[])input.Extra!, write: true);
                return UpdateAction.Done;
            }
            case StringOp.PfAdd:
            {
                if (!TryHllAdd(old, ref input, r)) return UpdateAction.Abort;
                if (!record.FitsInPlace(r.Staged!.Length)) return UpdateAction.NeedCopy;
                r.Staged.CopyTo(record.WritableValue(r.Staged.Length));
                return UpdateAction.Done;
            }
            case StringOp.Persist:
                r.Number = record.HasExpiration ? 1 : 0;
                return record.HasExpiration ? UpdateAction.NeedCopy : UpdateAction.Abort;
            case StringOp.GetEx:
            {
                r.Old = old.ToArray();
                if ((input.Flags & (byte)ExpireFlags.Persist) != 0) return record.HasExpiration ? UpdateAction.NeedCopy : UpdateAction.Abort;
                if (input.Number == 0) return UpdateAction.Abort;
                return record.TrySetExpiration(input.Number) ? UpdateAction.Done : UpdateAction.NeedCopy;
            }
        }
        return UpdateAction.Abort;
    }

    // ---- RMW: copying ----

    public bool NeedCopyUpdate(ref RecordRef oldRecord, ref StringInput input, ref StringOutput output, out int valueLength, out long expiration)
    {
        var r = output.Result;
        valueLength = 0;
        expiration = oldRecord.Expiration;
        if (input.Op == StringOp.SetAccessTime) return false;
        if (HoldsCollection(ref oldRecord))
        {
            if (input.Op != StringOp.Set) return CollectionKeyOps.NeedCopy(ref oldRecord, ref input, r, out valueLength, out expiration);
            // SET over a collection: the new value is a string (SET ... GET needs the old one to be a string).
            if ((input.Flags & (byte)SetFlags.Get) != 0) { r.Error = WrongType; return false; }
            if ((input.Flags & (byte)SetFlags.Nx) != 0) return false;
            valueLength = Shape(input.Length, r);
            if ((input.Flags & (byte)SetFlags.KeepTtl) == 0) expiration = input.Number;
            return true;
        }
        if (!TryGetString(ref oldRecord, out var old)) { r.Error = WrongType; return false; }
        valueLength = Shape(NewLengthOf(ref input, old, r), r);
        if (r.Error is not null) return false;
        switch (input.Op)
        {
            case StringOp.Set:
                if ((input.Flags & (byte)SetFlags.Get) != 0) r.Old = old.ToArray();
                if ((input.Flags & (byte)SetFlags.Nx) != 0) return false;
                if ((input.Flags & (byte)SetFlags.KeepTtl) == 0) expiration = input.Number;
                return true;
            case StringOp.Append:
            case StringOp.IncrBy:
            case StringOp.IncrByFloat:
            case StringOp.SetBit:
            case StringOp.BitField:
                return true; // NewLengthOf checked and sized them
            case StringOp.SetRange:
                if (input.Length == 0) { r.Number = old.Length; return false; }
                return true;
            case StringOp.PfAdd:
                if (!TryHllAdd(old, ref input, r)) return false;
                valueLength = Shape(r.Staged!.Length, r);
                return true;
            case StringOp.Expire:
                if (!ExpireAllowed(oldRecord.Expiration, input.Number, input.Flags)) { r.Number = 0; return false; }
                r.Number = 1;
                if ((input.Flags & (byte)ExpireFlags.DeleteNow) != 0) valueLength = RecordRef.DeleteRecord;
                expiration = input.Number;
                return true;
            case StringOp.GetDel:
                r.Old = old.ToArray();
                valueLength = RecordRef.DeleteRecord;
                return true;
            case StringOp.Persist:
                r.Number = oldRecord.HasExpiration ? 1 : 0;
                expiration = 0;
                return oldRecord.HasExpiration;
            case StringOp.GetEx:
                r.Old = old.ToArray();
                if ((input.Flags & (byte)ExpireFlags.Persist) != 0) { expiration = 0; return oldRecord.HasExpiration; }
                if (input.Number == 0) return false;
                expiration = input.Number;
                return true;
        }
        return false;
    }

    /// <summary>Length of the value a copy will hold (errors for APPEND past the limit, INCR on a non-number, ...).</summary>
    private static int NewLengthOf(ref StringInput input, ReadOnlySpan<byte> old, OpResult r)
    {
        switch (input.Op)
        {
            case StringOp.Set: return input.Length;
            case StringOp.Append:
            {
                long n = (long)old.Length + input.Length;
                if (n > MaxLength(input)) { r.Error = TooBig; return 0; }
                return (int)n;
            }
            case StringOp.SetRange: return (int)Math.Max(old.Length, input.Number + input.Length);
            case StringOp.IncrBy: return TryIncrement(old, input.Number, r, out long value) ? DigitCount(value) : 0;
            case StringOp.IncrByFloat: return TryIncrementFloat(old, ref input, r, out string text) ? text.Length : 0;
            case StringOp.SetBit: return Math.Max(old.Length, (int)(input.Number >> 3) + 1);
            case StringOp.BitField: return Math.Max(old.Length, Storage.BitField.RequiredLength((BitFieldCommand[])input.Extra!));
            default: return old.Length;
        }
    }

    public void CopyUpdater(ref RecordRef oldRecord, ref StringInput input, ref RecordRef newRecord, ref StringOutput output)
    {
        var r = output.Result;
        if (input.Op != StringOp.Set && HoldsCollection(ref oldRecord)) { CollectionKeyOps.Copy(ref oldRecord, ref newRecord); return; }
        TryGetString(ref oldRecord, out var old);
        var v = Target(ref newRecord, r, out var large);
        switch (input.Op)
        {
            case StringOp.Set:
                input.Value.CopyTo(v);
                break;
            case StringOp.Append:
                old.CopyTo(v);
                input.Value.CopyTo(v[old.Length..]);
                r.Number = v.Length;
                break;
            case StringOp.SetRange:
                old.CopyTo(v);
                if (input.Number > old.Length) v[old.Length..(int)input.Number].Clear();
                input.Value.CopyTo(v[(int)input.Number..]);
                r.Number = v.Length;
                break;
            case StringOp.IncrBy:
                TryIncrement(old, input.Number, r, out long value);
                Utf8Formatter.TryFormat(value, v, out _);
                r.Number = value;
                break;
            case StringOp.IncrByFloat:
                TryIncrementFloat(old, ref input, r, out string text);
                System.Text.Encoding.ASCII.GetBytes(text, v);
                break;
            case StringOp.PfAdd:
                r.Staged!.CopyTo(v);
                break;
            case StringOp.BitField:
                old.CopyTo(v);
                v[old.Length..].Clear();
                r.Replies = Storage.BitField.Apply(v, (BitFieldCommand[])input.Extra!, write: true);
                break;
            case StringOp.SetBit:
                old.CopyTo(v);
                v[old.Length..].Clear();
                r.Number = Bitmaps.SetBit(v, input.Number, input.Flags != 0);
                break;
            default:
                old.CopyTo(v); // EXPIRE, PERSIST, GETEX: same value, new expiration
                break;
        }
        Finish(ref newRecord, large);
    }

    public void ReadCompleted(ReadOnlySpan<byte> key, ref StringInput input, ref StringOutput output, Status status) => output.Result.Status = status;
    public void RmwCompleted(ReadOnlySpan<byte> key, ref StringInput input, ref StringOutput output, Status status) => output.Result.Status = status;
    public void WriteCompleted(ReadOnlySpan<byte> key, Status status)
    {
        if (Writes is null) return;
        Writes.Status = status;
        if ((status & Status.Expired) != 0) Writes.ExpiredDeletes++;
    }

    // ---- helpers ----

    /// <summary>PFADD on an existing value: false (nothing to write) when it is not an HLL or no register changed.</summary>
    private static bool TryHllAdd(ReadOnlySpan<byte> old, ref StringInput input, OpResult r)
    {
        r.Number = 0;
        if (!HyperLogLog.IsValid(old)) { r.Error = HyperLogLog.NotHll; return false; }
        try { r.Staged = HyperLogLog.Add(old, (byte[][])input.Extra!); }
        catch (InvalidDataException) { r.Error = HyperLogLog.Corrupt; return false; }
        if (r.Staged is null) return false;
        r.Number = 1;
        return true;
    }

    /// <summary>EXPIRE's NX/XX/GT/LT rules; a key without expiration counts as expiring never (infinite).</summary>
    internal static bool ExpireAllowed(long current, long next, byte flags)
    {
        var f = (ExpireFlags)flags;
        if (f.HasFlag(ExpireFlags.Nx) && current != 0) return false;
        if (f.HasFlag(ExpireFlags.Xx) && current == 0) return false;
        if (f.HasFlag(ExpireFlags.Gt) && (current == 0 || next <= current)) return false;
        if (f.HasFlag(ExpireFlags.Lt) && current != 0 && next >= current) return false;
        return true;
    }

    private static bool TryIncrement(ReadOnlySpan<byte> old, long delta, OpResult r, out long value)
    {
        value = 0;
        if (!NumberParsing.TryParseInt64(old, out long current)) { r.Error = NotInteger; return false; }
        if ((delta > 0 && current > long.MaxValue - delta) || (delta < 0 && current < long.MinValue - delta)) { r.Error = Overflow; return false; }
        value = current + delta;
        return true;
    }

    /// <summary>
    /// INCRBYFLOAT. Redis adds in long double and prints 17 digits with trailing zeros cut, so 0.1 + 0.2 gives "0.3".
    /// Decimal arithmetic (28 digits) gives the same text wherever both numbers fit a decimal; beyond that, doubles.
    /// The increment's own text is input.Value.
    /// </summary>
    private static bool TryIncrementFloat(ReadOnlySpan<byte> old, ref StringInput input, OpResult r, out string text)
    {
        text = "";
        if (!NumberParsing.TryParseDouble(old, out double current)) { r.Error = NotFloat; return false; }
        double value = current + input.Float;
        if (!double.IsFinite(value)) { r.Error = NaNOrInfinity; return false; }
        text = NumberParsing.TryAddDecimal(old, input.Value, out string? exact) ? exact! : FormatFloat(value);
        r.Text = text;
        return true;
    }

    /// <summary>INCRBYFLOAT's text: the shortest form that reads back as the same double, never exponent notation.</summary>
    public static string FormatFloat(double value)
    {
        string s = value.ToString("R", CultureInfo.InvariantCulture);
        if (!s.Contains('E')) return s;
        // Out of the shortest form's plain range: all digits, as Redis's %.17Lf prints them, trailing zeros cut.
        s = value.ToString("F17", CultureInfo.InvariantCulture);
        if (s.Contains('.')) s = s.TrimEnd('0').TrimEnd('.');
        return s == "-0" ? "0" : s;
    }

    public static int DigitCount(long value)
    {
        Span<byte> tmp = stackalloc byte[24];
        Utf8Formatter.TryFormat(value, tmp, out int n);
        return n;
    }
}
