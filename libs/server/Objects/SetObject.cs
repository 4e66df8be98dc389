// SetObject: a Redis set: distinct byte strings with O(1) add, remove, membership and random pick (members live in a
// list, and a dictionary maps each member to its slot; a removal moves the last member into the freed slot).
// Encoding, as Redis decides and reports it (see docs/objects-sets.md):
//  - "intset" while every member is an integer (Redis's string2ll: canonical signed 64-bit decimal) and the set has at
//    most set-max-intset-entries members; members are then listed in ascending numeric order, as an intset lists them;
//  - "listpack" while the set has at most set-max-listpack-entries members, each at most set-max-listpack-value bytes;
//  - "hashtable" otherwise. Conversions only go up (intset -> listpack or hashtable, listpack -> hashtable), never back.
// All encodings share the one representation for now; the encoding is what OBJECT ENCODING answers and what a copy
// (DUMP, checkpoint, object log) keeps.
// Invariants: _items[_index[m]] == m for every member m; HeapBytes counts every member, updated by every change.
using System.Buffers;
using System.Runtime.InteropServices;
using Garnet.server.Storage;

namespace Garnet.server.Objects;

public enum SetEncoding : byte { Intset = 0, Listpack = 1, Hashtable = 2 }

public sealed class SetObject : CollectionObject
{
    /// <summary>Bytes one member costs besides its array: its dictionary entry and its list slot.</summary>
    private const long EntryBytes = 32 + 8;

    private readonly List<byte[]> _items;
    private readonly Dictionary<byte[], int> _index;
    private readonly Dictionary<byte[], int>.AlternateLookup<ReadOnlySpan<byte>> _lookup;
    private long _heapBytes = BaseBytes;
    private SetEncoding _encoding = SetEncoding.Intset;

    public SetObject() : this(0) { }

    private SetObject(int capacity)
    {
        _items = new List<byte[]>(capacity);
        _index = new Dictionary<byte[], int>(capacity, ByteArrayComparer.Instance);
        _lookup = _index.GetAlternateLookup<ReadOnlySpan<byte>>();
    }

    private SetObject(SetObject other)
    {
        _items = new List<byte[]>(other._items);
        _index = new Dictionary<byte[], int>(other._index, ByteArrayComparer.Instance);
        _lookup = _index.GetAlternateLookup<ReadOnlySpan<byte>>();
        _heapBytes = other._heapBytes;
        _encoding = other._encoding;
    }

    public override ObjectKind Kind => ObjectKind.Set;
    public override long Count => _items.Count;
    public override long HeapBytes => _heapBytes;
    public SetEncoding SetEncoding => _encoding;

    public override string Encoding => _encoding switch
    {
        SetEncoding.Intset => "intset",
        SetEncoding.Listpack => "listpack",
        _ => "hashtable",
    };

    /// <summary>The members in slot order (no copy: read it only inside the operation that has the set).</summary>
    public IReadOnlyList<byte[]> Slots => _items;

    /// <summary>The members; ascending numeric order while the set is an intset (as Redis lists an intset).</summary>
    public IReadOnlyList<byte[]> Members
    {
        get
        {
            if (_encoding != SetEncoding.Intset || _items.Count < 2) return _items.ToArray();
            var sorted = _items.ToArray();
            var keys = new long[sorted.Length];
            for (int i = 0; i < sorted.Length; i++) NumberParsing.TryParseInt64(sorted[i], out keys[i]);
            Array.Sort(keys, sorted);
            return sorted;
        }
    }

    public bool Contains(ReadOnlySpan<byte> member) => _lookup.ContainsKey(member);

    /// <summary>
    /// Redis's size hint before adding <paramref name="adding"/> members (SADD's argument count): a new set whose first
    /// member is an integer starts as an intset when the hint fits it, else as a listpack when the hint fits that, else as
    /// a hashtable; an existing compact set whose limit the hint passes becomes a hashtable.
    /// </summary>
    public void PrepareForAdd(long adding, ReadOnlySpan<byte> first)
    {
        if (_items.Count == 0 && _encoding == SetEncoding.Intset)
        {
            if (NumberParsing.TryParseInt64(first, out _) && adding <= IntsetLimit) return;
            _encoding = adding <= EncodingLimits.SetMaxListpackEntries ? SetEncoding.Listpack : SetEncoding.Hashtable;
            return;
        }
        if ((_encoding == SetEncoding.Listpack && adding > EncodingLimits.SetMaxListpackEntries)
            || (_encoding == SetEncoding.Intset && adding > IntsetLimit))
            _encoding = SetEncoding.Hashtable;
    }

