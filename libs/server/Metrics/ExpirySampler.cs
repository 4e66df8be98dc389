// ExpirySampler: estimates INFO's avg_ttl (per database) and expired_stale_perc from a bounded sample of the records in
// memory, as Redis estimates them from the keys its expiry cycle samples. Each call walks at most RecordBudget records
// of the in-memory log (InMemoryRecordWalker.Resume), from where the previous call stopped (wrapping at the tail), and
// looks at those with an expiration: not yet expired ones give the TTLs averaged per database, expired ones the stale
// percentage.
// Invariants:
//  - Cost is bounded: one epoch barrier plus at most RecordBudget record headers read under epoch protection. Nothing
//    is written to the store.
//  - The walk stops at the tail read before the barrier, so every record it reads is completely written.
//  - A database whose sample has no live TTL keeps its previous estimate (0 until one was made), as Redis keeps avg_ttl
//    between expiry cycles. Records replaced by a newer version (sealed) or deleted are skipped; a replaced record not yet
//    sealed may still count: it is an estimate.
using System.Runtime.CompilerServices;
using Garnet.server.Storage;
using Garnet.storage.Store;

namespace Garnet.server.Metrics;

public sealed class ExpirySampler
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
            if (!InMemoryRecordWalker.TryGetWrittenEnd(store, TimeSpan.FromSeconds(1), out long end))
                return new Estimate(new Dictionary<int, long>(_avgTtlByPhysicalId), _stalePercent);
            var tally = new TtlTally(DateTimeOffset.UtcNow.ToUnixTimeMilliseconds());
            _cursor = InMemoryRecordWalker.Resume(store, _cursor, end, RecordBudget, ref tally).Cursor;
            foreach (var (id, (sum, count)) in tally.Sums) _avgTtlByPhysicalId[id] = (long)(sum / count);
            if (tally.WithTtl > 0) _stalePercent = tally.Expired * 100.0 / tally.WithTtl;
            return new Estimate(new Dictionary<int, long>(_avgTtlByPhysicalId), _stalePercent);
        }
    }

    /// <summary>Adds up the records with an expiration (not sealed, with a database prefix): live TTLs per database,
    /// and how many have expired. The walk leaves out invalid records and tombstones.</summary>
    private struct TtlTally(long nowMs) : IRecordVisitor
    {
        public readonly Dictionary<int, (double sum, long count)> Sums = new();
        public long WithTtl, Expired;

        public void Visit(in WalkedRecord record)
        {
            if (record.IsSealed || !record.HasExpiration || record.KeyLength < 2) return;
            WithTtl++;
            long ttl = record.Expiration - nowMs;
            if (ttl <= 0) { Expired++; return; }
            var key = record.Key;
            int id = (key[0] << 8) | key[1];
            Sums.TryGetValue(id, out var s);
            Sums[id] = (s.sum + ttl, s.count + 1);
        }
    }
}
