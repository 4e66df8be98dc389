// CommandStatistics: Redis's per-command figures (INFO commandstats and latencystats, LATENCY HISTOGRAM): calls, time spent,
// rejected_calls (refused before running: arity, NOAUTH, MISCONF, ...), failed_calls (ran and answered an error), and a
// latency histogram per command while latency-tracking is on.
// Invariants:
//  - The hot path (Executed) takes no lock and allocates nothing after a command's first call: counters are striped by the
//    processor the thread runs on, so threads on different cores never write the same cache line. A stripe is written
//    with plain adds, not Interlocked (measured: the locked adds cost about 0.1 µs per request at pipeline 16): a count
//    can be lost only when a thread is preempted inside the add and another thread then adds to the same counter on that
//    core, which is rare and harmless for statistics.
//  - Readers sum the stripes; CONFIG RESETSTAT zeroes them (an increment racing with the reset may survive it).
//  - Indexed by CommandDefinition.Id; one instance per server (tests run several servers in one process).
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Garnet.server.Metrics;

public sealed class CommandStatistics
{
    private const int Fields = 8; // calls, ticks, rejected, failed, padding to 64 bytes
    private const int Calls = 0, Ticks = 1, RejectedF = 2, FailedF = 3;
    private readonly int _count, _stripeMask;
    private readonly long[] _counters;
    private readonly long[]?[] _histograms;
    private static readonly double s_nsPerTick = 1e9 / Stopwatch.Frequency;

    public CommandStatistics(int commandCount)
    {
        _count = commandCount;
        int stripes = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Clamp(Environment.ProcessorCount, 1, 64));
        _stripeMask = stripes - 1;
        _counters = new long[stripes * commandCount * Fields];
        _histograms = new long[]?[stripes * commandCount];
    }

    /// <summary>latency-tracking: whether each call's duration goes into its command's histogram.</summary>
    public volatile bool TrackLatency = true;

    public static long TicksToNs(long ticks) => Stopwatch.Frequency == 1_000_000_000 ? ticks : (long)(ticks * s_nsPerTick);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int Stripe() => Thread.GetCurrentProcessorId() & _stripeMask;

    /// <summary>A call of command id ran for ticks (Stopwatch ticks); failed: it answered an error.</summary>
    public void Executed(int id, long ticks, bool failed)
    {
        int slot = Stripe() * _count + id;
        int at = slot * Fields;
        var counters = _counters;
        counters[at + Calls]++;
        counters[at + Ticks] += ticks;
        if (failed) counters[at + FailedF]++;
        if (TrackLatency)
        {
            var h = _histograms[slot] ?? NewHistogram(slot);
            h[LatencyHistogram.BucketOf(TicksToNs(ticks))]++;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private long[] NewHistogram(int slot)
    {
        Interlocked.CompareExchange(ref _histograms[slot], new long[LatencyHistogram.BucketCount], null);
        return _histograms[slot]!;
    }

    /// <summary>A call of command id was refused before it ran.</summary>
    public void Rejected(int id) => Interlocked.Increment(ref _counters[(Stripe() * _count + id) * Fields + RejectedF]);

    public readonly record struct Figures(long Calls, long Usec, long RejectedCalls, long FailedCalls)
    {
        public bool Any => Calls > 0 || RejectedCalls > 0 || FailedCalls > 0;
    }

    public Figures Read(int id)
    {
        long calls = 0, ticks = 0, rejected = 0, failed = 0;
        for (int s = 0; s <= _stripeMask; s++)
        {
            int at = (s * _count + id) * Fields;
            calls += Volatile.Read(ref _counters[at + Calls]);
            ticks += Volatile.Read(ref _counters[at + Ticks]);
            rejected += Volatile.Read(ref _counters[at + RejectedF]);
            failed += Volatile.Read(ref _counters[at + FailedF]);
        }
        return new Figures(calls, TicksToNs(ticks) / 1000, rejected, failed);
    }

    /// <summary>Command id's latency histogram summed over the stripes, or null when it has none (never called while
    /// latency-tracking was on, or reset since).</summary>
    public long[]? Histogram(int id)
    {
        long[]? sum = null;
        for (int s = 0; s <= _stripeMask; s++)
        {
            if (Volatile.Read(ref _histograms[s * _count + id]) is not { } h) continue;
            LatencyHistogram.AddInto(sum ??= new long[LatencyHistogram.BucketCount], h);
        }
        return sum is null || LatencyHistogram.Total(sum) == 0 ? null : sum;
    }

    /// <summary>How many times the figures were reset (CONFIG RESETSTAT): the Prometheus exporter counts from 0 again.</summary>
    public int Generation => Volatile.Read(ref _generation);
    private int _generation;

    /// <summary>CONFIG RESETSTAT.</summary>
    public void Reset()
    {
        Interlocked.Increment(ref _generation);
        Array.Clear(_counters);
        for (int i = 0; i < _histograms.Length; i++) Volatile.Write(ref _histograms[i], null);
    }
}
