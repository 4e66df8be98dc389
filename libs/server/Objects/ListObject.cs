// ListObject: a Redis list, held as Redis's quicklist: a sequence of nodes, each one byte[] of packed items. An item
// is its length as a varint, its bytes, and its length again as a backwards varint (read from the item's end), so a
// node can be walked from either end; a 16-byte item takes 18 bytes. A node holds items up to list-max-listpack-size
// (negative: -1..-5 = 4..64 KB of item bytes; positive: that many items, within 8 KB); an item larger than that gets a
// node of its own. Nodes are kept in a ring (O(1) push and pop at both ends); index-based commands walk the nodes
// (counts per node), then the items of one node from its nearer end.
// Encoding (OBJECT ENCODING): "listpack" while the list fits list-max-listpack-size as one node, "quicklist" past it;
// Redis 7.2 converts back when a list shrinks to half the limit, and so does this.
// Invariants:
//  - Nodes are never empty; their Count and Payload (item bytes) add up to _count and _payloadBytes; items occupy
//    Buf[Start, End) back to back.
//  - A node is owned by one list (Clone copies every node), so it is changed in place; items handed out are copies.
//  - HeapBytes = fixed cost + the ring + per node its object and its buffer (_nodeBytes), kept by every change.
using System.Buffers;

namespace Garnet.server.Objects;

public sealed class ListObject : CollectionObject
{
    private const int NodeObjectBytes = 40;
    /// <summary>Byte limit of a node when list-max-listpack-size counts items (Redis's SIZE_SAFETY_LIMIT).</summary>
    private const int SafetyBytes = 8192;
    private const int MinBuffer = 32;

    private sealed class Node(byte[] buf, int start, int end)
    {
        public byte[] Buf = buf;
        public int Start = start, End = end, Count, Payload;
        public int Used => End - Start;
    }

    private Node[] _nodes = new Node[1];
    private int _head, _nodeCount;
    private long _count, _payloadBytes, _nodeBytes;
    private bool _listpack = true;

    public ListObject() { }

    public override ObjectKind Kind => ObjectKind.List;
    public override long Count => _count;
    public override long HeapBytes => BaseBytes + 24 + _nodes.Length * 8L + _nodeBytes;
    public override string Encoding => _listpack ? "listpack" : "quicklist";

    // ---- items ---------------------------------------------------------------------------------------------

    private static int ItemSize(int length) => 2 * Listpack.VarintSize(length) + length;

    private static int WriteItem(Span<byte> dst, ReadOnlySpan<byte> item)
    {
        int n = Listpack.WriteVarint(dst, item.Length);
        item.CopyTo(dst[n..]);
        int at = n + item.Length;
        int v = item.Length;
        for (int i = 0; i < n; i++) { dst[at + n - 1 - i] = (byte)((v & 0x7f) | (i < n - 1 ? 0x80 : 0)); v >>= 7; }
        return at + n;
    }

    /// <summary>The start of the item that ends at end, and its length.</summary>
    private static int StartOfItemEndingAt(ReadOnlySpan<byte> buf, int end, out int length)
    {
        int v = 0;
        for (int i = 0; ; i++)
        {
            byte b = buf[end - 1 - i];
            v |= (b & 0x7f) << (7 * i);
            if (b < 0x80) { length = v; return end - 2 * (i + 1) - v; }
        }
    }

    /// <summary>The item at pos: its bytes' offset and length; pos moves past it.</summary>
    private static int ReadItem(ReadOnlySpan<byte> buf, ref int pos, out int length)
    {
        length = Listpack.ReadVarint(buf, ref pos);
        int at = pos;
        pos += length + Listpack.VarintSize(length);
        return at;
    }

    // ---- nodes ---------------------------------------------------------------------------------------------

    private Node NodeAt(int i) => _nodes[(_head + i) & (_nodes.Length - 1)];

    private static int NodeByteLimit(int fill) => fill >= 0 ? SafetyBytes : fill switch { -1 => 4096, -2 => 8192, -3 => 16384, -4 => 32768, _ => 65536 };

