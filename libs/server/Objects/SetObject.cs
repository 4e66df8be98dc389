// SetObject: a Redis set of distinct byte strings, in the form of the encoding Redis would give it (see
// docs/objects-sets.md):
//  - "intset" while every member is an integer (Redis's string2ll: canonical signed 64-bit decimal) and the set has at
//    most set-max-intset-entries members: an IntSet (sorted integers in an array of the smallest width, 2/4/8 bytes);
//    members are listed in ascending numeric order;
//  - "listpack" while the set has at most set-max-listpack-entries members, each at most set-max-listpack-value bytes:
//    the members packed in one byte[] (Listpack entries) in insertion order; membership walks it;
//  - "hashtable" otherwise: members in a list plus a dictionary from member to its slot (O(1) add, remove, membership,
//    random pick; a removal moves the last member into the freed slot).
// Conversions only go up (intset -> listpack or hashtable, listpack -> hashtable), never back, with Redis's rules.
// Invariants:
//  - _data is the form and says the encoding: an IntSet array (short[], int[] or long[]: the width), a counted Listpack
//    byte[], or a SetTable. It is the object's only field, so a set object takes the .NET minimum of 24 bytes.
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

    /// <summary>The form: an intset array (short[], int[] or long[]), the counted listpack byte[], or the SetTable.</summary>
    private object _data = Array.Empty<short>();

    public SetObject() { }

    public override ObjectKind Kind => ObjectKind.Set;

    public override long Count => _data switch
    {
        SetTable t => t.Items.Count,
        byte[] packed => Listpack.CountOf(packed),
        _ => IntSet.Count(_data),
    };

    public override long HeapBytes => BaseBytes + _data switch
    {
        SetTable t => t.HeapBytes,
        byte[] packed => ElementBytes(packed.Length),
        _ => IntSet.HeapBytes(_data),
    };

    public SetEncoding SetEncoding => _data switch
    {
        SetTable => SetEncoding.Hashtable,
        byte[] => SetEncoding.Listpack,
        _ => SetEncoding.Intset,
    };

    public override string Encoding => SetEncoding switch
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
        if (_data is byte[] packed)
        {
            var members = new byte[Listpack.CountOf(packed)][];
            int pos = Listpack.FirstEntry(packed);
            for (int i = 0; i < members.Length; i++) members[i] = Listpack.Next(packed, ref pos).ToArray();
            return members;
        }
        var result = new byte[IntSet.Count(_data)][];
        for (int i = 0; i < result.Length; i++) result[i] = Decimal(IntSet.Get(_data, i));
        return result;
    }

    public bool Contains(ReadOnlySpan<byte> member) => _data switch
    {
        SetTable t => t.Lookup.ContainsKey(member),
        byte[] packed => FindListpack(packed, member, out _, out _),
        _ => NumberParsing.TryParseInt64(member, out long v) && IntSet.Contains(_data, v),
    };

    /// <summary>Where member's entry is in a packed listpack set (offset, size), false when absent.</summary>
    private static bool FindListpack(ReadOnlySpan<byte> packed, ReadOnlySpan<byte> member, out int at, out int size)
    {
        int pos = Listpack.FirstEntry(packed);
        while (pos < packed.Length)
        {
            at = pos;
            if (Listpack.Next(packed, ref pos).SequenceEqual(member)) { size = pos - at; return true; }
        }
        at = size = -1;
        return false;
    }

    /// <summary>
    /// Redis's size hint before adding <paramref name="adding"/> members (SADD's argument count): a new set whose first
    /// member is an integer starts as an intset when the hint fits it, else as a listpack when the hint fits that, else as
    /// a hashtable; an existing compact set whose limit the hint passes becomes a hashtable.
    /// </summary>
    public void PrepareForAdd(long adding, ReadOnlySpan<byte> first)
    {
        var encoding = SetEncoding;
        if (Count == 0 && encoding == SetEncoding.Intset)
        {
            if (NumberParsing.TryParseInt64(first, out _) && adding <= IntsetLimit) return;
            if (adding <= EncodingLimits.SetMaxListpackEntries) _data = Array.Empty<byte>();
            else ToTable();
            return;
        }
        if ((encoding == SetEncoding.Listpack && adding > EncodingLimits.SetMaxListpackEntries)
            || (encoding == SetEncoding.Intset && adding > IntsetLimit))
            ToTable();
    }

    /// <summary>Adds member (copied); true when it is new.</summary>
    public bool Add(ReadOnlySpan<byte> member) => AddCore(member, null);

    /// <summary>Adds a member array the set may keep (it must never change afterwards); true when it is new.</summary>
    public bool Add(byte[] member) => AddCore(member, member);

    private bool AddCore(ReadOnlySpan<byte> member, byte[]? array)
    {
        if (IntSet.Is(_data))
        {
            if (NumberParsing.TryParseInt64(member, out long v))
            {
                if (IntSet.Contains(_data, v)) return false;
                _data = IntSet.Insert(_data, v);
                if (IntSet.Count(_data) > IntsetLimit) ToTable();
                return true;
            }
            // Redis checks the widest integer already held as well (all become strings of the listpack).
            int count = IntSet.Count(_data);
            int widest = count == 0 ? 0 : Math.Max(DecimalLength(IntSet.Get(_data, 0)), DecimalLength(IntSet.Get(_data, count - 1)));
            int maxValue = EncodingLimits.SetMaxListpackValue;
            if (count < EncodingLimits.SetMaxListpackEntries && member.Length <= maxValue && widest <= maxValue) ToListpack();
            else ToTable();
        }
        if (_data is byte[] packed)
        {
            if (FindListpack(packed, member, out _, out _)) return false;
            int count = Listpack.CountOf(packed);
            if (count >= EncodingLimits.SetMaxListpackEntries || member.Length > EncodingLimits.SetMaxListpackValue) ToTable();
            else
            {
                var grown = Listpack.SpliceCounted(packed, count + 1, packed.Length, 0, Listpack.EntrySize(member.Length), out int w);
                Listpack.WriteEntry(grown.AsSpan(w), member);
                _data = grown;
                return true;
            }
        }
        var table = (SetTable)_data;
        if (table.Lookup.ContainsKey(member)) return false;
        table.Add(array ?? member.ToArray());
        return true;
    }

    /// <summary>
    /// Adds the members in order (arrays the set may keep) with the result of as many Add calls, same form and order; an
    /// intset takes each run of integer members in one sort and merge (O(n log n), where one Add at a time copies the
    /// array per member: quadratic with a large set-max-intset-entries). Returns how many were new.
    /// </summary>
    public long AddMany(IReadOnlyList<byte[]> members)
    {
        long added = 0;
        int i = 0;
        while (i < members.Count && IntSet.Is(_data))
        {
            // The run of integer members from i, ending after the one that takes the intset past its limit.
            int room = IntsetLimit - IntSet.Count(_data);
            var fresh = new HashSet<long>();
            int j = i;
            while (j < members.Count && NumberParsing.TryParseInt64(members[j], out long v))
            {
                j++;
                if (!IntSet.Contains(_data, v) && fresh.Add(v) && fresh.Count > room) break;
            }
            if (j == i) break; // a member that is not an integer: Add converts the set
            if (fresh.Count > 0)
            {
                var sorted = fresh.ToArray();
                Array.Sort(sorted);
                _data = IntSet.Merge(_data, sorted);
                added += sorted.Length;
                if (IntSet.Count(_data) > IntsetLimit) ToTable();
            }
            i = j;
        }
        for (; i < members.Count; i++) if (Add(members[i])) added++;
        return added;
    }

    private static int DecimalLength(long v) => v.ToString(CultureInfo.InvariantCulture).Length;

    private static int IntsetLimit => Math.Min(EncodingLimits.SetMaxIntsetEntries, 1 << 30);

    /// <summary>The counted listpack of the given members.</summary>
    private static byte[] Pack(IReadOnlyList<byte[]> members)
    {
        if (members.Count == 0) return [];
        int bytes = Listpack.VarintSize(members.Count);
        foreach (var m in members) bytes += Listpack.EntrySize(m.Length);
        var packed = GC.AllocateUninitializedArray<byte>(bytes);
        int w = Listpack.WriteVarint(packed, members.Count);
        foreach (var m in members) w += Listpack.WriteEntry(packed.AsSpan(w), m);
        return packed;
    }

    /// <summary>Converts an intset to a listpack (members in ascending order, as Redis converts).</summary>
    private void ToListpack() => _data = Pack(PackedMembers());

    /// <summary>Converts a packed form to the hashtable form (for good).</summary>
    private void ToTable()
    {
        if (_data is SetTable) return;
        var members = PackedMembers();
        var table = new SetTable(members.Length);
        foreach (var m in members) table.Add(m);
        _data = table;
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
            case byte[] packed:
                if (!FindListpack(packed, member, out int at, out int size)) return false;
                _data = Listpack.SpliceCounted(packed, Listpack.CountOf(packed) - 1, at, size, 0, out _);
                return true;
            default:
            {
                if (!NumberParsing.TryParseInt64(member, out long v)) return false;
                int index = IntSet.Search(_data, v);
                if (index < 0) return false;
                _data = IntSet.RemoveAt(_data, index);
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
            case byte[] packed:
            {
                int pos = Listpack.FirstEntry(packed);
                for (int i = 0; i < slot; i++) Listpack.Skip(packed, ref pos);
                int at = pos;
                var member = Listpack.Next(packed, ref pos).ToArray();
                _data = Listpack.SpliceCounted(packed, Listpack.CountOf(packed) - 1, at, pos - at, 0, out _);
                return member;
            }
            default:
            {
                var member = Decimal(IntSet.Get(_data, slot));
                _data = IntSet.RemoveAt(_data, slot);
                return member;
            }
        }
    }

    /// <summary>Removes every member (the encoding stays).</summary>
    public void Clear() => _data = _data switch
    {
        SetTable => new SetTable(0),
        byte[] => Array.Empty<byte>(),
        short[] => Array.Empty<short>(),
        int[] => Array.Empty<int>(),
        _ => Array.Empty<long>(),
    };

    public override CollectionObject Clone() =>
        // Packed arrays are never written once held, and a table's member arrays never change once stored: shared.
        new SetObject { _data = _data is SetTable t ? new SetTable(t) : _data };

    public override void WritePayload(IBufferWriter<byte> output)
    {
        PayloadWriter.WriteVarint(output, (ulong)SetEncoding);
        PayloadWriter.WriteVarint(output, (ulong)Count);
        switch (_data)
        {
            case SetTable t:
                foreach (var m in t.Items) PayloadWriter.WriteBytes(output, m);
                break;
            case byte[] packed:
                output.Write(packed.AsSpan(Listpack.FirstEntry(packed))); // already (varint length, bytes) entries, as the payload writes them
                break;
            default:
            {
                Span<byte> text = stackalloc byte[20];
                int count = IntSet.Count(_data);
                for (int i = 0; i < count; i++)
                {
                    IntSet.Get(_data, i).TryFormat(text, out int n, default, CultureInfo.InvariantCulture);
                    PayloadWriter.WriteBytes(output, text[..n]);
                }
                break;
            }
        }
    }

    // ---- inline form (see InlineCollection): one byte for the form (0 listpack; 2, 4, 8: an intset of that width),
    // then the array's bytes (an intset's integers little-endian, as this machine holds them). Never the hashtable form.

    /// <summary>Bytes of the inline form; -1 in the hashtable form (never inline).</summary>
    internal int InlineLength => _data switch
    {
        SetTable => -1,
        byte[] packed => 1 + packed.Length,
        _ => 1 + IntSet.Count(_data) * IntSet.Width(_data),
    };

    internal void WriteInline(Span<byte> destination)
    {
        var body = destination[1..];
        switch (_data)
        {
            case byte[] packed: destination[0] = 0; packed.CopyTo(body); break;
            case short[] a: destination[0] = 2; MemoryMarshal.AsBytes(a.AsSpan()).CopyTo(body); break;
            case int[] a: destination[0] = 4; MemoryMarshal.AsBytes(a.AsSpan()).CopyTo(body); break;
            case long[] a: destination[0] = 8; MemoryMarshal.AsBytes(a.AsSpan()).CopyTo(body); break;
            default: throw new InvalidOperationException("a hashtable set is never inline");
        }
    }

    internal static SetObject ReadInline(ReadOnlySpan<byte> bytes)
    {
        if (bytes.Length == 0) throw new InvalidDataException("empty inline set");
        var body = bytes[1..];
        object data = bytes[0] switch
        {
            0 => body.ToArray(),
            2 when body.Length % 2 == 0 => MemoryMarshal.Cast<byte, short>(body).ToArray(),
            4 when body.Length % 4 == 0 => MemoryMarshal.Cast<byte, int>(body).ToArray(),
            8 when body.Length % 8 == 0 => MemoryMarshal.Cast<byte, long>(body).ToArray(),
            _ => throw new InvalidDataException("malformed inline set"),
        };
        return new SetObject { _data = data };
    }

    internal static SetObject ReadPayload(ref PayloadReader reader)
    {
        ulong encoding = reader.ReadVarint();
        if (encoding > (ulong)SetEncoding.Hashtable) throw new InvalidDataException("a set payload names an unknown encoding");
        int count = reader.ReadCount();
        var seen = new HashSet<byte[]>(Math.Min(count, 1 << 16), ByteArrayComparer.Instance);
        var members = new List<byte[]>(Math.Min(count, 1 << 16));
        for (int i = 0; i < count; i++)
        {
            var m = reader.ReadBytes();
            if (!seen.Add(m)) throw new InvalidDataException("a set payload repeats a member");
            members.Add(m);
        }
        var set = new SetObject();
        switch ((SetEncoding)encoding)
        {
            case SetEncoding.Intset:
            {
                var values = new long[members.Count];
                for (int i = 0; i < values.Length; i++)
                    if (!NumberParsing.TryParseInt64(members[i], out values[i])) throw new InvalidDataException("an intset payload holds a member that is not an integer");
                Array.Sort(values);
                set._data = IntSet.Build(values);
                break;
            }
            case SetEncoding.Listpack:
                set._data = Pack(members);
                break;
            default:
            {
                var table = new SetTable(members.Count);
                foreach (var m in members) table.Add(m);
                set._data = table;
                break;
            }
        }
        return set;
    }
}
