// ClientFactory: opens the benchmark's connections and decides how each receives its replies.
// Invariants: a client receives on its sending thread only when the request bytes it can have in flight fit well
// inside the kernel's socket buffers (SyncReceiveLimit), so a blocked send can never wait on replies nobody
// reads; otherwise it gets a reader thread (see RespPipelineClient).
using Garnet.client;

namespace Resp.benchmark;

public static class ClientFactory
{
    /// <summary>Most request bytes in flight for which replies are received on the sending thread.</summary>
    public const long SyncReceiveLimit = 32 * 1024;

    public static bool UseSyncReceive(long inFlightRequestBytes) => inFlightRequestBytes <= SyncReceiveLimit;

    public static RespPipelineClient Connect(BenchmarkSettings s, long inFlightRequestBytes, IReplyObserver? observer = null) =>
        RespPipelineClient.Connect(s.Connection, observer, dedicatedReader: !UseSyncReceive(inFlightRequestBytes));

    /// <summary>Largest encoded request among <paramref name="ops"/> (scores take at most 6 digits).</summary>
    public static int MaxRequestBytes(IEnumerable<OpType> ops, KeySpace keys, int mkeys, int ttl)
    {
        var writer = new RespCommandWriter(256);
        var requests = new RequestWriter(keys, mkeys, ttl);
        var chooser = new KeyChooser(keys.DbSize, null, 1);
        int max = 0;
        foreach (var op in ops)
        {
            writer.Reset();
            requests.Write(writer, op, chooser);
            max = Math.Max(max, writer.Length + 8);
        }
        return max;
    }
}
