// ScanCursors: server-side state of SCAN iterations, so one full iteration returns each key that exists throughout
// exactly once. SCAN 0 starts a registered KeyIterator (its end fixed at the tail of that moment) and answers with a
// token; later calls with the token continue that iterator. While iterations are open the store does not reuse freed
// space (see docs/storage.md), so idle ones are dropped after IdleLimit, and at most MaxOpen are kept (the oldest goes).
// A token that is no longer known restarts from the beginning: keys may repeat, none is missed.
// Invariants: tokens have bit 62 set (so they never collide with 0); one SCAN call at a time per cursor (its lock).
using Garnet.storage.Store;

namespace Garnet.server.Storage;

public sealed class ScanCursors
{
    public static readonly TimeSpan IdleLimit = TimeSpan.FromSeconds(60);
    public const int MaxOpen = 1024;

    public sealed class Cursor(KeyIterator iterator)
    {
        public KeyIterator Iterator { get; } = iterator;
        public long LastUsedMs = Environment.TickCount64;
    }

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
                return known;
            }
            Sweep();
            if (_open.Count >= MaxOpen)
            {
                var oldest = _open.MinBy(kv => kv.Value.LastUsedMs);
                _open.Remove(oldest.Key);
                oldest.Value.Iterator.Dispose();
            }
            token = (1L << 62) | (Random.Shared.NextInt64() & ((1L << 62) - 1));
            var cursor = new Cursor(new KeyIterator(_store));
            _open[token] = cursor;
            return cursor;
        }
    }

    /// <summary>The iteration ended (or failed): forget it and let the store reuse space again.</summary>
    public void Finish(long token)
    {
        lock (_open)
            if (_open.Remove(token, out var c)) c.Iterator.Dispose();
    }

    /// <summary>Drops iterations idle for longer than IdleLimit.</summary>
    public void Sweep()
    {
        lock (_open)
        {
            long now = Environment.TickCount64;
            foreach (var (token, c) in _open.Where(kv => now - kv.Value.LastUsedMs > IdleLimit.TotalMilliseconds).ToList())
            {
                _open.Remove(token);
                c.Iterator.Dispose();
            }
        }
    }
}
