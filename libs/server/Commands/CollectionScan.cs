// CollectionScan: HSCAN, SSCAN and ZSCAN's arguments and reply. The cursor is a position in the collection's element
// order. A collection of at most WholeReplyLimit elements is answered in one call with cursor 0 (as Redis answers its
// compact encodings); a larger one COUNT elements at a time.
// Known limit: elements removed between calls shift later ones back, which may then be missed (Redis's reverse-binary
// cursor guarantees they are not); see docs/objects.md.
using System.Text;
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.server.Util;

namespace Garnet.server.Commands;

internal static class CollectionScan
{
    public const int WholeReplyLimit = 512;

    public readonly record struct Request(long Cursor, string? Pattern, long Count, bool NoValues);

    /// <summary>Parses "key cursor [MATCH pattern] [COUNT count] [NOVALUES]"; false after writing the error.</summary>
    public static bool TryParse(CommandContext s, out Request request, bool allowNoValues = false)
    {
        request = default;
        if (!ulong.TryParse(s.ArgString(2), System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out ulong cursor))
        { s.WriteError("ERR invalid cursor"); return false; }
        string? pattern = null;
        long count = 10;
        bool noValues = false;
        for (int i = 3; i < s.Argc; i++)
        {
            if (allowNoValues && s.ArgEquals(i, "NOVALUES"u8)) { noValues = true; continue; }
            if (i + 1 >= s.Argc) { s.WriteError("ERR syntax error"); return false; }
            if (s.ArgEquals(i, "MATCH"u8)) pattern = Encoding.Latin1.GetString(s.Arg(++i));
            else if (s.ArgEquals(i, "COUNT"u8))
            {
                if (!NumberParsing.TryParseInt64(s.Arg(++i), out count)) { s.WriteError(StringFunctions.NotInteger); return false; }
                if (count < 1) { s.WriteError("ERR syntax error"); return false; }
            }
            else { s.WriteError("ERR syntax error"); return false; }
        }
        request = new Request((long)Math.Min(cursor, long.MaxValue), pattern, count, noValues);
        return true;
    }

    /// <summary>Writes [next cursor, elements] for the elements (with their values when value is not null).</summary>
    public static void Write(CommandContext s, Request request, IReadOnlyList<(byte[] Element, byte[]? Value)> all)
    {
        long start = all.Count <= WholeReplyLimit ? 0 : Math.Min(request.Cursor, all.Count);
        long end = all.Count <= WholeReplyLimit ? all.Count : Math.Min(all.Count, start + request.Count);
        var picked = new List<(byte[], byte[]?)>();
        for (long i = start; i < end; i++)
        {
            var (e, v) = all[(int)i];
            if (request.Pattern is not null && request.Pattern != "*" && !GlobPattern.Matches(request.Pattern, Encoding.Latin1.GetString(e))) continue;
            picked.Add((e, request.NoValues ? null : v));
        }
        s.Writer.WriteArrayHeader(2);
        s.Writer.WriteBulkString(end >= all.Count ? "0" : end.ToString());
        s.Writer.WriteArrayHeader(picked.Sum(p => p.Item2 is null ? 1 : 2));
        foreach (var (e, v) in picked)
        {
            s.Writer.WriteBulkString(e);
            if (v is not null) s.Writer.WriteBulkString(v);
        }
    }
}

/// <summary>HRANDFIELD, SRANDMEMBER and ZRANDMEMBER's choice: distinct elements for a positive count, repeats allowed
/// for a negative one.</summary>
internal static class RandomPicks
{
    /// <summary>Largest number of elements one reply may hold (a larger negative count would build a reply of gigabytes).</summary>
    public const long MaxReplyElements = 1L << 24;

    public static List<T> Pick<T>(IReadOnlyList<T> all, long count)
    {
        var result = new List<T>();
        if (all.Count == 0 || count == 0) return result;
        if (count < 0)
        {
            long n = Math.Min(-count, MaxReplyElements);
            for (long i = 0; i < n; i++) result.Add(all[Random.Shared.Next(all.Count)]);
            return result;
        }
        if (count >= all.Count) { result.AddRange(all); Shuffle(result); return result; }
        // A partial Fisher-Yates over indices: count distinct elements.
        var indices = Enumerable.Range(0, all.Count).ToArray();
        for (int i = 0; i < count; i++)
        {
            int j = Random.Shared.Next(i, indices.Length);
            (indices[i], indices[j]) = (indices[j], indices[i]);
            result.Add(all[indices[i]]);
        }
        return result;
    }

    private static void Shuffle<T>(List<T> list)
    {
        for (int i = list.Count - 1; i > 0; i--)
        {
            int j = Random.Shared.Next(i + 1);
            (list[i], list[j]) = (list[j], list[i]);
        }
    }
}
