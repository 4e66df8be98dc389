// LargeBuffers: byte arrays for request, reply and I/O buffers. Small ones come from ArrayPool<byte>.Shared. Large ones
// (more than PoolLimit bytes) do not: the shared pool keeps every array it is given for as long as the process lives
// (per thread and per core), so 200 MB requests on a few threads would pin gigabytes for good. Instead:
//  - a returned large array waits in a small cache (at most CacheEntries arrays, CacheBytes in all) for CacheTime, so
//    back-to-back large requests or replies reuse it instead of making garbage;
//  - an array that does not fit in the cache, or waited there longer than CacheTime, is dropped and reported to
//    MemoryReclaimer, which makes the GC give the memory back.
// Rent may return a larger array than asked for (the smallest cached one that fits); callers use what they asked for.
using System.Buffers;

namespace Garnet.common.Util;

public static class LargeBuffers
{
    /// <summary>Arrays up to this size are pooled; larger ones are cached briefly, then dropped.</summary>
    public const int PoolLimit = 1 << 20;
    public const int CacheEntries = 4;
    public const long CacheBytes = 512L << 20;
    public static readonly TimeSpan CacheTime = TimeSpan.FromSeconds(2);

    private static readonly List<(byte[] array, long returnedMs)> Cache = new();
    // A timer callback: an exception escaping it would end the process.
    private static readonly Timer ExpiryTimer = new(_ =>
    {
        try { Expire(); }
        catch (Exception ex) { FaultPoints.Report("the large buffer cache's timer", ex); }
    }, null, Timeout.Infinite, Timeout.Infinite);
    private static long _cachedBytes;

    /// <summary>Bytes of large arrays waiting in the cache.</summary>
    public static long CachedBytes => Interlocked.Read(ref _cachedBytes);

    /// <summary>An array of at least size bytes; contents are undefined.</summary>
    public static byte[] Rent(int size)
    {
        if (size <= PoolLimit) return ArrayPool<byte>.Shared.Rent(size);
        lock (Cache)
        {
            int best = -1;
            for (int i = 0; i < Cache.Count; i++)
                if (Cache[i].array.Length >= size && (best < 0 || Cache[i].array.Length < Cache[best].array.Length)) best = i;
            if (best >= 0)
            {
                var a = Cache[best].array;
                Cache.RemoveAt(best);
                Interlocked.Add(ref _cachedBytes, -a.Length);
                return a;
            }
        }
        return GC.AllocateUninitializedArray<byte>(size);
    }

    /// <summary>Gives back an array from Rent, or one the caller drops (an empty one is ignored; a small one whose size is
    /// not a pool bucket's is left to the GC). The caller must not use it any more.</summary>
    public static void Return(byte[] array)
    {
        if (array.Length == 0) return;
        if (array.Length <= PoolLimit)
        {
            // Exact-size arrays (a staged receive growth's) are not of a pool bucket's size: the shared pool would throw.
            if (System.Numerics.BitOperations.IsPow2(array.Length) && array.Length >= 16) ArrayPool<byte>.Shared.Return(array);
            return;
        }
        long dropped = 0;
        lock (Cache)
        {
            if (array.Length > CacheBytes) dropped = array.Length;
            else
            {
                // Oldest out first, until the new one fits.
                while (Cache.Count >= CacheEntries || Interlocked.Read(ref _cachedBytes) + array.Length > CacheBytes)
                {
                    dropped += Cache[0].array.Length;
                    Interlocked.Add(ref _cachedBytes, -Cache[0].array.Length);
                    Cache.RemoveAt(0);
                }
                Cache.Add((array, Environment.TickCount64));
                Interlocked.Add(ref _cachedBytes, array.Length);
                if (Cache.Count == 1) ExpiryTimer.Change(CacheTime, Timeout.InfiniteTimeSpan);
            }
        }
        MemoryReclaimer.Released(dropped);
    }

    /// <summary>Drops what waited longer than CacheTime; re-arms for the rest.</summary>
    private static void Expire()
    {
        long dropped = 0;
        lock (Cache)
        {
            long now = Environment.TickCount64, limit = (long)CacheTime.TotalMilliseconds;
            while (Cache.Count > 0 && now - Cache[0].returnedMs >= limit)
            {
                dropped += Cache[0].array.Length;
                Interlocked.Add(ref _cachedBytes, -Cache[0].array.Length);
                Cache.RemoveAt(0);
            }
            if (Cache.Count > 0) ExpiryTimer.Change(Math.Max(1, Cache[0].returnedMs + limit - now), Timeout.Infinite);
        }
        MemoryReclaimer.Released(dropped);
    }
}
