// RdbCompact: reads the compact encodings Redis writes in RDB files and DUMP payloads: ziplist (Redis <= 6.2), listpack
// (Redis 7), intset, and the quicklists made of them, for lists, hashes, sets and sorted sets. Each decodes to the plain list of elements (integers as their
// decimal text, as Redis returns them); the callers build collections from those.
// Invariants: every length and offset is checked against the blob; malformed bytes throw InvalidDataException and
// nothing is built from them.
using System.Buffers.Binary;
using System.Globalization;
using System.Text;

namespace Garnet.server.Persistence;

public static class RdbCompact
{
    public const byte TypeListZiplist = 10, TypeSetIntset = 11, TypeZSetZiplist = 12, TypeHashZiplist = 13,
        TypeListQuicklist = 14, TypeHashListpack = 16, TypeZSetListpack = 17, TypeListQuicklist2 = 18, TypeSetListpack = 20;

    private static InvalidDataException Bad(string what) => new("malformed " + what);

    /// <summary>Compact types this server reads (sorted sets' come with that type).</summary>
    public static bool Reads(byte type) => type is TypeListZiplist or TypeHashZiplist or TypeListQuicklist or TypeHashListpack or TypeListQuicklist2
        or TypeSetIntset or TypeSetListpack or TypeZSetZiplist or TypeZSetListpack;

    /// <summary>Reads a value of a compact type (see Reads) through the RDB reader's own string and length functions.</summary>
    public static Garnet.server.Objects.CollectionObject Read(byte type, Func<long> takeLength, Func<byte[]> takeString)
    {
        switch (type)
        {
            case TypeListZiplist: return ListOf(Ziplist(takeString()));
            case TypeHashZiplist: return HashOf(Ziplist(takeString()));
            case TypeHashListpack: return HashOf(Listpack(takeString()));
            case TypeSetIntset: return SetOf(Intset(takeString()));
            case TypeSetListpack: return SetOf(Listpack(takeString()));
            case TypeZSetZiplist: return SortedSetOf(Ziplist(takeString()));
            case TypeZSetListpack: return SortedSetOf(Listpack(takeString()));
            case TypeListQuicklist:
            {
                long nodes = takeLength();
                var list = new Garnet.server.Objects.ListObject();
                for (long i = 0; i < nodes; i++) foreach (var item in Ziplist(takeString())) list.PushTail(item);
                return NotEmpty(list);
            }
            case TypeListQuicklist2:
            {
                long nodes = takeLength();
                var list = new Garnet.server.Objects.ListObject();
                for (long i = 0; i < nodes; i++)
                {
                    long container = takeLength();
                    var blob = takeString();
                    if (container == 1) list.PushTail(blob); // a plain node: one large element
                    else if (container == 2) foreach (var item in Listpack(blob)) list.PushTail(item);
                    else throw Bad("quicklist node container");
                }
                return NotEmpty(list);
            }
            default: throw Bad($"value of type {type}");
        }
    }

    private static Garnet.server.Objects.CollectionObject ListOf(List<byte[]> items)
    {
        var list = new Garnet.server.Objects.ListObject();
        foreach (var item in items) list.PushTail(item);
        return NotEmpty(list);
    }

    private static Garnet.server.Objects.CollectionObject SetOf(List<byte[]> members)
    {
        var set = new Garnet.server.Objects.SetObject();
        foreach (var m in members) if (!set.Add(m)) throw Bad("set (a repeated member)");
        return NotEmpty(set);
    }

    private static Garnet.server.Objects.CollectionObject HashOf(List<byte[]> items)
    {
        if (items.Count % 2 != 0) throw Bad("hash (a field without a value)");
        var hash = new Garnet.server.Objects.HashObject();
        for (int i = 0; i < items.Count; i += 2)
            if (!hash.Set(items[i], items[i + 1])) throw Bad("hash (a repeated field)");
        return NotEmpty(hash);
    }

