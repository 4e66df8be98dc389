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

public enum StringOp : byte { Get, Exists, StrLen, GetRange, Ttl, Set, Append, SetRange, IncrBy, IncrByFloat, Expire, Persist, GetEx }

[Flags]
public enum SetFlags : byte { None = 0, Nx = 1, Xx = 2, KeepTtl = 4, Get = 8 }

[Flags]
public enum ExpireFlags : byte { None = 0, Nx = 1, Xx = 2, Gt = 4, Lt = 8, Persist = 16 }

public struct StringInput
{
    public StringOp Op;
    public byte Flags;
    public byte[]? Data;        // argument bytes (SET's value, APPEND's suffix, ...): Data[Offset..Offset+Length)
    public int Offset, Length;
    public long Number;         // INCRBY delta, SETRANGE/GETRANGE start, expiration (Unix ms, 0 = none)
    public long Number2;        // GETRANGE end
    public double Float;        // INCRBYFLOAT increment

    public readonly ReadOnlySpan<byte> Value => Data is null ? default : new(Data, Offset, Length);
}

/// <summary>Results of one operation, shared by reference between the session and the callbacks (also for pending ops).</summary>
public sealed class OpResult
{
    public RespWriter Writer = null!;
    public Status Status;
    public long Number;
    public double Float;
    public string? Error;
    public byte[]? Old;         // the previous value (SET ... GET, GETEX)
    public bool Hit;

    public void Reset()
    {
        Status = 0; Number = 0; Float = 0; Error = null; Old = null; Hit = false;
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

    public bool Reader(ref RecordRef record, ref StringInput input, ref StringOutput output)
    {
        var r = output.Result;
        r.Hit = true;
        if (record.IsObject) { r.Error = WrongType; return true; }
        switch (input.Op)
        {
            case StringOp.Get: r.Writer.WriteBulkString(record.Value); break;
            case StringOp.StrLen: r.Number = record.ValueLength; break;
            case StringOp.GetRange: r.Writer.WriteBulkString(Range(record.Value, input.Number, input.Number2)); break;
            case StringOp.Ttl: r.Number = record.Expiration; break;
        }
        return true;
    }

    /// <summary>GETRANGE's slice: negative offsets count from the end, both ends inclusive, clamped.</summary>
    public static ReadOnlySpan<byte> Range(ReadOnlySpan<byte> v, long start, long end)
    {
        long n = v.Length;
        if (start < 0 && end < 0 && start > end) return default;
        if (start < 0) start = n + start;
        if (end < 0) end = n + end;
        if (start < 0) start = 0;
        if (end < 0) end = 0;
        if (end >= n) end = n - 1;
        if (n == 0 || start > end) return default;
        return v.Slice((int)start, (int)(end - start + 1));
    }

    // ---- RMW: creating ----

    public bool NeedInitialUpdate(ReadOnlySpan<byte> key, ref StringInput input, ref StringOutput output, out int valueLength, out long expiration)
    {
        var r = output.Result;
        valueLength = 0;
        expiration = 0;
        switch (input.Op)
        {
            case StringOp.Set:
                if ((input.Flags & (byte)SetFlags.Xx) != 0) return false;
                valueLength = input.Length;
                expiration = input.Number;
                return true;
            case StringOp.Append:
                valueLength = input.Length;
                return true;
            case StringOp.SetRange:
                if (input.Length == 0) return false; // SETRANGE on a missing key with an empty value creates nothing
                valueLength = checked((int)(input.Number + input.Length));
                return true;
            case StringOp.IncrBy:
                valueLength = DigitCount(input.Number);
                return true;
            case StringOp.IncrByFloat:
                if (!double.IsFinite(input.Float)) { r.Error = NaNOrInfinity; return false; }
                valueLength = FormatFloat(input.Float).Length;
                return true;
            default:
                return false; // EXPIRE, PERSIST, GETEX on a missing key
        }
    }

    public void InitialUpdater(ReadOnlySpan<byte> key, ref StringInput input, ref RecordRef newRecord, ref StringOutput output)
    {
        var r = output.Result;
        var v = newRecord.ValueSpan;
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
                System.Text.Encoding.ASCII.GetBytes(FormatFloat(input.Float), v);
                r.Float = input.Float;
                break;
        }
    }

    // ---- RMW: changing in place ----