    /// <summary>Whether an item of size bytes may join node n at one end without passing the node limits or
    /// reallocating a buffer that already has the limit's size (a new node is cheaper then).</summary>
    private static bool Fits(Node n, int size, bool atHead)
    {
        int fill = EncodingLimits.ListMaxListpackSize;
        int limit = NodeByteLimit(fill);
        if (n.Used + size > limit || (fill >= 0 && n.Count >= fill)) return false;
        int free = atHead ? n.Start : n.Buf.Length - n.End;
        return free >= size || n.Buf.Length < limit;
    }

    private static bool Exceeds(Node n)
    {
        int fill = EncodingLimits.ListMaxListpackSize;
        return n.Count > 1 && (n.Used > NodeByteLimit(fill) || (fill >= 0 && n.Count > fill));
    }

    private void SetBuffer(Node n, byte[] buf)
    {
        _nodeBytes += ElementBytes(buf.Length) - ElementBytes(n.Buf.Length);
        n.Buf = buf;
    }

    /// <summary>Makes room for need bytes at one end of n (a bigger buffer, the items moved to its other end).</summary>
    private void MakeRoom(Node n, int need, bool atHead)
    {
        if ((atHead ? n.Start : n.Buf.Length - n.End) >= need) return;
        int used = n.Used;
        int cap = Math.Max(used + need, Math.Min(Math.Max(2 * used, MinBuffer), NodeByteLimit(EncodingLimits.ListMaxListpackSize)));
        var buf = new byte[cap];
        int at = atHead ? cap - used : 0;
        n.Buf.AsSpan(n.Start, used).CopyTo(buf.AsSpan(at));
        SetBuffer(n, buf);
        n.Start = at;
        n.End = at + used;
    }

    /// <summary>Replaces remove bytes at offset at of n by insert bytes (to be written by the caller at the returned
    /// offset), moving or reallocating the node's bytes.</summary>
    private int Splice(Node n, int at, int remove, int insert)
    {
        int delta = insert - remove;
        var buf = n.Buf;
        if (delta <= 0 || n.End + delta <= buf.Length)
        {
            buf.AsSpan(at + remove, n.End - at - remove).CopyTo(buf.AsSpan(at + insert));
            n.End += delta;
            return at;
        }
        int used = n.Used + delta;
        int cap = Math.Max(used, Math.Min(Math.Max(2 * n.Used, MinBuffer), NodeByteLimit(EncodingLimits.ListMaxListpackSize)));
        var bigger = new byte[cap];
        buf.AsSpan(n.Start, at - n.Start).CopyTo(bigger);
        buf.AsSpan(at + remove, n.End - at - remove).CopyTo(bigger.AsSpan(at - n.Start + insert));
        int newAt = at - n.Start;
        SetBuffer(n, bigger);
        n.Start = 0;
        n.End = used;
        return newAt;
    }

    /// <summary>Gives a sparse node a smaller buffer.</summary>
    private void MaybeShrink(Node n)
    {
        if (n.Buf.Length <= 4 * MinBuffer || n.Used >= n.Buf.Length / 4) return;
        var buf = new byte[Math.Max(MinBuffer, n.Used * 2)];
        n.Buf.AsSpan(n.Start, n.Used).CopyTo(buf);
        SetBuffer(n, buf);
        n.End = n.Used;
        n.Start = 0;
    }

    /// <summary>Gives a node that stopped being an end node an exact buffer when it wastes much.</summary>
    private void Seal(Node n)
    {
        if (n.Buf.Length - n.Used <= n.Used / 8) return;
        var buf = n.Buf.AsSpan(n.Start, n.Used).ToArray();
        SetBuffer(n, buf);
        n.Start = 0;
        n.End = buf.Length;
    }

    private Node NewNode(int capacity, bool forHead)
    {
        var buf = new byte[Math.Max(MinBuffer, capacity)];
        int at = forHead ? buf.Length : 0;
        _nodeBytes += NodeObjectBytes + ElementBytes(buf.Length);
        return new Node(buf, at, at);
    }

    private void GrowRing()
    {
        if (_nodeCount == _nodes.Length) ResizeRing(_nodes.Length * 2);
    }

    private void ResizeRing(int length)
    {
        var ring = new Node[length];
        for (int i = 0; i < _nodeCount; i++) ring[i] = NodeAt(i);
        _nodes = ring;
        _head = 0;
    }

