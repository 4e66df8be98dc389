// SortedSetObject: a Redis sorted set. Members (byte strings, unique) carry double scores; the set is ordered by
// (score, member bytes), members of equal score in byte order (memcmp, shorter first on a common prefix), as Redis.
// Structure: a member -> score dictionary (O(1) ZSCORE, membership) plus a skip list whose links carry spans (how many
// elements each link skips), so that rank, element-by-index and the index of a score or lex bound are O(log n) expected.
// Invariants:
//  - The dictionary and the skip list hold the same members with the same scores; no score is NaN.
//  - Level 0 of the list is every element in order; _tail is the last element; node.Backward the previous one (null for
//    the first). For a link at level i, Span is the number of level-0 steps it covers; for a null link, the number of
//    elements after the node (so a later insert can split it without a walk).
//  - Member arrays are never changed once stored (Clone shares them).
//  - HeapBytes is the sum of the per-node costs plus a fixed cost, updated by every change.
// Encoding: "listpack" while count <= zset-max-listpack-entries and every member <= zset-max-listpack-value bytes, then
// "skiplist" for good (as Redis converts once and never back); both are this one structure.
using System.Buffers;
using System.Runtime.InteropServices;

namespace Garnet.server.Objects;

public sealed class SortedSetObject : CollectionObject
{
    private const int MaxLevel = 32;

    internal sealed class Node
    {
        public readonly byte[] Member;
        public readonly double Score;
        public Node? Backward;
        public readonly Link[] Levels;

        public Node(byte[] member, double score, int level)
        {
            Member = member;
            Score = score;
            Levels = new Link[level];
        }

        public Node? Next => Levels[0].Forward;
    }

    internal struct Link
    {
        public Node? Forward;
        public long Span;
    }

    private readonly Dictionary<byte[], double> _scores;
    private readonly Dictionary<byte[], double>.AlternateLookup<ReadOnlySpan<byte>> _lookup;
    private readonly Node _head = new([], 0, MaxLevel);
    private Node? _tail;
    private int _level = 1;
    private long _heapBytes = BaseBytes + 24 + MaxLevel * 16;
    private bool _listpack = true;
    private Node[]? _update; // scratch for inserts and deletes (only a writer, under the key's exclusive lock, uses it)
    private long[]? _rank;

    public SortedSetObject() : this(0) { }

    private SortedSetObject(int capacity)
    {
        _scores = new Dictionary<byte[], double>(capacity, ByteArrayComparer.Instance);
        _lookup = _scores.GetAlternateLookup<ReadOnlySpan<byte>>();
    }

    public override ObjectKind Kind => ObjectKind.SortedSet;
    public override long Count => _scores.Count;
    public override long HeapBytes => _heapBytes;
    public override string Encoding => _listpack ? "listpack" : "skiplist";

    /// <summary>The score of member, if it is in the set.</summary>
    public bool TryGetScore(ReadOnlySpan<byte> member, out double score) => _lookup.TryGetValue(member, out score);

    public bool Contains(ReadOnlySpan<byte> member) => _lookup.ContainsKey(member);

    /// <summary>The first element (null when empty) and, through Node.Next, the rest in order.</summary>
    internal Node? First => _head.Levels[0].Forward;
    internal Node? Last => _tail;

    /// <summary>Adds member with score or moves it to score; true when the member is new.</summary>
    public bool Set(ReadOnlySpan<byte> member, double score)
    {
        if (double.IsNaN(score)) throw new ArgumentException("a sorted set score cannot be NaN");
        ref double slot = ref CollectionsMarshal.GetValueRefOrAddDefault(_lookup, member, out bool exists);
        if (exists)
        {
            if (slot == score) return false; // -0 and 0 are one score, as in Redis
            var old = Unlink(slot, member);
            slot = score;
            Insert(old.Member, score, old.Levels.Length);
            return false;
        }
        slot = score;
        var key = FindKey(member);
        int level = RandomLevel();
        Insert(key, score, level);
        _heapBytes += NodeBytes(key.Length, level);
        if (_listpack && (_scores.Count > EncodingLimits.ZSetMaxListpackEntries || key.Length > EncodingLimits.ZSetMaxListpackValue)) _listpack = false;
        return true;
    }