    public UpdateAction InPlaceUpdater(ref RecordRef record, ref StringInput input, ref StringOutput output)
    {
        var r = output.Result;
        r.Hit = true;
        if (record.IsObject) { r.Error = WrongType; return UpdateAction.Abort; }
        var old = record.Value;
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
                if (n > MaxValueLength) { r.Error = TooBig; return UpdateAction.Abort; }
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
                if (!TryIncrementFloat(old, input.Float, r, out string text)) return UpdateAction.Abort;
                if (!record.FitsInPlace(text.Length)) return UpdateAction.NeedCopy;
                System.Text.Encoding.ASCII.GetBytes(text, record.WritableValue(text.Length));
                return UpdateAction.Done;
            }
            case StringOp.Expire:
            {
                if (!ExpireAllowed(record.Expiration, input.Number, input.Flags)) { r.Number = 0; return UpdateAction.Abort; }
                r.Number = 1;
                return record.TrySetExpiration(input.Number) ? UpdateAction.Done : UpdateAction.NeedCopy;
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
        r.Hit = true;
        valueLength = 0;
        expiration = oldRecord.Expiration;
        if (oldRecord.IsObject) { r.Error = WrongType; return false; }
        var old = oldRecord.Value;
        switch (input.Op)
        {
            case StringOp.Set:
                if ((input.Flags & (byte)SetFlags.Get) != 0) r.Old = old.ToArray();
                if ((input.Flags & (byte)SetFlags.Nx) != 0) return false;
                valueLength = input.Length;
                if ((input.Flags & (byte)SetFlags.KeepTtl) == 0) expiration = input.Number;
                return true;
            case StringOp.Append:
            {
                long n = (long)old.Length + input.Length;
                if (n > MaxValueLength) { r.Error = TooBig; return false; }
                valueLength = (int)n;
                return true;
            }
            case StringOp.SetRange:
                if (input.Length == 0) { r.Number = old.Length; return false; }
                valueLength = (int)Math.Max(old.Length, input.Number + input.Length);
                return true;
            case StringOp.IncrBy:
                if (!TryIncrement(old, input.Number, r, out long value)) return false;
                valueLength = DigitCount(value);
                return true;
            case StringOp.IncrByFloat:
                if (!TryIncrementFloat(old, input.Float, r, out string text)) return false;
                valueLength = text.Length;
                return true;
            case StringOp.Expire:
                if (!ExpireAllowed(oldRecord.Expiration, input.Number, input.Flags)) { r.Number = 0; return false; }
                r.Number = 1;
                valueLength = old.Length;
                expiration = input.Number;
                return true;
            case StringOp.Persist:
                r.Number = oldRecord.HasExpiration ? 1 : 0;
                valueLength = old.Length;
                expiration = 0;
                return oldRecord.HasExpiration;
            case StringOp.GetEx:
                r.Old = old.ToArray();
                valueLength = old.Length;
                if ((input.Flags & (byte)ExpireFlags.Persist) != 0) { expiration = 0; return oldRecord.HasExpiration; }
                if (input.Number == 0) return false;
                expiration = input.Number;
                return true;
        }
        return false;
    }

    public void CopyUpdater(ref RecordRef oldRecord, ref StringInput input, ref RecordRef newRecord, ref StringOutput output)
    {
        var r = output.Result;
        var old = oldRecord.Value;
        var v = newRecord.ValueSpan;
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
                TryIncrementFloat(old, input.Float, r, out string text);
                System.Text.Encoding.ASCII.GetBytes(text, v);
                break;
            default:
                old.CopyTo(v); // EXPIRE, PERSIST, GETEX: same value, new expiration
                break;
        }
    }

    public void ReadCompleted(ReadOnlySpan<byte> key, ref StringInput input, ref StringOutput output, Status status) => output.Result.Status = status;
    public void RmwCompleted(ReadOnlySpan<byte> key, ref StringInput input, ref StringOutput output, Status status) => output.Result.Status = status;
    public void WriteCompleted(ReadOnlySpan<byte> key, Status status)
    {
        if (Writes is not null) Writes.Status = status;
    }

    // ---- helpers ----

    /// <summary>EXPIRE's NX/XX/GT/LT rules; a key without expiration counts as expiring never (infinite).</summary>
    private static bool ExpireAllowed(long current, long next, byte flags)
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

    private static bool TryIncrementFloat(ReadOnlySpan<byte> old, double delta, OpResult r, out string text)
    {
        text = "";
        if (!NumberParsing.TryParseDouble(old, out double current)) { r.Error = NotFloat; return false; }
        double value = current + delta;
        if (!double.IsFinite(value)) { r.Error = NaNOrInfinity; return false; }
        text = FormatFloat(value);
        r.Float = value;
        return true;
    }

    /// <summary>INCRBYFLOAT's text: the shortest form that reads back as the same double, never exponent notation.</summary>
    public static string FormatFloat(double value)
    {
        string s = value.ToString("R", CultureInfo.InvariantCulture);
        if (s.Contains('E')) s = ((decimal)value).ToString(CultureInfo.InvariantCulture);
        return s;
    }

    public static int DigitCount(long value)
    {
        Span<byte> tmp = stackalloc byte[24];
        Utf8Formatter.TryFormat(value, tmp, out int n);
        return n;
    }
}
