// OnlineRunner: latency mode. For each thread count, one connection per thread sends a random mix of ops
// (--op-workload / --op-percent) in batches of --batchsize with up to --itp batches in flight; every reply's
// latency goes into histograms; a line of throughput and percentiles is printed every second and a table per op
// at the end.
// Invariants:
// - A request's latency runs from just before the write of its batch to the receive that completed its reply
//   (both Stopwatch timestamps; the reader thread stamps replies, so a sender waiting does not add to it).
// - Requests are encoded while running (the mix is random), into one reused buffer per thread: no allocation
//   per request. Interval figures come from HdrHistogram Recorders (LatencyRecorder.TakeInterval), so the reporter
//   never stops the recording threads; the run's totals are the sum of its intervals.
using System.Diagnostics;
using Garnet.client;

namespace Resp.benchmark;

public static class OnlineRunner
{
    public static readonly string[] IntervalHeaders = ["second", "ops/s", "p50 us", "p90 us", "p99 us", "p99.9 us", "p99.99 us", "max us", "errors"];

    /// <summary>Request bytes one connection can have in flight (decides how it receives, see ClientFactory).</summary>
    public static long InFlightRequestBytes(BenchmarkSettings s, KeySpace keys) =>
        (long)s.Itp * s.BatchSize * ClientFactory.MaxRequestBytes(s.WorkloadOps, keys, s.MKeys, s.Ttl);

