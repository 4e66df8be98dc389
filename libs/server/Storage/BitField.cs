// BitField: BITFIELD's operations on a string's bits, with Redis's overflow rules (WRAP, SAT, FAIL).
// Fields are big-endian bit ranges (bit 0 = most significant bit of byte 0); iN (1..64) are two's complement, uN
// (1..63) unsigned.
namespace Garnet.server.Storage;

public enum BitFieldOp : byte { Get, Set, IncrBy }
public enum BitFieldOverflow : byte { Wrap, Sat, Fail }

public readonly record struct BitFieldCommand(BitFieldOp Op, bool Signed, int Bits, long Offset, long Value, BitFieldOverflow Overflow);

public static class BitField
{
    /// <summary>Bytes the value must have for every write op to fit.</summary>
    public static int RequiredLength(BitFieldCommand[] ops)
    {
        long need = 0;
        foreach (var o in ops) if (o.Op != BitFieldOp.Get) need = Math.Max(need, (o.Offset + o.Bits + 7) >> 3);
        return (int)need;
    }

    public static ulong GetUnsigned(ReadOnlySpan<byte> v, long offset, int bits)
    {
        ulong value = 0;
        for (int i = 0; i < bits; i++)
        {
            long bit = offset + i;
            long b = bit >> 3;
            int set = b < v.Length ? (v[(int)b] >> (7 - (int)(bit & 7))) & 1 : 0;
            value = (value << 1) | (uint)set;
        }
        return value;
    }

    public static long GetSigned(ReadOnlySpan<byte> v, long offset, int bits)
    {
        ulong u = GetUnsigned(v, offset, bits);
        if (bits < 64 && (u & (1UL << (bits - 1))) != 0) u |= ulong.MaxValue << bits;
        return (long)u;
    }

    public static void Set(Span<byte> v, long offset, int bits, ulong value)
    {
        for (int i = 0; i < bits; i++)
        {
            int bitValue = (int)((value >> (bits - 1 - i)) & 1);
            long bit = offset + i;
            int b = (int)(bit >> 3), mask = 1 << (7 - (int)(bit & 7));
            v[b] = bitValue != 0 ? (byte)(v[b] | mask) : (byte)(v[b] & ~mask);
        }
    }

    /// <summary>Runs the ops in order on v (long enough for every write); one reply per op (null: FAIL overflow).</summary>
    public static long?[] Apply(Span<byte> v, BitFieldCommand[] ops, bool write)
    {
        var replies = new long?[ops.Length];
        for (int i = 0; i < ops.Length; i++)
        {
            var o = ops[i];
            if (o.Op == BitFieldOp.Get)
            {
                replies[i] = o.Signed ? GetSigned(v, o.Offset, o.Bits) : (long)GetUnsigned(v, o.Offset, o.Bits);
                continue;
            }
            if (!write) continue;
            if (o.Signed)
            {
                long old = GetSigned(v, o.Offset, o.Bits), next, reply;
                int overflow;
                if (o.Op == BitFieldOp.IncrBy)
                {
                    overflow = SignedOverflow(old, o.Value, o.Bits, o.Overflow, out long limit);
                    next = overflow != 0 ? limit : old + o.Value;
                    reply = next;
                }
                else
                {
                    overflow = SignedOverflow(o.Value, 0, o.Bits, o.Overflow, out long limit);
                    next = overflow != 0 ? limit : o.Value;
                    reply = old;
                }
                if (overflow != 0 && o.Overflow == BitFieldOverflow.Fail) { replies[i] = null; continue; }
                Set(v, o.Offset, o.Bits, (ulong)next);
                replies[i] = reply;
            }
            else
            {
                ulong old = GetUnsigned(v, o.Offset, o.Bits), next, reply;
                int overflow;
                if (o.Op == BitFieldOp.IncrBy)
                {
                    overflow = UnsignedOverflow(old, o.Value, o.Bits, o.Overflow, out ulong limit);
                    next = overflow != 0 ? limit : old + (ulong)o.Value;
                    reply = next;
                }
                else
                {
                    overflow = UnsignedOverflow((ulong)o.Value, 0, o.Bits, o.Overflow, out ulong limit);
                    next = overflow != 0 ? limit : (ulong)o.Value;
                    reply = old;
                }
                if (overflow != 0 && o.Overflow == BitFieldOverflow.Fail) { replies[i] = null; continue; }
                Set(v, o.Offset, o.Bits, next);
                replies[i] = (long)reply;
            }
        }
        return replies;
    }

    private static int UnsignedOverflow(ulong value, long incr, int bits, BitFieldOverflow mode, out ulong limit)
    {
        ulong max = bits == 64 ? ulong.MaxValue : (1UL << bits) - 1;
        long maxIncr = (long)(max - value), minIncr = -(long)value;
        limit = 0;
        if (value > max || (incr > 0 && incr > maxIncr))
        {
            if (mode == BitFieldOverflow.Wrap) { limit = Wrap(); return 1; }
            if (mode == BitFieldOverflow.Sat) limit = max;
            return 1;
        }
        if (incr < 0 && incr < minIncr)
        {
            if (mode == BitFieldOverflow.Wrap) { limit = Wrap(); return -1; }
            if (mode == BitFieldOverflow.Sat) limit = 0;
            return -1;
        }
        return 0;

        ulong Wrap() => (value + (ulong)incr) & ~(ulong.MaxValue << bits);
    }

    private static int SignedOverflow(long value, long incr, int bits, BitFieldOverflow mode, out long limit)
    {
        long max = bits == 64 ? long.MaxValue : (1L << (bits - 1)) - 1;
        long min = -max - 1;
        long maxIncr = unchecked(max - value), minIncr = unchecked(min - value);
        limit = 0;
        if (value > max || (bits != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr))
        {
            if (mode == BitFieldOverflow.Wrap) { limit = Wrap(); return 1; }
            if (mode == BitFieldOverflow.Sat) limit = max;
            return 1;
        }
        if (value < min || (bits != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr))
        {
            if (mode == BitFieldOverflow.Wrap) { limit = Wrap(); return -1; }
            if (mode == BitFieldOverflow.Sat) limit = min;
            return -1;
        }
        return 0;

        long Wrap()
        {
            ulong c = unchecked((ulong)value + (ulong)incr);
            if (bits < 64)
            {
                ulong msb = 1UL << (bits - 1), mask = ulong.MaxValue << bits;
                c = (c & msb) != 0 ? c | mask : c & ~mask;
            }
            return (long)c;
        }
    }
}
