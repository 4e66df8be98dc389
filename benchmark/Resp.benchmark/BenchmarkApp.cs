// BenchmarkApp: the program: options -> settings -> load phase -> offline or online runs -> tables (and JSON).
// Invariants: returns an exit code instead of exiting, and writes only to the writers it is given, so tests run it
// in process. Exit codes: 0 done (errors in replies are reported, not fatal), 1 bad options, 2 a connection or
// protocol failure.
using System.Net.Sockets;
using System.Security.Authentication;
using CommandLine;

namespace Resp.benchmark;

public static class BenchmarkApp
{
    public static int Run(string[] args, TextWriter output, TextWriter errors, bool interactive = false)
    {
        using var parser = new Parser(with =>
        {
            with.HelpWriter = null;
            with.CaseSensitive = false;
            with.AutoVersion = false;
        });
        var parsed = parser.ParseArguments<Options>(args);
        if (parsed is NotParsed<Options> notParsed)
        {
            bool help = notParsed.Errors.All(e => e.Tag is ErrorType.HelpRequestedError);
            var text = CommandLine.Text.HelpText.AutoBuild(parsed, h =>
            {
                h.AddDashesToOption = true;
                h.AutoVersion = false;
                h.Heading = "Resp.benchmark: a batching RESP load generator (throughput and latency)";
                h.Copyright = "Usage: dotnet run -c Release --project benchmark/Resp.benchmark -- [options]   (see docs/benchmarking.md)";
                h.MaximumDisplayWidth = 110;
                return h;
            }, e => e);
            (help ? output : errors).WriteLine(text);
            return help ? 0 : 1;
        }

        BenchmarkSettings s;
        try
        {
            s = BenchmarkSettings.From(parsed.Value);
        }
        catch (SettingsException ex)
        {
            errors.WriteLine(ex.Message);
            return 1;
        }

        try
        {
            Execute(s, output, interactive);
            return 0;
        }
        catch (SettingsException ex)
        {
            output.Flush();
            errors.WriteLine(ex.Message);
            return 1;
        }
        catch (Exception ex) when (ex is IOException or SocketException or TimeoutException or InvalidDataException
                                       or AuthenticationException or FormatException or ObjectDisposedException)
        {
            output.Flush();
            errors.WriteLine($"error: {ex.Message}");
            return 2;
        }
    }

