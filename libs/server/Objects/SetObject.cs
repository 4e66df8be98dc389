// SetObject: a Redis set of distinct byte strings, in the form of the encoding Redis would give it (see
// docs/objects-sets.md):
//  - "intset" while every member is an integer (Redis's string2ll: canonical signed 64-bit decimal) and the set has at
//    most set-max-intset-entries members: an IntSet (sorted integers of the smallest width, 2/4/8 bytes, in one byte[]);
//    members are listed in ascending numeric order;
//  - "listpack" while the set has at most set-max-listpack-entries members, each at most set-max-listpack-value bytes:
//    the members packed in one byte[] (Listpack entries) in insertion order; membership walks it;
//  - "hashtable" otherwise: members in a list plus a dictionary from member to its slot (O(1) add, remove, membership,
//    random pick; a removal moves the last member into the freed slot).
// Conversions only go up (intset -> listpack or hashtable, listpack -> hashtable), never back, with Redis's rules.
// Invariants:
//  - _data is the packed byte[] (intset, of width _width; listpack) or a SetTable, as _encoding says; _count is the
//    number of members in the packed forms.
//  - Packed arrays are never written once held (a change builds a new array), so Clone shares them; a table's member
//    arrays never change once stored (shared by a table's Clone). In a table, Items[Index[m]] == m for every member m.
//  - HeapBytes: packed = fixed cost + the array; hashtable = fixed cost + per member its array, dictionary entry and
//    list slot, kept by every change (O(1) to read).
using System.Buffers;
using System.Globalization;
using System.Runtime.InteropServices;
using Garnet.server.Storage;

namespace Garnet.server.Objects;

public enum SetEncoding : byte { Intset = 0, Listpack = 1, Hashtable = 2 }

public sealed class SetObject : CollectionObject
{
    /// <summary>Bytes one member costs in the hashtable form besides its array: its dictionary entry and its list slot.</summary>
    private const long EntryBytes = 32 + 8;

    /// <summary>The hashtable form.</summary>
    private sealed class SetTable
    {
        public readonly List<byte[]> Items;
        public readonly Dictionary<byte[], int> Index;
        public long HeapBytes;

        public SetTable(int capacity)
        {
            Items = new List<byte[]>(capacity);
            Index = new Dictionary<byte[], int>(capacity, ByteArrayComparer.Instance);
        }

        public SetTable(SetTable other)
        {
            Items = new List<byte[]>(other.Items);
            Index = new Dictionary<byte[], int>(other.Index, ByteArrayComparer.Instance);
            HeapBytes = other.HeapBytes;
        }

        public Dictionary<byte[], int>.AlternateLookup<ReadOnlySpan<byte>> Lookup => Index.GetAlternateLookup<ReadOnlySpan<byte>>();

        public void Add(byte[] member)
        {
            Index.Add(member, Items.Count);
            Items.Add(member);
            HeapBytes += ElementBytes(member.Length) + EntryBytes;
        }

        public void RemoveSlot(int slot, byte[] member)
        {
            int last = Items.Count - 1;
            if (slot != last)
            {
                var moved = Items[last];
                Items[slot] = moved;
                CollectionsMarshal.GetValueRefOrNullRef(Index, moved) = slot;
            }
            Items.RemoveAt(last);
            HeapBytes -= ElementBytes(member.Length) + EntryBytes;
        }
    }

    private object _data = Array.Empty<byte>();
    private int _count;
    private SetEncoding _encoding = SetEncoding.Intset;
    private byte _width = 2;

    public SetObject() { }

    public override ObjectKind Kind => ObjectKind.Set;
    public override long Count => _data is SetTable t ? t.Items.Count : _count;
    public override long HeapBytes => _data is byte[] packed ? BaseBytes + ElementBytes(packed.Length) : BaseBytes + ((SetTable)_data).HeapBytes;
    public SetEncoding SetEncoding => _encoding;

