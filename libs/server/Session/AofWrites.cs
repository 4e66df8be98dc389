// AofWrites: a connection's writes to the AOF. It remembers the last record its replies acknowledge, so that with
// --aof-fsync always a reply waits until that record is durable, and it collects the records of an EXEC or a script
// (Batch) to append them as one MULTI ... EXEC block when it ends, replayed whole or not at all.
// Invariant: used only on the connection's own thread; without an AOF every call is a no-op.
using Garnet.server.Persistence;

namespace Garnet.server.Session;

internal sealed class AofWrites
{
    private readonly RespServerSession _session;
    private long _lsn;

    public AofWrites(RespServerSession session) => _session = session;

    /// <summary>While EXEC or a script runs (with an AOF): the records of its writes, appended when it ends.</summary>
    public List<(int Db, byte[][] Args)>? Batch { get; private set; }

    /// <summary>The reply being written waits until the AOF has made lsn durable (with --aof-fsync always).</summary>
    public void RepliesWaitFor(long lsn) => _lsn = lsn;

    /// <summary>Appends args (the running request's arguments, or bytes of their own; null: the request as sent) in the
    /// selected database.</summary>
    public void Append(ArgRef[]? args)
    {
        if (_session.Server.Aof is { } aof) _lsn = aof.Append(_session.Database, _session, args);
    }

    /// <summary>Append for several commands (one block).</summary>
    public void AppendMany(List<ArgRef[]> commands)
    {
        if (commands.Count == 0 || _session.Server.Aof is not { } aof) return;
        if (commands.Count == 1) { Append(commands[0]); return; }
        var records = new List<(int Db, byte[][] Args)>(commands.Count);
        foreach (var c in commands) records.Add((_session.Database, AofLog.Materialize(_session, c)));
        _lsn = aof.AppendTransaction(records);
    }

    public void BeginBatch()
    {
        if (_session.Server.Aof is not null) Batch = new List<(int, byte[][])>();
    }

    /// <summary>Appends the batch as one block (unless discard: a script stopped by SHUTDOWN).</summary>
    public void EndBatch(bool discard)
    {
        var batch = Batch;
        Batch = null;
        if (!discard && batch is { Count: > 0 } && _session.Server.Aof is { } aof) _lsn = aof.AppendTransaction(batch);
    }

    /// <summary>Completes once the writes the replies so far acknowledge are durable (at once unless --aof-fsync always).</summary>
    public ValueTask WaitDurableAsync()
    {
        var aof = _session.Server.Aof;
        if (aof is null || _lsn == 0 || aof.Policy != AofFsync.Always) return default;
        return aof.WaitDurableAsync(_lsn);
    }
}
