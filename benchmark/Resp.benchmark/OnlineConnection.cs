// OnlineConnection: one online-mode connection with its own key sequence. SendNext encodes the next batch of the
// workload's random mix, stamps each request's op and send time in the connection's LatencyRecorder, and writes it.
// Invariants: one thread at a time uses it; no allocation per batch (the command writer and the request encoder
// belong to the calling thread); the run's --totalops is shared exactly (OpsQuota on OnlineWorkload.Remaining).
using System.Diagnostics;
using Garnet.client;

namespace Resp.benchmark;

/// <summary>What the connections of a run share: the mix and the --totalops quota.</summary>
internal sealed class OnlineWorkload(BenchmarkSettings s)
{
    public readonly BenchmarkSettings Settings = s;
    public readonly int[] Cumulative = Accumulate(s.WorkloadPercents);
    public readonly bool Limited = s.TotalOps > 0;
    public long Remaining = s.TotalOps > 0 ? s.TotalOps : long.MaxValue;

    private static int[] Accumulate(int[] percents)
    {
        var cumulative = new int[percents.Length];
        for (int i = 0, sum = 0; i < percents.Length; i++) cumulative[i] = sum += percents[i];
        return cumulative;
    }
}

internal sealed class OnlineConnection(RespPipelineClient client, LatencyRecorder recorder, KeyChooser chooser)
{
    public RespPipelineClient Client => client;

    /// <summary>The connection sent its last batch (the quota is used up).</summary>
    public bool Finished { get; private set; }

    /// <summary>Sends the next batch; false (nothing sent, Finished set) when the quota has nothing left.</summary>
    public bool SendNext(OnlineWorkload w, RespCommandWriter writer, RequestWriter requests)
    {
        int count = w.Settings.BatchSize;
        if (w.Limited)
        {
            count = OpsQuota.Claim(ref w.Remaining, count, out bool last);
            if (last) Finished = true;
            if (count == 0) return false;
        }
        writer.Reset();
        long seq = client.Sent;
        var ops = w.Settings.WorkloadOps;
        for (int j = 0; j < count; j++)
        {
            int op = ChooseOp(w.Cumulative, chooser);
            requests.Write(writer, ops[op], chooser);
            recorder.SetOp(seq + j, op);
        }
        long now = Stopwatch.GetTimestamp();
        for (int j = 0; j < count; j++) recorder.SetSent(seq + j, now);
        client.Send(writer.Written, count);
        return true;
    }

    private static int ChooseOp(int[] cumulative, KeyChooser chooser)
    {
        if (cumulative.Length == 1) return 0;
        long r = chooser.NextBelow(100);
        for (int i = 0; i < cumulative.Length; i++)
            if (r < cumulative[i]) return i;
        return cumulative.Length - 1;
    }
}
