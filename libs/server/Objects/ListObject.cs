// ListObject: a Redis list, held as Redis's quicklist: a sequence of nodes (ListNode), each one byte[] of packed items,
// uniform (all items one length, stored with no lengths: a 16-byte item takes 16 bytes) or general (per item a length
// before and after: 18 bytes); see ListNode. A node holds items up to list-max-listpack-size (negative: -1..-5 = 4..64 KB
// of items as the general form counts them; positive: that many items, within 8 KB); an item larger than that gets a
// node of its own. Nodes are kept in a ring (O(1) push and pop at both ends); index-based commands walk the nodes
// (counts per node), then the items of one node (O(1) in a uniform node, else from its nearer end).
// Encoding (OBJECT ENCODING): "listpack" while the list fits list-max-listpack-size as one node, "quicklist" past it;
// Redis 7.2 converts back when a list shrinks to half the limit, and so does this.
// Invariants:
//  - Nodes are never empty; their Count and Payload (item bytes) add up to _count and _payloadBytes.
//  - A node is owned by one list (Clone copies every node), so it is changed in place; items handed out are copies.
//  - HeapBytes = fixed cost + the ring + per node its Bytes (_nodeBytes), kept by every change (Track).
//  - The node form never shows outside: commands, cursors, payloads and RDB see items only.
using System.Buffers;

namespace Garnet.server.Objects;

public sealed class ListObject : CollectionObject
{
    private ListNode[] _nodes = new ListNode[1];
    private int _head, _nodeCount;
    private long _count, _payloadBytes, _nodeBytes;
    private bool _listpack = true;

    public ListObject() { }

    public override ObjectKind Kind => ObjectKind.List;
    public override long Count => _count;
    public override long HeapBytes => BaseBytes + 24 + _nodes.Length * 8L + _nodeBytes;
    public override string Encoding => _listpack ? "listpack" : "quicklist";

    // ---- nodes ---------------------------------------------------------------------------------------------

    private ListNode NodeAt(int i) => _nodes[(_head + i) & (_nodes.Length - 1)];

    /// <summary>Adds the change of n's Bytes since before (n's Bytes then) to _nodeBytes.</summary>
    private void Track(ListNode n, long before) => _nodeBytes += n.Bytes - before;

    private void GrowRing()
    {
        if (_nodeCount == _nodes.Length) ResizeRing(_nodes.Length * 2);
    }

    private void ResizeRing(int length)
    {
        var ring = new ListNode[length];
        for (int i = 0; i < _nodeCount; i++) ring[i] = NodeAt(i);
        _nodes = ring;
        _head = 0;
    }

    private void InsertNode(int index, ListNode n)
    {
        GrowRing();
        _nodeBytes += n.Bytes;
        int mask = _nodes.Length - 1;
        if (index == 0) { _head = (_head - 1) & mask; _nodes[_head] = n; _nodeCount++; return; }
        for (int i = _nodeCount; i > index; i--) _nodes[(_head + i) & mask] = _nodes[(_head + i - 1) & mask];
        _nodes[(_head + index) & mask] = n;
        _nodeCount++;
    }

    private void RemoveNode(int index)
    {
        var n = NodeAt(index);
        _nodeBytes -= n.Bytes;
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

    /// <summary>Splits node index in two at about half its size, again while a half exceeds the limits.</summary>
    private void Split(int index)
    {
        var n = NodeAt(index);
        if (!n.Exceeds()) return;
        long before = n.Bytes;
        var right = n.SplitOff();
        Track(n, before);
        InsertNode(index + 1, right);
        Split(index + 1);
        Split(index);
    }

    /// <summary>The node holding item index and the item's index in it.</summary>
    private (int Node, int Local) Locate(long index)
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
        return (ni, (int)local);
    }

    // ---- the operations ------------------------------------------------------------------------------------