    /// <summary>Removes member; true when it was there.</summary>
    public bool Remove(ReadOnlySpan<byte> member)
    {
        if (!_lookup.Remove(member, out _, out double score)) return false;
        var node = Unlink(score, member);
        _heapBytes -= NodeBytes(node.Member.Length, node.Levels.Length);
        return true;
    }

    /// <summary>Converts to the general encoding when a change of countHint elements or members of maxLength bytes
    /// could not stay compact (Redis's size hints on create and on ZADD).</summary>
    public void HintSize(long countHint, int maxLength)
    {
        if (_listpack && (countHint > EncodingLimits.ZSetMaxListpackEntries || maxLength > EncodingLimits.ZSetMaxListpackValue)) _listpack = false;
    }

    /// <summary>The stored member array equal to member (so the dictionary and the list share one array).</summary>
    private byte[] FindKey(ReadOnlySpan<byte> member)
    {
        // The slot was just added by GetValueRefOrAddDefault with a fresh copy of member as its key; fetch that copy.
        return _lookup.TryGetValue(member, out byte[]? actual, out _) ? actual : member.ToArray();
    }

    private static long NodeBytes(int memberLength, int level) =>
        ElementBytes(memberLength) + 48 /* node */ + 24 + 16L * level /* links */ + 40 /* dictionary entry */;

    private static int RandomLevel()
    {
        int level = 1;
        while (level < MaxLevel && (Random.Shared.Next() & 3) == 0) level++;
        return level;
    }

    /// <summary>True when node sorts before (score, member).</summary>
    private static bool Before(Node node, double score, ReadOnlySpan<byte> member) =>
        node.Score < score || (node.Score == score && node.Member.AsSpan().SequenceCompareTo(member) < 0);

    private void Insert(byte[] member, double score, int level)
    {
        var update = _update ??= new Node[MaxLevel];
        var rank = _rank ??= new long[MaxLevel];
        var x = _head;
        for (int i = _level - 1; i >= 0; i--)
        {
            rank[i] = i == _level - 1 ? 0 : rank[i + 1];
            while (x.Levels[i].Forward is { } f && Before(f, score, member)) { rank[i] += x.Levels[i].Span; x = f; }
            update[i] = x;
        }
        long length = _scores.Count - 1; // the dictionary already counts the new member
        if (level > _level)
        {
            for (int i = _level; i < level; i++) { rank[i] = 0; update[i] = _head; _head.Levels[i].Span = length; _head.Levels[i].Forward = null; }
            _level = level;
        }
        var node = new Node(member, score, level);
        for (int i = 0; i < level; i++)
        {
            node.Levels[i].Forward = update[i].Levels[i].Forward;
            update[i].Levels[i].Forward = node;
            node.Levels[i].Span = update[i].Levels[i].Span - (rank[0] - rank[i]);
            update[i].Levels[i].Span = rank[0] - rank[i] + 1;
        }
        for (int i = level; i < _level; i++) update[i].Levels[i].Span++;
        node.Backward = update[0] == _head ? null : update[0];
        if (node.Levels[0].Forward is { } next) next.Backward = node; else _tail = node;
        Array.Clear(update);
    }

    /// <summary>Takes the node of (score, member) out of the list (it must be there) and returns it.</summary>
    private Node Unlink(double score, ReadOnlySpan<byte> member)
    {
        var update = _update ??= new Node[MaxLevel];
        var x = _head;
        for (int i = _level - 1; i >= 0; i--)
        {
            while (x.Levels[i].Forward is { } f && Before(f, score, member)) x = f;
            update[i] = x;
        }
        var node = x.Levels[0].Forward;
        if (node is null || node.Score != score || !node.Member.AsSpan().SequenceEqual(member))
            throw new InvalidOperationException("sorted set index out of step with its dictionary");
        for (int i = 0; i < _level; i++)
        {
            if (update[i].Levels[i].Forward == node)
            {
                update[i].Levels[i].Span += node.Levels[i].Span - 1;
                update[i].Levels[i].Forward = node.Levels[i].Forward;
            }
            else update[i].Levels[i].Span--;
        }
        if (node.Levels[0].Forward is { } next) next.Backward = node.Backward; else _tail = node.Backward;
        while (_level > 1 && _head.Levels[_level - 1].Forward is null) _level--;
        Array.Clear(update);
        return node;
    }

