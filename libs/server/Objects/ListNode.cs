// ListNode: one node of a ListObject (a quicklist node): up to list-max-listpack-size items packed in one byte[], in
// one of two forms, invisible to the list's commands:
//  - uniform (Width >= 0): every item has Width bytes and they lie back to back with no lengths; item i is at
//    Start + i * Width (O(1) index inside the node). A 16-byte item takes 16 bytes.
//  - general (Width == General): per item its length as a varint, its bytes, and the length again as a backwards varint
//    (read from the item's end), so the node walks from either end; a 16-byte item takes 18 bytes.
// A node starts uniform with its first item's width and turns general (once, rewriting its buffer) when an item of
// another length goes in. A general node whose items all have one length again turns uniform when it is sealed (stops
// being an end node) or split off; otherwise it stays general.
// Invariants:
//  - Items occupy Buf[Start, End) back to back; Count and Payload (item bytes) describe them. A node in a list is never
//    empty (Count == 0 only while one is built or removed); item walks count items, never compare positions (a uniform
//    node of empty items has Start == End).
//  - Size is what the items take in the general form, whatever the form: the figure list-max-listpack-size limits, so
//    nodes split where they did before the uniform form existed.
//  - A position (pos) is the byte offset in Buf of an item's first byte; it holds only until the node changes.
//  - Bytes = the node's object and its buffer; the owning list adds the difference of Bytes around every change.
namespace Garnet.server.Objects;

internal sealed class ListNode
{
    public const int General = -1;
    /// <summary>The node object: header, buffer reference, five ints.</summary>
    public const int ObjectBytes = 48;
    /// <summary>Byte limit of a node when list-max-listpack-size counts items (Redis's SIZE_SAFETY_LIMIT).</summary>
    private const int SafetyBytes = 8192;
    private const int MinBuffer = 32;

    public byte[] Buf;
    public int Start, End, Count, Payload, Width;

    private ListNode(byte[] buf, int start, int end, int width)
    {
        Buf = buf;
        Start = start;
        End = end;
        Width = width;
    }

    /// <summary>An empty node whose buffer has room for capacity bytes at its tail end (or head end: forHead).</summary>
    public static ListNode Empty(int capacity, bool forHead)
    {
        var buf = new byte[Math.Max(MinBuffer, capacity)];
        int at = forHead ? buf.Length : 0;
        return new ListNode(buf, at, at, 0);
    }

    public int Used => End - Start;
    public bool IsUniform => Width >= 0;
    public int Size => Width >= 0 ? Count * GeneralSize(Width) : End - Start;
    public long Bytes => ObjectBytes + CollectionObject.ElementBytes(Buf.Length);

    /// <summary>Bytes of an item of length in the general form.</summary>
    public static int GeneralSize(int length) => 2 * Listpack.VarintSize(length) + length;

    private static int ByteLimit(int fill) => fill >= 0 ? SafetyBytes : fill switch { -1 => 4096, -2 => 8192, -3 => 16384, -4 => 32768, _ => 65536 };

    private static int ByteLimit() => ByteLimit(EncodingLimits.ListMaxListpackSize);

    // ---- the general form's items ----------------------------------------------------------------------------

    /// <summary>Writes item in the general form at dst; returns the bytes written.</summary>
    public static int WriteGeneral(Span<byte> dst, ReadOnlySpan<byte> item)
    {
        int n = Listpack.WriteVarint(dst, item.Length);
        item.CopyTo(dst[n..]);
        int at = n + item.Length;
        int v = item.Length;
        for (int i = 0; i < n; i++) { dst[at + n - 1 - i] = (byte)((v & 0x7f) | (i < n - 1 ? 0x80 : 0)); v >>= 7; }
        return at + n;
    }

    /// <summary>General form: the start of the item that ends at end, and its length.</summary>
    public static int StartOfGeneralEndingAt(ReadOnlySpan<byte> buf, int end, out int length)
    {
        int v = 0;
        for (int i = 0; ; i++)
        {
            byte b = buf[end - 1 - i];
            v |= (b & 0x7f) << (7 * i);
            if (b < 0x80) { length = v; return end - 2 * (i + 1) - v; }
        }
    }

    /// <summary>General form: the item at pos, its bytes' offset and length; pos moves past it.</summary>
    public static int ReadGeneral(ReadOnlySpan<byte> buf, ref int pos, out int length)
    {
        length = Listpack.ReadVarint(buf, ref pos);
        int at = pos;
        pos += length + Listpack.VarintSize(length);
        return at;
    }