    private void InsertNode(int index, Node n)
    {
        GrowRing();
        int mask = _nodes.Length - 1;
        if (index == 0) { _head = (_head - 1) & mask; _nodes[_head] = n; _nodeCount++; return; }
        for (int i = _nodeCount; i > index; i--) _nodes[(_head + i) & mask] = _nodes[(_head + i - 1) & mask];
        _nodes[(_head + index) & mask] = n;
        _nodeCount++;
    }

    private void RemoveNode(int index)
    {
        var n = NodeAt(index);
        _nodeBytes -= NodeObjectBytes + ElementBytes(n.Buf.Length);
        int mask = _nodes.Length - 1;
        if (index == 0) { _nodes[_head] = null!; _head = (_head + 1) & mask; }
        else
        {
            for (int i = index; i < _nodeCount - 1; i++) _nodes[(_head + i) & mask] = _nodes[(_head + i + 1) & mask];
            _nodes[(_head + _nodeCount - 1) & mask] = null!;
        }
        _nodeCount--;
        if (_nodeCount == 0) _head = 0;
        if (_nodes.Length > 8 && _nodeCount <= _nodes.Length / 4) ResizeRing(_nodes.Length / 2);
    }

    /// <summary>Splits node index in two at about half its bytes, again while a half exceeds the limits.</summary>
    private void Split(int index)
    {
        var n = NodeAt(index);
        if (!Exceeds(n)) return;
        int pos = n.Start, half = n.Used / 2, count = 0, payload = 0;
        while (count < n.Count - 1 && (count == 0 || pos - n.Start < half))
        {
            ReadItem(n.Buf, ref pos, out int length);
            count++;
            payload += length;
        }
        var right = NewNode(0, forHead: false);
        SetBuffer(right, n.Buf.AsSpan(pos, n.End - pos).ToArray());
        right.End = right.Buf.Length;
        right.Count = n.Count - count;
        right.Payload = n.Payload - payload;
        n.End = pos;
        n.Count = count;
        n.Payload = payload;
        Seal(n);
        InsertNode(index + 1, right);
        Split(index + 1);
        Split(index);
    }

    /// <summary>The node holding item index and the offset of the item in it.</summary>
    private (int Node, int Offset) Locate(long index)
    {
        int ni;
        long local;
        if (index < _count / 2)
        {
            long before = 0;
            for (ni = 0; index >= before + NodeAt(ni).Count; ni++) before += NodeAt(ni).Count;
            local = index - before;
        }
        else
        {
            long from = _count;
            for (ni = _nodeCount - 1; ; ni--)
            {
                from -= NodeAt(ni).Count;
                if (index >= from) break;
            }
            local = index - from;
        }
        var n = NodeAt(ni);
        int pos;
        if (local < n.Count / 2)
        {
            pos = n.Start;
            for (long i = 0; i < local; i++) ReadItem(n.Buf, ref pos, out _);
        }
        else
        {
            pos = n.End;
            for (long i = n.Count; i > local; i--) pos = StartOfItemEndingAt(n.Buf, pos, out _);
        }
        return (ni, pos);
    }

    // ---- the operations ------------------------------------------------------------------------------------

    /// <summary>Item at index (0-based from the head; the caller has checked the range): a copy.</summary>
    public byte[] this[long index]
    {
        get
        {
            var (ni, pos) = Locate(index);
            var buf = NodeAt(ni).Buf;
            int at = ReadItem(buf, ref pos, out int length);
            return buf.AsSpan(at, length).ToArray();
        }
    }

    public void PushHead(ReadOnlySpan<byte> item) => Push(item, atHead: true);

    public void PushTail(ReadOnlySpan<byte> item) => Push(item, atHead: false);

    private void Push(ReadOnlySpan<byte> item, bool atHead)
    {
        int size = ItemSize(item.Length);
        Node n;
        if (_nodeCount > 0 && Fits(n = NodeAt(atHead ? 0 : _nodeCount - 1), size, atHead)) MakeRoom(n, size, atHead);
        else
        {
            if (_nodeCount > 0) Seal(NodeAt(atHead ? 0 : _nodeCount - 1));
            n = NewNode(size, atHead);
            InsertNode(atHead ? 0 : _nodeCount, n);
        }
        if (atHead) { n.Start -= size; WriteItem(n.Buf.AsSpan(n.Start), item); }
        else { WriteItem(n.Buf.AsSpan(n.End), item); n.End += size; }
        n.Count++;
        n.Payload += item.Length;
        _count++;
        Added(item.Length);
    }

