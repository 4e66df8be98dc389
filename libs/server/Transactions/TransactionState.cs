// TransactionState: one connection's MULTI/EXEC state: the commands queued since MULTI, whether queueing failed (EXEC
// then answers EXECABORT), and the keys it WATCHes (EXEC then answers null if one of them changed).
// Invariants: only the connection's thread changes it, except WatchBroken, which writers on other threads set (under
// the watched key's lock, see WatchedKeys); the watched entries here are exactly those registered in WatchedKeys.
using Garnet.server.Commands;

namespace Garnet.server.Transactions;

public sealed class TransactionState
{
    public readonly record struct Queued(CommandDefinition Command, byte[][] Args);
    public readonly record struct Watched(int Db, byte[] Key, byte[] Entry, bool Existed);

    private readonly WatchedKeys _registry;
    private readonly List<Queued> _queued = new();
    private readonly List<Watched> _watched = new();

    public TransactionState(WatchedKeys registry) => _registry = registry;

    /// <summary>Between MULTI and EXEC/DISCARD.</summary>
    public bool InMulti { get; private set; }

    /// <summary>A command was refused while queueing (unknown, wrong arity, ...): EXEC answers EXECABORT.</summary>
    public bool QueueingFailed { get; private set; }

    /// <summary>A watched key was changed (set from any thread).</summary>
    public volatile bool WatchBroken;

    /// <summary>Bytes of the queued arguments (bounded by client-query-buffer-limit).</summary>
    public long QueuedBytes { get; private set; }

    public IReadOnlyList<Queued> Commands => _queued;
    public IReadOnlyList<Watched> WatchedKeys => _watched;

    public void Begin() { InMulti = true; QueueingFailed = false; }

    public void FlagQueueingError() { if (InMulti) QueueingFailed = true; }

    public void Enqueue(CommandDefinition cmd, byte[][] args, long bytes)
    {
        if (QueueingFailed || WatchBroken) return; // as Redis: nothing is kept for a transaction that cannot run
        _queued.Add(new Queued(cmd, args));
        QueuedBytes += bytes;
    }

    public void Watch(int db, ReadOnlySpan<byte> key, bool existed)
    {
        foreach (var w in _watched) if (w.Db == db && w.Key.AsSpan().SequenceEqual(key)) return;
        _watched.Add(new Watched(db, key.ToArray(), WatchedKeysEntry(db, key), existed));
        _registry.Watch(this, db, key);
    }

    private static byte[] WatchedKeysEntry(int db, ReadOnlySpan<byte> key) => Transactions.WatchedKeys.EntryOf(db, key);

    /// <summary>Forgets every watch (UNWATCH, EXEC, DISCARD, RESET, disconnect).</summary>
    public void Unwatch()
    {
        if (_watched.Count > 0) _registry.Unwatch(this, _watched.Select(w => w.Entry));
        _watched.Clear();
        WatchBroken = false;
    }

    /// <summary>Leaves MULTI: the queue is dropped and the watches are forgotten.</summary>
    public void Discard()
    {
        InMulti = false;
        QueueingFailed = false;
        _queued.Clear();
        QueuedBytes = 0;
        Unwatch();
    }
}
