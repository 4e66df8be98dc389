// LatencyRecorder: the IReplyObserver of one online-mode connection: turns each reply into a latency (reply
// received minus request sent) in one histogram per workload op and one for all ops.
// Invariants:
// - Request slots form a ring of --itp x --batchsize entries indexed by reply sequence. The sender fills a
//   slot (op, send time) before the request is written, and reuses it only after the client has published the
//   reply for the slot's previous request, so the reader never sees a half-written slot.
// - The reader thread is the only writer of the histograms and error counts. The all-ops histogram is an HdrHistogram
//   Recorder, from which the reporter thread takes interval histograms while the reader records (TakeInterval);
//   the per-op histograms are read only after the run.
using System.Diagnostics;
using Garnet.client;
using HdrHistogram;

namespace Resp.benchmark;

public sealed class LatencyRecorder : IReplyObserver
{
    private static readonly double NanosPerTick = 1e9 / Stopwatch.Frequency;
    private static readonly bool TicksAreNanos = Stopwatch.Frequency == 1_000_000_000;

    private readonly byte[] _slotOp;
    private readonly long[] _slotSent;
    private readonly long[] _errors;

    public LatencyRecorder(int workloadOps, int inFlight)
    {
        _slotOp = new byte[inFlight];
        _slotSent = new long[inFlight];
        _errors = new long[workloadOps];
        PerOp = new LongHistogram[workloadOps];
        for (int i = 0; i < workloadOps; i++) PerOp[i] = Latencies.NewHistogram();
    }

    private readonly Recorder _all = Latencies.NewRecorder();
    private HistogramBase? _spare;

    /// <summary>Per workload op; read them only after the reader thread has finished.</summary>
    public LongHistogram[] PerOp { get; }

    /// <summary>Reporter side: adds the latencies recorded since the previous call to <paramref name="into"/>.</summary>
    public void TakeInterval(HistogramBase into)
    {
        _spare = _all.GetIntervalHistogram(_spare);
        into.Add(_spare);
    }

    public long Errors(int op) => Volatile.Read(ref _errors[op]);

    public long TotalErrors
    {
        get
        {
            long sum = 0;
            for (int i = 0; i < _errors.Length; i++) sum += Volatile.Read(ref _errors[i]);
            return sum;
        }
    }

    /// <summary>Sender side: request <paramref name="sequence"/> is op number <paramref name="op"/> of the workload.</summary>
    public void SetOp(long sequence, int op) => _slotOp[sequence % _slotOp.Length] = (byte)op;

    /// <summary>Sender side: request <paramref name="sequence"/> goes out at <paramref name="timestamp"/>.</summary>
    public void SetSent(long sequence, long timestamp) => _slotSent[sequence % _slotSent.Length] = timestamp;

    public void OnReply(long sequence, bool isError, long timestamp)
    {
        int slot = (int)(sequence % _slotSent.Length);
        long ticks = timestamp - _slotSent[slot];
        long nanos = TicksAreNanos ? ticks : (long)(ticks * NanosPerTick);
        int op = _slotOp[slot];
        nanos = Latencies.Clamp(nanos);
        _all.RecordValue(nanos);
        PerOp[op].RecordValue(nanos);
        if (isError) Volatile.Write(ref _errors[op], _errors[op] + 1);
    }
}
