// ZSkipList: the "skiplist" form of a sorted set (SortedSetObject): Redis's skip list ordered by (score, member bytes)
// whose links carry spans, plus a hash table from member to node, with no per-node objects: a node is an int id into
// parallel arrays (member, score, level-0 link, backward link, hash, bucket chain, level), and the links above level 0
// live in one shared int array (forward, span per level) at the node's offset. Per member that is about 37 bytes of
// arrays, 8 bytes of links and buckets on average, and the member's own byte[] (stored once: the hash table and the
// list are the same nodes).
// Invariants:
//  - Node 0 is the head (level MaxLevel, no member, never in the hash table). Nil (-1) is the null link.
//  - Level 0 links every element in order; _tail is the last (Nil when empty); _prev is the previous element (Nil for
//    the first). A level-0 link's span is not stored: it is 1, or 0 for a null link.
//  - For a link at level i >= 1, the span is the number of level-0 steps it covers; for a null link, the number of
//    elements after the node (so that an insert after it can split it without a walk).
//  - Every element is in exactly one bucket chain (_buckets[hash & mask] through _chain); _buckets.Length is a power of
//    two at least _count (doubled as it fills). Free node ids are chained through _chain from _freeNode and have a
//    null member; free link blocks are chained per level through their first int from _freeLinks[level].
//  - Member arrays are never changed once stored (a Clone shares them; arrays handed out stay as they are).
//  - No score is NaN; -0 and 0 are one score.
//  - HeapBytes is computed from the arrays' lengths and _memberBytes (the members' arrays), O(1).
//  - Only a writer (under the key's exclusive lock) changes the list or uses the _update/_rank scratch arrays.
namespace Garnet.server.Objects;

internal sealed class ZSkipList
{
    public const int MaxLevel = 32;
    public const int Nil = -1;
    private const int Head = 0;
    /// <summary>Bytes per node id across the parallel arrays (member reference, score, next, prev, hash, chain, upper, level).</summary>
    private const int NodeArrayBytes = 8 + 8 + 4 + 4 + 4 + 4 + 4 + 1;

    private byte[]?[] _member;
    private double[] _score;
    private int[] _next;
    private int[] _prev;
    private int[] _hash;
    private int[] _chain;
    private int[] _upper;
    private byte[] _level;
    private int[] _links;
    private int _linksUsed;
    private int[] _freeLinks;
    private int[] _buckets;
    private int _nodesUsed;
    private int _freeNode = Nil;
    private int _count;
    private int _tail = Nil;
    private int _levels = 1;
    private long _memberBytes;
    private int[]? _update;
    private long[]? _rank;

    public ZSkipList(int capacity)
    {
        int nodes = Math.Max(2, capacity + 1);
        _member = new byte[nodes][];
        _score = new double[nodes];
        _next = new int[nodes];
        _prev = new int[nodes];
        _hash = new int[nodes];
        _chain = new int[nodes];
        _upper = new int[nodes];
        _level = new byte[nodes];
        // The head's links above level 0, plus room for about a third of a link per node (the expected number).
        _links = new int[2 * (MaxLevel - 1) + Math.Max(8, capacity * 2 / 3 + 8)];
        _freeLinks = new int[MaxLevel + 1];
        Array.Fill(_freeLinks, Nil);
        _buckets = new int[Math.Max(4, (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Max(1, capacity)))];
        Array.Fill(_buckets, Nil);
        // the head
        _nodesUsed = 1;
        _member[Head] = [];
        _level[Head] = MaxLevel;
        _upper[Head] = 0;
        _linksUsed = 2 * (MaxLevel - 1);
        _next[Head] = Nil;
        _prev[Head] = Nil;
        for (int i = 1; i < MaxLevel; i++) _links[2 * (i - 1)] = Nil;
    }

    private ZSkipList(ZSkipList o)
    {
        _member = (byte[]?[])o._member.Clone();
        _score = (double[])o._score.Clone();
        _next = (int[])o._next.Clone();
        _prev = (int[])o._prev.Clone();
        _hash = (int[])o._hash.Clone();
        _chain = (int[])o._chain.Clone();
        _upper = (int[])o._upper.Clone();
        _level = (byte[])o._level.Clone();
        _links = (int[])o._links.Clone();
        _linksUsed = o._linksUsed;
        _freeLinks = (int[])o._freeLinks.Clone();
        _buckets = (int[])o._buckets.Clone();
        _nodesUsed = o._nodesUsed;
        _freeNode = o._freeNode;
        _count = o._count;
        _tail = o._tail;
        _levels = o._levels;
        _memberBytes = o._memberBytes;
    }

