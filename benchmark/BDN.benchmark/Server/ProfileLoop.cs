// ProfileLoop: `dotnet run -c Release --project benchmark/BDN.benchmark -- spin GET 10` runs one SessionCommandBenchmarks
// batch kind over and over for the given seconds, in this process and on this thread, and prints ns per request once a
// second. It exists to attach a sampling profiler (perf record -p, with DOTNET_PerfMapEnabled=1) to the in-process
// session path without BenchmarkDotNet's child processes; the figures are not a measurement (use the benchmarks).
using System.Diagnostics;

namespace BDN.benchmark.Server;

public static class ProfileLoop
{
    public static void Run(string command, int seconds)
    {
        using var session = new InProcessSession();
        session.LoadBatchKeys();
        var batch = RespBatch.Build(command);
        var total = Stopwatch.StartNew();
        while (total.Elapsed.TotalSeconds < seconds)
        {
            var second = Stopwatch.StartNew();
            long requests = 0;
            while (second.ElapsedMilliseconds < 1000)
            {
                for (int i = 0; i < 100; i++) session.Run(batch);
                requests += 100L * RespBatch.Commands;
            }
            Console.WriteLine($"{command}: {second.Elapsed.TotalNanoseconds / requests:F1} ns/request {requests} requests");
        }
    }
}