    private static void Execute(BenchmarkSettings s, TextWriter output, bool interactive)
    {
        var keys = new KeySpace(s.DbSize, s.KeyLength, s.ValueLength);
        string target = s.Target + (s.Connection.Tls ? " (TLS)" : "");
        string what = s.Online
            ? "workload " + string.Join(",", s.WorkloadOps.Select((op, i) => $"{op} {s.WorkloadPercents[i]}%"))
            : "op " + s.Op;
        output.WriteLine($"Resp.benchmark {(s.Online ? "online (latency)" : "offline (throughput)")} mode against {target}: {what}");
        output.WriteLine($"dbsize {s.DbSize:N0}, keylength {s.KeyLength}, valuelength {s.ValueLength}, batchsize {s.BatchSize}, itp {s.Itp}, " +
                         $"keys {(s.Zipf ? $"zipf (skew {s.ZipfSkew})" : "uniform")}, threads {string.Join(",", s.Threads)}, " +
                         (s.Clients > 1 ? $"clients {s.Clients} per thread, " : "") +
                         (s.TotalOps > 0 ? $"totalops {s.TotalOps:N0} (at most {s.RuntimeSeconds} s)" : $"runtime {s.RuntimeSeconds} s"));

        ZipfDistribution? zipf = s.Zipf ? new ZipfDistribution(s.DbSize, s.ZipfSkew) : null;

        LoadResult? load = null;
        var loader = s.Loader;
        if (s.Online && s.WorkloadOps.Select(OpTypes.Loader).Where(l => l != LoaderType.None).Distinct().Count() > 1)
            output.WriteLine($"warning: the workload mixes ops on different key types; keys are loaded for {loader} ops, so the others will get WRONGTYPE errors.");
        if (s.SkipLoad || loader == LoaderType.None)
        {
            output.WriteLine(s.SkipLoad ? "Load phase skipped (--skipload)." : $"No load phase ({s.Op} needs no data).");
        }
        else
        {
            output.WriteLine($"Loading {s.DbSize:N0} keys ({LoaderText(loader)}) over {Math.Min(s.LoadThreads, s.DbSize)} connections...");
            load = Loader.Run(s, keys, output, interactive);
            output.WriteLine($"Loaded {load.Keys:N0} keys in {load.Seconds:F2} s ({Table.Rate(load.Keys / Math.Max(load.Seconds, 1e-9))} keys/s), errors: {load.Errors:N0}" +
                             (load.FirstError is null ? "" : $" (first: {load.FirstError})"));
        }

        var offline = new List<OfflineRunResult>();
        var online = new List<OnlineRunResult>();
        if (!s.Online)
        {
            int maxThreads = s.Threads.Max();
            var batches = OfflineRunner.BuildBatches(s, keys, zipf, maxThreads);
            var b = batches[0][0];
            output.WriteLine($"Pre-built {batches[0].Length} batch(es) per thread of {b.Count:N0} {s.Op} commands ({b.Length / 1024.0:F1} KB each); " +
                             ReceiveText(OfflineRunner.InFlightRequestBytes(s, batches)));
            foreach (int threads in s.Threads)
            {
                output.WriteLine($"Running {threads} thread(s)...");
                output.Flush();
                var r = OfflineRunner.RunOnce(s, batches, threads);
                offline.Add(r);
                output.WriteLine($"  {threads} thread(s): {Table.Int((long)r.OpsPerSecond)} ops/s ({Table.Int(r.Ops)} ops in {r.Seconds:F2} s), errors {Table.Int(r.Errors)}");
            }
            output.WriteLine();
            var table = new Table("threads", "ops", "seconds", "ops/s", "errors", "nulls", "alloc B/op");
            foreach (var r in offline)
                table.Add(r.Threads.ToString(), Table.Int(r.Ops), Table.Fixed(r.Seconds, 2), Table.Int((long)r.OpsPerSecond),
                    Table.Int(r.Errors), Table.Int(r.Nulls), Table.Fixed((r.SenderAllocatedBytes + r.ReaderAllocatedBytes) / (double)Math.Max(1, r.Ops), 4));
            table.WriteTo(output);
            ReportErrors(output, offline.Select(r => (r.Threads, r.Errors, r.FirstError)));
            foreach (var r in offline)
                output.WriteLine($"allocations during the {r.Threads}-thread run: {Table.Int(r.SenderAllocatedBytes)} B on send threads, {Table.Int(r.ReaderAllocatedBytes)} B on reader threads");
        }
        else
        {
            long inFlightBytes = OnlineRunner.InFlightRequestBytes(s, keys);
            if (s.Clients > 1 && !ClientFactory.UseSyncReceive(inFlightBytes))
                throw new SettingsException($"--clients needs each connection's requests in flight to fit in {ClientFactory.SyncReceiveLimit:N0} bytes " +
                                            $"(they take {inFlightBytes:N0}): use a smaller --batchsize or --itp.");
            output.WriteLine("Online requests are encoded as they are sent; " + ReceiveText(inFlightBytes) + ".");
            foreach (int threads in s.Threads)
            {
                output.WriteLine($"Running {threads} thread(s){(s.Clients > 1 ? $" x {s.Clients} connections" : "")}, one line per second (latencies in microseconds):");
                var r = OnlineRunner.RunOnce(s, keys, zipf, threads, output);
                online.Add(r);
                output.WriteLine();
                output.WriteLine($"{threads} thread(s): {Table.Int(r.Ops)} ops in {r.Seconds:F2} s = {Table.Int((long)r.OpsPerSecond)} ops/s; latency in microseconds:");
                var table = new Table("op", "ops", "mean", "p50", "p90", "p99", "p99.9", "p99.99", "max", "errors");
                foreach (var op in r.PerOp) AddLatencyRow(table, op.Op.ToString(), op.Latency, op.Errors);
                if (r.PerOp.Count > 1) AddLatencyRow(table, "ALL", r.All, r.Errors);
                table.WriteTo(output);
                output.WriteLine($"allocations during the run: {Table.Int(r.SenderAllocatedBytes)} B on send threads, {Table.Int(r.ReaderAllocatedBytes)} B on reader threads");
                output.WriteLine();
            }
            ReportErrors(output, online.Select(r => (r.Threads, r.Errors, r.FirstError)));
        }

        if (s.JsonFile is not null)
        {
            JsonReport.Write(s.JsonFile, s, load, offline, online);
            output.WriteLine($"Results written to {s.JsonFile}");
        }
        if (s.ChartFile is not null)
        {
            SvgChart.Write(s.ChartFile, s, offline, online);
            output.WriteLine($"Chart written to {s.ChartFile}");
        }
        output.Flush();
    }

    private static void AddLatencyRow(Table table, string name, LatencySummary l, long errors) =>
        table.Add(name, Table.Int(l.Count), Table.Fixed(l.Mean / 1000.0, 2), Table.Micros(l.P50), Table.Micros(l.P90),
            Table.Micros(l.P99), Table.Micros(l.P999), Table.Micros(l.P9999), Table.Micros(l.Max), Table.Int(errors));

    private static void ReportErrors(TextWriter output, IEnumerable<(int Threads, long Errors, string? First)> runs)
    {
        foreach (var (threads, errors, first) in runs)
            if (errors > 0) output.WriteLine($"ERRORS: {errors:N0} error replies in the {threads}-thread run; first: {first}");
    }

    private static string ReceiveText(long inFlightBytes) => ClientFactory.UseSyncReceive(inFlightBytes)
        ? $"replies received on the sending thread ({inFlightBytes:N0} request bytes in flight at most)"
        : $"replies received by a reader thread per connection ({inFlightBytes:N0} request bytes in flight)";

    private static string LoaderText(LoaderType loader) => loader switch
    {
        LoaderType.String => "SET key value",
        LoaderType.Integer => "SET key 0",
        LoaderType.HyperLogLog => "PFADD key key",
        LoaderType.SortedSet => "ZADD key 1 key",
        LoaderType.List => "LPUSH key value",
        LoaderType.Hash => "HSET key key value",
        _ => "nothing",
    };
}
