// PendingPushes: messages a connection's commands produce beside their replies. What this client published to
// itself (a PUBLISH it is subscribed to, its own MONITOR line) follows the running command's reply, as Redis 7.2's
// pending push messages, so it never lands inside that reply (an EXEC array, say). What it published to other
// clients is queued on their connections and sent once this batch of requests is done: one send per subscriber.
// Invariant: used only on the connection's own thread.
using Garnet.common.Networking;
using Garnet.common.Resp;

namespace Garnet.server.Session;

internal sealed class PendingPushes
{
    private List<byte[]>? _toSelf;
    private List<ISessionChannel>? _targets;

    /// <summary>Messages for this client wait to follow the running command's reply.</summary>
    public bool ForSelf => _toSelf is not null;

    /// <summary>Other clients have messages queued by this batch, not yet sent.</summary>
    public bool ForOthers => _targets is { Count: > 0 };

    public void AfterReply(byte[] message) => (_toSelf ??= new List<byte[]>()).Add(message);

    /// <summary>Writes the messages for this client after its reply.</summary>
    public void WriteSelf(RespWriter writer)
    {
        foreach (var m in _toSelf!) writer.WriteRaw(m);
        _toSelf = null;
    }

    /// <summary>A message was queued on target as its first pending one without being sent (PushDeferred).</summary>
    public void QueuedOn(ISessionChannel target) => (_targets ??= new()).Add(target);

    /// <summary>Sends what this batch queued on other clients' connections.</summary>
    public void SendOthers()
    {
        foreach (var target in _targets!) target.SendPushes();
        _targets.Clear();
    }
}