    /// <summary>Adds member (copied); true when it is new.</summary>
    public bool Add(ReadOnlySpan<byte> member)
    {
        if (_lookup.ContainsKey(member)) return false;
        return AddNew(member.ToArray());
    }

    /// <summary>Adds a member array the set may keep (it must never change afterwards); true when it is new.</summary>
    public bool Add(byte[] member)
    {
        if (_index.ContainsKey(member)) return false;
        return AddNew(member);
    }

    private bool AddNew(byte[] member)
    {
        UpgradeFor(member);
        _index.Add(member, _items.Count);
        _items.Add(member);
        _heapBytes += ElementBytes(member.Length) + EntryBytes;
        if (_encoding == SetEncoding.Intset && _items.Count > IntsetLimit) _encoding = SetEncoding.Hashtable;
        return true;
    }

    /// <summary>The encoding change adding member (not yet a member) makes, as Redis's setTypeAddAux.</summary>
    private void UpgradeFor(byte[] member)
    {
        int count = _items.Count;
        int maxValue = EncodingLimits.SetMaxListpackValue;
        switch (_encoding)
        {
            case SetEncoding.Intset:
                if (NumberParsing.TryParseInt64(member, out _)) return;
                // Redis checks the widest integer already held as well (all become strings of the listpack).
                int widest = 0;
                foreach (var m in _items) widest = Math.Max(widest, m.Length);
                _encoding = count < EncodingLimits.SetMaxListpackEntries && member.Length <= maxValue && widest <= maxValue
                    ? SetEncoding.Listpack : SetEncoding.Hashtable;
                return;
            case SetEncoding.Listpack:
                if (count >= EncodingLimits.SetMaxListpackEntries || member.Length > maxValue) _encoding = SetEncoding.Hashtable;
                return;
        }
    }

    private static int IntsetLimit => Math.Min(EncodingLimits.SetMaxIntsetEntries, 1 << 30);

    /// <summary>Removes member; true when it was there.</summary>
    public bool Remove(ReadOnlySpan<byte> member)
    {
        if (!_lookup.Remove(member, out var key, out int slot)) return false;
        RemoveSlot(slot, key);
        return true;
    }

    /// <summary>Removes and returns the member in slot i.</summary>
    public byte[] RemoveAt(int slot)
    {
        var member = _items[slot];
        _index.Remove(member);
        RemoveSlot(slot, member);
        return member;
    }

    private void RemoveSlot(int slot, byte[] member)
    {
        int last = _items.Count - 1;
        if (slot != last)
        {
            var moved = _items[last];
            _items[slot] = moved;
            CollectionsMarshal.GetValueRefOrNullRef(_index, moved) = slot;
        }
        _items.RemoveAt(last);
        _heapBytes -= ElementBytes(member.Length) + EntryBytes;
    }

    public override CollectionObject Clone() => new SetObject(this); // member arrays never change once stored: shared

    public override void WritePayload(IBufferWriter<byte> output)
    {
        PayloadWriter.WriteVarint(output, (ulong)_encoding);
        PayloadWriter.WriteVarint(output, (ulong)_items.Count);
        foreach (var m in _items) PayloadWriter.WriteBytes(output, m);
    }

    internal static SetObject ReadPayload(ref PayloadReader reader)
    {
        ulong encoding = reader.ReadVarint();
        if (encoding > (ulong)SetEncoding.Hashtable) throw new InvalidDataException("a set payload names an unknown encoding");
        int count = reader.ReadCount();
        var set = new SetObject(Math.Min(count, 1 << 16));
        for (int i = 0; i < count; i++)
        {
            var m = reader.ReadBytes();
            if (set._index.ContainsKey(m)) throw new InvalidDataException("a set payload repeats a member");
            set._index.Add(m, set._items.Count);
            set._items.Add(m);
            set._heapBytes += ElementBytes(m.Length) + EntryBytes;
        }
        set._encoding = (SetEncoding)encoding;
        return set;
    }
}
