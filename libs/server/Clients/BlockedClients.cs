// BlockedClients: clients waiting in a blocking command (BLPOP, BLMOVE, BLMPOP, ...) for a key to receive elements.
// Each key (physical database, name) has a FIFO queue of waiters; a write to the key wakes the waiter at its head only,
// which then tries its pop under the key's lock and, when it got something, leaves every queue and wakes the next
// waiter of that key (there may be more elements). So the first client blocked on a key is the first served.
// A waiter that only reads (XREAD) takes nothing, so a write wakes every such waiter of the key, not only the first.
// Invariants:
//  - A waiter is registered while the blocking command still holds its keys' locks after finding them empty, so no
//    push can fall between its check and its registration.
//  - A waiter holds no thread and no lock while it waits (an async wait on its semaphore); it takes its keys' locks only
//    for an attempt.
//  - Unregister is idempotent; a waiter leaves all its queues once (served, timed out, unblocked, or its client gone).
namespace Garnet.server.Clients;

public sealed class BlockedClients
{
    public sealed class Waiter
    {
        internal Waiter(long clientId, int db, byte[][] keys, bool readsOnly) { ClientId = clientId; Db = db; Keys = keys; ReadsOnly = readsOnly; }

        /// <summary>XREAD: takes nothing from the key, so every such waiter is woken by a write, not only the first.</summary>
        public bool ReadsOnly { get; }

        public long ClientId { get; }
        public int Db { get; }
        public byte[][] Keys { get; }
        internal readonly SemaphoreSlim Wake = new(0);
        internal volatile bool Registered = true;
        /// <summary>Set by CLIENT UNBLOCK: null = not unblocked; false = as a timeout; true = with an error.</summary>
        public volatile object? UnblockedWithError;
    }

    private readonly record struct QueueKey(int Db, byte[] Key);

    private sealed class QueueKeyComparer : IEqualityComparer<QueueKey>
    {
        public bool Equals(QueueKey a, QueueKey b) => a.Db == b.Db && a.Key.AsSpan().SequenceEqual(b.Key);
        public int GetHashCode(QueueKey k)
        {
            var h = new HashCode();
            h.Add(k.Db);
            h.AddBytes(k.Key);
            return h.ToHashCode();
        }
    }

    private readonly object _lock = new();
    private readonly Dictionary<QueueKey, LinkedList<Waiter>> _queues = new(new QueueKeyComparer());
    private readonly Dictionary<long, Waiter> _byClient = new();
    private int _count;

    /// <summary>Clients blocked now (INFO blocked_clients).</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>Keys some client waits for now.</summary>
    public int KeyCount { get { lock (_lock) return _queues.Count; } }

    public Waiter Register(long clientId, int db, byte[][] keys, bool readsOnly = false)
    {
        var w = new Waiter(clientId, db, keys, readsOnly);
        lock (_lock)
        {
            foreach (var key in keys.Distinct(Objects.ByteArrayComparer.Instance))
            {
                var q = new QueueKey(db, key);
                if (!_queues.TryGetValue(q, out var list)) _queues[q] = list = new LinkedList<Waiter>();
                list.AddLast(w);
            }
            _byClient[clientId] = w;
            _count++;
        }
        return w;
    }

    public void Unregister(Waiter w)
    {
        lock (_lock)
        {
            if (!w.Registered) return;
            w.Registered = false;
            foreach (var key in w.Keys)
            {
                var q = new QueueKey(w.Db, key);
                if (!_queues.TryGetValue(q, out var list)) continue;
                bool wasHead = list.First?.Value == w;
                list.Remove(w);
                if (list.Count == 0) _queues.Remove(q);
                else if (wasHead) list.First!.Value.Wake.Release(); // the next one may have something to take
            }
            _byClient.Remove(w.ClientId);
            _count--;
        }
    }

    /// <summary>True when w is first in line for key.</summary>
    public bool IsFirst(Waiter w, byte[] key)
    {
        lock (_lock) return _queues.TryGetValue(new QueueKey(w.Db, key), out var list) && list.First?.Value == w;
    }

    /// <summary>A write happened to key: the first waiter for it tries again.</summary>
    public void Signal(int db, ReadOnlySpan<byte> key)
    {
        if (Volatile.Read(ref _count) == 0) return;
        lock (_lock)
        {
            if (!_queues.TryGetValue(new QueueKey(db, key.ToArray()), out var list)) return;
            list.First!.Value.Wake.Release();
            for (var n = list.First.Next; n is not null; n = n.Next) if (n.Value.ReadsOnly) n.Value.Wake.Release();
        }
    }

    /// <summary>CLIENT UNBLOCK: false when the client is not blocked.</summary>
    public bool Unblock(long clientId, bool withError)
    {
        Waiter? w;
        lock (_lock) _byClient.TryGetValue(clientId, out w);
        if (w is null) return false;
        w.UnblockedWithError = withError;
        w.Wake.Release();
        return true;
    }
}
