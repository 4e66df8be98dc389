// SortedSetObject: a Redis sorted set. Members (byte strings, unique) carry double scores; the set is ordered by
// (score, member bytes), members of equal score in byte order (memcmp, shorter first on a common prefix), as Redis.
// Two forms, as Redis's two encodings:
//  - "listpack" while count <= zset-max-listpack-entries and every member <= zset-max-listpack-value bytes: the
//    count and the elements packed in one byte[] in order, each a Listpack entry (varint length, member) followed by
//    its score as an 8-byte little-endian double; every operation walks it (at most the limit's elements);
//  - "skiplist" past a limit, for good (as Redis converts once and never back): a ZSkipList, Redis's skip list with
//    spans (rank, element-by-index and the index of a score or lex bound in O(log n) expected) plus a hash table from
//    member to node (ZSCORE and membership in O(1)).
// Invariants:
//  - _data is the counted packed byte[] (see Listpack) or a ZSkipList: the object's only field (24 bytes).
//  - The packed array is never written once held (a change builds a new one), so Clone shares it; member arrays in the
//    skip list never change once stored (a Clone shares them). Arrays handed out are never changed afterwards.
//  - No score is NaN; -0 and 0 are one score (an update between them changes nothing, as in Redis).
//  - HeapBytes: listpack = fixed cost + the packed array; skiplist = fixed cost + ZSkipList.HeapBytes, O(1).
using System.Buffers;
using System.Buffers.Binary;

namespace Garnet.server.Objects;

public sealed class SortedSetObject : CollectionObject
{
    private object _data = Array.Empty<byte>();

    public SortedSetObject() { }

    public override ObjectKind Kind => ObjectKind.SortedSet;
    public override long Count => _data is ZSkipList z ? z.Count : Listpack.CountOf((byte[])_data);
    public override long HeapBytes => _data is byte[] p ? BaseBytes + ElementBytes(p.Length) : BaseBytes + ((ZSkipList)_data).HeapBytes;
    public override string Encoding => _data is byte[] ? "listpack" : "skiplist";

    // ---- the packed form: entry = varint length, member, 8-byte score -------------------------------------------

    /// <summary>Reads the element at pos and moves pos past it.</summary>
    private static ReadOnlySpan<byte> NextPacked(ReadOnlySpan<byte> p, scoped ref int pos, out double score)
    {
        var member = Listpack.Next(p, ref pos);
        score = BinaryPrimitives.ReadDoubleLittleEndian(p[pos..]);
        pos += 8;
        return member;
    }

    private static int PackedSize(int memberLength) => Listpack.EntrySize(memberLength) + 8;

    private static int WritePacked(Span<byte> dst, ReadOnlySpan<byte> member, double score)
    {
        int n = Listpack.WriteEntry(dst, member);
        BinaryPrimitives.WriteDoubleLittleEndian(dst[n..], score);
        return n + 8;
    }

    /// <summary>Offset, size and score of member's element in p; false when absent.</summary>
    private static bool FindPacked(ReadOnlySpan<byte> p, ReadOnlySpan<byte> member, out int at, out int size, out double score)
    {
        int pos = Listpack.FirstEntry(p);
        while (pos < p.Length)
        {
            at = pos;
            if (NextPacked(p, ref pos, out score).SequenceEqual(member)) { size = pos - at; return true; }
        }
        at = size = -1;
        score = 0;
        return false;
    }

    /// <summary>A copy of p with (member, score), not in it, inserted in order.</summary>
    private static byte[] InsertPacked(ReadOnlySpan<byte> p, ReadOnlySpan<byte> member, double score)
    {
        int pos = Listpack.FirstEntry(p), at = p.Length;
        while (pos < p.Length)
        {
            int start = pos;
            var m = NextPacked(p, ref pos, out double s);
            if (s > score || (s == score && m.SequenceCompareTo(member) > 0)) { at = start; break; }
        }
        var result = Listpack.SpliceCounted(p, Listpack.CountOf(p) + 1, at, 0, PackedSize(member.Length), out int w);
        WritePacked(result.AsSpan(w), member, score);
        return result;
    }

    /// <summary>Converts the packed form to the skip list (for good).</summary>
    private ZSkipList ToSkipList()
    {
        if (_data is ZSkipList done) return done;
        var p = (byte[])_data;
        var z = new ZSkipList(Listpack.CountOf(p));
        var appender = new ZSkipList.Appender(z);
        int pos = Listpack.FirstEntry(p);
        while (pos < p.Length)
        {
            var m = NextPacked(p, ref pos, out double s);
            appender.Append(m.ToArray(), s);
        }
        _data = z;
        return z;
    }

