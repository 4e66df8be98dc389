// WatchedKeys: which transactions WATCH which keys (Redis's per-db watched_keys), so a write can break the watches on
// the keys it changed (TransactionState.WatchBroken, read by EXEC).
// Invariants:
//  - A write touches its keys while it still holds their key locks, and EXEC checks WatchBroken after taking the locks
//    of its own keys: a write either breaks the watch before EXEC looks, or runs after EXEC.
//  - Any is false when nobody watches, so writes pay one volatile read then.
using Garnet.server.Objects;

namespace Garnet.server.Transactions;

public sealed class WatchedKeys
{
    private readonly object _lock = new();
    // key: the database (4 bytes, big-endian) then the client's key
    private readonly Dictionary<byte[], List<TransactionState>> _watchers = new(ByteArrayComparer.Instance);
    private readonly Dictionary<byte[], List<TransactionState>>.AlternateLookup<ReadOnlySpan<byte>> _lookup;
    private int _entries;

    public WatchedKeys() => _lookup = _watchers.GetAlternateLookup<ReadOnlySpan<byte>>();

    /// <summary>True when some transaction watches some key.</summary>
    public bool Any => Volatile.Read(ref _entries) > 0;

    /// <summary>Number of watched (database, key) pairs.</summary>
    public int Count => Volatile.Read(ref _entries);

    private static byte[] Entry(int db, ReadOnlySpan<byte> key)
    {
        var e = new byte[4 + key.Length];
        System.Buffers.Binary.BinaryPrimitives.WriteInt32BigEndian(e, db);
        key.CopyTo(e.AsSpan(4));
        return e;
    }

    /// <summary>Adds t as a watcher of key in db (once).</summary>
    public void Watch(TransactionState t, int db, ReadOnlySpan<byte> key)
    {
        var entry = Entry(db, key);
        lock (_lock)
        {
            if (!_watchers.TryGetValue(entry, out var list)) _watchers[entry] = list = new List<TransactionState>(1);
            if (list.Contains(t)) return;
            list.Add(t);
            _entries++;
        }
    }

    /// <summary>Removes t from the watchers of the given entries.</summary>
    public void Unwatch(TransactionState t, IEnumerable<byte[]> entries)
    {
        lock (_lock)
        {
            foreach (var entry in entries)
            {
                if (!_watchers.TryGetValue(entry, out var list) || !list.Remove(t)) continue;
                _entries--;
                if (list.Count == 0) _watchers.Remove(entry);
            }
        }
    }

    public static byte[] EntryOf(int db, ReadOnlySpan<byte> key) => Entry(db, key);

    /// <summary>A write changed key in db: every transaction watching it fails its EXEC.</summary>
    public void Touch(int db, ReadOnlySpan<byte> key)
    {
        if (!Any) return;
        Span<byte> entry = key.Length <= 252 ? stackalloc byte[4 + key.Length] : new byte[4 + key.Length];
        System.Buffers.Binary.BinaryPrimitives.WriteInt32BigEndian(entry, db);
        key.CopyTo(entry[4..]);
        lock (_lock)
        {
            if (!_lookup.TryGetValue(entry, out var list)) return;
            foreach (var t in list) t.WatchBroken = true;
        }
    }

    /// <summary>The watched keys of the databases dbs, with their watchers (for FLUSHDB, FLUSHALL, SWAPDB, which break only
    /// the watches of keys that exist).</summary>
    public List<(int Db, byte[] Key, TransactionState[] Watchers)> WatchedIn(Func<int, bool> dbs)
    {
        var found = new List<(int, byte[], TransactionState[])>();
        if (!Any) return found;
        lock (_lock)
        {
            foreach (var (entry, list) in _watchers)
            {
                int db = System.Buffers.Binary.BinaryPrimitives.ReadInt32BigEndian(entry);
                if (dbs(db)) found.Add((db, entry[4..], list.ToArray()));
            }
        }
        return found;
    }
}
