// Command dispatch: finding a command's row in the command table from the raw request bytes of its name, as
// RespServerSession.Execute does (CommandTable.Find, case-insensitive), plus the subcommand lookup for a container
// command (CLIENT SETNAME -> CommandDefinition.FindSubcommand) and a miss (an unknown name). One lookup per
// invocation; the time is per lookup and Allocated must be 0.
using System.Text;
using BenchmarkDotNet.Attributes;
using Garnet.server.Commands;

namespace BDN.benchmark.Server;

[MemoryDiagnoser]
public class CommandDispatchBenchmarks
{
    /// <summary>The request's name (and subcommand, after a space), in the case a client might send it.</summary>
    [Params("GET", "set", "mget", "CLIENT setname", "nosuchcommand")]
    public string Name { get; set; } = "GET";

    private CommandTable _table = null!;
    private byte[] _name = null!;
    private byte[]? _sub;

    [GlobalSetup]
    public void Setup()
    {
        _table = CommandTable.Default;
        var parts = Name.Split(' ');
        _name = Encoding.ASCII.GetBytes(parts[0]);
        _sub = parts.Length > 1 ? Encoding.ASCII.GetBytes(parts[1]) : null;
        bool expectFound = Name != "nosuchcommand";
        if ((Lookup() is not null) != expectFound) throw new InvalidOperationException($"lookup of '{Name}' did not give the expected result");
    }

    [Benchmark]
    public CommandDefinition? Lookup()
    {
        var cmd = _table.Find(_name);
        if (cmd is not null && _sub is not null) cmd = cmd.FindSubcommand(_sub);
        return cmd;
    }
}
