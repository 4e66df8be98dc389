// ExpirySampler: estimates INFO's avg_ttl (per database) and expired_stale_perc from a bounded sample of the records in
// memory, as Redis estimates them from the keys its expiry cycle samples. Each call walks at most RecordBudget records
// of the in-memory log, from where the previous call stopped (wrapping at the tail), and looks at those with an
// expiration: not yet expired ones give the TTLs averaged per database, expired ones the stale percentage.
// Invariants:
//  - Cost is bounded: one epoch barrier plus at most RecordBudget record headers read under epoch protection. Nothing
//    is written to the store.
//  - The walk stops at the tail read before the barrier, so every record it reads is completely written.
//  - A database whose sample has no live TTL keeps its previous estimate (0 until one was made), as Redis keeps avg_ttl
//    between expiry cycles. Records replaced by a newer version (sealed) or deleted are skipped; a replaced record not yet
//    sealed may still count: it is an estimate.
using System.Runtime.CompilerServices;
using Garnet.server.Storage;
using Garnet.storage.Log;
using Garnet.storage.Store;

namespace Garnet.server.Metrics;

public sealed unsafe class ExpirySampler
{
    public const int RecordBudget = 50_000;

    private static readonly ConditionalWeakTable<StoreHost, ExpirySampler> s_samplers = new();

    /// <summary>The sampler of a store (one per server).</summary>
    public static ExpirySampler For(StoreHost host) => s_samplers.GetValue(host, _ => new ExpirySampler());

    private readonly object _lock = new();
    private long _cursor;
    private readonly Dictionary<int, long> _avgTtlByPhysicalId = new();
    private double _stalePercent;

    public readonly record struct Estimate(IReadOnlyDictionary<int, long> AvgTtlMsByPhysicalId, double StalePercent);

    /// <summary>Takes a sample now and returns the estimates (avg TTL in ms by physical database id; stale percent).</summary>
    public Estimate Sample(KVStore store)
    {
        lock (_lock)
        {
            if (store.ExpiringKeyCount == 0)
            {
                _avgTtlByPhysicalId.Clear();
                _stalePercent = 0;
                return new Estimate(new Dictionary<int, long>(), 0);
            }
            long end = store.Log.TailAddress;
            // Records below `end` are completely written once every operation in flight now has finished.
            if (!store.WaitForOperationsInFlight(TimeSpan.FromSeconds(1)))
                return new Estimate(new Dictionary<int, long>(_avgTtlByPhysicalId), _stalePercent);
            var sums = new Dictionary<int, (double sum, long count)>();
            long withTtl = 0, expired = 0;
            _cursor = Walk(store, _cursor, end, RecordBudget, DateTimeOffset.UtcNow.ToUnixTimeMilliseconds(), sums, ref withTtl, ref expired);
            foreach (var (id, (sum, count)) in sums) _avgTtlByPhysicalId[id] = (long)(sum / count);
            if (withTtl > 0) _stalePercent = expired * 100.0 / withTtl;
            return new Estimate(new Dictionary<int, long>(_avgTtlByPhysicalId), _stalePercent);
        }
    }

    private static long Walk(KVStore store, long cursor, long end, int budget, long nowMs,
        Dictionary<int, (double sum, long count)> sums, ref long withTtl, ref long expired)
    {
        var log = store.Log;
        store.Epoch.Acquire();
        try
        {
            long head = log.HeadAddress;
            if (cursor < head || cursor >= end) cursor = Math.Max(head, HybridLog.FirstValidAddress);
            while (budget-- > 0 && cursor < end)
            {
                long pageEnd = log.PageStart(log.PageOf(cursor) + 1);
                if (pageEnd - cursor < RecordLayout.HeaderSize) { cursor = pageEnd; continue; }
                byte* r = log.GetPhysical(cursor);
                if (!RecordLayout.IsPresent(r)) { cursor = pageEnd; continue; }
                int size = RecordLayout.TotalSize(r);
                if (size <= 0 || size > pageEnd - cursor) { cursor = pageEnd; continue; }
                ulong info = Volatile.Read(ref RecordLayout.Info(r));
                if ((info & (RecordInfo.Invalid | RecordInfo.Tombstone | RecordInfo.Sealed)) == 0 && RecordLayout.HasExpiration(r)
                    && RecordLayout.KeyLength(r) >= 2)
                {
                    withTtl++;
                    long ttl = RecordLayout.Expiration(r) - nowMs;
                    if (ttl <= 0) expired++;
                    else
                    {
                        var key = RecordLayout.Key(r);
                        int id = (key[0] << 8) | key[1];
                        sums.TryGetValue(id, out var s);
                        sums[id] = (s.sum + ttl, s.count + 1);
                    }
                }
                cursor += size;
            }
            return cursor;
        }
        finally { store.Epoch.Release(); }
    }
}