    /// <summary>Item at index (0-based from the head; the caller has checked the range): a copy.</summary>
    public byte[] this[long index]
    {
        get
        {
            var (ni, local) = Locate(index);
            return NodeAt(ni)[local].ToArray();
        }
    }

    public void PushHead(ReadOnlySpan<byte> item) => Push(item, atHead: true);

    public void PushTail(ReadOnlySpan<byte> item) => Push(item, atHead: false);

    private void Push(ReadOnlySpan<byte> item, bool atHead)
    {
        ListNode n;
        if (_nodeCount == 0 || !(n = NodeAt(atHead ? 0 : _nodeCount - 1)).Fits(item.Length, atHead))
        {
            if (_nodeCount > 0)
            {
                var end = NodeAt(atHead ? 0 : _nodeCount - 1);
                long sealedFrom = end.Bytes;
                end.Seal();
                Track(end, sealedFrom);
            }
            n = ListNode.Empty(item.Length, atHead);
            InsertNode(atHead ? 0 : _nodeCount, n);
        }
        long before = n.Bytes;
        n.Push(item, atHead);
        Track(n, before);
        _count++;
        Added(item.Length);
    }

    public byte[] PopHead()
    {
        var n = NodeAt(0);
        var item = n.PopHead();
        ItemRemoved(0, n, item.Length);
        return item;
    }

    public byte[] PopTail()
    {
        int ni = _nodeCount - 1;
        var n = NodeAt(ni);
        var item = n.PopTail();
        ItemRemoved(ni, n, item.Length);
        return item;
    }

    /// <summary>Counts one item of length bytes out of node ni (which no longer holds it).</summary>
    private void ItemRemoved(int ni, ListNode n, int length)
    {
        if (n.Count == 0) RemoveNode(ni);
        _count--;
        Removed(length);
    }

    public void Set(long index, ReadOnlySpan<byte> item)
    {
        var (ni, local) = Locate(index);
        var n = NodeAt(ni);
        long before = n.Bytes;
        int oldLength = n.Replace(local, item);
        Track(n, before);
        Removed(oldLength);
        Added(item.Length);
        Split(ni);
    }

    /// <summary>Inserts item before position index (0..Count).</summary>
    public void Insert(long index, ReadOnlySpan<byte> item)
    {
        if (index == 0) { PushHead(item); return; }
        if (index == _count) { PushTail(item); return; }
        var (ni, local) = Locate(index);
        var n = NodeAt(ni);
        long before = n.Bytes;
        n.Insert(local, item);
        Track(n, before);
        _count++;
        Added(item.Length);
        Split(ni);
    }

