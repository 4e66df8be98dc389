// RdbCollections: collections in RDB files and DUMP payloads, in Redis's plain encodings, which every Redis since 2.x
// loads (Redis 7 converts them to its compact forms as it loads): list = RDB_TYPE_LIST (1): count, then the items;
// set = RDB_TYPE_SET (2): count, then the members; hash = RDB_TYPE_HASH (4): count, then field and value pairs;
// sorted set = RDB_TYPE_ZSET_2 (5): count, then member and score pairs, the score as an 8-byte little-endian IEEE double.
// Redis's compact encodings (listpack, ziplist, quicklist, intset) are read by RdbCompact.
using System.Buffers;
using Garnet.server.Objects;

namespace Garnet.server.Persistence;

public static class RdbCollections
{
    public const byte TypeList = 1, TypeSet = 2, TypeZSet = 3, TypeHash = 4, TypeZSet2 = 5;

    /// <summary>Writes type byte, key and value; spill is called between elements so a buffer can be drained.</summary>
    public static void Write(IBufferWriter<byte> output, ReadOnlySpan<byte> key, CollectionObject value, Action? spill = null)
    {
        switch (value)
        {
            case ListObject list:
                output.Write([TypeList]);
                RdbEncoding.WriteString(output, key);
                RdbEncoding.WriteLength(output, list.Count);
                for (var c = list.GetCursor(0, reverse: false); c.MoveNext();)
                {
                    RdbEncoding.WriteString(output, c.Current);
                    if ((c.Index & 255) == 255) spill?.Invoke();
                }
                break;
            case SetObject set:
            {
                output.Write([TypeSet]);
                RdbEncoding.WriteString(output, key);
                RdbEncoding.WriteLength(output, set.Count);
                long written = 0;
                foreach (var m in set.Slots)
                {
                    RdbEncoding.WriteString(output, m);
                    if ((++written & 255) == 0) spill?.Invoke();
                }
                break;
            }
            case HashObject hash:
                output.Write([TypeHash]);
                RdbEncoding.WriteString(output, key);
                RdbEncoding.WriteLength(output, hash.Count);
                long n = 0;
                foreach (var (f, v) in hash.Entries)
                {
                    RdbEncoding.WriteString(output, f);
                    RdbEncoding.WriteString(output, v);
                    if ((++n & 255) == 0) spill?.Invoke();
                }
                break;
            case SortedSetObject zset:
            {
                output.Write([TypeZSet2]);
                RdbEncoding.WriteString(output, key);
                RdbEncoding.WriteLength(output, zset.Count);
                long k = 0;
                Span<byte> score = stackalloc byte[8];
                foreach (var (m, sc) in zset.Entries)
                {
                    RdbEncoding.WriteString(output, m);
                    System.Buffers.Binary.BinaryPrimitives.WriteDoubleLittleEndian(score, sc);
                    output.Write(score);
                    if ((++k & 255) == 0) spill?.Invoke();
                }
                break;
            }
            case StreamObject stream:
                output.Write([StreamRdb.TypeStream2]);
                RdbEncoding.WriteString(output, key);
                StreamRdb.WriteValue(output, stream, spill);
                break;
            default:
                throw new NotSupportedException("no RDB encoding for " + value.TypeName);
        }
    }

    /// <summary>Writes only the value of a collection (type byte, then the encoded value: a DUMP payload's body).</summary>
    public static void WriteValue(IBufferWriter<byte> output, CollectionObject value)
    {
        var withKey = new ArrayBufferWriter<byte>();
        Write(withKey, ReadOnlySpan<byte>.Empty, value);
        // Drop the empty key (its length byte, 0) after the type byte.
        var bytes = withKey.WrittenSpan;
        output.Write(bytes[..1]);
        output.Write(bytes[2..]);
    }

    /// <summary>Reads a collection value of the given RDB type (length, strings and 8-byte binary doubles through the
    /// reader's own functions).</summary>
    /// <summary>Reads a collection value of type. takeDouble reads a binary score (type 5); takeTextDouble a score of the
    /// old type 3 (a length byte, then the digits; 253 NaN, 254 +inf, 255 -inf).</summary>
    public static CollectionObject Read(byte type, Func<long> takeLength, Func<byte[]> takeString, Func<string, Exception> bad,
        Func<double>? takeDouble = null, Func<double>? takeTextDouble = null)
    {
        if (RdbCompact.Reads(type))
        {
            try { return RdbCompact.Read(type, takeLength, takeString); }
            catch (InvalidDataException ex) { throw bad(ex.Message); }
        }
        long count = takeLength();
        if (count == 0) throw bad("an empty collection (Redis never stores one)");
        switch (type)
        {
            case TypeList:
            {
                var list = new ListObject();
                for (long i = 0; i < count; i++) list.PushTail(takeString());
                return list;
            }
            case TypeSet:
            {
                var members = new List<byte[]>((int)Math.Min(count, 1 << 16));
                for (long i = 0; i < count; i++) members.Add(takeString());
                var set = new SetObject();
                if (set.AddMany(members) != members.Count) throw bad("a set with a repeated member");
                return set;
            }
            case TypeHash:
            {
                var hash = new HashObject();
                for (long i = 0; i < count; i++)
                {
                    var field = takeString();
                    if (!hash.Set(field, takeString())) throw bad("a hash with a repeated field");
                }
                return hash;
            }
            case TypeZSet2:
            case TypeZSet:
            {
                var score = type == TypeZSet ? takeTextDouble : takeDouble;
                if (score is null) throw bad("sorted sets are not supported here");
                var zset = new SortedSetObject();
                for (long i = 0; i < count; i++)
                {
                    var member = takeString();
                    double value = score();
                    if (double.IsNaN(value)) throw bad("a sorted set score that is not a number");
                    if (zset.Contains(member)) throw bad("a sorted set with a repeated member");
                    zset.Set(member, value);
                }
                return zset;
            }
            default:
                throw bad($"value type {type} is not supported");
        }
    }
}
