// SigkillUnderLoad: the shape of a durability test: start the server, keep a pipelined writer busy (at most depth units
// unacknowledged), SIGKILL the server mid-load, restart it on the same directory, and check what came back against the
// number of units acknowledged.
using Garnet.client;

namespace Garnet.test;

internal static class SigkillUnderLoad
{
    /// <summary>sendUnit(c, n) sends unit n (0, 1, ...); readUnit(c) reads one unit's replies and throws on a wrong one;
    /// check(c, acked) runs on a client of the restarted server. The load runs loadFor (2 s), and on until more than
    /// ackedAtLeast units are acknowledged (at most 30 s more: a slow disk or a cold server must not leave too small a
    /// load to check).</summary>
    public static void Run(string prefix, Func<int, string> args, int depth, Action<RespClient, long> sendUnit, Action<RespClient> readUnit,
        Action<RespClient, long> check, TimeSpan? loadFor = null, long ackedAtLeast = 0)
    {
        var dir = Directory.CreateTempSubdirectory(prefix).FullName;
        try
        {
            int port = shared.TestPorts.Free();
            long acked = 0;
            using (var server = ProcessTests.Start(args(port), dir))
            {
                ProcessTests.WaitForPort(port, server);
                var writer = Task.Run(() =>
                {
                    try
                    {
                        using var c = new RespClient("127.0.0.1", port, 5000);
                        long sent = 0;
                        while (true)
                        {
                            while (sent - Volatile.Read(ref acked) < depth) sendUnit(c, sent++);
                            readUnit(c);
                            Volatile.Write(ref acked, acked + 1); // replies come in order: unit n's acknowledge unit n
                        }
                    }
                    catch (Exception ex) when (ex is IOException or System.Net.Sockets.SocketException) { } // the server died
                });
                Thread.Sleep(loadFor ?? TimeSpan.FromSeconds(2));
                Poll.Until(() => Volatile.Read(ref acked) > ackedAtLeast || writer.IsCompleted, TimeSpan.FromSeconds(30));
                server.Kill(); // SIGKILL
                server.WaitForExit();
                Assert.That(writer.Wait(TimeSpan.FromSeconds(30)));
            }
            using var again = ProcessTests.Start(args(port), dir);
            try
            {
                ProcessTests.WaitForPort(port, again);
                using var c = new RespClient("127.0.0.1", port, 30000);
                check(c, acked);
            }
            finally
            {
                again.Kill();
                again.WaitForExit();
            }
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }
}
