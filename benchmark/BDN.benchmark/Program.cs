// BenchmarkDotNet entry point: dotnet run -c Release --project benchmark/BDN.benchmark -- --filter '*' [--job short]
// `-- alloc` instead prints bytes allocated per request for the in-process session commands (Server/AllocationProbe.cs);
// `-- walk 40` compares active expiry's record walk with the loop it replaced (Storage/InMemoryWalkBenchmarks.cs);
// `-- spin GET 10` runs one kind of session batch for 10 s, for a profiler to attach to (Server/ProfileLoop.cs).
using BenchmarkDotNet.Running;

if (args.Length == 1 && args[0] == "alloc")
{
    BDN.benchmark.Server.AllocationProbe.Run();
    return;
}
if (args.Length == 2 && args[0] == "walk")
{
    BDN.benchmark.Storage.InMemoryWalkBenchmarks.Compare(int.Parse(args[1]));
    return;
}
if (args.Length == 3 && args[0] == "spin")
{
    BDN.benchmark.Server.ProfileLoop.Run(args[1], int.Parse(args[2]));
    return;
}
BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
