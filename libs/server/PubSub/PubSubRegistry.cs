// PubSubRegistry: the server's pub/sub subscriptions (Redis's server.pubsub_channels, pubsub_patterns and
// pubsubshard_channels) and message delivery. PUBLISH, SPUBLISH and keyspace notifications run from the publisher's
// thread: the message is encoded once (RESP2 array and RESP3 push differ only in their first byte) and pushed to each
// subscriber's connection (ISessionChannel.Push, which queues, sends when the connection is idle and disconnects a
// subscriber whose pending pushes pass client-output-buffer-limit pubsub).
// Invariants:
//  - Writers (subscribe, unsubscribe) hold _lock and replace a channel's or the patterns' subscriber arrays (copy on
//    write); publishers take no lock and never allocate for the lookup: they read a consistent array and deliver to each
//    member. A subscriber that leaves while a publish runs may still get that message.
//  - A client's own subscription sets (PubSubClient) change only on its session's thread, always together with the
//    registry (inside the same _lock section), so CLIENT LIST / NUMSUB and the confirmations' counts agree.
//  - A message for the session that is publishing it (a RESP3 client subscribed to its own channel) is not pushed but
//    handed to the session, which writes it after the command's reply (Redis 7.2 postpones such pushes the same way).
//  - A message published by a session's request is queued on each subscriber without a send (PushDeferred) and the
//    session that queued a subscriber's first pending message sends to it once its batch of requests is done
//    (RespServerSession.Process): with pipelined PUBLISHes a subscriber gets one write per batch, as Redis writes each
//    client once per event loop turn.
//  - Nothing is published while no one subscribes: HasSubscribers is one volatile read.
using Garnet.common.Util;
using System.Buffers.Text;
using System.Collections.Concurrent;
using Garnet.server.Objects;
using Garnet.server.Session;
using Garnet.server.Util;

namespace Garnet.server.PubSub;

public sealed class PubSubRegistry
{
    private sealed record PatternEntry(byte[] Pattern, PubSubClient[] Subscribers);

    private readonly object _lock = new();
    private readonly ConcurrentDictionary<byte[], PubSubClient[]> _channels = new(ByteArrayComparer.Instance);
    private readonly ConcurrentDictionary<byte[], PubSubClient[]> _shardChannels = new(ByteArrayComparer.Instance);
    private readonly ConcurrentDictionary<byte[], PubSubClient[]>.AlternateLookup<ReadOnlySpan<byte>> _channelLookup;
    private readonly ConcurrentDictionary<byte[], PubSubClient[]>.AlternateLookup<ReadOnlySpan<byte>> _shardLookup;
    private readonly Dictionary<byte[], PubSubClient[]> _patterns = new(ByteArrayComparer.Instance);
    private volatile PatternEntry[] _patternSnapshot = [];
    private int _channelCount, _shardCount, _subscribedClients, _subscriptions;

    public PubSubRegistry()
    {
        _channelLookup = _channels.GetAlternateLookup<ReadOnlySpan<byte>>();
        _shardLookup = _shardChannels.GetAlternateLookup<ReadOnlySpan<byte>>();
    }

    /// <summary>Channels with at least one subscriber (INFO pubsub_channels).</summary>
    public int ChannelCount => Volatile.Read(ref _channelCount);
    /// <summary>Distinct patterns with at least one subscriber (INFO pubsub_patterns, PUBSUB NUMPAT).</summary>
    public int PatternCount => _patternSnapshot.Length;
    /// <summary>Shard channels with at least one subscriber (INFO pubsubshard_channels).</summary>
    public int ShardChannelCount => Volatile.Read(ref _shardCount);
    /// <summary>Clients with at least one subscription of any kind (INFO pubsub_clients).</summary>
    public int SubscribedClients => Volatile.Read(ref _subscribedClients);
    /// <summary>True when some client subscribes to something: the one check before building a notification.</summary>
    public bool HasSubscribers => Volatile.Read(ref _subscriptions) != 0;

    // ---- subscriptions (the subscriber's session thread) ----