    public byte[] PopHead()
    {
        var n = NodeAt(0);
        int pos = n.Start;
        int at = ReadItem(n.Buf, ref pos, out int length);
        var item = n.Buf.AsSpan(at, length).ToArray();
        n.Start = pos;
        ItemRemoved(0, n, length);
        return item;
    }

    public byte[] PopTail()
    {
        int ni = _nodeCount - 1;
        var n = NodeAt(ni);
        int start = StartOfItemEndingAt(n.Buf, n.End, out int length);
        var item = n.Buf.AsSpan(n.End - Listpack.VarintSize(length) - length, length).ToArray();
        n.End = start;
        ItemRemoved(ni, n, length);
        return item;
    }

    /// <summary>Counts one item of length bytes out of node ni (whose bytes no longer hold it).</summary>
    private void ItemRemoved(int ni, Node n, int length)
    {
        n.Count--;
        n.Payload -= length;
        if (n.Count == 0) RemoveNode(ni);
        _count--;
        Removed(length);
    }

    public void Set(long index, ReadOnlySpan<byte> item)
    {
        var (ni, at) = Locate(index);
        var n = NodeAt(ni);
        int pos = at;
        ReadItem(n.Buf, ref pos, out int oldLength);
        int size = ItemSize(item.Length);
        at = Splice(n, at, pos - at, size);
        WriteItem(n.Buf.AsSpan(at), item);
        n.Payload += item.Length - oldLength;
        Removed(oldLength);
        Added(item.Length);
        Split(ni);
    }

    /// <summary>Inserts item before position index (0..Count).</summary>
    public void Insert(long index, ReadOnlySpan<byte> item)
    {
        if (index == 0) { PushHead(item); return; }
        if (index == _count) { PushTail(item); return; }
        var (ni, at) = Locate(index);
        var n = NodeAt(ni);
        at = Splice(n, at, 0, ItemSize(item.Length));
        WriteItem(n.Buf.AsSpan(at), item);
        n.Count++;
        n.Payload += item.Length;
        _count++;
        Added(item.Length);
        Split(ni);
    }

    /// <summary>Removes the item at index.</summary>
    public void RemoveAt(long index)
    {
        var (ni, at) = Locate(index);
        var n = NodeAt(ni);
        int pos = at;
        ReadItem(n.Buf, ref pos, out int length);
        Splice(n, at, pos - at, 0);
        if (n.Count > 1) MaybeShrink(n);
        ItemRemoved(ni, n, length);
    }

    /// <summary>LREM: removes up to |count| items equal to value (all when count is 0), from the tail when count is
    /// negative; returns how many.</summary>
    public long RemoveAll(ReadOnlySpan<byte> value, long count)
    {
        long limit = count == 0 ? long.MaxValue : Math.Abs(count), removed = 0;
        bool reverse = count < 0;
        var doomed = new List<int>();
        for (int k = 0; k < _nodeCount && removed < limit; k++)
        {
            int ni = reverse ? _nodeCount - 1 - k : k;
            var n = NodeAt(ni);
            doomed.Clear();
            if (!reverse)
            {
                for (int pos = n.Start; pos < n.End && removed + doomed.Count < limit;)
                {
                    int start = pos;
                    int at = ReadItem(n.Buf, ref pos, out int length);
                    if (n.Buf.AsSpan(at, length).SequenceEqual(value)) doomed.Add(start);
                }
            }
            else
            {
                for (int end = n.End; end > n.Start && removed + doomed.Count < limit;)
                {
                    int start = StartOfItemEndingAt(n.Buf, end, out int length);
                    if (n.Buf.AsSpan(end - Listpack.VarintSize(length) - length, length).SequenceEqual(value)) doomed.Add(start);
                    end = start;
                }
                doomed.Reverse();
            }
            if (doomed.Count == 0) continue;
            // Compact the node in place, dropping the doomed items.
            int write = n.Start, read = n.Start, d = 0;
            while (read < n.End)
            {
                int start = read;
                ReadItem(n.Buf, ref read, out int length);
                if (d < doomed.Count && doomed[d] == start) { d++; n.Count--; n.Payload -= length; _count--; Removed(length); continue; }
                if (write != start) n.Buf.AsSpan(start, read - start).CopyTo(n.Buf.AsSpan(write));
                write += read - start;
            }
            n.End = write;
            removed += doomed.Count;
            if (n.Count == 0)
            {
                RemoveNode(ni);
                k--; // the next node to look at now has this one's place (from the head) or this k (from the tail)
            }
            else MaybeShrink(n);
        }
        return removed;
    }

