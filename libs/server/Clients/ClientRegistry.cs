// ClientRegistry: the connected clients, by id, for CLIENT LIST / KILL, INFO clients, idle timeout and
// shutdown. Sessions add themselves on start and remove themselves when their connection closes.
using System.Collections.Concurrent;
using Garnet.server.Session;

namespace Garnet.server.Clients;

public sealed class ClientRegistry
{
    private readonly ConcurrentDictionary<long, RespServerSession> _clients = new();
    private long _nextId;

    public long NextId() => Interlocked.Increment(ref _nextId);

    public int Count => _clients.Count;

    public void Add(RespServerSession session) => _clients[session.Id] = session;

    public void Remove(RespServerSession session) => _clients.TryRemove(session.Id, out _);

    public bool TryGet(long id, out RespServerSession? session) => _clients.TryGetValue(id, out session);

    /// <summary>A snapshot ordered by id.</summary>
    public List<RespServerSession> Snapshot()
    {
        var list = _clients.Values.ToList();
        list.Sort((a, b) => a.Id.CompareTo(b.Id));
        return list;
    }
}
