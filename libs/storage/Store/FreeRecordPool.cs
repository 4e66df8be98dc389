// FreeRecordPool: log space of deleted records, offered again to new keys (space reuse).
// Invariants:
//  - An address enters the pool only through an epoch action that runs after every thread that could have seen
//    the record has moved on (StoreSession batches them), so a record taken from here is read by nobody.
//  - Records are binned by total size (8-byte units, up to MaxBytes) and by whether they have an expiration field;
//    a record is reused only for a record of the same shape whose size is at most 56 bytes smaller (the
//    difference becomes value slack), so its total size, which page scans rely on, never changes.
//  - Only records still in the mutable region are handed out; older ones are dropped as they are met.
using System.Collections.Concurrent;

namespace Garnet.storage.Store;

public sealed class FreeRecordPool
{
    public const int MaxBytes = 4096;
    private const int Units = MaxBytes / 8;
    private const int MaxEntries = 1 << 20;

    private readonly ConcurrentQueue<long>?[] _bins = new ConcurrentQueue<long>?[2 * (Units + 1)];
    private long _count, _reused, _dropped;

    /// <summary>Addresses waiting for reuse.</summary>
    public long Count => Interlocked.Read(ref _count);
    /// <summary>Records created in reused space so far.</summary>
    public long Reused => Interlocked.Read(ref _reused);
    /// <summary>Free records that left the mutable region before anyone reused them.</summary>
    public long Dropped => Interlocked.Read(ref _dropped);

    public static bool Eligible(int size) => size <= MaxBytes;

    private static int BinOf(int size, bool hasExpiration) => (size >> 3) * 2 + (hasExpiration ? 1 : 0);

    /// <summary>Packs what the pool needs of a freed record.</summary>
    public static long Pack(long address, int size, bool hasExpiration) =>
        address | ((long)(size >> 3) << 48) | (hasExpiration ? 1L << 62 : 0);

    public void Add(long[] packed, int count)
    {
        for (int i = 0; i < count; i++)
        {
            long p = packed[i];
            if (Interlocked.Read(ref _count) >= MaxEntries) return;
            int size = (int)((p >> 48) & 0x3FFF) << 3;
            bool exp = (p & (1L << 62)) != 0;
            int bin = BinOf(size, exp);
            var q = Volatile.Read(ref _bins[bin]);
            if (q is null)
            {
                Interlocked.CompareExchange(ref _bins[bin], new ConcurrentQueue<long>(), null);
                q = _bins[bin]!;
            }
            q.Enqueue(p & ((1L << 48) - 1));
            Interlocked.Increment(ref _count);
        }
    }

    /// <summary>
    /// Takes a free record of size in [size, size + 56] and the given shape, at an address above chainHead (so the
    /// chain it joins stays ordered by address) and at or above readOnly (mutable). Returns its size, or 0.
    /// </summary>
    public int TryTake(int size, bool hasExpiration, long chainHead, long readOnly, out long address)
    {
        address = 0;
        if (Interlocked.Read(ref _count) == 0) return 0;
        for (int s = size; s <= Math.Min(size + 56, MaxBytes); s += 8)
        {
            var q = Volatile.Read(ref _bins[BinOf(s, hasExpiration)]);
            if (q is null) continue;
            while (q.TryDequeue(out long a))
            {
                Interlocked.Decrement(ref _count);
                if (a < readOnly) { Interlocked.Increment(ref _dropped); continue; }
                if (a <= chainHead)
                {
                    q.Enqueue(a); // fine for another chain
                    Interlocked.Increment(ref _count);
                    break;
                }
                Interlocked.Increment(ref _reused);
                address = a;
                return s;
            }
        }
        return 0;
    }
}