    // ---- reading ---------------------------------------------------------------------------------------------

    /// <summary>The item at pos; pos moves past it.</summary>
    public ReadOnlySpan<byte> Next(scoped ref int pos)
    {
        if (Width >= 0)
        {
            int at = pos;
            pos += Width;
            return new ReadOnlySpan<byte>(Buf, at, Width);
        }
        int a = ReadGeneral(Buf, ref pos, out int length);
        return new ReadOnlySpan<byte>(Buf, a, length);
    }

    /// <summary>The item that ends at end; end moves to its start.</summary>
    public ReadOnlySpan<byte> Previous(scoped ref int end)
    {
        if (Width >= 0)
        {
            end -= Width;
            return new ReadOnlySpan<byte>(Buf, end, Width);
        }
        int e = end;
        end = StartOfGeneralEndingAt(Buf, e, out int length);
        return new ReadOnlySpan<byte>(Buf, e - Listpack.VarintSize(length) - length, length);
    }

    /// <summary>The position of item local (0 &lt;= local &lt;= Count): O(1) uniform, else a walk from the nearer end.</summary>
    public int PosOf(int local)
    {
        if (Width >= 0) return Start + local * Width;
        int pos;
        if (local < Count / 2)
        {
            pos = Start;
            for (int i = 0; i < local; i++) ReadGeneral(Buf, ref pos, out _);
        }
        else
        {
            pos = End;
            for (int i = Count; i > local; i--) pos = StartOfGeneralEndingAt(Buf, pos, out _);
        }
        return pos;
    }

    public ReadOnlySpan<byte> this[int local]
    {
        get
        {
            int pos = PosOf(local);
            return Next(ref pos);
        }
    }

    // ---- limits ----------------------------------------------------------------------------------------------

    /// <summary>Whether an item of length may join at one end without passing the node limits or reallocating a buffer
    /// that already has the limit's size (a new node is cheaper then).</summary>
    public bool Fits(int length, bool atHead)
    {
        int fill = EncodingLimits.ListMaxListpackSize;
        int limit = ByteLimit(fill);
        if (Size + GeneralSize(length) > limit || (fill >= 0 && Count >= fill)) return false;
        if (Buf.Length < limit || (Width >= 0 && length != Width)) return true; // a conversion makes a new buffer anyway
        int need = Width >= 0 ? length : GeneralSize(length);
        return (atHead ? Start : Buf.Length - End) >= need;
    }

    /// <summary>Whether the node holds more than the limits allow (and can be split).</summary>
    public bool Exceeds()
    {
        int fill = EncodingLimits.ListMaxListpackSize;
        return Count > 1 && (Size > ByteLimit(fill) || (fill >= 0 && Count > fill));
    }

    // ---- changes ---------------------------------------------------------------------------------------------

    private void Write(int pos, ReadOnlySpan<byte> item)
    {
        if (Width >= 0) item.CopyTo(Buf.AsSpan(pos));
        else WriteGeneral(Buf.AsSpan(pos), item);
    }

    /// <summary>Rewrites a uniform node in the general form, with extra free bytes at its head end (atHead) or tail end.</summary>
    private void ToGeneral(int extra, bool atHead)
    {
        int w = Width, used = Count * GeneralSize(w);
        var buf = new byte[Math.Max(MinBuffer, used + extra)];
        int at = atHead ? buf.Length - used : 0, pos = at;
        for (int i = 0; i < Count; i++) pos += WriteGeneral(buf.AsSpan(pos), Buf.AsSpan(Start + i * w, w));
        Buf = buf;
        Start = at;
        End = at + used;
        Width = General;
    }

    /// <summary>A general node whose items all have one length becomes uniform (exact buffer); returns whether it did.</summary>
    private bool TryUniform()
    {
        if (Width >= 0 || Count == 0) return false;
        int pos = Start, w = -1;
        for (int i = 0; i < Count; i++)
        {
            ReadGeneral(Buf, ref pos, out int length);
            if (w >= 0 && length != w) return false;
            w = length;
        }
        var buf = new byte[Count * w];
        pos = Start;
        for (int i = 0; i < Count; i++)
        {
            int at = ReadGeneral(Buf, ref pos, out _);
            Buf.AsSpan(at, w).CopyTo(buf.AsSpan(i * w));
        }
        Buf = buf;
        Start = 0;
        End = buf.Length;
        Width = w;
        return true;
    }

