using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class ShutdownTests
{
    [Test]
    public void ShutdownCommandRaisesEventAndClosesConnection()
    {
        using var server = new TestServer();
        var requested = new ManualResetEventSlim();
        server.Server.ShutdownRequested += requested.Set;
        using var c = server.Client();
        c.Send("SHUTDOWN", "NOSAVE");
        Assert.That(requested.Wait(TimeSpan.FromSeconds(10)), "ShutdownRequested raised");
        Assert.That(c.IsClosedByServer());
    }

    [Test]
    public void ShutdownWithoutHandlerStopsServer()
    {
        using var server = new TestServer();
        int port = server.Port;
        using (var c = server.Client()) c.Send("SHUTDOWN");
        var deadline = DateTime.UtcNow.AddSeconds(10);
        bool refused = false;
        while (!refused && DateTime.UtcNow < deadline)
        {
            try { using var d = new RespClient("127.0.0.1", port, 1000); d.Execute("PING"); Thread.Sleep(50); }
            catch (Exception) { refused = true; }
        }
        Assert.That(refused, "server stopped accepting");
    }

    [Test]
    public void StopFinishesInFlightBatchThenCloses()
    {
        var server = new TestServer();
        using var c = server.Client();
        // A pipelined batch (one receive's worth) is in flight when Stop is called: every reply still arrives.
        var ms = new MemoryStream();
        for (int i = 0; i < 150; i++) ms.Write(RespClient.Encode("ECHO", "x"));
        c.SendRaw(ms.ToArray());
        var first = c.Read();
        var stop = Task.Run(() => server.Dispose());
        int got = 1;
        try { while (got < 150) { c.Read(); got++; } } catch (IOException) { }
        Assert.That(first.Type, Is.EqualTo(RespType.BulkString));
        Assert.That(got, Is.EqualTo(150));
        Assert.That(stop.Wait(TimeSpan.FromSeconds(10)));
        Assert.That(c.IsClosedByServer());
    }
}
