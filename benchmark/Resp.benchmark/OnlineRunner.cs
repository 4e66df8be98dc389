// OnlineRunner: latency mode. For each thread count, each thread drives --clients connections (one by default), each
// sending a random mix of ops (--op-workload / --op-percent) from its own key sequence in batches of --batchsize with up
// to --itp batches in flight; every reply's latency goes into histograms; a line of throughput and percentiles is
// printed every second and a table per op at the end.
// Invariants:
// - A request's latency runs from just before the write of its batch to the receive that completed its reply
//   (both Stopwatch timestamps; the receiving thread stamps replies, so a sender waiting does not add to it). With
//   several connections per thread (ConnectionGroup), a reply waits in the socket while the thread serves the others,
//   and that wait counts, as in any event-loop client.
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
        int perThread = s.Clients;
        int connections = threads * perThread;
        var recorders = new LatencyRecorder[connections];
        var clients = new RespPipelineClient[connections];
        try
        {
            for (int i = 0; i < connections; i++)
            {
                recorders[i] = new LatencyRecorder(nOps, inFlight);
                clients[i] = ClientFactory.Connect(s, inFlightBytes, recorders[i]);
            }
            var workload = new OnlineWorkload(s);
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
                    // Connection i draws keys from its own sequence (seeded by i: one connection per thread gives the
                    // same sequences as before --clients existed).
                    var mine = new OnlineConnection[perThread];
                    for (int k = 0; k < perThread; k++)
                    {
                        int i = id * perThread + k;
                        mine[k] = new OnlineConnection(clients[i], recorders[i], new KeyChooser(s.DbSize, zipf, KeyChooser.SeedFor(s.Seed, i, 2)));
                    }
                    var requests = new RequestWriter(keys, s.MKeys, s.Ttl);
                    var writer = new RespCommandWriter(s.BatchSize * 64);
                    try
                    {
                        ready.Signal();
                        go.Wait();
                        long readerStart = mine.Sum(c => c.Client.ReaderAllocatedBytes);
                        long start = GC.GetAllocatedBytesForCurrentThread();
                        if (perThread == 1)
                        {
                            var c = mine[0];
                            while (Volatile.Read(ref stop) == 0)
                            {
                                if (!c.SendNext(workload, writer, requests)) break;
                                c.Client.WaitForReplies(c.Client.Sent - window);
                                if (c.Finished) break;
                            }
                            c.Client.WaitForReplies(c.Client.Sent);
                        }
                        else ConnectionGroup.Run(mine, workload, writer, requests, window, () => Volatile.Read(ref stop) != 0, s.Connection.TimeoutMs);
                        senderAllocated[id] = GC.GetAllocatedBytesForCurrentThread() - start;
                        readerAllocated[id] = mine.Sum(c => c.Client.ReaderAllocatedBytes) - readerStart;
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

    private static readonly int[] IntervalWidths = [6, 12, 9, 9, 9, 9, 10, 9, 7];

    private static string FormatRow(string[] cells) =>
        string.Join("  ", cells.Select((c, i) => c.PadLeft(IntervalWidths[i])));

    public static string FormatInterval(IntervalResult r) => FormatRow([
        Table.Fixed(r.Second, 1), Table.Int((long)r.OpsPerSecond),
        Table.Micros(r.Latency.P50), Table.Micros(r.Latency.P90), Table.Micros(r.Latency.P99),
        Table.Micros(r.Latency.P999), Table.Micros(r.Latency.P9999), Table.Micros(r.Latency.Max),
        Table.Int(r.Errors)]);
}