    /// <summary>An independent copy (member arrays shared: they never change), of the same shape and HeapBytes.</summary>
    public ZSkipList Clone() => new(this);

    public int Count => _count;

    public long HeapBytes => 9 * 24 + (long)_member.Length * NodeArrayBytes + _links.Length * 4L + _buckets.Length * 4L
        + (_freeLinks.Length * 4L) + _memberBytes;

    // ---- nodes -------------------------------------------------------------------------------------------------

    public int First => _next[Head];
    public int Last => _tail;
    public int Next(int x) => _next[x];
    public int Prev(int x) => _prev[x];
    public byte[] Member(int x) => _member[x]!;
    public double Score(int x) => _score[x];

    private int Fwd(int x, int i) => i == 0 ? _next[x] : _links[_upper[x] + 2 * (i - 1)];

    private void SetFwd(int x, int i, int f)
    {
        if (i == 0) _next[x] = f; else _links[_upper[x] + 2 * (i - 1)] = f;
    }

    private int Span(int x, int i) => i == 0 ? (_next[x] == Nil ? 0 : 1) : _links[_upper[x] + 2 * (i - 1) + 1];

    private ref int SpanRef(int x, int i) => ref _links[_upper[x] + 2 * (i - 1) + 1];

    private int NewNode(byte[] member, double score, int level, int hash)
    {
        int x;
        if (_freeNode != Nil) { x = _freeNode; _freeNode = _chain[x]; }
        else
        {
            if (_nodesUsed == _member.Length) GrowNodes(_member.Length * 2);
            x = _nodesUsed++;
        }
        _member[x] = member;
        _score[x] = score;
        _hash[x] = hash;
        _level[x] = (byte)level;
        _next[x] = _prev[x] = Nil;
        if (level > 1)
        {
            int off = _freeLinks[level];
            if (off != Nil) _freeLinks[level] = _links[off];
            else
            {
                int need = 2 * (level - 1);
                if (_linksUsed + need > _links.Length) Array.Resize(ref _links, Math.Max(_links.Length + _links.Length / 2, _linksUsed + need));
                off = _linksUsed;
                _linksUsed += need;
            }
            _upper[x] = off;
        }
        _memberBytes += CollectionObject.ElementBytes(member.Length);
        return x;
    }

    private void FreeNode(int x)
    {
        int level = _level[x];
        if (level > 1)
        {
            int off = _upper[x];
            _links[off] = _freeLinks[level];
            _freeLinks[level] = off;
        }
        _memberBytes -= CollectionObject.ElementBytes(_member[x]!.Length);
        _member[x] = null;
        _chain[x] = _freeNode;
        _freeNode = x;
    }

    private void GrowNodes(int capacity)
    {
        Array.Resize(ref _member, capacity);
        Array.Resize(ref _score, capacity);
        Array.Resize(ref _next, capacity);
        Array.Resize(ref _prev, capacity);
        Array.Resize(ref _hash, capacity);
        Array.Resize(ref _chain, capacity);
        Array.Resize(ref _upper, capacity);
        Array.Resize(ref _level, capacity);
    }

    // ---- the hash table --------------------------------------------------------------------------------------

    private static int HashOf(ReadOnlySpan<byte> member) => ByteArrayComparer.Instance.GetHashCode(member);

    /// <summary>The node of member, or Nil.</summary>
    public int Find(ReadOnlySpan<byte> member) => Find(member, HashOf(member));

    private int Find(ReadOnlySpan<byte> member, int hash)
    {
        for (int x = _buckets[hash & (_buckets.Length - 1)]; x != Nil; x = _chain[x])
            if (_hash[x] == hash && _member[x].AsSpan().SequenceEqual(member)) return x;
        return Nil;
    }

    /// <summary>Puts node x (not yet in the list, nor counted) in the hash table.</summary>
    private void TableAdd(int x)
    {
        if (_count >= _buckets.Length) Rehash(_buckets.Length * 2);
        int b = _hash[x] & (_buckets.Length - 1);
        _chain[x] = _buckets[b];
        _buckets[b] = x;
    }

