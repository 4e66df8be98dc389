// ListObject: a Redis list: a deque of byte strings with O(1) push and pop at both ends and O(1) access by index
// (a ring buffer). Encoding: "listpack" while it fits list-max-listpack-size, "quicklist" past it (as Redis reports;
// Redis converts back when a list shrinks to half the limit, and so does this).
// Invariants: items occupy _items[(_head + i) % capacity] for i in [0, _count); HeapBytes counts every item.
using System.Buffers;

namespace Garnet.server.Objects;

public sealed class ListObject : CollectionObject
{
    private byte[][] _items;
    private int _head, _count;
    private long _heapBytes = BaseBytes, _payloadBytes;
    private bool _listpack = true;

    public ListObject() : this(4) { }

    private ListObject(int capacity) => _items = new byte[Math.Max(4, capacity)][];

    public override ObjectKind Kind => ObjectKind.List;
    public override long Count => _count;
    public override long HeapBytes => _heapBytes + _items.Length * 8L;
    public override string Encoding => _listpack ? "listpack" : "quicklist";

    /// <summary>Item at index (0-based from the head; the caller has checked the range).</summary>
    public byte[] this[long index] => _items[Slot(index)];

    private int Slot(long index) => (int)((_head + index) % _items.Length);

    public void PushHead(byte[] item)
    {
        Grow();
        _head = (_head - 1 + _items.Length) % _items.Length;
        _items[_head] = item;
        _count++;
        Added(item);
    }

    public void PushTail(byte[] item)
    {
        Grow();
        _items[Slot(_count)] = item;
        _count++;
        Added(item);
    }

    public byte[] PopHead()
    {
        var item = _items[_head];
        _items[_head] = null!;
        _head = (_head + 1) % _items.Length;
        _count--;
        Removed(item);
        return item;
    }

    public byte[] PopTail()
    {
        int slot = Slot(_count - 1);
        var item = _items[slot];
        _items[slot] = null!;
        _count--;
        Removed(item);
        return item;
    }

    public void Set(long index, byte[] item)
    {
        int slot = Slot(index);
        Removed(_items[slot]);
        _items[slot] = item;
        Added(item);
    }

    /// <summary>Inserts item before position index (0..Count), moving the shorter side.</summary>
    public void Insert(long index, byte[] item)
    {
        if (index == 0) { PushHead(item); return; }
        if (index == _count) { PushTail(item); return; }
        Grow();
        if (index < _count / 2)
        {
            _head = (_head - 1 + _items.Length) % _items.Length;
            for (long i = 0; i < index; i++) _items[Slot(i)] = _items[Slot(i + 1)];
        }
        else
        {
            for (long i = _count; i > index; i--) _items[Slot(i)] = _items[Slot(i - 1)];
        }
        _items[Slot(index)] = item;
        _count++;
        Added(item);
    }

    /// <summary>Removes the item at index, moving the shorter side.</summary>
    public void RemoveAt(long index)
    {
        var item = this[index];
        if (index < _count / 2)
        {
            for (long i = index; i > 0; i--) _items[Slot(i)] = _items[Slot(i - 1)];
            _items[_head] = null!;
            _head = (_head + 1) % _items.Length;
        }
        else
        {
            for (long i = index; i < _count - 1; i++) _items[Slot(i)] = _items[Slot(i + 1)];
            _items[Slot(_count - 1)] = null!;
        }
        _count--;
        Removed(item);
    }

    /// <summary>Keeps only the items in [start, stop] (inclusive, in range).</summary>
    public void Trim(long start, long stop)
    {
        var kept = new byte[Math.Max(4, (int)(stop - start + 1))][];
        int n = 0;
        for (long i = start; i <= stop; i++) kept[n++] = this[i];
        for (long i = 0; i < _count; i++) if (i < start || i > stop) Removed(this[i]);
        _items = kept;
        _head = 0;
        _count = n;
        CheckEncoding();
    }

    private void Grow()
    {
        if (_count < _items.Length) return;
        var bigger = new byte[_items.Length * 2][];
        for (int i = 0; i < _count; i++) bigger[i] = _items[Slot(i)];
        _items = bigger;
        _head = 0;
    }

    private void Added(byte[] item)
    {
        _heapBytes += ElementBytes(item.Length);
        _payloadBytes += item.Length;
        if (_listpack && !EncodingLimits.ListFitsListpack(_count, _payloadBytes)) _listpack = false;
    }

    private void Removed(byte[] item)
    {
        _heapBytes -= ElementBytes(item.Length);
        _payloadBytes -= item.Length;
        CheckEncoding();
    }

    private void CheckEncoding()
    {
        // Redis converts a quicklist of one node back once it is at most half the limit.
        if (!_listpack && EncodingLimits.ListFitsListpack(_count * 2, _payloadBytes * 2)) _listpack = true;
    }

    public override CollectionObject Clone()
    {
        var copy = new ListObject(_count) { _heapBytes = _heapBytes, _payloadBytes = _payloadBytes, _listpack = _listpack };
        for (int i = 0; i < _count; i++) copy._items[i] = _items[Slot(i)]; // items never change once stored: shared
        copy._count = _count;
        return copy;
    }

    public override void WritePayload(IBufferWriter<byte> output)
    {
        PayloadWriter.WriteVarint(output, (ulong)_count);
        for (int i = 0; i < _count; i++) PayloadWriter.WriteBytes(output, _items[Slot(i)]);
    }

    internal static ListObject ReadPayload(ref PayloadReader reader)
    {
        int count = reader.ReadCount();
        var list = new ListObject(Math.Min(count, 1 << 16));
        for (int i = 0; i < count; i++) list.PushTail(reader.ReadBytes());
        return list;
    }
}
