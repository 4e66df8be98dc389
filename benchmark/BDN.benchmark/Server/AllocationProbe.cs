// AllocationProbe: `dotnet run -c Release --project benchmark/BDN.benchmark -- alloc` prints the bytes allocated on
// the calling thread per request for the SessionCommandBenchmarks batches (GC.GetAllocatedBytesForCurrentThread,
// after a warm-up), without BenchmarkDotNet. It is the quick way to see whether a command path allocates; the
// GC's all-thread figure (which BenchmarkDotNet's Allocated column uses) is printed beside it.

namespace BDN.benchmark.Server;

public static class AllocationProbe
{
    public static void Run()
    {
        using var session = new InProcessSession();
        session.LoadBatchKeys();

        const int Batches = 2000;
        Console.WriteLine($"{"command",-8} {"B/request (this thread)",24} {"B/request (all threads)",24}");
        foreach (var command in new[] { "GET", "SET", "INCR", "MGET" })
        {
            var batch = RespBatch.Build(command);
            for (int i = 0; i < 200; i++) session.Run(batch); // warm-up: tiered JIT, pools, lazily created state
            long thread0 = GC.GetAllocatedBytesForCurrentThread(), all0 = GC.GetTotalAllocatedBytes(precise: true);
            for (int i = 0; i < Batches; i++) session.Run(batch);
            long thread = GC.GetAllocatedBytesForCurrentThread() - thread0, all = GC.GetTotalAllocatedBytes(precise: true) - all0;
            double requests = (double)Batches * RespBatch.Commands;
            Console.WriteLine($"{command,-8} {thread / requests,24:F3} {all / requests,24:F3}");
        }
    }
}
