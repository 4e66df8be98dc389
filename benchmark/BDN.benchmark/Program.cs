// BenchmarkDotNet entry point: dotnet run -c Release --project benchmark/BDN.benchmark -- --filter '*' [--job short]
// `-- alloc` instead prints bytes allocated per request for the in-process session commands (Server/AllocationProbe.cs).
using BenchmarkDotNet.Running;

if (args.Length == 1 && args[0] == "alloc")
{
    BDN.benchmark.Server.AllocationProbe.Run();
    return;
}
BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