    // ---- the operations ----------------------------------------------------------------------------------------

    /// <summary>The score of member, if it is in the set.</summary>
    public bool TryGetScore(ReadOnlySpan<byte> member, out double score)
    {
        if (_data is ZSkipList z)
        {
            int x = z.Find(member);
            score = x == ZSkipList.Nil ? 0 : z.Score(x);
            return x != ZSkipList.Nil;
        }
        return FindPacked((byte[])_data, member, out _, out _, out score);
    }

    public bool Contains(ReadOnlySpan<byte> member) => TryGetScore(member, out _);

    /// <summary>Adds member with score or moves it to score; true when the member is new.</summary>
    public bool Set(ReadOnlySpan<byte> member, double score)
    {
        if (double.IsNaN(score)) throw new ArgumentException("a sorted set score cannot be NaN");
        if (_data is byte[] p)
        {
            if (FindPacked(p, member, out int at, out int size, out double old))
            {
                if (old == score) return false; // -0 and 0 are one score, as in Redis
                _data = InsertPacked(Listpack.SpliceCounted(p, Listpack.CountOf(p) - 1, at, size, 0, out _), member, score);
                return false;
            }
            if (Listpack.CountOf(p) + 1 <= EncodingLimits.ZSetMaxListpackEntries && member.Length <= EncodingLimits.ZSetMaxListpackValue)
            {
                _data = InsertPacked(p, member, score);
                return true;
            }
            ToSkipList();
        }
        return ((ZSkipList)_data).Set(member, score);
    }

    /// <summary>Removes member; true when it was there.</summary>
    public bool Remove(ReadOnlySpan<byte> member)
    {
        if (_data is ZSkipList z) return z.Remove(member);
        var p = (byte[])_data;
        if (!FindPacked(p, member, out int at, out int size, out _)) return false;
        _data = Listpack.SpliceCounted(p, Listpack.CountOf(p) - 1, at, size, 0, out _);
        return true;
    }

    /// <summary>Removes and returns the lowest (or, with max, the highest) element; the set must not be empty.</summary>
    public (byte[] Member, double Score) Pop(bool max)
    {
        if (_data is ZSkipList z)
        {
            int x = max ? z.Last : z.First;
            var result = (z.Member(x), z.Score(x));
            z.RemoveNode(x);
            return result;
        }
        var p = (byte[])_data;
        int count = Listpack.CountOf(p);
        int pos = Listpack.FirstEntry(p), at = pos;
        ReadOnlySpan<byte> m = default;
        double s = 0;
        for (int i = 0; i < (max ? count : 1); i++) { at = pos; m = NextPacked(p, ref pos, out s); }
        var member = m.ToArray();
        _data = Listpack.SpliceCounted(p, count - 1, at, pos - at, 0, out _);
        return (member, s);
    }

    /// <summary>Converts to the general encoding when a change of countHint elements or members of maxLength bytes
    /// could not stay compact (Redis's size hints on create and on ZADD).</summary>
    public void HintSize(long countHint, int maxLength)
    {
        if (_data is byte[] && (countHint > EncodingLimits.ZSetMaxListpackEntries || maxLength > EncodingLimits.ZSetMaxListpackValue)) ToSkipList();
    }

    /// <summary>The 0-based rank of member (from the lowest score), or -1 when it is not in the set.</summary>
    public long Rank(ReadOnlySpan<byte> member)
    {
        if (_data is ZSkipList z)
        {
            int x = z.Find(member);
            return x == ZSkipList.Nil ? -1 : z.Rank(x);
        }
        var p = (byte[])_data;
        int pos = Listpack.FirstEntry(p);
        for (long i = 0; pos < p.Length; i++) if (NextPacked(p, ref pos, out _).SequenceEqual(member)) return i;
        return -1;
    }

    /// <summary>The element at 0-based index (0 &lt;= index &lt; Count).</summary>
    public (byte[] Member, double Score) ElementAt(long index)
    {
        if (_data is ZSkipList z) { int x = z.At(index); return (z.Member(x), z.Score(x)); }
        var p = (byte[])_data;
        if (index < 0 || index >= Listpack.CountOf(p)) throw new ArgumentOutOfRangeException(nameof(index));
        int pos = Listpack.FirstEntry(p);
        for (long i = 0; i < index; i++) NextPacked(p, ref pos, out _);
        var m = NextPacked(p, ref pos, out double s);
        return (m.ToArray(), s);
    }