    /// <summary>Member, score, member, score, ... (scores as Redis prints them: integers, %.17g, inf, -inf).</summary>
    private static Garnet.server.Objects.CollectionObject SortedSetOf(List<byte[]> items)
    {
        if (items.Count % 2 != 0) throw Bad("sorted set (a member without a score)");
        var zset = new Garnet.server.Objects.SortedSetObject();
        for (int i = 0; i < items.Count; i += 2)
        {
            if (!Garnet.server.Storage.NumberParsing.TryParseDouble(items[i + 1], out double score)) throw Bad("sorted set score");
            if (zset.Contains(items[i])) throw Bad("sorted set (a repeated member)");
            zset.Set(items[i], score);
        }
        return NotEmpty(zset);
    }

    private static Garnet.server.Objects.CollectionObject NotEmpty(Garnet.server.Objects.CollectionObject c) =>
        c.Count > 0 ? c : throw Bad("collection (empty: Redis never stores one)");

    private static byte[] Number(long v) => Encoding.ASCII.GetBytes(v.ToString(CultureInfo.InvariantCulture));

    /// <summary>The entries of a ziplist.</summary>
    public static List<byte[]> Ziplist(ReadOnlySpan<byte> z)
    {
        if (z.Length < 11) throw Bad("ziplist (too short)");
        if (BinaryPrimitives.ReadUInt32LittleEndian(z) != z.Length) throw Bad("ziplist (length)");
        var items = new List<byte[]>();
        int at = 10;
        while (true)
        {
            if (at >= z.Length) throw Bad("ziplist (no end)");
            if (z[at] == 0xFF) break;
            // previous entry length: 1 byte, or 0xFE and 4 bytes
            at += z[at] < 0xFE ? 1 : 5;
            if (at >= z.Length) throw Bad("ziplist entry");
            byte e = z[at];
            switch (e >> 6)
            {
                case 0: items.Add(Slice(z, at + 1, e & 0x3F, "ziplist string")); at += 1 + (e & 0x3F); break;
                case 1:
                {
                    Need(z, at, 2, "ziplist string");
                    int n = ((e & 0x3F) << 8) | z[at + 1];
                    items.Add(Slice(z, at + 2, n, "ziplist string"));
                    at += 2 + n;
                    break;
                }
                case 2:
                {
                    Need(z, at, 5, "ziplist string");
                    long n = BinaryPrimitives.ReadUInt32BigEndian(z[(at + 1)..]);
                    if (n > int.MaxValue) throw Bad("ziplist string length");
                    items.Add(Slice(z, at + 5, (int)n, "ziplist string"));
                    at += 5 + (int)n;
                    break;
                }
                default:
                {
                    long v;
                    int size;
                    switch (e)
                    {
                        case 0xC0: Need(z, at, 3, "ziplist int"); v = BinaryPrimitives.ReadInt16LittleEndian(z[(at + 1)..]); size = 3; break;
                        case 0xD0: Need(z, at, 5, "ziplist int"); v = BinaryPrimitives.ReadInt32LittleEndian(z[(at + 1)..]); size = 5; break;
                        case 0xE0: Need(z, at, 9, "ziplist int"); v = BinaryPrimitives.ReadInt64LittleEndian(z[(at + 1)..]); size = 9; break;
                        case 0xF0: Need(z, at, 4, "ziplist int"); v = (z[at + 1] | (z[at + 2] << 8) | (z[at + 3] << 16)) << 8 >> 8; size = 4; break;
                        case 0xFE: Need(z, at, 2, "ziplist int"); v = (sbyte)z[at + 1]; size = 2; break;
                        default:
                            if (e is < 0xF1 or > 0xFD) throw Bad("ziplist entry encoding");
                            v = (e & 0x0F) - 1; size = 1; break;
                    }
                    items.Add(Number(v));
                    at += size;
                    break;
                }
            }
        }
        return items;
    }