    /// <summary>Removes the item at index.</summary>
    public void RemoveAt(long index)
    {
        var (ni, local) = Locate(index);
        var n = NodeAt(ni);
        long before = n.Bytes;
        int length = n.RemoveAt(local);
        Track(n, before);
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
            long before = n.Bytes;
            int gone = n.RemoveEqual(value, limit - removed, reverse, doomed);
            if (gone == 0) continue;
            Track(n, before);
            removed += gone;
            _count -= gone;
            _payloadBytes -= (long)gone * value.Length;
            if (n.Count == 0)
            {
                RemoveNode(ni);
                k--; // the next node to look at now has this one's place (from the head) or this k (from the tail)
            }
        }
        CheckEncoding();
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
        _nodes = new ListNode[1];
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
            long before = n.Bytes;
            int payload = n.RemoveFirst((int)k);
            Track(n, before);
            _count -= k;
            _payloadBytes -= payload;
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
            long before = n.Bytes;
            int payload = n.RemoveLast((int)k);
            Track(n, before);
            _count -= k;
            _payloadBytes -= payload;
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
        if (_count == 0 || index < 0 || index >= _count) return new Cursor(this, _nodeCount, 0, 0, reverse, 0, done: true);
        var (ni, local) = Locate(index);
        var n = NodeAt(ni);
        int pos = n.PosOf(local);
        if (reverse) n.Next(ref pos);
        return new Cursor(this, ni, pos, reverse ? local + 1 : n.Count - local, reverse, index, done: false);
    }

    /// <summary>Walks items in place (no copies): Current is valid until the next MoveNext.</summary>
    public struct Cursor
    {
        private readonly ListObject _list;
        private readonly bool _reverse;
        private byte[] _buf;
        private int _node, _pos, _left, _width, _at, _length;
        private long _index;
        private bool _done, _started;

        internal Cursor(ListObject list, int node, int pos, int left, bool reverse, long index, bool done)
        {
            _list = list;
            _reverse = reverse;
            _node = node;
            _pos = pos;
            _left = left;
            _index = index;
            _done = done;
            _started = false;
            _at = _length = 0;
            if (done) { _buf = []; _width = 0; return; }
            var n = list.NodeAt(node);
            _buf = n.Buf;
            _width = n.Width;
        }

        /// <summary>The index of the current item.</summary>
        public readonly long Index => _index;

        public readonly ReadOnlySpan<byte> Current => new(_buf, _at, _length);

        public bool MoveNext()
        {
            if (_done) return false;
            if (_started) _index += _reverse ? -1 : 1;
            _started = true;
            if (_left == 0 && !NextNode()) return false;
            _left--;
            if (_width >= 0)
            {
                _length = _width;
                if (!_reverse) { _at = _pos; _pos += _width; }
                else { _pos -= _width; _at = _pos; }
            }
            else if (!_reverse)
            {
                byte b = _buf[_pos];
                if (b < 0x80) { _length = b; _at = _pos + 1; _pos = _at + b + 1; }
                else _at = ListNode.ReadGeneral(_buf, ref _pos, out _length);
            }
            else
            {
                byte b = _buf[_pos - 1];
                if (b < 0x80) { _length = b; _at = _pos - 1 - b; _pos = _at - 1; }
                else
                {
                    int end = _pos;
                    _pos = ListNode.StartOfGeneralEndingAt(_buf, end, out _length);
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
            _width = n.Width;
            _pos = _reverse ? n.End : n.Start;
            _left = n.Count;
            return true;
        }
    }

    // ---- checks (tests) -------------------------------------------------------------------------------------

    /// <summary>The nodes' forms from head to tail, e.g. "u3 g5" (a uniform node of 3 items, a general one of 5).</summary>
    public string DescribeNodes() =>
        string.Join(' ', Enumerable.Range(0, _nodeCount).Select(i => (NodeAt(i).IsUniform ? "u" : "g") + NodeAt(i).Count));

    /// <summary>Throws when an invariant of the list or of a node does not hold (node limits as they are now: after
    /// CONFIG SET list-max-listpack-size lowers them, older nodes may exceed them until they change).</summary>
    public void Validate()
    {
        long count = 0, payload = 0, bytes = 0;
        for (int i = 0; i < _nodeCount; i++)
        {
            var n = NodeAt(i);
            if (n.Broken() is string why) throw new InvalidOperationException($"node {i} of {_nodeCount}: {why}");
            count += n.Count;
            payload += n.Payload;
            bytes += n.Bytes;
        }
        if (count != _count || payload != _payloadBytes || bytes != _nodeBytes)
            throw new InvalidOperationException($"totals: count {count}/{_count}, payload {payload}/{_payloadBytes}, bytes {bytes}/{_nodeBytes}");
        if (_listpack && !EncodingLimits.ListFitsListpack(_count, _payloadBytes))
            throw new InvalidOperationException("listpack flag set past the limit");
    }

    // ---- copies and payloads -------------------------------------------------------------------------------

    public override CollectionObject Clone()
    {
        var copy = new ListObject { _count = _count, _payloadBytes = _payloadBytes, _listpack = _listpack };
        copy._nodes = new ListNode[(int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Max(1, _nodeCount))];
        for (int i = 0; i < _nodeCount; i++)
        {
            var n = NodeAt(i).Clone();
            copy._nodes[i] = n;
            copy._nodeBytes += n.Bytes;
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
