// RepeatedPicks: the elements of SRANDMEMBER and HRANDFIELD with a negative count (repeats allowed), a reply that may hold
// millions of elements drawn from a small collection.
// Invariants:
//  - Nothing is allocated per reply element: the picks are drawn twice from one seed, once to size the reply exactly and
//    once to write it, so the reply buffer is allocated once at its final size (never regrown and copied as it fills);
//    the memory a reply takes is about its own size in bytes, as Redis's.
//  - The caller writes the aggregate header; at most RandomPicks.MaxReplyElements elements.
using Garnet.common.Resp;

namespace Garnet.server.Commands;

internal static class RepeatedPicks
{
    /// <summary>Writes n elements of source picked at random with repeats; size(e) is the bytes write(e) writes.</summary>
    public static void Write<T>(RespWriter writer, IReadOnlyList<T> source, long n, Func<T, long> size, Action<RespWriter, T> write)
    {
        int seed = Random.Shared.Next();
        var draw = new Random(seed);
        long bytes = 0;
        for (long i = 0; i < n; i++) bytes += size(source[draw.Next(source.Count)]);
        writer.EnsureFree(bytes);
        draw = new Random(seed);
        for (long i = 0; i < n; i++) write(writer, source[draw.Next(source.Count)]);
    }

    /// <summary>Bytes of a RESP bulk string of length bytes: $len\r\n ... \r\n.</summary>
    public static long BulkSize(int length) => 1 + DecimalDigits(length) + 2 + length + 2;

    private static int DecimalDigits(int v)
    {
        int d = 1;
        while (v >= 10) { v /= 10; d++; }
        return d;
    }
}
