// InProcessServer: our server on a free loopback port for one fixture (as test/Garnet.test/TestServer.cs does).
using Garnet.Options;

namespace Garnet.client.test;

public sealed class InProcessServer : IDisposable
{
    public GarnetServer Server { get; }
    public int Port => Server.Port;
    public string Dir { get; }

    public InProcessServer(Action<GarnetServerOptions>? configure = null)
    {
        Dir = Path.Combine(Path.GetTempPath(), "garnet-client-test-" + Guid.NewGuid().ToString("N"));
        var options = new GarnetServerOptions { Port = 0, Bind = "127.0.0.1", Dir = Dir };
        configure?.Invoke(options);
        Server = new GarnetServer(options);
        Server.Start();
    }

    public RespClient Client() => new("127.0.0.1", Port, 10000);

    public void Dispose()
    {
        Server.Dispose();
        try { Directory.Delete(Dir, true); } catch (IOException) { } catch (UnauthorizedAccessException) { }
    }
}