    public override string Encoding => _encoding switch
    {
        SetEncoding.Intset => "intset",
        SetEncoding.Listpack => "listpack",
        _ => "hashtable",
    };

    private static byte[] Decimal(long v) => System.Text.Encoding.ASCII.GetBytes(v.ToString(CultureInfo.InvariantCulture));

    /// <summary>
    /// The members in slot order: RemoveAt(i) removes Slots[i]. No copy in the hashtable form (read it only inside the
    /// operation that has the set); a fresh array in the packed forms (ascending for an intset, insertion order for a
    /// listpack).
    /// </summary>
    public IReadOnlyList<byte[]> Slots => _data is SetTable t ? t.Items : PackedMembers();

    /// <summary>The members (a copy); ascending numeric order while the set is an intset (as Redis lists an intset).</summary>
    public IReadOnlyList<byte[]> Members => _data is SetTable t ? t.Items.ToArray() : PackedMembers();

    private byte[][] PackedMembers()
    {
        var packed = (byte[])_data;
        var result = new byte[_count][];
        if (_encoding == SetEncoding.Intset)
        {
            for (int i = 0; i < result.Length; i++) result[i] = Decimal(IntSet.Get(packed, _width, i));
            return result;
        }
        int pos = 0;
        for (int i = 0; i < result.Length; i++) result[i] = Listpack.Next(packed, ref pos).ToArray();
        return result;
    }

    public bool Contains(ReadOnlySpan<byte> member)
    {
        switch (_data)
        {
            case SetTable t: return t.Lookup.ContainsKey(member);
            case byte[] packed when _encoding == SetEncoding.Intset:
                return NumberParsing.TryParseInt64(member, out long v) && IntSet.WidthOf(v) <= _width && IntSet.Search(packed, _width, v) >= 0;
            default: return FindListpack((byte[])_data, member, out _, out _);
        }
    }

    /// <summary>Where member's entry is in a packed listpack set (offset, length), false when absent.</summary>
    private static bool FindListpack(ReadOnlySpan<byte> packed, ReadOnlySpan<byte> member, out int at, out int length)
    {
        int pos = 0;
        while (pos < packed.Length)
        {
            at = pos;
            if (Listpack.Next(packed, ref pos).SequenceEqual(member)) { length = pos - at; return true; }
        }
        at = length = -1;
        return false;
    }

    /// <summary>
    /// Redis's size hint before adding <paramref name="adding"/> members (SADD's argument count): a new set whose first
    /// member is an integer starts as an intset when the hint fits it, else as a listpack when the hint fits that, else as
    /// a hashtable; an existing compact set whose limit the hint passes becomes a hashtable.
    /// </summary>
    public void PrepareForAdd(long adding, ReadOnlySpan<byte> first)
    {
        if (Count == 0 && _encoding == SetEncoding.Intset)
        {
            if (NumberParsing.TryParseInt64(first, out _) && adding <= IntsetLimit) return;
            if (adding <= EncodingLimits.SetMaxListpackEntries) { _encoding = SetEncoding.Listpack; _data = Array.Empty<byte>(); }
            else ToTable();
            return;
        }
        if ((_encoding == SetEncoding.Listpack && adding > EncodingLimits.SetMaxListpackEntries)
            || (_encoding == SetEncoding.Intset && adding > IntsetLimit))
            ToTable();
    }

    /// <summary>Adds member (copied); true when it is new.</summary>
    public bool Add(ReadOnlySpan<byte> member) => AddCore(member, null);

    /// <summary>Adds a member array the set may keep (it must never change afterwards); true when it is new.</summary>
    public bool Add(byte[] member) => AddCore(member, member);

