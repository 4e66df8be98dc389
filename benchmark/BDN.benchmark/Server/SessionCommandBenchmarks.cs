// GET, SET, INCR and MGET run in process through a real RespServerSession (parse, command table, handler, store,
// reply writer), with no network: see InProcessSession. One invocation runs a pre-built batch of RespBatch.Commands
// requests of one kind, each on its own key, and then resets the reply buffer as the connection loop does after a
// send. Mean and Allocated are per request (OperationsPerInvoke); an MGET request reads RespBatch.MGetKeys keys.
// Keys are 12 bytes, values 16 bytes (SET overwrites with values of the same size, so it updates in place);
// counters hold 10-digit numbers so INCR also stays in place. Every key is loaded in GlobalSetup.
// Target: 0 B allocated per GET, SET and INCR.
using BenchmarkDotNet.Attributes;

namespace BDN.benchmark.Server;

[MemoryDiagnoser]
public class SessionCommandBenchmarks
{
    [Params("GET", "SET", "INCR", "MGET")]
    public string Command { get; set; } = "GET";

    private InProcessSession _session = null!;
    private byte[] _batch = null!;

    [GlobalSetup]
    public void Setup()
    {
        _session = new InProcessSession();
        _session.LoadBatchKeys();

        _batch = RespBatch.Build(Command);
        string reply = _session.RunForText(_batch);
        string expectedStart = Command switch
        {
            "GET" => "$16\r\nvalue:0000000000\r\n",
            "SET" => "+OK\r\n",
            "INCR" => ":1000000001\r\n",
            _ => $"*{RespBatch.MGetKeys}\r\n$16\r\nvalue:0000000000\r\n",
        };
        if (!reply.StartsWith(expectedStart, StringComparison.Ordinal) || reply.Contains("\r\n-") || reply.StartsWith('-'))
            throw new InvalidOperationException($"unexpected reply to {Command}: " + reply[..Math.Min(200, reply.Length)]);
    }

    [GlobalCleanup]
    public void Cleanup() => _session.Dispose();

    [Benchmark(OperationsPerInvoke = RespBatch.Commands)]
    public int RunBatch() => _session.Run(_batch);
}