    /// <summary>The index of the first item equal to value, or -1.</summary>
    public long IndexOf(ReadOnlySpan<byte> value)
    {
        for (var c = GetCursor(0, reverse: false); c.MoveNext();) if (c.Current.SequenceEqual(value)) return c.Index;
        return -1;
    }

    /// <summary>Adds copies of the items [start, stop] (inclusive, in range) to into.</summary>
    public void CopyRange(long start, long stop, List<byte[]> into)
    {
        if (start > stop) return;
        for (var c = GetCursor(start, reverse: false); c.MoveNext() && c.Index <= stop;) into.Add(c.Current.ToArray());
    }

    /// <summary>The items [start, stop] (inclusive, in range) copied back to back into one array (one allocation for a
    /// whole range); their lengths are added to lengths. Null (nothing added) when they hold more than 1 GB.</summary>
    public byte[]? CopyRange(long start, long stop, List<int> lengths)
    {
        if (start > stop) return [];
        var blob = new byte[Math.Min(4096, (int)Math.Min(int.MaxValue, (stop - start + 1) * 16))];
        int w = 0;
        for (var c = GetCursor(start, reverse: false); c.MoveNext() && c.Index <= stop;)
        {
            var item = c.Current;
            if (w + item.Length > blob.Length)
            {
                long want = Math.Max((long)blob.Length * 2, (long)w + item.Length);
                if (want > 1L << 30) { lengths.Clear(); return null; }
                Array.Resize(ref blob, (int)want);
            }
            item.CopyTo(blob.AsSpan(w));
            w += item.Length;
            lengths.Add(item.Length);
        }
        return blob;
    }

    /// <summary>Keeps only the items in [start, stop] (inclusive, in range).</summary>
    public void Trim(long start, long stop)
    {
        RemoveFromTail(_count - 1 - stop);
        RemoveFromHead(start);
        CheckEncoding();
    }

    /// <summary>Removes every item.</summary>
    public void Clear()
    {
        _nodes = new Node[1];
        _head = _nodeCount = 0;
        _count = _payloadBytes = _nodeBytes = 0;
        _listpack = true;
    }

    private void RemoveFromHead(long k)
    {
        while (k > 0)
        {
            var n = NodeAt(0);
            if (n.Count <= k) { k -= n.Count; _count -= n.Count; _payloadBytes -= n.Payload; RemoveNode(0); continue; }
            int pos = n.Start, payload = 0;
            for (long i = 0; i < k; i++) { ReadItem(n.Buf, ref pos, out int length); payload += length; }
            n.Start = pos;
            n.Count -= (int)k;
            n.Payload -= payload;
            _count -= k;
            _payloadBytes -= payload;
            MaybeShrink(n);
            k = 0;
        }
    }

    private void RemoveFromTail(long k)
    {
        while (k > 0)
        {
            int ni = _nodeCount - 1;
            var n = NodeAt(ni);
            if (n.Count <= k) { k -= n.Count; _count -= n.Count; _payloadBytes -= n.Payload; RemoveNode(ni); continue; }
            int end = n.End, payload = 0;
            for (long i = 0; i < k; i++) { end = StartOfItemEndingAt(n.Buf, end, out int length); payload += length; }
            n.End = end;
            n.Count -= (int)k;
            n.Payload -= payload;
            _count -= k;
            _payloadBytes -= payload;
            MaybeShrink(n);
            k = 0;
        }
    }

    private void Added(int length)
    {
        _payloadBytes += length;
        if (_listpack && !EncodingLimits.ListFitsListpack(_count, _payloadBytes)) _listpack = false;
    }

    private void Removed(int length)
    {
        _payloadBytes -= length;
        CheckEncoding();
    }

