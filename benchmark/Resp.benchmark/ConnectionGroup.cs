// ConnectionGroup: one online-mode thread that drives several connections (--clients), as memtier_benchmark's and
// redis-benchmark's event loops do. Each connection sends its next batch as soon as its window (--itp) has room; the
// thread sleeps in Socket.Select until some of them have replies, receives those, and sends again. Against a thread
// per connection this saves a thread wake and two context switches per reply, so on a small machine the client takes
// less of the CPU it shares with the server.
// Invariants:
//  - Every connection receives on this thread (no reader thread: ClientFactory allows that only while the requests in
//    flight and their replies fit in the socket buffers, so a send never waits on replies nobody reads), and only
//    after Select has reported its socket readable, so a receive never blocks.
//  - After the stop flag is raised no connection sends; Run returns once every reply it asked for has come.
//  - When no connection that waits for replies gets one for the client options' timeout, Run throws TimeoutException
//    (a connection stuck while others progress is caught at the end, when it is the only one left waiting).
using System.Net.Sockets;
using Garnet.client;

namespace Resp.benchmark;

internal static class ConnectionGroup
{
    public static void Run(OnlineConnection[] connections, OnlineWorkload w, RespCommandWriter writer, RequestWriter requests,
        long window, Func<bool> stopped, int timeoutMs)
    {
        var bySocket = new Dictionary<Socket, OnlineConnection>(connections.Length);
        foreach (var c in connections)
            bySocket.Add(c.Client.PollSocket ?? throw new InvalidOperationException("--clients needs plain sockets received on the sending thread"), c);
        foreach (var c in connections) Fill(c, w, writer, requests, window, stopped());

        var ready = new List<Socket>(connections.Length);
        long lastProgress = Environment.TickCount64;
        while (true)
        {
            ready.Clear();
            foreach (var c in connections)
                if (c.Client.Replies < c.Client.Sent) ready.Add(c.Client.PollSocket!);
            if (ready.Count == 0) return;
            Socket.Select(ready, null, null, 100_000);
            long now = Environment.TickCount64;
            if (ready.Count == 0)
            {
                if (now - lastProgress > timeoutMs)
                    throw new TimeoutException($"no reply for {timeoutMs} ms on any of {connections.Length} connections");
                continue;
            }
            lastProgress = now;
            bool stop = stopped();
            foreach (var socket in ready)
            {
                var c = bySocket[socket];
                c.Client.ReceiveReady();
                Fill(c, w, writer, requests, window, stop);
            }
        }
    }

    /// <summary>Sends batches on c while its window has room (--itp batches in flight at most).</summary>
    private static void Fill(OnlineConnection c, OnlineWorkload w, RespCommandWriter writer, RequestWriter requests, long window, bool stop)
    {
        while (!stop && !c.Finished && c.Client.Replies >= c.Client.Sent - window)
            if (!c.SendNext(w, writer, requests)) return;
    }
}