    /// <summary>The entries of a listpack.</summary>
    public static List<byte[]> Listpack(ReadOnlySpan<byte> p)
    {
        if (p.Length < 7) throw Bad("listpack (too short)");
        if (BinaryPrimitives.ReadUInt32LittleEndian(p) != p.Length) throw Bad("listpack (length)");
        var items = new List<byte[]>();
        int at = 6;
        while (true)
        {
            if (at >= p.Length) throw Bad("listpack (no end)");
            byte e = p[at];
            if (e == 0xFF) break;
            int start = at;
            if ((e & 0x80) == 0) { items.Add(Number(e & 0x7F)); at += 1; }
            else if ((e & 0xC0) == 0x80) { int n = e & 0x3F; items.Add(Slice(p, at + 1, n, "listpack string")); at += 1 + n; }
            else if ((e & 0xE0) == 0xC0)
            {
                Need(p, at, 2, "listpack int");
                int v = ((e & 0x1F) << 8) | p[at + 1];
                items.Add(Number(v >= 1 << 12 ? v - (1 << 13) : v));
                at += 2;
            }
            else if ((e & 0xF0) == 0xE0)
            {
                Need(p, at, 2, "listpack string");
                int n = ((e & 0x0F) << 8) | p[at + 1];
                items.Add(Slice(p, at + 2, n, "listpack string"));
                at += 2 + n;
            }
            else
            {
                switch (e)
                {
                    case 0xF0:
                    {
                        Need(p, at, 5, "listpack string");
                        long n = BinaryPrimitives.ReadUInt32LittleEndian(p[(at + 1)..]);
                        if (n > int.MaxValue) throw Bad("listpack string length");
                        items.Add(Slice(p, at + 5, (int)n, "listpack string"));
                        at += 5 + (int)n;
                        break;
                    }
                    case 0xF1: Need(p, at, 3, "listpack int"); items.Add(Number(BinaryPrimitives.ReadInt16LittleEndian(p[(at + 1)..]))); at += 3; break;
                    case 0xF2: Need(p, at, 4, "listpack int"); items.Add(Number((p[at + 1] | (p[at + 2] << 8) | (p[at + 3] << 16)) << 8 >> 8)); at += 4; break;
                    case 0xF3: Need(p, at, 5, "listpack int"); items.Add(Number(BinaryPrimitives.ReadInt32LittleEndian(p[(at + 1)..]))); at += 5; break;
                    case 0xF4: Need(p, at, 9, "listpack int"); items.Add(Number(BinaryPrimitives.ReadInt64LittleEndian(p[(at + 1)..]))); at += 9; break;
                    default: throw Bad("listpack entry encoding");
                }
            }
            // The entry's length, stored backwards after it in 1..5 bytes of 7 bits.
            int length = at - start;
            at += ListpackWriter.BacklenSize(length); // Redis's lpEncodeBacklen thresholds
        }
        if (at != p.Length - 1) throw Bad("listpack (bytes after the end)");
        return items;
    }

    /// <summary>The members of an intset, as decimal text.</summary>
    public static List<byte[]> Intset(ReadOnlySpan<byte> s)
    {
        if (s.Length < 8) throw Bad("intset");
        uint width = BinaryPrimitives.ReadUInt32LittleEndian(s);
        uint count = BinaryPrimitives.ReadUInt32LittleEndian(s[4..]);
        if (width is not (2 or 4 or 8) || 8 + (long)width * count != s.Length) throw Bad("intset");
        var items = new List<byte[]>((int)Math.Min(count, 1 << 16));
        for (int i = 0; i < count; i++)
        {
            var at = s[(8 + i * (int)width)..];
            long v = width switch { 2 => BinaryPrimitives.ReadInt16LittleEndian(at), 4 => BinaryPrimitives.ReadInt32LittleEndian(at), _ => BinaryPrimitives.ReadInt64LittleEndian(at) };
            items.Add(Number(v));
        }
        return items;
    }

    private static void Need(ReadOnlySpan<byte> b, int at, int n, string what)
    {
        if (at + n > b.Length) throw Bad(what);
    }

    private static byte[] Slice(ReadOnlySpan<byte> b, int at, int n, string what)
    {
        if (n < 0 || at + n > b.Length) throw Bad(what);
        return b.Slice(at, n).ToArray();
    }
}