    /// <summary>Makes room for need bytes at one end (a bigger buffer, the items moved to its other end).</summary>
    private void MakeRoom(int need, bool atHead)
    {
        if ((atHead ? Start : Buf.Length - End) >= need) return;
        int used = Used;
        int cap = Math.Max(used + need, Math.Min(Math.Max(2 * used, MinBuffer), ByteLimit()));
        var buf = new byte[cap];
        int at = atHead ? cap - used : 0;
        Buf.AsSpan(Start, used).CopyTo(buf.AsSpan(at));
        Buf = buf;
        Start = at;
        End = at + used;
    }

    /// <summary>Replaces remove bytes at offset at by insert bytes (to be written by the caller at the returned offset),
    /// moving or reallocating the node's bytes.</summary>
    private int Splice(int at, int remove, int insert)
    {
        int delta = insert - remove;
        if (delta <= 0 || End + delta <= Buf.Length)
        {
            Buf.AsSpan(at + remove, End - at - remove).CopyTo(Buf.AsSpan(at + insert));
            End += delta;
            return at;
        }
        int used = Used + delta;
        int cap = Math.Max(used, Math.Min(Math.Max(2 * Used, MinBuffer), ByteLimit()));
        var bigger = new byte[cap];
        Buf.AsSpan(Start, at - Start).CopyTo(bigger);
        Buf.AsSpan(at + remove, End - at - remove).CopyTo(bigger.AsSpan(at - Start + insert));
        int newAt = at - Start;
        Buf = bigger;
        Start = 0;
        End = used;
        return newAt;
    }

    /// <summary>Gives a sparse node a smaller buffer.</summary>
    private void MaybeShrink()
    {
        if (Buf.Length <= 4 * MinBuffer || Used >= Buf.Length / 4) return;
        var buf = new byte[Math.Max(MinBuffer, Used * 2)];
        Buf.AsSpan(Start, Used).CopyTo(buf);
        End = Used;
        Start = 0;
        Buf = buf;
    }

    /// <summary>For a node that stopped being an end node: the uniform form when its items allow it, and an exact buffer
    /// when it wastes much.</summary>
    public void Seal()
    {
        if (TryUniform() || Buf.Length - Used <= Used / 8) return;
        var buf = Buf.AsSpan(Start, Used).ToArray();
        Buf = buf;
        Start = 0;
        End = buf.Length;
    }

    /// <summary>Adds item at the head or the tail.</summary>
    public void Push(ReadOnlySpan<byte> item, bool atHead)
    {
        if (Count == 0) Width = item.Length;
        else if (Width >= 0 && item.Length != Width) ToGeneral(GeneralSize(item.Length), atHead);
        int size = Width >= 0 ? Width : GeneralSize(item.Length);
        MakeRoom(size, atHead);
        if (atHead) { Start -= size; Write(Start, item); }
        else { Write(End, item); End += size; }
        Count++;
        Payload += item.Length;
    }

    public byte[] PopHead()
    {
        int pos = Start;
        var item = Next(ref pos).ToArray();
        Start = pos;
        Count--;
        Payload -= item.Length;
        return item;
    }

    public byte[] PopTail()
    {
        int end = End;
        var item = Previous(ref end).ToArray();
        End = end;
        Count--;
        Payload -= item.Length;
        return item;
    }

    /// <summary>Replaces item local by item; returns the old item's length.</summary>
    public int Replace(int local, ReadOnlySpan<byte> item)
    {
        if (Width >= 0 && item.Length != Width)
        {
            if (Count == 1)
            {
                int old = Width;
                int at1 = Splice(Start, old, item.Length);
                Width = item.Length;
                Write(at1, item);
                Payload = item.Length;
                return old;
            }
            ToGeneral(GeneralSize(item.Length), atHead: false);
        }
        int pos = PosOf(local), next = pos;
        int oldLength = Next(ref next).Length;
        int size = Width >= 0 ? Width : GeneralSize(item.Length);
        int at = next - pos == size ? pos : Splice(pos, next - pos, size);
        Write(at, item);
        Payload += item.Length - oldLength;
        return oldLength;
    }

    /// <summary>Inserts item before item local (0 &lt; local &lt; Count, or at either end).</summary>
    public void Insert(int local, ReadOnlySpan<byte> item)
    {
        if (Width >= 0 && item.Length != Width) ToGeneral(GeneralSize(item.Length), atHead: false);
        int pos = PosOf(local);
        int at = Splice(pos, 0, Width >= 0 ? Width : GeneralSize(item.Length));
        Write(at, item);
        Count++;
        Payload += item.Length;
    }

