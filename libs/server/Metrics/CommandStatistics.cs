// CommandStatistics: Redis's per-command figures (INFO commandstats and latencystats, LATENCY HISTOGRAM): calls, time spent,
// rejected_calls (refused before running: arity, NOAUTH, MISCONF, ...), failed_calls (ran and answered an error), and a
// latency histogram per command while latency-tracking is on.
// Invariants:
//  - Exact counts: every thread that runs commands has its own block of counters (a ThreadLocal that keeps the blocks of
//    threads that ended), and only that thread writes it, so plain adds lose nothing; no lock, no Interlocked, and
//    nothing allocated on the command path after a thread's first call of a command.
//  - Readers sum the blocks (a count read while its thread adds may be one behind, never lost).
//  - CONFIG RESETSTAT does not write other threads' blocks: it records the sums at the reset as a baseline that readers
//    subtract, so an increment racing with the reset is counted either before or after it, exactly once.
//  - Indexed by CommandDefinition.Id; one instance per server (tests run several servers in one process).
using System.Diagnostics;

namespace Garnet.server.Metrics;

public sealed class CommandStatistics
{
    private const int Fields = 4; // calls, ticks, rejected, failed
    private const int Calls = 0, Ticks = 1, RejectedF = 2, FailedF = 3;
    private readonly int _count;
    private readonly ThreadLocal<Block> _blocks;
    private static readonly double s_nsPerTick = 1e9 / Stopwatch.Frequency;

    /// <summary>One thread's counters; written only by that thread.</summary>
    private sealed class Block(int count)
    {
        public readonly long[] Counters = new long[count * Fields];
        public readonly long[]?[] Histograms = new long[]?[count];
    }

    /// <summary>The sums at the last reset (zero before one).</summary>
    private sealed class Baseline(int count)
    {
        public readonly long[] Counters = new long[count * Fields];
        public readonly long[]?[] Histograms = new long[]?[count];
    }

    private volatile Baseline _baseline;
    private readonly object _resetLock = new();

    public CommandStatistics(int commandCount)
    {
        _count = commandCount;
        _blocks = new ThreadLocal<Block>(() => new Block(commandCount), trackAllValues: true);
        _baseline = new Baseline(commandCount);
    }

    /// <summary>latency-tracking: whether each call's duration goes into its command's histogram.</summary>
    public volatile bool TrackLatency = true;

    public static long TicksToNs(long ticks) => Stopwatch.Frequency == 1_000_000_000 ? ticks : (long)(ticks * s_nsPerTick);

    /// <summary>A call of command id ran for ticks (Stopwatch ticks); failed: it answered an error.</summary>
    public void Executed(int id, long ticks, bool failed)
    {
        var block = _blocks.Value!;
        var counters = block.Counters;
        int at = id * Fields;
        counters[at + Calls]++;
        counters[at + Ticks] += ticks;
        if (failed) counters[at + FailedF]++;
        if (TrackLatency)
        {
            var h = block.Histograms[id] ?? NewHistogram(block, id);
            h[LatencyHistogram.BucketOf(TicksToNs(ticks))]++;
        }
    }

    /// <summary>Executed for groups of calls that ran for ticks each (CommandTimer's groups, as runs of one command):
    /// calls[i] calls of ids[i], failed[i] of which answered an error; one look-up of this thread's block and one
    /// histogram bucket for all of them.</summary>
    public void ExecutedRuns(ReadOnlySpan<int> ids, ReadOnlySpan<int> calls, ReadOnlySpan<int> failed, long ticks)
    {
        var block = _blocks.Value!;
        var counters = block.Counters;
        bool track = TrackLatency;
        int bucket = track ? LatencyHistogram.BucketOf(TicksToNs(ticks)) : 0;
        for (int i = 0; i < ids.Length; i++)
        {
            int id = ids[i], at = id * Fields, n = calls[i];
            counters[at + Calls] += n;
            counters[at + Ticks] += ticks * n;
            counters[at + FailedF] += failed[i];
            if (track) (block.Histograms[id] ?? NewHistogram(block, id))[bucket] += n;
        }
    }

    private static long[] NewHistogram(Block block, int id)
    {
        var h = new long[LatencyHistogram.BucketCount];
        Volatile.Write(ref block.Histograms[id], h);
        return h;
    }

    /// <summary>A call of command id was refused before it ran.</summary>
    public void Rejected(int id) => _blocks.Value!.Counters[id * Fields + RejectedF]++;

    public readonly record struct Figures(long Calls, long Usec, long RejectedCalls, long FailedCalls)
    {
        public bool Any => Calls > 0 || RejectedCalls > 0 || FailedCalls > 0;
    }

    public Figures Read(int id)
    {
        var b = _baseline.Counters; // first: a reset after this read makes the figures the pre-reset ones, never negative
        var sums = Sums(id);
        int at = id * Fields;
        long ticks = sums[Ticks] - b[at + Ticks];
        return new Figures(sums[Calls] - b[at + Calls], TicksToNs(ticks) / 1000, sums[RejectedF] - b[at + RejectedF], sums[FailedF] - b[at + FailedF]);
    }

    private long[] Sums(int id)
    {
        var sums = new long[Fields];
        int at = id * Fields;
        foreach (var block in _blocks.Values)
            for (int f = 0; f < Fields; f++) sums[f] += Volatile.Read(ref block.Counters[at + f]);
        return sums;
    }

    /// <summary>Command id's latency histogram summed over the threads since the last reset, or null when it has none
    /// (never called while latency-tracking was on, or not since the reset).</summary>
    public long[]? Histogram(int id)
    {
        var baseline = _baseline.Histograms[id];
        var sum = HistogramSum(id);
        if (sum is null) return null;
        if (baseline is { } b)
            for (int i = 0; i < sum.Length; i++) sum[i] -= b[i];
        return LatencyHistogram.Total(sum) == 0 ? null : sum;
    }

    private long[]? HistogramSum(int id)
    {
        long[]? sum = null;
        foreach (var block in _blocks.Values)
        {
            if (Volatile.Read(ref block.Histograms[id]) is not { } h) continue;
            LatencyHistogram.AddInto(sum ??= new long[LatencyHistogram.BucketCount], h);
        }
        return sum;
    }

    /// <summary>How many times the figures were reset (CONFIG RESETSTAT): the Prometheus exporter counts from 0 again.</summary>
    public int Generation => Volatile.Read(ref _generation);
    private int _generation;

    /// <summary>CONFIG RESETSTAT: the sums now become the baseline.</summary>
    public void Reset()
    {
        lock (_resetLock)
        {
            var baseline = new Baseline(_count);
            for (int id = 0; id < _count; id++)
            {
                Sums(id).CopyTo(baseline.Counters, id * Fields);
                baseline.Histograms[id] = HistogramSum(id);
            }
            _baseline = baseline;
            Interlocked.Increment(ref _generation);
        }
    }
}
