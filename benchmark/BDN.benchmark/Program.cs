// BenchmarkDotNet entry point: dotnet run -c Release --project benchmark/BDN.benchmark -- --filter '*' [--job short]
using BenchmarkDotNet.Running;

BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
