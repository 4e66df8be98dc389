// RESP request parsing alone (RespRequestParser.TryParse): a pre-built batch of RespBatch.Commands requests of one
// kind (GET key, SET key value, MGET of 10 keys) is parsed from start to end, as Process does with a receive buffer
// that holds a whole pipeline. No command runs. One invocation = one batch; Mean and Allocated are per request
// (OperationsPerInvoke), so multiply by 100 for the batch.
using BenchmarkDotNet.Attributes;
using Garnet.common.Resp;

namespace BDN.benchmark.Server;

[MemoryDiagnoser]
public class RespParseBenchmarks
{
    [Params("GET", "SET", "MGET")]
    public string Command { get; set; } = "GET";

    private byte[] _batch = null!;
    private RespRequestParser _parser = null!;

    [GlobalSetup]
    public void Setup()
    {
        _batch = RespBatch.Build(Command);
        _parser = new RespRequestParser(new RespLimits());
        if (ParseBatch() != RespBatch.Commands) throw new InvalidOperationException("the batch did not parse into " + RespBatch.Commands + " requests");
    }

    [Benchmark(OperationsPerInvoke = RespBatch.Commands)]
    public int ParseBatch()
    {
        ReadOnlySpan<byte> input = _batch;
        int requests = 0;
        while (_parser.TryParse(input, out int consumed) == ParseStatus.Complete)
        {
            requests++;
            input = input.Slice(consumed);
        }
        return requests;
    }
}