    private void TableRemove(int x)
    {
        int b = _hash[x] & (_buckets.Length - 1);
        if (_buckets[b] == x) { _buckets[b] = _chain[x]; return; }
        int p = _buckets[b];
        while (_chain[p] != x) p = _chain[p];
        _chain[p] = _chain[x];
    }

    private void Rehash(int size)
    {
        _buckets = new int[size];
        Array.Fill(_buckets, Nil);
        for (int x = First; x != Nil; x = _next[x])
        {
            int b = _hash[x] & (size - 1);
            _chain[x] = _buckets[b];
            _buckets[b] = x;
        }
    }

    // ---- the ordered list ------------------------------------------------------------------------------------

    public static int RandomLevel()
    {
        int level = 1;
        while (level < MaxLevel && (Random.Shared.Next() & 3) == 0) level++;
        return level;
    }

    /// <summary>True when node x sorts before (score, member).</summary>
    private bool Before(int x, double score, ReadOnlySpan<byte> member) =>
        _score[x] < score || (_score[x] == score && _member[x].AsSpan().SequenceCompareTo(member) < 0);

    /// <summary>Adds member with score or moves it to score; true when the member is new.</summary>
    public bool Set(ReadOnlySpan<byte> member, double score)
    {
        int hash = HashOf(member);
        int x = Find(member, hash);
        if (x != Nil)
        {
            if (_score[x] == score) return false; // -0 and 0 are one score, as in Redis
            Unlink(x);
            _score[x] = score;
            Insert(x);
            return false;
        }
        x = NewNode(member.ToArray(), score, RandomLevel(), hash);
        TableAdd(x);
        Insert(x);
        return true;
    }

    /// <summary>Removes member; true when it was there.</summary>
    public bool Remove(ReadOnlySpan<byte> member)
    {
        int x = Find(member);
        if (x == Nil) return false;
        Unlink(x);
        TableRemove(x);
        FreeNode(x);
        return true;
    }

    /// <summary>Removes node x (which is in the set).</summary>
    public void RemoveNode(int x)
    {
        Unlink(x);
        TableRemove(x);
        FreeNode(x);
    }

    /// <summary>Links node x (member, score and level set, not in the list) into the list; counts it.</summary>
    private void Insert(int x)
    {
        var update = _update ??= new int[MaxLevel];
        var rank = _rank ??= new long[MaxLevel];
        double score = _score[x];
        var member = _member[x].AsSpan();
        int cur = Head;
        for (int i = _levels - 1; i >= 0; i--)
        {
            rank[i] = i == _levels - 1 ? 0 : rank[i + 1];
            int f;
            while ((f = Fwd(cur, i)) != Nil && Before(f, score, member)) { rank[i] += Span(cur, i); cur = f; }
            update[i] = cur;
        }
        int level = _level[x];
        if (level > _levels)
        {
            for (int i = _levels; i < level; i++) { rank[i] = 0; update[i] = Head; SetFwd(Head, i, Nil); SpanRef(Head, i) = _count; }
            _levels = level;
        }
        for (int i = 0; i < level; i++)
        {
            SetFwd(x, i, Fwd(update[i], i));
            SetFwd(update[i], i, x);
            if (i > 0)
            {
                SpanRef(x, i) = Span(update[i], i) - (int)(rank[0] - rank[i]);
                SpanRef(update[i], i) = (int)(rank[0] - rank[i]) + 1;
            }
        }
        for (int i = level; i < _levels; i++) SpanRef(update[i], i)++;
        _prev[x] = update[0] == Head ? Nil : update[0];
        if (_next[x] != Nil) _prev[_next[x]] = x; else _tail = x;
        _count++;
    }

    /// <summary>Takes node x out of the list (it stays allocated and in the hash table); uncounts it.</summary>
    private void Unlink(int x)
    {
        var update = _update ??= new int[MaxLevel];
        double score = _score[x];
        var member = _member[x].AsSpan();
        int cur = Head;
        for (int i = _levels - 1; i >= 0; i--)
        {
            int f;
            while ((f = Fwd(cur, i)) != Nil && Before(f, score, member)) cur = f;
            update[i] = cur;
        }
        if (_next[update[0]] != x) throw new InvalidOperationException("sorted set list out of step with its table");
        for (int i = 0; i < _levels; i++)
        {
            if (Fwd(update[i], i) == x)
            {
                if (i > 0) SpanRef(update[i], i) += Span(x, i) - 1;
                SetFwd(update[i], i, Fwd(x, i));
            }
            else SpanRef(update[i], i)--;
        }
        if (_next[x] != Nil) _prev[_next[x]] = _prev[x]; else _tail = _prev[x];
        while (_levels > 1 && Fwd(Head, _levels - 1) == Nil) _levels--;
        _count--;
    }

