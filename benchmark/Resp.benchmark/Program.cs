// Resp.benchmark entry point: see BenchmarkApp and docs/benchmarking.md.
using Resp.benchmark;

return BenchmarkApp.Run(args, Console.Out, Console.Error, interactive: !Console.IsOutputRedirected);
