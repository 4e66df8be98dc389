// IReplyObserver: a callback a RespPipelineClient makes for every reply, on its reader thread (latency recording).
// Invariants: called once per reply, in reply order, from one thread; must not block or allocate, because it runs
// inside the client's receive loop. The client publishes a reply's count only after its callback has returned.
namespace Garnet.client;

public interface IReplyObserver
{
    /// <param name="sequence">0-based index of the reply on this connection (AUTH/HELLO replies not counted).</param>
    /// <param name="isError">The reply is, or contains, an error.</param>
    /// <param name="timestamp">Stopwatch timestamp taken when the bytes completing this reply were received.</param>
    void OnReply(long sequence, bool isError, long timestamp);
}