    /// <summary>The 0-based rank of node x (which is in the list).</summary>
    public long Rank(int x)
    {
        double score = _score[x];
        var member = _member[x].AsSpan();
        long traversed = 0;
        int cur = Head;
        for (int i = _levels - 1; i >= 0; i--)
        {
            int f;
            while ((f = Fwd(cur, i)) != Nil && (f == x || Before(f, score, member))) { traversed += Span(cur, i); cur = f; }
            if (cur == x) return traversed - 1;
        }
        throw new InvalidOperationException("sorted set node not in its list");
    }

    /// <summary>The node at 0-based index (0 &lt;= index &lt; Count).</summary>
    public int At(long index)
    {
        long target = index + 1, traversed = 0;
        int cur = Head;
        for (int i = _levels - 1; i >= 0; i--)
        {
            int f;
            while ((f = Fwd(cur, i)) != Nil && traversed + Span(cur, i) <= target) { traversed += Span(cur, i); cur = f; }
            if (traversed == target) return cur;
        }
        throw new ArgumentOutOfRangeException(nameof(index));
    }

    /// <summary>How many elements, from the first, satisfy inPrefix (which must hold for a prefix of the order).</summary>
    public long CountPrefix<T>(T inPrefix) where T : SortedSetObject.IPrefix
    {
        long traversed = 0;
        int cur = Head;
        for (int i = _levels - 1; i >= 0; i--)
        {
            int f;
            while ((f = Fwd(cur, i)) != Nil && inPrefix.Holds(_score[f], _member[f])) { traversed += Span(cur, i); cur = f; }
        }
        return traversed;
    }

    /// <summary>Appends elements known to sort after every element so far, in O(1) each (bulk builds).</summary>
    public struct Appender
    {
        private readonly ZSkipList _z;
        private readonly int[] _last = new int[MaxLevel];
        private readonly long[] _lastRank = new long[MaxLevel];

        public Appender(ZSkipList z)
        {
            _z = z;
            // Continue after the current tail: the last node of each level, found by one walk down the right edge.
            long rank = 0;
            int cur = Head;
            for (int i = MaxLevel - 1; i >= 0; i--)
            {
                if (i < z._levels)
                {
                    int f;
                    while ((f = z.Fwd(cur, i)) != Nil) { rank += z.Span(cur, i); cur = f; }
                }
                _last[i] = cur;
                _lastRank[i] = cur == Head ? 0 : rank;
            }
        }

        /// <summary>Appends member (kept: it must never change) with score; false when the member is already there.</summary>
        public bool Append(byte[] member, double score)
        {
            var z = _z;
            int hash = HashOf(member);
            if (z.Find(member, hash) != Nil) return false;
            int level = RandomLevel();
            int x = z.NewNode(member, score, level, hash);
            z.TableAdd(x);
            long length = z._count;
            if (level > z._levels)
            {
                for (int i = z._levels; i < level; i++) { _last[i] = Head; _lastRank[i] = 0; z.SetFwd(Head, i, Nil); z.SpanRef(Head, i) = (int)length; }
                z._levels = level;
            }
            long rank = length + 1;
            for (int i = 0; i < level; i++)
            {
                z.SetFwd(_last[i], i, x);
                if (i > 0) z.SpanRef(_last[i], i) = (int)(rank - _lastRank[i]);
                _last[i] = x;
                _lastRank[i] = rank;
            }
            for (int i = level; i < z._levels; i++) z.SpanRef(_last[i], i)++;
            // x's own links are null (it is the last at each of its levels), with spans of 0 elements after it
            for (int i = 1; i < level; i++) { z.SetFwd(x, i, Nil); z.SpanRef(x, i) = 0; }
            z._prev[x] = length == 0 ? Nil : z._tail;
            z._next[x] = Nil;
            z._tail = x;
            z._count++;
            return true;
        }
    }
}
