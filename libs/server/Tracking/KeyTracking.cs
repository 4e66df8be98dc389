// KeyTracking: server-assisted client-side caching (CLIENT TRACKING), as Redis's tracking.c: which clients read which
// keys (default mode, one-shot: a key's entry goes with its invalidation) and which clients watch which key prefixes
// (BCAST). A write of a key sends "invalidate" with the key to them: a RESP3 push on the client's own connection, or a
// message on __redis__:invalidate to the RESP2 client it redirects to (when that one is subscribed). A flush sends a
// null (every key). Keys are tracked by name, whatever their database, as in Redis.
// Invariants:
//  - Active is false while no client tracks: reads and writes then pay one volatile read.
//  - Invalidations are pushed (ISessionChannel.Push) from the writer's thread; to the writer itself they go out after
//    its own reply (the connection holds pushes while it sends a batch).
//  - The table holds at most MaxKeys keys (tracking-table-max-keys); past it, the oldest entries are invalidated
//    early, as Redis evicts them.
using System.Text;
using Garnet.server.Objects;
using Garnet.server.Session;

namespace Garnet.server.Tracking;

public sealed class KeyTracking
{
    public static readonly byte[] ChannelName = "__redis__:invalidate"u8.ToArray();

    private readonly RespServer _server;
    private readonly object _lock = new();
    private readonly Dictionary<byte[], HashSet<long>> _readers = new(ByteArrayComparer.Instance);
    private readonly Dictionary<byte[], HashSet<long>>.AlternateLookup<ReadOnlySpan<byte>> _readerLookup;
    private readonly Queue<byte[]> _order = new(); // keys in the order they entered the table (for eviction)
    private readonly List<(byte[] Prefix, HashSet<long> Clients)> _prefixes = new();
    private int _trackingClients;

    public KeyTracking(RespServer server)
    {
        _server = server;
        _readerLookup = _readers.GetAlternateLookup<ReadOnlySpan<byte>>();
    }

    /// <summary>tracking-table-max-keys (0: no limit).</summary>
    public long MaxKeys { get; set; } = 1_000_000;

    public bool Active => Volatile.Read(ref _trackingClients) > 0;
    public int TrackingClients => Volatile.Read(ref _trackingClients);
    public int TrackedKeys { get { lock (_lock) return _readers.Count; } }
    public int Prefixes { get { lock (_lock) return _prefixes.Count; } }

    public void Enable(RespServerSession s, TrackingState t, long redirect, bool bcast, bool optIn, bool optOut, bool noLoop, List<byte[]> prefixes)
    {
        lock (_lock)
        {
            if (!t.On) _trackingClients++;
            t.On = true;
            t.Redirect = redirect;
            t.BrokenRedirect = false;
            t.Broadcast = bcast;
            t.OptIn = optIn;
            t.OptOut = optOut;
            t.NoLoop = noLoop;
            if (!bcast) return;
            if (prefixes.Count == 0) prefixes = [[]];
            foreach (var p in prefixes)
            {
                if (t.Prefixes.Any(x => x.AsSpan().SequenceEqual(p))) continue;
                t.Prefixes.Add(p);
                int at = _prefixes.FindIndex(e => e.Prefix.AsSpan().SequenceEqual(p));
                if (at < 0) _prefixes.Add((p, new HashSet<long> { s.Id }));
                else _prefixes[at].Clients.Add(s.Id);
            }
        }
    }

    public void Disable(RespServerSession s, TrackingState t)
    {
        lock (_lock)
        {
            if (!t.On) return;
            _trackingClients--;
            foreach (var p in t.Prefixes)
            {
                int at = _prefixes.FindIndex(e => e.Prefix.AsSpan().SequenceEqual(p));
                if (at < 0) continue;
                _prefixes[at].Clients.Remove(s.Id);
                if (_prefixes[at].Clients.Count == 0) _prefixes.RemoveAt(at);
            }
            t.Prefixes.Clear();
            t.On = t.Broadcast = t.OptIn = t.OptOut = t.NoLoop = t.CachingGiven = false;
            t.BrokenRedirect = false;
            t.Redirect = 0;
        }
    }

