// ScanCursors: server-side state of SCAN iterations, so one full iteration returns each key that exists throughout
// exactly once. SCAN 0 starts a registered KeyIterator (its end fixed at the tail of that moment) and answers with a
// token; later calls with the token continue that iterator. While iterations are open the store does not reuse freed
// space (see docs/storage.md), so idle ones are dropped after IdleLimit, and at most MaxOpen are kept (the oldest goes).
// A token that is no longer known restarts from the beginning: keys may repeat, none is missed.
// The iterator yields whole log pages; keys of a page that a call's COUNT did not cover wait in the cursor's buffer for
// the next call, so COUNT bounds the keys a call examines, as in Redis.
// Invariants: tokens have bit 62 set (so they never collide with 0); one SCAN call at a time per cursor (its Gate);
// a cursor between Resume and Release (in use) is never dropped by anyone else; buffered keys of all cursors together
// stay under MaxBufferedKeys (idle cursors with buffered keys are dropped, least recently used first).
using Garnet.storage.Store;

namespace Garnet.server.Storage;

public sealed class ScanCursors
{
    public static readonly TimeSpan IdleLimit = TimeSpan.FromSeconds(60);
    public const int MaxOpen = 1024;
    public const long MaxBufferedKeys = 2_000_000;

    public sealed class Cursor(KeyIterator iterator)
    {
        public KeyIterator Iterator { get; } = iterator;
        public long LastUsedMs = Environment.TickCount64;
        /// <summary>Stored keys (with their database prefix) taken from the iterator and not yet examined.</summary>
        public Queue<byte[]> Buffered { get; } = new();
        internal int Users; // SCAN calls between Resume and Release; under ScanCursors' lock
        /// <summary>Held by the SCAN call using the cursor (calls may await the disk, so not a monitor).</summary>
        public SemaphoreSlim Gate { get; } = new(1, 1);
    }

    private long _bufferedTotal;

    private readonly Dictionary<long, Cursor> _open = new();
    private readonly KVStore _store;

    public ScanCursors(KVStore store) => _store = store;

    public int OpenCount { get { lock (_open) return _open.Count; } }

    /// <summary>The cursor for token (a new iteration for 0 or an unknown token); its token comes back in token.</summary>
    public Cursor Resume(ref long token)
    {
        lock (_open)
        {
            if (token != 0 && _open.TryGetValue(token, out var known))
            {
                known.LastUsedMs = Environment.TickCount64;
                known.Users++;
                return known;
            }
            Sweep();
            if (_open.Count >= MaxOpen)
            {
                var oldest = _open.Where(kv => kv.Value.Users == 0).MinBy(kv => kv.Value.LastUsedMs);
                if (oldest.Value is not null) Drop(oldest.Key, oldest.Value);
            }
            token = (1L << 62) | (Random.Shared.NextInt64() & ((1L << 62) - 1));
            var cursor = new Cursor(new KeyIterator(_store)) { Users = 1 };
            _open[token] = cursor;
            return cursor;
        }
    }

    /// <summary>The SCAN call that resumed the cursor is done with it.</summary>
    public void Release(Cursor cursor)
    {
        lock (_open)
        {
            cursor.Users--;
            cursor.LastUsedMs = Environment.TickCount64;
        }
    }

    /// <summary>The iteration ended (or failed): forget it and let the store reuse space again.</summary>
    public void Finish(long token)
    {
        lock (_open)
            if (_open.TryGetValue(token, out var c)) Drop(token, c);
    }

    /// <summary>Moves the keys of a batch into the cursor's buffer; past the global limit, drops idle cursors' buffers.</summary>
    public void Buffer(Cursor cursor, List<IteratedRecord> batch)
    {
        foreach (var r in batch) cursor.Buffered.Enqueue(r.Key);
        if (Interlocked.Add(ref _bufferedTotal, batch.Count) <= MaxBufferedKeys) return;
        lock (_open)
        {
            foreach (var (token, c) in _open.Where(kv => kv.Value.Users == 0 && kv.Value.Buffered.Count > 0).OrderBy(kv => kv.Value.LastUsedMs).ToList())
            {
                if (Interlocked.Read(ref _bufferedTotal) <= MaxBufferedKeys) break;
                Drop(token, c);
            }
        }
    }

    /// <summary>Takes the next buffered key of the cursor, if any.</summary>
    public bool TryTake(Cursor cursor, out byte[] storedKey)
    {
        if (!cursor.Buffered.TryDequeue(out storedKey!)) return false;
        Interlocked.Decrement(ref _bufferedTotal);
        return true;
    }

    public long BufferedKeys => Interlocked.Read(ref _bufferedTotal);

    // Under _open's lock.
    private void Drop(long token, Cursor c)
    {
        _open.Remove(token);
        Interlocked.Add(ref _bufferedTotal, -c.Buffered.Count);
        c.Buffered.Clear();
        c.Iterator.Dispose();
    }

    /// <summary>Drops iterations idle for longer than IdleLimit.</summary>
    public void Sweep()
    {
        lock (_open)
        {
            long now = Environment.TickCount64;
            foreach (var (token, c) in _open.Where(kv => kv.Value.Users == 0 && now - kv.Value.LastUsedMs > IdleLimit.TotalMilliseconds).ToList())
                Drop(token, c);
        }
    }
}