    /// <summary>Removes item local; returns its length.</summary>
    public int RemoveAt(int local)
    {
        int pos = PosOf(local), next = pos;
        int length = Next(ref next).Length;
        Splice(pos, next - pos, 0);
        Count--;
        Payload -= length;
        if (Count > 0) MaybeShrink();
        return length;
    }

    /// <summary>Removes the first k items (0 &lt; k &lt; Count); returns their payload.</summary>
    public int RemoveFirst(int k)
    {
        int pos = Start, payload = 0;
        for (int i = 0; i < k; i++) payload += Next(ref pos).Length;
        Start = pos;
        Count -= k;
        Payload -= payload;
        MaybeShrink();
        return payload;
    }

    /// <summary>Removes the last k items (0 &lt; k &lt; Count); returns their payload.</summary>
    public int RemoveLast(int k)
    {
        int end = End, payload = 0;
        for (int i = 0; i < k; i++) payload += Previous(ref end).Length;
        End = end;
        Count -= k;
        Payload -= payload;
        MaybeShrink();
        return payload;
    }

    /// <summary>Removes up to limit items equal to value, the first ones (or the last: reverse); returns how many.
    /// doomed is scratch space.</summary>
    public int RemoveEqual(ReadOnlySpan<byte> value, long limit, bool reverse, List<int> doomed)
    {
        if (Width >= 0 && value.Length != Width) return 0;
        doomed.Clear();
        if (!reverse)
        {
            int pos = Start;
            for (int i = 0; i < Count && doomed.Count < limit; i++) if (Next(ref pos).SequenceEqual(value)) doomed.Add(i);
        }
        else
        {
            int end = End;
            for (int i = Count - 1; i >= 0 && doomed.Count < limit; i--) if (Previous(ref end).SequenceEqual(value)) doomed.Add(i);
            doomed.Reverse();
        }
        if (doomed.Count == 0) return 0;
        int write = Start, read = Start, d = 0;
        for (int i = 0; i < Count; i++)
        {
            int start = read;
            Next(ref read);
            if (d < doomed.Count && doomed[d] == i) { d++; continue; }
            if (write != start) Buf.AsSpan(start, read - start).CopyTo(Buf.AsSpan(write));
            write += read - start;
        }
        End = write;
        Count -= doomed.Count;
        Payload -= doomed.Count * value.Length;
        if (Count > 0) MaybeShrink();
        return doomed.Count;
    }

    /// <summary>Splits the node at about half its Size (it keeps at least one item, the new node the rest, at least one):
    /// returns the new node, which holds the later items. Both come out sealed.</summary>
    public ListNode SplitOff()
    {
        int count, pos, payload;
        if (Width >= 0)
        {
            int s = GeneralSize(Width);
            count = Math.Clamp((Size / 2 + s - 1) / s, 1, Count - 1);
            pos = Start + count * Width;
            payload = count * Width;
        }
        else
        {
            int half = Used / 2;
            pos = Start;
            count = payload = 0;
            while (count < Count - 1 && (count == 0 || pos - Start < half))
            {
                ReadGeneral(Buf, ref pos, out int length);
                count++;
                payload += length;
            }
        }
        var right = new ListNode(Buf.AsSpan(pos, End - pos).ToArray(), 0, End - pos, Width)
        {
            Count = Count - count,
            Payload = Payload - payload,
        };
        End = pos;
        Count = count;
        Payload = payload;
        Seal();
        right.TryUniform();
        return right;
    }

    /// <summary>Checks this node's invariants; the first one broken, or null.</summary>
    public string? Broken()
    {
        if (Count <= 0) return "empty node";
        if (Start < 0 || Start > End || End > Buf.Length) return $"bounds {Start}..{End} of {Buf.Length}";
        if (Exceeds()) return $"node of {Count} items, size {Size}, exceeds the limits";
        int pos = Start, payload = 0;
        for (int i = 0; i < Count; i++)
        {
            if (pos > End) return "items run past End";
            payload += Next(ref pos).Length;
        }
        if (pos != End) return $"items end at {pos}, not at End {End}";
        if (payload != Payload) return $"payload {payload}, counted {Payload}";
        if (Width >= 0 && Used != Count * Width) return "uniform node's bytes are not Count * Width";
        return null;
    }

    /// <summary>A copy with an exact buffer.</summary>
    public ListNode Clone() => new(Buf.AsSpan(Start, Used).ToArray(), 0, Used, Width) { Count = Count, Payload = Payload };
}