    private bool AddCore(ReadOnlySpan<byte> member, byte[]? array)
    {
        if (_encoding == SetEncoding.Intset)
        {
            if (NumberParsing.TryParseInt64(member, out long v))
            {
                var packed = (byte[])_data;
                int width = Math.Max(_width, IntSet.WidthOf(v));
                int index = width > _width ? (v < 0 ? 0 : _count) : IntSet.Search(packed, _width, v);
                if (index >= 0 && width == _width) return false;
                if (index < 0) index = ~index;
                _data = IntSet.Insert(packed, _width, width, index, v);
                _width = (byte)width;
                _count++;
                if (_count > IntsetLimit) ToTable();
                return true;
            }
            // Redis checks the widest integer already held as well (all become strings of the listpack).
            int widest = _count == 0 ? 0 : Math.Max(DecimalLength(IntSet.Get((byte[])_data, _width, 0)), DecimalLength(IntSet.Get((byte[])_data, _width, _count - 1)));
            int maxValue = EncodingLimits.SetMaxListpackValue;
            if (_count < EncodingLimits.SetMaxListpackEntries && member.Length <= maxValue && widest <= maxValue) ToListpack();
            else ToTable();
        }
        if (_encoding == SetEncoding.Listpack)
        {
            var packed = (byte[])_data;
            if (FindListpack(packed, member, out _, out _)) return false;
            if (_count >= EncodingLimits.SetMaxListpackEntries || member.Length > EncodingLimits.SetMaxListpackValue) ToTable();
            else
            {
                var grown = Listpack.Splice(packed, packed.Length, 0, Listpack.EntrySize(member.Length));
                Listpack.WriteEntry(grown.AsSpan(packed.Length), member);
                _data = grown;
                _count++;
                return true;
            }
        }
        var table = (SetTable)_data;
        if (table.Lookup.ContainsKey(member)) return false;
        table.Add(array ?? member.ToArray());
        return true;
    }

    private static int DecimalLength(long v) => v.ToString(CultureInfo.InvariantCulture).Length;

    private static int IntsetLimit => Math.Min(EncodingLimits.SetMaxIntsetEntries, 1 << 30);

    /// <summary>Converts an intset to a listpack (members in ascending order, as Redis converts).</summary>
    private void ToListpack()
    {
        var members = PackedMembers();
        int bytes = 0;
        foreach (var m in members) bytes += Listpack.EntrySize(m.Length);
        var packed = GC.AllocateUninitializedArray<byte>(bytes);
        int w = 0;
        foreach (var m in members) w += Listpack.WriteEntry(packed.AsSpan(w), m);
        _data = packed;
        _encoding = SetEncoding.Listpack;
    }

    /// <summary>Converts a packed form to the hashtable form (for good).</summary>
    private void ToTable()
    {
        if (_data is SetTable) return;
        var members = PackedMembers();
        var table = new SetTable(members.Length);
        foreach (var m in members) table.Add(m);
        _data = table;
        _encoding = SetEncoding.Hashtable;
        _count = 0;
    }

    /// <summary>Removes member; true when it was there.</summary>
    public bool Remove(ReadOnlySpan<byte> member)
    {
        switch (_data)
        {
            case SetTable t:
                if (!t.Lookup.Remove(member, out var key, out int slot)) return false;
                t.RemoveSlot(slot, key);
                return true;
            case byte[] packed when _encoding == SetEncoding.Intset:
            {
                if (!NumberParsing.TryParseInt64(member, out long v) || IntSet.WidthOf(v) > _width) return false;
                int index = IntSet.Search(packed, _width, v);
                if (index < 0) return false;
                _data = IntSet.RemoveAt(packed, _width, index);
                _count--;
                return true;
            }
            default:
            {
                var packed = (byte[])_data;
                if (!FindListpack(packed, member, out int at, out int length)) return false;
                _data = Listpack.Splice(packed, at, length, 0);
                _count--;
                return true;
            }
        }
    }