    /// <summary>Adds the client to channel (a shard channel when shard); false when it was subscribed already.</summary>
    public bool Subscribe(PubSubClient c, ReadOnlySpan<byte> channel, bool shard)
    {
        var mine = shard ? c.ShardChannels : c.Channels;
        var key = channel.ToArray();
        lock (_lock)
        {
            int before = c.Total;
            if (!mine.Add(key)) return false;
            var map = shard ? _shardChannels : _channels;
            if (map.TryGetValue(key, out var subs)) map[key] = [.. subs, c];
            else
            {
                map[key] = [c];
                if (shard) _shardCount++; else _channelCount++;
            }
            Added(c, before);
        }
        return true;
    }

    /// <summary>Removes the client from channel; false when it was not subscribed.</summary>
    public bool Unsubscribe(PubSubClient c, ReadOnlySpan<byte> channel, bool shard)
    {
        var mine = shard ? c.ShardChannels : c.Channels;
        lock (_lock)
        {
            if (!mine.GetAlternateLookup<ReadOnlySpan<byte>>().TryGetValue(channel, out var key)) return false;
            mine.Remove(key);
            var map = shard ? _shardChannels : _channels;
            if (map.TryGetValue(key, out var subs))
            {
                var rest = Without(subs, c);
                if (rest.Length > 0) map[key] = rest;
                else
                {
                    map.TryRemove(key, out _);
                    if (shard) _shardCount--; else _channelCount--;
                }
            }
            Removed(c);
        }
        return true;
    }

    public bool PSubscribe(PubSubClient c, ReadOnlySpan<byte> pattern)
    {
        var key = pattern.ToArray();
        lock (_lock)
        {
            int before = c.Total;
            if (!c.Patterns.Add(key)) return false;
            _patterns[key] = _patterns.TryGetValue(key, out var subs) ? [.. subs, c] : [c];
            RebuildPatterns();
            Added(c, before);
        }
        return true;
    }

    public bool PUnsubscribe(PubSubClient c, ReadOnlySpan<byte> pattern)
    {
        lock (_lock)
        {
            if (!c.Patterns.GetAlternateLookup<ReadOnlySpan<byte>>().TryGetValue(pattern, out var key)) return false;
            c.Patterns.Remove(key);
            if (_patterns.TryGetValue(key, out var subs))
            {
                var rest = Without(subs, c);
                if (rest.Length > 0) _patterns[key] = rest;
                else _patterns.Remove(key);
                RebuildPatterns();
            }
            Removed(c);
        }
        return true;
    }

    private void Added(PubSubClient c, int totalBefore)
    {
        c.PublishCounts();
        _subscriptions++;
        if (totalBefore == 0) _subscribedClients++;
    }

    private void Removed(PubSubClient c)
    {
        c.PublishCounts();
        _subscriptions--;
        if (c.Total == 0) _subscribedClients--;
    }

    private void RebuildPatterns() => _patternSnapshot = _patterns.Select(p => new PatternEntry(p.Key, p.Value)).ToArray();

    private static PubSubClient[] Without(PubSubClient[] subs, PubSubClient c)
    {
        int i = Array.IndexOf(subs, c);
        if (i < 0) return subs;
        var rest = new PubSubClient[subs.Length - 1];
        Array.Copy(subs, 0, rest, 0, i);
        Array.Copy(subs, i + 1, rest, i, subs.Length - i - 1);
        return rest;
    }

    // ---- introspection (PUBSUB) ----

    /// <summary>Active channels (or shard channels) matching pattern (all when null).</summary>
    public List<byte[]> ActiveChannels(ReadOnlySpan<byte> pattern, bool all, bool shard)
    {
        var result = new List<byte[]>();
        foreach (var channel in (shard ? _shardChannels : _channels).Keys)
            if (all || GlobPattern.Matches(pattern, channel)) result.Add(channel);
        return result;
    }

    /// <summary>Subscribers of the channel (not counting pattern subscribers).</summary>
    public int NumSub(ReadOnlySpan<byte> channel, bool shard) =>
        (shard ? _shardLookup : _channelLookup).TryGetValue(channel, out var subs) ? subs.Length : 0;

    // ---- publishing (any thread) ----

    /// <summary>Delivers message to the channel's subscribers and, unless shard, to every client whose pattern matches it;
    /// returns how many deliveries there were (a client subscribed twice, by channel and pattern, counts twice).
    /// sender is the session publishing (its own copy waits until its reply is written), or null.</summary>
    public int Publish(ReadOnlySpan<byte> channel, ReadOnlySpan<byte> message, RespServerSession? sender, bool shard = false)
    {
        if (!HasSubscribers) return 0;
        int receivers = 0;
        if ((shard ? _shardLookup : _channelLookup).TryGetValue(channel, out var subs))
            receivers += Deliver(subs, shard ? "smessage"u8 : "message"u8, default, channel, message, sender);
        if (shard) return receivers;
        var patterns = _patternSnapshot;
        foreach (var p in patterns)
            if (GlobPattern.Matches(p.Pattern, channel))
                receivers += Deliver(p.Subscribers, "pmessage"u8, p.Pattern, channel, message, sender);
        return receivers;
    }