    private void CheckEncoding()
    {
        // Redis converts a quicklist of one node back once it is at most half the limit.
        if (!_listpack && EncodingLimits.ListFitsListpack(_count * 2, _payloadBytes * 2)) _listpack = true;
    }

    // ---- walking -------------------------------------------------------------------------------------------

    /// <summary>A cursor whose first MoveNext goes to item index (0 &lt;= index &lt; Count, or any index of an empty
    /// list), then towards the tail, or towards the head when reverse. The list must not change while it is used.</summary>
    public Cursor GetCursor(long index, bool reverse)
    {
        if (_count == 0 || index < 0 || index >= _count) return new Cursor(this, _nodeCount, 0, reverse, 0, done: true);
        var (ni, pos) = Locate(index);
        if (reverse)
        {
            int p = pos;
            ReadItem(NodeAt(ni).Buf, ref p, out _);
            pos = p;
        }
        return new Cursor(this, ni, pos, reverse, index, done: false);
    }

    /// <summary>Walks items in place (no copies): Current is valid until the next MoveNext.</summary>
    public struct Cursor
    {
        private readonly ListObject _list;
        private readonly bool _reverse;
        private byte[] _buf;
        private int _node, _pos, _limit, _at, _length;
        private long _index;
        private bool _done, _started;

        internal Cursor(ListObject list, int node, int pos, bool reverse, long index, bool done)
        {
            _list = list;
            _reverse = reverse;
            _node = node;
            _pos = pos;
            _index = index;
            _done = done;
            _started = false;
            _at = _length = 0;
            if (done) { _buf = []; _limit = 0; return; }
            var n = list.NodeAt(node);
            _buf = n.Buf;
            _limit = reverse ? n.Start : n.End;
        }

        /// <summary>The index of the current item.</summary>
        public readonly long Index => _index;

        public readonly ReadOnlySpan<byte> Current => new(_buf, _at, _length);

        public bool MoveNext()
        {
            if (_done) return false;
            if (_started) _index += _reverse ? -1 : 1;
            _started = true;
            if (_pos == _limit && !NextNode()) return false;
            if (!_reverse)
            {
                byte b = _buf[_pos];
                if (b < 0x80) { _length = b; _at = _pos + 1; _pos = _at + b + 1; }
                else _at = ReadItem(_buf, ref _pos, out _length);
            }
            else
            {
                byte b = _buf[_pos - 1];
                if (b < 0x80) { _length = b; _at = _pos - 1 - b; _pos = _at - 1; }
                else
                {
                    int end = _pos;
                    _pos = StartOfItemEndingAt(_buf, end, out _length);
                    _at = end - Listpack.VarintSize(_length) - _length;
                }
            }
            return true;
        }

        private bool NextNode()
        {
            _node += _reverse ? -1 : 1;
            if (_node < 0 || _node >= _list._nodeCount) { _done = true; return false; }
            var n = _list.NodeAt(_node);
            _buf = n.Buf;
            _pos = _reverse ? n.End : n.Start;
            _limit = _reverse ? n.Start : n.End;
            return true;
        }
    }

    // ---- copies and payloads -------------------------------------------------------------------------------

    public override CollectionObject Clone()
    {
        var copy = new ListObject { _count = _count, _payloadBytes = _payloadBytes, _listpack = _listpack };
        copy._nodes = new Node[(int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Max(1, _nodeCount))];
        for (int i = 0; i < _nodeCount; i++)
        {
            var n = NodeAt(i);
            var buf = n.Buf.AsSpan(n.Start, n.Used).ToArray();
            copy._nodes[i] = new Node(buf, 0, buf.Length) { Count = n.Count, Payload = n.Payload };
            copy._nodeBytes += NodeObjectBytes + ElementBytes(buf.Length);
        }
        copy._nodeCount = _nodeCount;
        return copy;
    }

    public override void WritePayload(IBufferWriter<byte> output)
    {
        PayloadWriter.WriteVarint(output, (ulong)_count);
        for (var c = GetCursor(0, reverse: false); c.MoveNext();) PayloadWriter.WriteBytes(output, c.Current);
    }

    internal static ListObject ReadPayload(ref PayloadReader reader)
    {
        int count = reader.ReadCount();
        var list = new ListObject();
        for (int i = 0; i < count; i++) list.PushTail(reader.ReadSpan());
        return list;
    }
}