    /// <summary>Removes and returns the member in slot i (see Slots).</summary>
    public byte[] RemoveAt(int slot)
    {
        switch (_data)
        {
            case SetTable t:
            {
                var member = t.Items[slot];
                t.Index.Remove(member);
                t.RemoveSlot(slot, member);
                return member;
            }
            case byte[] packed when _encoding == SetEncoding.Intset:
            {
                var member = Decimal(IntSet.Get(packed, _width, slot));
                _data = IntSet.RemoveAt(packed, _width, slot);
                _count--;
                return member;
            }
            default:
            {
                var packed = (byte[])_data;
                int pos = 0;
                for (int i = 0; i < slot; i++) Listpack.Skip(packed, ref pos);
                int at = pos;
                var member = Listpack.Next(packed, ref pos).ToArray();
                _data = Listpack.Splice(packed, at, pos - at, 0);
                _count--;
                return member;
            }
        }
    }

    /// <summary>Removes every member (the encoding stays).</summary>
    public void Clear()
    {
        if (_data is SetTable) _data = new SetTable(0);
        else _data = Array.Empty<byte>();
        _count = 0;
    }

    public override CollectionObject Clone() => new SetObject
    {
        // Packed arrays are never written once held, and a table's member arrays never change once stored: shared.
        _data = _data is SetTable t ? new SetTable(t) : _data,
        _count = _count,
        _encoding = _encoding,
        _width = _width,
    };

    public override void WritePayload(IBufferWriter<byte> output)
    {
        PayloadWriter.WriteVarint(output, (ulong)_encoding);
        PayloadWriter.WriteVarint(output, (ulong)Count);
        switch (_data)
        {
            case SetTable t:
                foreach (var m in t.Items) PayloadWriter.WriteBytes(output, m);
                break;
            case byte[] packed when _encoding == SetEncoding.Intset:
            {
                Span<byte> text = stackalloc byte[20];
                for (int i = 0; i < _count; i++)
                {
                    IntSet.Get(packed, _width, i).TryFormat(text, out int n, default, CultureInfo.InvariantCulture);
                    PayloadWriter.WriteBytes(output, text[..n]);
                }
                break;
            }
            case byte[] packed:
                output.Write(packed); // already (varint length, bytes) entries, as the payload writes them
                break;
        }
    }

    internal static SetObject ReadPayload(ref PayloadReader reader)
    {
        ulong encoding = reader.ReadVarint();
        if (encoding > (ulong)SetEncoding.Hashtable) throw new InvalidDataException("a set payload names an unknown encoding");
        int count = reader.ReadCount();
        var set = new SetObject();
        var seen = new HashSet<byte[]>(Math.Min(count, 1 << 16), ByteArrayComparer.Instance);
        var members = new List<byte[]>(Math.Min(count, 1 << 16));
        for (int i = 0; i < count; i++)
        {
            var m = reader.ReadBytes();
            if (!seen.Add(m)) throw new InvalidDataException("a set payload repeats a member");
            members.Add(m);
        }
        switch ((SetEncoding)encoding)
        {
            case SetEncoding.Intset:
            {
                var values = new long[members.Count];
                for (int i = 0; i < values.Length; i++)
                    if (!NumberParsing.TryParseInt64(members[i], out values[i])) throw new InvalidDataException("an intset payload holds a member that is not an integer");
                Array.Sort(values);
                set._data = IntSet.Build(values, out int width);
                set._width = (byte)width;
                set._count = values.Length;
                break;
            }
            case SetEncoding.Listpack:
            {
                int bytes = 0;
                foreach (var m in members) bytes += Listpack.EntrySize(m.Length);
                var packed = GC.AllocateUninitializedArray<byte>(bytes);
                int w = 0;
                foreach (var m in members) w += Listpack.WriteEntry(packed.AsSpan(w), m);
                set._data = packed;
                set._count = members.Count;
                break;
            }
            default:
            {
                var table = new SetTable(members.Count);
                foreach (var m in members) table.Add(m);
                set._data = table;
                break;
            }
        }
        set._encoding = (SetEncoding)encoding;
        return set;
    }
}
