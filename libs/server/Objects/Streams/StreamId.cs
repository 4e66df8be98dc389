// StreamId: a stream entry's ID, <ms>-<seq>, two unsigned 64-bit numbers ordered as a pair (Redis's streamID).
// Invariants: parsing accepts only what Redis accepts (decimal digits, optional "-seq"); formatting is canonical text.
using System.Buffers.Binary;
using System.Globalization;
using System.Text;

namespace Garnet.server.Objects.Streams;

public readonly record struct StreamId(ulong Ms, ulong Seq) : IComparable<StreamId>
{
    public static readonly StreamId Min = new(0, 0);
    public static readonly StreamId Max = new(ulong.MaxValue, ulong.MaxValue);

    public int CompareTo(StreamId other) => Ms != other.Ms ? Ms.CompareTo(other.Ms) : Seq.CompareTo(other.Seq);

    public static bool operator <(StreamId a, StreamId b) => a.CompareTo(b) < 0;
    public static bool operator >(StreamId a, StreamId b) => a.CompareTo(b) > 0;
    public static bool operator <=(StreamId a, StreamId b) => a.CompareTo(b) <= 0;
    public static bool operator >=(StreamId a, StreamId b) => a.CompareTo(b) >= 0;

    public bool IsZero => Ms == 0 && Seq == 0;

    /// <summary>The next ID (false at Max).</summary>
    public bool TryIncrement(out StreamId next)
    {
        if (Seq != ulong.MaxValue) { next = new(Ms, Seq + 1); return true; }
        if (Ms != ulong.MaxValue) { next = new(Ms + 1, 0); return true; }
        next = this;
        return false;
    }

    /// <summary>The previous ID (false at Min).</summary>
    public bool TryDecrement(out StreamId prev)
    {
        if (Seq != 0) { prev = new(Ms, Seq - 1); return true; }
        if (Ms != 0) { prev = new(Ms - 1, ulong.MaxValue); return true; }
        prev = this;
        return false;
    }

    public override string ToString() => Ms.ToString(CultureInfo.InvariantCulture) + "-" + Seq.ToString(CultureInfo.InvariantCulture);

    public byte[] ToBytes() => Encoding.ASCII.GetBytes(ToString());

    /// <summary>The 16-byte big-endian form (RDB node keys and PEL entries).</summary>
    public void WriteBigEndian(Span<byte> dst)
    {
        BinaryPrimitives.WriteUInt64BigEndian(dst, Ms);
        BinaryPrimitives.WriteUInt64BigEndian(dst[8..], Seq);
    }

    public static StreamId ReadBigEndian(ReadOnlySpan<byte> src) =>
        new(BinaryPrimitives.ReadUInt64BigEndian(src), BinaryPrimitives.ReadUInt64BigEndian(src[8..]));

    /// <summary>Parses "ms" or "ms-seq" (a missing seq is missingSeq). seqStar is set for "ms-*" when allowed.</summary>
    public static bool TryParse(ReadOnlySpan<byte> text, ulong missingSeq, out StreamId id, out bool seqStar, bool allowSeqStar = false)
    {
        id = default;
        seqStar = false;
        if (text.Length == 0 || text.Length > 127) return false;
        int dash = text.IndexOf((byte)'-');
        if (dash < 0)
        {
            if (!TryUlong(text, out ulong ms)) return false;
            id = new(ms, missingSeq);
            return true;
        }
        if (!TryUlong(text[..dash], out ulong m)) return false;
        var seqText = text[(dash + 1)..];
        if (allowSeqStar && seqText.Length == 1 && seqText[0] == '*') { seqStar = true; id = new(m, 0); return true; }
        if (!TryUlong(seqText, out ulong seq)) return false;
        id = new(m, seq);
        return true;
    }

    private static bool TryUlong(ReadOnlySpan<byte> t, out ulong v)
    {
        v = 0;
        if (t.Length == 0 || t.Length > 20) return false;
        // Redis uses strtoull after string2ull: digits only (a leading '-' or '+' is rejected by its checks).
        foreach (byte b in t)
        {
            if (b < '0' || b > '9') return false;
            ulong d = (ulong)(b - '0');
            if (v > (ulong.MaxValue - d) / 10) return false;
            v = v * 10 + d;
        }
        return true;
    }
}
