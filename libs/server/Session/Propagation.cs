// Propagation: what the running write sends on to the AOF (and, with replication, to replicas): the command as sent,
// a rewrite of it whose replay gives the same result (EXPIRE as PEXPIREAT, SPOP as SREM), several commands replayed as
// one block (XREADGROUP as XCLAIMs), or nothing (a write that changed nothing).
// Invariants:
//  - Cleared before every handler runs (Begin); a handler states at most one form, the last one stated wins.
//  - A rewrite's ArgRefs name the running request's arguments or carry their own bytes: Materialize copies them while
//    the request's arguments are still valid (under the command's key locks).
using Garnet.server.Persistence;

namespace Garnet.server.Session;

public sealed class Propagation
{
    private ArgRef[]? _as;
    private List<ArgRef[]>? _many;

    /// <summary>The write changed nothing: it is not propagated.</summary>
    public bool IsNothing { get; private set; }

    /// <summary>The rewrite of a single command (null: as sent). Meaningless when Several is set.</summary>
    public ArgRef[]? Rewrite => _as;

    /// <summary>The commands of a write propagated as several, or null.</summary>
    public List<ArgRef[]>? Several => _many;

    internal void Begin()
    {
        _as = null;
        _many = null;
        IsNothing = false;
    }

    public void As(ArgRef[] args) => _as = args;

    public void Nothing() => IsNothing = true;

    public void Many(List<ArgRef[]> commands)
    {
        if (commands.Count == 0) { IsNothing = true; return; }
        if (commands.Count == 1) { _as = commands[0]; return; }
        _many = commands;
    }

    /// <summary>The commands this write propagates as, with their bytes copied (db: the database they apply to).</summary>
    internal void Materialize(RespServerSession s, List<(int Db, byte[][] Args)> into)
    {
        if (IsNothing) return;
        if (_many is { } many) foreach (var c in many) into.Add((s.Database, AofLog.Materialize(s, c)));
        else into.Add((s.Database, AofLog.Materialize(s, _as)));
    }
}
