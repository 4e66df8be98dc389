// OfflineRunner: throughput mode. Pre-builds batches of one op per thread, then for each thread count in
// --threads opens one connection per thread and sends those batches as fast as the server answers, for
// --runtime seconds or until --totalops operations.
// Invariants:
// - Nothing is encoded while the clock runs: each send is one write of a pre-built batch (or of a prefix of
//   it, for the last batch of a --totalops run). A thread sends its next batch when fewer than --itp batches
//   wait for replies, so with --itp 1 the server has one batch per connection at a time.
// - Ops are replies received (every one checked and counted by the client's scanner); the time is from the
//   start signal until the last thread has its last reply.
// - The send loop allocates nothing per batch; the bytes each thread (and each client's reader thread)
//   allocated during the run are measured and reported.
using System.Diagnostics;
using Garnet.client;

namespace Resp.benchmark;

public static class OfflineRunner
{
    /// <summary>Bytes of pre-built batches kept for all threads together (fewer batches per thread beyond this).</summary>
    public const long BatchMemoryBudget = 512L << 20;

    /// <summary>Most batches pre-built per thread (cycled through during the run).</summary>
    public const int MaxBatchesPerThread = 64;

    public static Batch[][] BuildBatches(BenchmarkSettings s, KeySpace keys, ZipfDistribution? zipf, int threads)
    {
        var result = new Batch[threads][];
        long perThread = Math.Clamp((s.DbSize + s.BatchSize - 1) / s.BatchSize, 1, MaxBatchesPerThread);
        for (int t = 0; t < threads; t++)
        {
            var chooser = new KeyChooser(s.DbSize, zipf, KeyChooser.SeedFor(s.Seed, t, 1));
            var requests = new RequestWriter(keys, s.MKeys, s.Ttl);
            var list = new List<Batch> { Batch.Build(s.Op, s.BatchSize, requests, chooser) };
            if (t == 0)
                perThread = Math.Clamp(BatchMemoryBudget / ((long)list[0].Length * threads), 1, perThread);
            while (list.Count < perThread) list.Add(Batch.Build(s.Op, s.BatchSize, requests, chooser));
            result[t] = [.. list];
        }
        return result;
    }

    /// <summary>Request bytes one connection can have in flight (decides how it receives, see ClientFactory).</summary>
    public static long InFlightRequestBytes(BenchmarkSettings s, Batch[][] batches) =>
        (long)s.Itp * batches.Max(perThread => perThread.Max(b => b.Length));

    public static OfflineRunResult RunOnce(BenchmarkSettings s, Batch[][] batches, int threads)
    {
        var clients = new RespPipelineClient[threads];
        try
        {
            long inFlightBytes = InFlightRequestBytes(s, batches);
            for (int t = 0; t < threads; t++) clients[t] = ClientFactory.Connect(s, inFlightBytes);
            bool limited = s.TotalOps > 0;
            long remaining = limited ? s.TotalOps : long.MaxValue;
            int perOp = OpTypes.CommandsPerOp(s.Op);
            long window = (long)(s.Itp - 1) * s.BatchSize * perOp;
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
                    var mine = batches[id];
                    try
                    {
                        ready.Signal();
                        go.Wait();
                        long readerStart = client.ReaderAllocatedBytes;
                        long start = GC.GetAllocatedBytesForCurrentThread();
                        int next = 0;
                        while (Volatile.Read(ref stop) == 0)
                        {
                            var batch = mine[next];
                            if (++next == mine.Length) next = 0;
                            int count = batch.Count;
                            bool last = false;
                            if (limited)
                            {
                                count = OpsQuota.Claim(ref remaining, count, out last);
                                if (count == 0) break;
                            }
                            client.Send(batch.Prefix(count), count * perOp);
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
                }) { IsBackground = true, Name = $"offline-{id}" };
                workers[t].Start();
            }
            ready.Wait();
            var sw = Stopwatch.StartNew();
            go.Set();
            if (!finished.Wait(TimeSpan.FromSeconds(s.RuntimeSeconds))) Volatile.Write(ref stop, 1);
            finished.Wait();
            double seconds = sw.Elapsed.TotalSeconds;
            foreach (var w in workers) w.Join();
            var failure = failures.FirstOrDefault(f => f is not null);
            if (failure is not null) throw new IOException($"a benchmark connection failed: {failure.Message}", failure);
            return new OfflineRunResult(threads,
                clients.Sum(c => c.Replies) / perOp, seconds,
                clients.Sum(c => c.ErrorReplies), clients.Sum(c => c.NullReplies),
                clients.Select(c => c.FirstError).FirstOrDefault(e => e is not null),
                senderAllocated.Sum(), readerAllocated.Sum());
        }
        finally
        {
            foreach (var c in clients) c?.Dispose();
        }
    }
}