    /// <summary>
    /// Adds to into count elements (fewer at an end) from index on, going towards lower ranks when backward, each in
    /// O(1) after the first (0 &lt;= index &lt; Count).
    /// </summary>
    public void CopyRange(long index, long count, bool backward, List<(byte[] Member, double Score)> into)
    {
        if (count <= 0) return;
        if (_data is ZSkipList z)
        {
            int x = z.At(index);
            for (long i = 0; i < count && x != ZSkipList.Nil; i++)
            {
                into.Add((z.Member(x), z.Score(x)));
                x = backward ? z.Prev(x) : z.Next(x);
            }
            return;
        }
        var p = (byte[])_data;
        long lo = backward ? Math.Max(0, index - count + 1) : index;
        long hi = backward ? index : Math.Min(Listpack.CountOf(p) - 1, index + count - 1);
        int at = into.Count, pos = Listpack.FirstEntry(p);
        for (long i = 0; i <= hi; i++)
        {
            var m = NextPacked(p, ref pos, out double s);
            if (i >= lo) into.Add((m.ToArray(), s));
        }
        if (backward) into.Reverse(at, into.Count - at);
    }

    /// <summary>How many elements, from the first, satisfy inPrefix (which must hold for a prefix of the order).</summary>
    internal long CountPrefix<T>(T inPrefix) where T : IPrefix
    {
        if (_data is ZSkipList z) return z.CountPrefix(inPrefix);
        var p = (byte[])_data;
        int pos = Listpack.FirstEntry(p);
        long n = 0;
        while (pos < p.Length)
        {
            var m = NextPacked(p, ref pos, out double s);
            if (!inPrefix.Holds(s, m)) break;
            n++;
        }
        return n;
    }

    internal interface IPrefix { bool Holds(double score, ReadOnlySpan<byte> member); }

    /// <summary>The elements below a score bound (all below min, or all within max).</summary>
    internal readonly struct ScorePrefix(double bound, bool orEqual) : IPrefix
    {
        public bool Holds(double score, ReadOnlySpan<byte> member) => orEqual ? score <= bound : score < bound;
    }

    /// <summary>The elements below a lex bound (compares members only, as Redis does: meaningful when all scores are equal).</summary>
    internal readonly struct LexPrefix(LexBound bound, bool orEqual) : IPrefix
    {
        public bool Holds(double score, ReadOnlySpan<byte> member) => bound.Kind switch
        {
            LexBoundKind.Min => false,
            LexBoundKind.Max => true,
            _ => member.SequenceCompareTo(bound.Value) is var c && (orEqual ? c <= 0 : c < 0),
        };
    }

    /// <summary>Indexes [first, last] of the elements with a score in the range (empty when first &gt; last).</summary>
    public (long First, long Last) ScoreRange(ScoreBound min, ScoreBound max)
    {
        long first = CountPrefix(new ScorePrefix(min.Value, orEqual: min.Exclusive));
        long last = CountPrefix(new ScorePrefix(max.Value, orEqual: !max.Exclusive)) - 1;
        return (first, last);
    }

    /// <summary>Indexes [first, last] of the elements whose member is in the lex range.</summary>
    public (long First, long Last) LexRange(LexBound min, LexBound max)
    {
        long first = CountPrefix(new LexPrefix(min, orEqual: min.Kind == LexBoundKind.Exclusive));
        long last = CountPrefix(new LexPrefix(max, orEqual: max.Kind != LexBoundKind.Exclusive)) - 1;
        return (first, last);
    }

    /// <summary>Elements in order, as (member, score) (members are copies while the set is packed).</summary>
    public IEnumerable<(byte[] Member, double Score)> Entries
    {
        get
        {
            if (_data is ZSkipList z) return SkipListEntries(z);
            var p = (byte[])_data;
            var result = new (byte[], double)[Listpack.CountOf(p)];
            int pos = Listpack.FirstEntry(p);
            for (int i = 0; i < result.Length; i++) { var m = NextPacked(p, ref pos, out double s); result[i] = (m.ToArray(), s); }
            return result;
        }
    }

    private static IEnumerable<(byte[] Member, double Score)> SkipListEntries(ZSkipList z)
    {
        for (int x = z.First; x != ZSkipList.Nil; x = z.Next(x)) yield return (z.Member(x), z.Score(x));
    }