    public static OnlineRunResult RunOnce(BenchmarkSettings s, KeySpace keys, ZipfDistribution? zipf, int threads, TextWriter output)
    {
        int nOps = s.WorkloadOps.Length;
        int inFlight = s.Itp * s.BatchSize;
        long inFlightBytes = InFlightRequestBytes(s, keys);
        var recorders = new LatencyRecorder[threads];
        var clients = new RespPipelineClient[threads];
        try
        {
            for (int t = 0; t < threads; t++)
            {
                recorders[t] = new LatencyRecorder(nOps, inFlight);
                clients[t] = ClientFactory.Connect(s, inFlightBytes, recorders[t]);
            }
            var cumulative = new int[nOps];
            for (int i = 0, sum = 0; i < nOps; i++) cumulative[i] = sum += s.WorkloadPercents[i];

            bool limited = s.TotalOps > 0;
            long remaining = limited ? s.TotalOps : long.MaxValue;
            long window = (long)(s.Itp - 1) * s.BatchSize;
            int stop = 0;
            var senderAllocated = new long[threads];
            var readerAllocated = new long[threads];
            var failures = new Exception?[threads];
            using var ready = new CountdownEvent(threads);
            using var go = new ManualResetEventSlim(false);
            using var finished = new CountdownEvent(threads);
            var workers = new Thread[threads];
            for (int t = 0; t < threads; t++)
            {
                int id = t;
                workers[t] = new Thread(() =>
                {
                    var client = clients[id];
                    var recorder = recorders[id];
                    var chooser = new KeyChooser(s.DbSize, zipf, KeyChooser.SeedFor(s.Seed, id, 2));
                    var requests = new RequestWriter(keys, s.MKeys, s.Ttl);
                    var writer = new RespCommandWriter(s.BatchSize * 64);
                    try
                    {
                        ready.Signal();
                        go.Wait();
                        long readerStart = client.ReaderAllocatedBytes;
                        long start = GC.GetAllocatedBytesForCurrentThread();
                        while (Volatile.Read(ref stop) == 0)
                        {
                            int count = s.BatchSize;
                            bool last = false;
                            if (limited)
                            {
                                count = OpsQuota.Claim(ref remaining, count, out last);
                                if (count == 0) break;
                            }
                            writer.Reset();
                            long seq = client.Sent;
                            for (int j = 0; j < count; j++)
                            {
                                int op = ChooseOp(cumulative, chooser);
                                requests.Write(writer, s.WorkloadOps[op], chooser);
                                recorder.SetOp(seq + j, op);
                            }
                            long now = Stopwatch.GetTimestamp();
                            for (int j = 0; j < count; j++) recorder.SetSent(seq + j, now);
                            client.Send(writer.Written, count);
                            client.WaitForReplies(client.Sent - window);
                            if (last) break;
                        }
                        client.WaitForReplies(client.Sent);
                        senderAllocated[id] = GC.GetAllocatedBytesForCurrentThread() - start;
                        readerAllocated[id] = client.ReaderAllocatedBytes - readerStart;
                    }
                    catch (Exception ex)
                    {
                        failures[id] = ex;
                        Volatile.Write(ref stop, 1);
                    }
                    finally
                    {
                        finished.Signal();
                    }
                }) { IsBackground = true, Name = $"online-{id}" };
                workers[t].Start();
            }

            ready.Wait();
            var intervals = new List<IntervalResult>();
            output.WriteLine(FormatRow(IntervalHeaders));
            var all = Latencies.NewHistogram();
            var interval = Latencies.NewHistogram();
            long previousErrors = 0;
            double previousSecond = 0;
            var sw = Stopwatch.StartNew();
            go.Set();
            long deadlineMs = s.RuntimeSeconds * 1000L;
            for (int tick = 1; ; tick++)
            {
                long wait = Math.Min(tick * 1000L, deadlineMs) - sw.ElapsedMilliseconds;
                bool done = finished.Wait(TimeSpan.FromMilliseconds(Math.Max(0, wait)));
                double second = sw.Elapsed.TotalSeconds;
                if (!done && sw.ElapsedMilliseconds >= deadlineMs)
                {
                    Volatile.Write(ref stop, 1);
                    finished.Wait();
                    done = true;
                    second = sw.Elapsed.TotalSeconds;
                }
                interval.Reset();
                foreach (var r in recorders) r.TakeInterval(interval);
                all.Add(interval);
                long errors = recorders.Sum(r => r.TotalErrors);
                double span = second - previousSecond;
                if (interval.TotalCount > 0 || !done)
                {
                    var row = new IntervalResult(Math.Round(second, 3), interval.TotalCount, span > 0 ? interval.TotalCount / span : 0, errors - previousErrors, LatencySummary.From(interval));
                    intervals.Add(row);
                    output.WriteLine(FormatInterval(row));
                    output.Flush();
                }
                previousErrors = errors;
                previousSecond = second;
                if (done) break;
            }
            double seconds = sw.Elapsed.TotalSeconds;
            foreach (var w in workers) w.Join();
            var failure = failures.FirstOrDefault(f => f is not null);
            if (failure is not null) throw new IOException($"a benchmark connection failed: {failure.Message}", failure);

            var perOp = new List<OpResult>();
            for (int i = 0; i < nOps; i++)
            {
                var h = Latencies.NewHistogram();
                foreach (var r in recorders) h.Add(r.PerOp[i]);
                perOp.Add(new OpResult(s.WorkloadOps[i], recorders.Sum(r => r.Errors(i)), LatencySummary.From(h)));
            }
            return new OnlineRunResult(threads, all.TotalCount, seconds, clients.Sum(c => c.ErrorReplies),
                clients.Select(c => c.FirstError).FirstOrDefault(e => e is not null),
                LatencySummary.From(all), perOp, intervals, senderAllocated.Sum(), readerAllocated.Sum());
        }
        finally
        {
            foreach (var c in clients) c?.Dispose();
        }
    }

    private static int ChooseOp(int[] cumulative, KeyChooser chooser)
    {
        if (cumulative.Length == 1) return 0;
        long r = chooser.NextBelow(100);
        for (int i = 0; i < cumulative.Length; i++)
            if (r < cumulative[i]) return i;
        return cumulative.Length - 1;
    }

    private static readonly int[] IntervalWidths = [6, 12, 9, 9, 9, 9, 10, 9, 7];

    private static string FormatRow(string[] cells) =>
        string.Join("  ", cells.Select((c, i) => c.PadLeft(IntervalWidths[i])));

    public static string FormatInterval(IntervalResult r) => FormatRow([
        Table.Fixed(r.Second, 1), Table.Int((long)r.OpsPerSecond),
        Table.Micros(r.Latency.P50), Table.Micros(r.Latency.P90), Table.Micros(r.Latency.P99),
        Table.Micros(r.Latency.P999), Table.Micros(r.Latency.P9999), Table.Micros(r.Latency.Max),
        Table.Int(r.Errors)]);
}