    /// <summary>After a read command of s: remembers that s may cache key.</summary>
    public void Remember(RespServerSession s, ReadOnlySpan<byte> key)
    {
        List<(byte[] Key, long[] Ids)>? evicted = null;
        lock (_lock)
        {
            if (!_readerLookup.TryGetValue(key, out var ids))
            {
                var k = key.ToArray();
                _readers[k] = ids = new HashSet<long>();
                _order.Enqueue(k);
            }
            ids.Add(s.Id);
            long max = MaxKeys;
            while (max > 0 && _readers.Count > max && _order.Count > 0)
            {
                var old = _order.Dequeue();
                if (!_readers.Remove(old, out var oldIds)) continue;
                (evicted ??= new()).Add((old, oldIds.ToArray()));
            }
        }
        if (evicted is null) return;
        foreach (var (k, ids) in evicted) foreach (long id in ids) SendTo(id, null, k);
    }

    /// <summary>key was written (by writer; null for the server itself): its readers and the BCAST clients of its prefixes
    /// are told.</summary>
    public void Invalidate(RespServerSession? writer, ReadOnlySpan<byte> key)
    {
        long[]? readers = null;
        List<long>? broadcast = null;
        lock (_lock)
        {
            if (_readerLookup.TryGetValue(key, out var ids))
            {
                readers = ids.ToArray();
                _readerLookup.Remove(key); // one-shot: the client reads (and is remembered) again
            }
            foreach (var (prefix, clients) in _prefixes)
                if (key.StartsWith(prefix)) (broadcast ??= new()).AddRange(clients);
        }
        if (readers is null && broadcast is null) return;
        byte[]? keyBytes = null;
        if (readers is not null)
            foreach (long id in readers) SendTo(id, writer, keyBytes ??= key.ToArray(), broadcastOnly: false);
        if (broadcast is not null)
            foreach (long id in broadcast.Distinct()) SendTo(id, writer, keyBytes ??= key.ToArray(), broadcastOnly: true);
    }

    /// <summary>A flush: every tracking client is told that every key is invalid (a null), and the table is emptied.</summary>
    public void InvalidateAll()
    {
        lock (_lock)
        {
            _readers.Clear();
            _order.Clear();
        }
        foreach (var c in _server.Clients.Snapshot())
            if (c.TrackingIfAny is { On: true }) Send(c, c.TrackingIfAny, key: null);
    }

    private void SendTo(long id, RespServerSession? writer, byte[] key, bool broadcastOnly = false)
    {
        if (!_server.Clients.TryGet(id, out var target) || target is null) return;
        var t = target.TrackingIfAny;
        if (t is not { On: true } || t.Broadcast != broadcastOnly) return; // a client that switched modes meanwhile
        if (t.NoLoop && ReferenceEquals(target, writer)) return;
        Send(target, t, key);
    }

    /// <summary>Sends an invalidation of key (null: every key) for client c, to it or to its redirection.</summary>
    private void Send(RespServerSession c, TrackingState t, byte[]? key)
    {
        var to = c;
        if (t.Redirect != 0)
        {
            if (!_server.Clients.TryGet(t.Redirect, out var redirect) || redirect is null || redirect.IsKilled)
            {
                t.BrokenRedirect = true;
                if (c.Protocol >= 3) c.Connection.Push(Encoding.ASCII.GetBytes($">2\r\n$21\r\ntracking-redir-broken\r\n:{t.Redirect}\r\n"));
                return;
            }
            to = redirect;
        }
        var m = new MemoryStream(64 + (key?.Length ?? 0));
        if (to.Protocol >= 3) m.Write(">2\r\n$10\r\ninvalidate\r\n"u8);
        else if (t.Redirect != 0 && to.IsSubscriber) m.Write("*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n"u8);
        else return; // RESP2 without a subscribed redirection: nothing can carry it (as Redis)
        if (key is null) m.Write(to.Protocol >= 3 ? "_\r\n"u8 : "*-1\r\n"u8);
        else
        {
            m.Write(Encoding.ASCII.GetBytes($"*1\r\n${key.Length}\r\n"));
            m.Write(key);
            m.Write("\r\n"u8);
        }
        to.Connection.Push(m.GetBuffer().AsSpan(0, (int)m.Length));
    }
}