    /// <summary>A set built from elements already sorted by (score, member) and distinct, in O(n); its encoding is
    /// chosen from its contents (as Redis converts a stored result that fits back to a listpack).</summary>
    public static SortedSetObject FromSorted(IReadOnlyList<(byte[] Member, double Score)> sorted)
    {
        var result = new SortedSetObject();
        int maxLength = 0, bytes = sorted.Count == 0 ? 0 : Listpack.VarintSize(sorted.Count);
        foreach (var (m, _) in sorted) { maxLength = Math.Max(maxLength, m.Length); bytes += PackedSize(m.Length); }
        if (sorted.Count <= EncodingLimits.ZSetMaxListpackEntries && maxLength <= EncodingLimits.ZSetMaxListpackValue)
        {
            var p = GC.AllocateUninitializedArray<byte>(bytes);
            int w = sorted.Count == 0 ? 0 : Listpack.WriteVarint(p, sorted.Count);
            foreach (var (m, sc) in sorted) w += WritePacked(p.AsSpan(w), m, sc);
            result._data = p;
            return result;
        }
        var z = new ZSkipList(sorted.Count);
        var appender = new ZSkipList.Appender(z);
        foreach (var (m, sc) in sorted) appender.Append(m, sc);
        result._data = z;
        return result;
    }

    /// <summary>Orders elements by (score, member).</summary>
    public static int Compare((byte[] Member, double Score) a, (byte[] Member, double Score) b)
    {
        int c = a.Score.CompareTo(b.Score);
        if (a.Score == b.Score) c = 0; // -0 and 0 are one score
        return c != 0 ? c : a.Member.AsSpan().SequenceCompareTo(b.Member);
    }

    public override CollectionObject Clone() =>
        // The packed array is never written once held: shared. The skip list is copied (its member arrays shared).
        new SortedSetObject { _data = _data is ZSkipList z ? z.Clone() : _data };

    public override void WritePayload(IBufferWriter<byte> output)
    {
        PayloadWriter.WriteVarint(output, _data is byte[] ? 1UL : 0UL);
        PayloadWriter.WriteVarint(output, (ulong)Count);
        if (_data is byte[] p)
        {
            output.Write(p.AsSpan(Listpack.FirstEntry(p))); // already (varint length, member, 8-byte little-endian score) elements, as the payload writes them
            return;
        }
        var z = (ZSkipList)_data;
        for (int x = z.First; x != ZSkipList.Nil; x = z.Next(x))
        {
            PayloadWriter.WriteBytes(output, z.Member(x));
            PayloadWriter.WriteDouble(output, z.Score(x));
        }
    }

    internal static SortedSetObject ReadPayload(ref PayloadReader reader)
    {
        bool listpack = reader.ReadVarint() == 1;
        int count = reader.ReadCount();
        var result = new SortedSetObject();
        (byte[] Member, double Score) previous = default;
        if (!listpack)
        {
            var z = new ZSkipList(Math.Min(count, 1 << 20));
            var appender = new ZSkipList.Appender(z);
            for (int i = 0; i < count; i++)
            {
                var e = ReadElement(ref reader, i, previous);
                if (!appender.Append(e.Member, e.Score)) throw new InvalidDataException("a sorted set payload repeats a member");
                previous = e;
            }
            result._data = z;
            return result;
        }
        var elements = new List<(byte[] Member, double Score)>(Math.Min(count, 1 << 16));
        var seen = new HashSet<byte[]>(Math.Min(count, 1 << 16), ByteArrayComparer.Instance);
        int bytes = count == 0 ? 0 : Listpack.VarintSize(count);
        for (int i = 0; i < count; i++)
        {
            var e = ReadElement(ref reader, i, previous);
            if (!seen.Add(e.Member)) throw new InvalidDataException("a sorted set payload repeats a member");
            elements.Add(e);
            bytes += PackedSize(e.Member.Length);
            previous = e;
        }
        var p = GC.AllocateUninitializedArray<byte>(bytes);
        int w = count == 0 ? 0 : Listpack.WriteVarint(p, count);
        foreach (var (m, sc) in elements) w += WritePacked(p.AsSpan(w), m, sc);
        result._data = p;
        return result;
    }

    private static (byte[] Member, double Score) ReadElement(ref PayloadReader reader, int i, (byte[] Member, double Score) previous)
    {
        var m = reader.ReadBytes();
        double sc = reader.ReadDouble();
        if (double.IsNaN(sc)) throw new InvalidDataException("a sorted set payload holds a NaN score");
        if (i > 0 && Compare(previous, (m, sc)) >= 0) throw new InvalidDataException("a sorted set payload is out of order");
        return (m, sc);
    }
}

/// <summary>A score bound of ZRANGEBYSCORE and friends: "(" makes it exclusive.</summary>
public readonly record struct ScoreBound(double Value, bool Exclusive);

public enum LexBoundKind : byte { Min, Max, Inclusive, Exclusive }

/// <summary>A lex bound: "-" (Min), "+" (Max), "[value" (Inclusive) or "(value" (Exclusive).</summary>
public readonly record struct LexBound(LexBoundKind Kind, byte[] Value);
