// Loader: the load phase: writes every key of the key space once, with the op's loader command, over
// --load-threads connections, showing a progress bar with ETA.
// Invariants: thread t loads a contiguous slice of key indexes, in batches of at most 4096 commands and about
// 4 MB; every batch's replies are awaited before the next is sent, so the server never holds more than one
// batch per connection. Errors in replies are counted and the first one kept; a connection failure ends the
// phase with an exception.
using System.Diagnostics;
using Garnet.client;

namespace Resp.benchmark;

public static class Loader
{
    public static LoadResult Run(BenchmarkSettings s, KeySpace keys, TextWriter output, bool interactive)
    {
        var loader = s.Loader;
        long total = s.DbSize;
        int threads = (int)Math.Min(s.LoadThreads, total);
        long done = 0;
        var clients = new RespPipelineClient[threads];
        var sw = Stopwatch.StartNew();
        try
        {
            for (int t = 0; t < threads; t++) clients[t] = RespPipelineClient.Connect(s.Connection);
            // Commands per batch: at most 4096, and about 4 MB of requests.
            int perCommand = 64 + 2 * keys.KeyLength + keys.Value.Length;
            int batch = (int)Math.Clamp((4L << 20) / perCommand, 1, 4096);
            var workers = new Task[threads];
            for (int t = 0; t < threads; t++)
            {
                long from = total * t / threads, to = total * (t + 1) / threads;
                var client = clients[t];
                workers[t] = Task.Factory.StartNew(() =>
                {
                    var requests = new RequestWriter(keys, s.MKeys, s.Ttl);
                    var writer = new RespCommandWriter(batch * perCommand);
                    for (long i = from; i < to;)
                    {
                        writer.Reset();
                        long end = Math.Min(to, i + batch);
                        for (long k = i; k < end; k++) requests.WriteLoad(writer, loader, k);
                        client.Execute(writer.Written, writer.Commands);
                        Interlocked.Add(ref done, end - i);
                        i = end;
                    }
                }, TaskCreationOptions.LongRunning);
            }
            var progress = new ProgressBar(output, interactive, "keys");
            var all = Task.WhenAll(workers);
            while (Task.WaitAny([all], 100) < 0) progress.Update(Volatile.Read(ref done), total, sw.Elapsed.TotalSeconds);
            all.GetAwaiter().GetResult();
            double seconds = sw.Elapsed.TotalSeconds;
            progress.Finish(total, total, seconds);
            long errors = clients.Sum(c => c.ErrorReplies);
            string? first = clients.Select(c => c.FirstError).FirstOrDefault(e => e is not null);
            return new LoadResult(total, seconds, errors, first, loader);
        }
        finally
        {
            foreach (var c in clients) c?.Dispose();
        }
    }
}