    private static int Deliver(PubSubClient[] subs, ReadOnlySpan<byte> kind, ReadOnlySpan<byte> pattern, ReadOnlySpan<byte> channel,
        ReadOnlySpan<byte> message, RespServerSession? sender)
    {
        bool withPattern = kind.Length == 8 && kind[0] == (byte)'p';
        long size = 4 + BulkSize(kind.Length) + (withPattern ? BulkSize(pattern.Length) : 0) + BulkSize(channel.Length) + BulkSize(message.Length);
        byte[]? rented = null;
        Span<byte> buffer = size <= 1024 ? stackalloc byte[1024] : (rented = LargeBuffers.Rent(checked((int)size)));
        try
        {
            int n = 0;
            buffer[n++] = (byte)'*';
            buffer[n++] = (byte)(withPattern ? '4' : '3');
            buffer[n++] = (byte)'\r';
            buffer[n++] = (byte)'\n';
            n += WriteBulk(buffer[n..], kind);
            if (withPattern) n += WriteBulk(buffer[n..], pattern);
            n += WriteBulk(buffer[n..], channel);
            n += WriteBulk(buffer[n..], message);
            var encoded = buffer[..n];
            foreach (var c in subs)
            {
                var session = c.Session;
                encoded[0] = session.Protocol >= 3 ? (byte)'>' : (byte)'*';
                if (ReferenceEquals(session, sender)) session.PushAfterReply(encoded);
                else if (sender is null) session.Connection.Push(encoded);
                else if (session.Connection.PushDeferred(encoded, out bool mustSend) && mustSend) sender.PushedTo(session.Connection);
            }
        }
        finally
        {
            if (rented is not null) LargeBuffers.Return(rented);
        }
        return subs.Length;
    }

    private static long BulkSize(int length) => 1 + Digits(length) + 2 + length + 2;

    private static int Digits(int n)
    {
        int d = 1;
        while (n >= 10) { n /= 10; d++; }
        return d;
    }

    private static int WriteBulk(Span<byte> into, ReadOnlySpan<byte> value)
    {
        into[0] = (byte)'$';
        Utf8Formatter.TryFormat(value.Length, into[1..], out int digits);
        int n = 1 + digits;
        into[n++] = (byte)'\r';
        into[n++] = (byte)'\n';
        value.CopyTo(into[n..]);
        n += value.Length;
        into[n++] = (byte)'\r';
        into[n++] = (byte)'\n';
        return n;
    }
}

/// <summary>
/// One client's subscriptions (Redis's c->pubsub_channels, pubsub_patterns, pubsubshard_channels). The sets change only
/// on the client's session thread, under the registry's lock; the counts are published for other threads (CLIENT LIST).
/// </summary>
public sealed class PubSubClient
{
    internal PubSubClient(RespServerSession session) => Session = session;

    public RespServerSession Session { get; }
    internal readonly HashSet<byte[]> Channels = new(ByteArrayComparer.Instance);
    internal readonly HashSet<byte[]> Patterns = new(ByteArrayComparer.Instance);
    internal readonly HashSet<byte[]> ShardChannels = new(ByteArrayComparer.Instance);
    private volatile int _channels, _patterns, _shard;

    /// <summary>Channels subscribed (CLIENT LIST sub=).</summary>
    public int ChannelCount => _channels;
    /// <summary>Patterns subscribed (psub=).</summary>
    public int PatternCount => _patterns;
    /// <summary>Shard channels subscribed (ssub=).</summary>
    public int ShardChannelCount => _shard;
    /// <summary>Subscriptions of every kind: a RESP2 client with any is in subscribed mode (Redis's CLIENT_PUBSUB flag).</summary>
    public int Total => _channels + _patterns + _shard;

    internal void PublishCounts()
    {
        _channels = Channels.Count;
        _patterns = Patterns.Count;
        _shard = ShardChannels.Count;
    }
}