    /// <summary>The 0-based rank of member (from the lowest score), or -1 when it is not in the set.</summary>
    public long Rank(ReadOnlySpan<byte> member)
    {
        if (!_lookup.TryGetValue(member, out double score)) return -1;
        long traversed = 0;
        var x = _head;
        for (int i = _level - 1; i >= 0; i--)
        {
            while (x.Levels[i].Forward is { } f && (Before(f, score, member) || (f.Score == score && f.Member.AsSpan().SequenceEqual(member))))
            {
                traversed += x.Levels[i].Span;
                x = f;
            }
            if (x != _head && x.Score == score && x.Member.AsSpan().SequenceEqual(member)) return traversed - 1;
        }
        return -1;
    }

    /// <summary>The element at 0-based index (0 &lt;= index &lt; Count).</summary>
    public (byte[] Member, double Score) ElementAt(long index) { var n = At(index); return (n.Member, n.Score); }

    internal Node At(long index)
    {
        long target = index + 1, traversed = 0;
        var x = _head;
        for (int i = _level - 1; i >= 0; i--)
        {
            while (x.Levels[i].Forward is { } f && traversed + x.Levels[i].Span <= target)
            {
                traversed += x.Levels[i].Span;
                x = f;
            }
            if (traversed == target) return x;
        }
        throw new ArgumentOutOfRangeException(nameof(index));
    }

    /// <summary>The first element whose score is at least min (null when there is none), in O(log n) expected.</summary>
    internal Node? FirstAtLeast(double min)
    {
        var x = _head;
        for (int i = _level - 1; i >= 0; i--)
            while (x.Levels[i].Forward is { } f && f.Score < min) x = f;
        return x.Levels[0].Forward;
    }

    /// <summary>How many elements, from the first, satisfy inPrefix (which must hold for a prefix of the order).</summary>
    internal long CountPrefix<T>(T inPrefix) where T : IPrefix
    {
        long traversed = 0;
        var x = _head;
        for (int i = _level - 1; i >= 0; i--)
        {
            while (x.Levels[i].Forward is { } f && inPrefix.Holds(f)) { traversed += x.Levels[i].Span; x = f; }
        }
        return traversed;
    }

    internal interface IPrefix { bool Holds(Node node); }

    /// <summary>The elements below a score bound (all below min, or all within max).</summary>
    internal readonly struct ScorePrefix(double bound, bool orEqual) : IPrefix
    {
        public bool Holds(Node node) => orEqual ? node.Score <= bound : node.Score < bound;
    }

    /// <summary>The elements below a lex bound (compares members only, as Redis does: meaningful when all scores are equal).</summary>
    internal readonly struct LexPrefix(LexBound bound, bool orEqual) : IPrefix
    {
        public bool Holds(Node node) => bound.Kind switch
        {
            LexBoundKind.Min => false,
            LexBoundKind.Max => true,
            _ => node.Member.AsSpan().SequenceCompareTo(bound.Value) is var c && (orEqual ? c <= 0 : c < 0),
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

    /// <summary>Elements in order, as (member, score).</summary>
    public IEnumerable<(byte[] Member, double Score)> Entries
    {
        get { for (var n = First; n is not null; n = n.Next) yield return (n.Member, n.Score); }
    }

    /// <summary>A set built from elements already sorted by (score, member) and distinct, in O(n); its encoding is
    /// chosen from its contents (as Redis converts a stored result that fits back to a listpack).</summary>
    public static SortedSetObject FromSorted(IReadOnlyList<(byte[] Member, double Score)> sorted)
    {
        var z = new SortedSetObject(sorted.Count);
        var builder = new Appender(z);
        int maxLength = 0;
        foreach (var (m, sc) in sorted)
        {
            z._scores.Add(m, sc);
            builder.Append(m, sc, RandomLevel());
            maxLength = Math.Max(maxLength, m.Length);
        }
        z._listpack = sorted.Count <= EncodingLimits.ZSetMaxListpackEntries && maxLength <= EncodingLimits.ZSetMaxListpackValue;
        return z;
    }

    /// <summary>Orders elements by (score, member).</summary>
    public static int Compare((byte[] Member, double Score) a, (byte[] Member, double Score) b)
    {
        int c = a.Score.CompareTo(b.Score);
        if (a.Score == b.Score) c = 0; // -0 and 0 are one score
        return c != 0 ? c : a.Member.AsSpan().SequenceCompareTo(b.Member);
    }

    /// <summary>Appends elements known to sort after every element so far (Clone, FromSorted, ReadPayload): O(1) each.</summary>
    private struct Appender
    {
        private readonly SortedSetObject _z;
        private readonly Node[] _last = new Node[MaxLevel];
        private readonly long[] _lastRank = new long[MaxLevel];
        private long _length;

        public Appender(SortedSetObject z)
        {
            _z = z;
            for (int i = 0; i < MaxLevel; i++) _last[i] = z._head;
        }

        public void Append(byte[] member, double score, int level)
        {
            var z = _z;
            if (level > z._level)
            {
                for (int i = z._level; i < level; i++) { _last[i] = z._head; _lastRank[i] = 0; z._head.Levels[i].Span = _length; }
                z._level = level;
            }
            var node = new Node(member, score, level);
            long rank = _length + 1;
            for (int i = 0; i < level; i++)
            {
                _last[i].Levels[i].Forward = node;
                _last[i].Levels[i].Span = rank - _lastRank[i];
                _last[i] = node;
                _lastRank[i] = rank;
            }
            for (int i = level; i < z._level; i++) _last[i].Levels[i].Span++;
            node.Backward = _length == 0 ? null : z._tail;
            z._tail = node;
            _length = rank;
            z._heapBytes += NodeBytes(member.Length, level);
        }
    }

    public override CollectionObject Clone()
    {
        var copy = new SortedSetObject(_scores.Count) { _listpack = _listpack };
        var builder = new Appender(copy);
        for (var n = First; n is not null; n = n.Next)
        {
            copy._scores.Add(n.Member, n.Score); // member arrays never change once stored: shared
            builder.Append(n.Member, n.Score, n.Levels.Length);
        }
        return copy;
    }

    public override void WritePayload(IBufferWriter<byte> output)
    {
        PayloadWriter.WriteVarint(output, _listpack ? 1UL : 0UL);
        PayloadWriter.WriteVarint(output, (ulong)_scores.Count);
        for (var n = First; n is not null; n = n.Next)
        {
            PayloadWriter.WriteBytes(output, n.Member);
            PayloadWriter.WriteDouble(output, n.Score);
        }
    }

    internal static SortedSetObject ReadPayload(ref PayloadReader reader)
    {
        bool listpack = reader.ReadVarint() == 1;
        int count = reader.ReadCount();
        var z = new SortedSetObject(Math.Min(count, 1 << 16));
        var builder = new Appender(z);
        (byte[] Member, double Score) previous = default;
        for (int i = 0; i < count; i++)
        {
            var m = reader.ReadBytes();
            double sc = reader.ReadDouble();
            if (double.IsNaN(sc)) throw new InvalidDataException("a sorted set payload holds a NaN score");
            if (i > 0 && Compare(previous, (m, sc)) >= 0) throw new InvalidDataException("a sorted set payload is out of order");
            if (!z._scores.TryAdd(m, sc)) throw new InvalidDataException("a sorted set payload repeats a member");
            builder.Append(m, sc, RandomLevel());
            previous = (m, sc);
        }
        z._listpack = listpack;
        return z;
    }
}

/// <summary>A score bound of ZRANGEBYSCORE and friends: "(" makes it exclusive.</summary>
public readonly record struct ScoreBound(double Value, bool Exclusive);

public enum LexBoundKind : byte { Min, Max, Inclusive, Exclusive }

/// <summary>A lex bound: "-" (Min), "+" (Max), "[value" (Inclusive) or "(value" (Exclusive).</summary>
public readonly record struct LexBound(LexBoundKind Kind, byte[] Value);
